// Catalogs: each is a connector that names its schemas and tables, describes their columns, and cuts
// a table into splits. Splits are plain data: a worker thread reads one without asking the main thread.

import { BIGINT, VARCHAR, type SqlType, typeDisplayName } from '../data/types.js';
import type { Column, Page } from '../data/page.js';
import { pageFromRows } from './rows.js';

export interface ColumnMetadata {
  readonly name: string;
  readonly type: SqlType;
  /** Number of distinct values, when the connector knows it (guides filter selectivity). */
  readonly distinctValues?: number;
}

export interface TableMetadata {
  readonly catalog: string;
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly ColumnMetadata[];
  /** Estimated rows, for planning. */
  readonly rowCount: number;
  /** Column positions forming a unique key, when the connector knows one (guides join order). */
  readonly primaryKey?: readonly number[];
  /**
   * Column positions whose values never span splits: all rows sharing them are in one split (a
   * grouping on them can finish within each split). tpch lineitem by orderkey, partsupp by partkey.
   */
  readonly partitionedBy?: readonly number[];
}

/**
 * A unit of scan work. `pages` splits carry their data (already in SharedArrayBuffers); a page may
 * be sparse (columns nobody reads are absent). `generated` splits are produced by a worker: it
 * generates `columns` and combines them with the `cached` ones (sparse, table-wide positions).
 */
export type Split =
  | { readonly kind: 'pages'; readonly pages: readonly Page[]; readonly rows: number }
  | {
      readonly kind: 'generated';
      readonly connector: string;
      readonly descriptor: unknown;
      readonly rows: number;
      readonly cacheKey: string;
      readonly columns: readonly number[];
      readonly cached: readonly (Column | undefined)[];
    };

/** Table data a connector holds in this process (system.runtime.table_data). */
export interface HeldTableData {
  readonly catalog: string;
  readonly schema: string;
  readonly table: string;
  readonly rows: number;
  /** Columns held (a tpch table holds only the columns queries have read so far). */
  readonly columns: number;
  /** Bytes of the held buffers, as they sit in memory. */
  readonly bytes: number;
  /** The same columns in Arrow's plain layout (see arrowBytes): the yardstick. */
  readonly arrowBytes: number;
}

/** A view: its query's text, planned where it is referenced, with the session it was created in. */
export interface ViewDefinition {
  readonly catalog: string;
  readonly schema: string;
  readonly name: string;
  /** The query text (SELECT …), as written in CREATE VIEW. */
  readonly sql: string;
  /** Its columns when created (names and types a reference sees). */
  readonly columns: readonly ColumnMetadata[];
  /** The session's catalog and schema at CREATE VIEW: the query's unqualified names resolve there. */
  readonly sessionCatalog: string | undefined;
  readonly sessionSchema: string | undefined;
}

/**
 * Who reads the metadata tables (information_schema, system.runtime): rows about what they may not
 * see are left out. Absent: a trusted reader, who sees everything.
 */
export interface MetadataViewer {
  /** The reader's user name (the identity catalog shows what the admin API would show them). */
  readonly user: string;
  canSeeTable(catalog: string, schema: string, table: string): boolean;
  canSeeQuery(queryId: string): boolean;
}

export interface Connector {
  listSchemas(): string[];
  /** Base tables (views are listed by listViews). */
  listTables(schema: string): string[];
  /** The schema's views; absent = the connector has none. */
  listViews?(schema: string): string[];
  getView?(schema: string, name: string): ViewDefinition | undefined;
  getTable(schema: string, table: string): TableMetadata | undefined;
  /**
   * Cuts a table into splits of about `targetRows` rows each; `columns` (table positions) are the
   * ones the scan reads; metadata tables leave out rows `viewer` may not see.
   */
  splits(table: TableMetadata, targetRows: number, columns?: readonly number[], viewer?: MetadataViewer): Split[];
  /**
   * Whether getTable answers the same for a schema's tables for the life of the process, so a plan
   * over them may be reused (data is read at execution time either way). Absent = no.
   */
  hasStableMetadata?(schema: string): boolean;
  /** The table data this connector keeps in memory; absent when it keeps none. */
  heldTables?(): HeldTableData[];
}

export class CatalogRegistry {
  private readonly catalogs = new Map<string, Connector>();
  private readonly registered = new Map<string, Connector>();

  register(name: string, connector: Connector): void {
    this.registered.set(name, connector);
    this.catalogs.set(name, new WithInformationSchema(name, connector, this));
  }

  /** The connector as registered, without `information_schema` (to reach e.g. the memory connector's writes). */
  unwrap(name: string): Connector | undefined {
    return this.registered.get(name);
  }

  names(): string[] {
    return [...this.catalogs.keys()].sort();
  }

  get(name: string): Connector | undefined {
    return this.catalogs.get(name);
  }
}

const INFORMATION_SCHEMA = 'information_schema';

