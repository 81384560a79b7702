// The `system` catalog: runtime.nodes, runtime.queries, runtime.tasks and runtime.table_data (the
// table data the connectors hold in memory), read from the coordinator through a provider at scan
// time (rows are materialised on the main thread; these tables are small).

import { BIGINT, BOOLEAN, TIMESTAMP, VARCHAR, type SqlType } from '../data/types.js';
import type { ColumnMetadata, Connector, MetadataViewer, Split, TableMetadata } from './catalog.js';
import { pageFromRows } from './rows.js';

/** The runtime tables' rows; queries and tasks only those of queries `viewer` may see. */
export interface SystemDataProvider {
  nodes(): unknown[][];
  queries(viewer?: MetadataViewer): unknown[][];
  tasks(viewer?: MetadataViewer): unknown[][];
  tableData(viewer?: MetadataViewer): unknown[][];
}

const col = (name: string, type: SqlType): ColumnMetadata => ({ name, type });

export const SYSTEM_TABLES: Record<string, Record<string, ColumnMetadata[]>> = {
  runtime: {
    nodes: [col('node_id', VARCHAR), col('http_uri', VARCHAR), col('node_version', VARCHAR), col('coordinator', BOOLEAN), col('state', VARCHAR)],
    queries: [
      col('query_id', VARCHAR),
      col('state', VARCHAR),
      col('user', VARCHAR),
      col('source', VARCHAR),
      col('query', VARCHAR),
      col('queued_time_ms', BIGINT),
      col('analysis_time_ms', BIGINT),
      col('planning_time_ms', BIGINT),
      col('created', TIMESTAMP),
      col('started', TIMESTAMP),
      col('last_heartbeat', TIMESTAMP),
      col('end', TIMESTAMP),
      col('error_type', VARCHAR),
      col('error_code', VARCHAR),
    ],
    tasks: [
      col('node_id', VARCHAR),
      col('task_id', VARCHAR),
      col('stage_id', VARCHAR),
      col('query_id', VARCHAR),
      col('state', VARCHAR),
      col('splits', BIGINT),
      col('queued_splits', BIGINT),
      col('running_splits', BIGINT),
      col('completed_splits', BIGINT),
      col('split_scheduled_time_ms', BIGINT),
      col('split_cpu_time_ms', BIGINT),
      col('split_blocked_time_ms', BIGINT),
      col('raw_input_bytes', BIGINT),
      col('raw_input_rows', BIGINT),
      col('processed_input_bytes', BIGINT),
      col('processed_input_rows', BIGINT),
      col('output_bytes', BIGINT),
      col('output_rows', BIGINT),
      col('physical_input_bytes', BIGINT),
      col('physical_written_bytes', BIGINT),
      col('created', TIMESTAMP),
      col('start', TIMESTAMP),
      col('last_heartbeat', TIMESTAMP),
      col('end', TIMESTAMP),
    ],
    table_data: [
      col('catalog_name', VARCHAR),
      col('schema_name', VARCHAR),
      col('table_name', VARCHAR),
      col('row_count', BIGINT),
      col('columns_held', BIGINT),
      col('held_bytes', BIGINT),
      col('arrow_bytes', BIGINT),
    ],
  },
};

const ROWS_OF: Record<string, (p: SystemDataProvider, viewer?: MetadataViewer) => unknown[][]> = {
  nodes: (p) => p.nodes(),
  queries: (p, v) => p.queries(v),
  tasks: (p, v) => p.tasks(v),
  table_data: (p, v) => p.tableData(v),
};

export class SystemConnector implements Connector {
  constructor(private readonly provider: SystemDataProvider) {}

  listSchemas(): string[] {
    return Object.keys(SYSTEM_TABLES);
  }

  listTables(schema: string): string[] {
    return Object.keys(SYSTEM_TABLES[schema] ?? {}).sort();
  }

  /** Table definitions are fixed (rows are read at execution time). */
  hasStableMetadata(): boolean {
    return true;
  }

  getTable(schema: string, table: string): TableMetadata | undefined {
    const columns = SYSTEM_TABLES[schema]?.[table];
    return columns ? { catalog: 'system', schema, name: table, columns, rowCount: 100 } : undefined;
  }

  splits(table: TableMetadata, _targetRows?: number, _columns?: readonly number[], viewer?: MetadataViewer): Split[] {
    const rows = ROWS_OF[table.name](this.provider, viewer);
    const page = pageFromRows(table.columns.map((c) => c.type), rows);
    return [{ kind: 'pages', pages: [page], rows: page.length }];
  }
}