const INFO_TABLES: Record<string, ColumnMetadata[]> = {
  schemata: [
    { name: 'catalog_name', type: VARCHAR },
    { name: 'schema_name', type: VARCHAR },
  ],
  tables: [
    { name: 'table_catalog', type: VARCHAR },
    { name: 'table_schema', type: VARCHAR },
    { name: 'table_name', type: VARCHAR },
    { name: 'table_type', type: VARCHAR },
  ],
  views: [
    { name: 'table_catalog', type: VARCHAR },
    { name: 'table_schema', type: VARCHAR },
    { name: 'table_name', type: VARCHAR },
    { name: 'view_definition', type: VARCHAR },
  ],
  columns: [
    { name: 'table_catalog', type: VARCHAR },
    { name: 'table_schema', type: VARCHAR },
    { name: 'table_name', type: VARCHAR },
    { name: 'column_name', type: VARCHAR },
    { name: 'ordinal_position', type: BIGINT },
    { name: 'column_default', type: VARCHAR },
    { name: 'is_nullable', type: VARCHAR },
    { name: 'data_type', type: VARCHAR },
  ],
};

/** Adds the `information_schema` every catalog has, generated from the connector's own metadata. */
class WithInformationSchema implements Connector {
  constructor(
    private readonly catalog: string,
    private readonly inner: Connector,
    private readonly registry: CatalogRegistry,
  ) {}

  listSchemas(): string[] {
    return [...new Set([INFORMATION_SCHEMA, ...this.inner.listSchemas()])].sort();
  }

  listTables(schema: string): string[] {
    return schema === INFORMATION_SCHEMA ? Object.keys(INFO_TABLES).sort() : this.inner.listTables(schema);
  }

  listViews(schema: string): string[] {
    return schema === INFORMATION_SCHEMA ? [] : (this.inner.listViews?.(schema) ?? []);
  }

  getView(schema: string, name: string): ViewDefinition | undefined {
    return schema === INFORMATION_SCHEMA ? undefined : this.inner.getView?.(schema, name);
  }

  getTable(schema: string, table: string): TableMetadata | undefined {
    if (schema !== INFORMATION_SCHEMA) return this.inner.getTable(schema, table);
    const columns = INFO_TABLES[table];
    return columns ? { catalog: this.catalog, schema, name: table, columns, rowCount: 1000 } : undefined;
  }

  hasStableMetadata(schema: string): boolean {
    return schema === INFORMATION_SCHEMA || (this.inner.hasStableMetadata?.(schema) ?? false);
  }

  splits(table: TableMetadata, targetRows: number, columns?: readonly number[], viewer?: MetadataViewer): Split[] {
    if (table.schema !== INFORMATION_SCHEMA) return this.inner.splits(table, targetRows, columns, viewer);
    const all = this.informationRows(table.name);
    // Every information_schema table starts with (catalog, schema[, table]).
    const rows = viewer === undefined ? all : all.filter((r) => (r.length >= 3 && table.name !== 'schemata' ? viewer.canSeeTable(this.catalog, r[1] as string, r[2] as string) : this.schemaVisible(viewer, r[1] as string)));
    const page = pageFromRows(table.columns.map((c) => c.type), rows);
    return [{ kind: 'pages', pages: [page], rows: page.length }];
  }

  private schemaVisible(viewer: MetadataViewer, schema: string): boolean {
    if (schema === INFORMATION_SCHEMA) return viewer.canSeeTable(this.catalog, schema, 'tables');
    return [...this.listTables(schema), ...this.listViews(schema)].some((t) => viewer.canSeeTable(this.catalog, schema, t));
  }

  private informationRows(table: string): unknown[][] {
    const schemas = this.inner.listSchemas();
    switch (table) {
      case 'schemata':
        return this.listSchemas().map((s) => [this.catalog, s]);
      case 'tables': {
        const out: unknown[][] = [];
        for (const s of this.listSchemas()) {
          for (const t of this.listTables(s)) out.push([this.catalog, s, t, 'BASE TABLE']);
          for (const v of this.listViews(s)) out.push([this.catalog, s, v, 'VIEW']);
        }
        return out;
      }
      case 'views': {
        const out: unknown[][] = [];
        for (const s of this.listSchemas()) for (const v of this.listViews(s)) out.push([this.catalog, s, v, this.getView(s, v)?.sql ?? null]);
        return out;
      }
      case 'columns': {
        const out: unknown[][] = [];
        for (const s of [...schemas, INFORMATION_SCHEMA]) {
          for (const name of [...this.listTables(s), ...this.listViews(s)]) {
            const columns = this.getTable(s, name)?.columns ?? this.getView(s, name)?.columns;
            columns?.forEach((c, i) => out.push([this.catalog, s, name, c.name, i + 1, null, 'YES', typeDisplayName(c.type)]));
          }
        }
        return out;
      }
      default:
        void this.registry;
        return [];
    }
  }
}
