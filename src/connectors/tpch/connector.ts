// The `tpch` catalog: schemas `tiny` (scale 0.01) and `sf<n>` for any positive n. Splits are
// generated on worker threads the first time and cached here (SharedArrayBuffer pages), so later
// queries scan memory. Split boundaries are fixed per table so cache keys stay stable.

import type { Connector, HeldTableData, Split, TableMetadata } from '../catalog.js';
import { arrowBytes } from '../../data/arrow.js';
import { columnBytes, type Column } from '../../data/page.js';
import { TPCH_TABLE_NAMES, TPCH_TABLES, tpchRowCount, tpchSplits, type TpchTableName } from './index.js';

/**
 * Bounds of rows per generated split: enough splits to keep every worker busy, few enough to
 * amortise calls. sf1 lineitem is 12 splits: with 23 (a 2^18 bound) each query's requests carried
 * twice the page objects to clone and its scans twice the per-split work, and Q1/Q6 ran 15-25%
 * slower end to end.
 */
export const TPCH_MIN_SPLIT_ROWS = 1 << 14;
export const TPCH_MAX_SPLIT_ROWS = 1 << 19;
/** Splits a table is cut into when its size allows (a power of two of rows each, so cache keys are stable). */
const TARGET_SPLITS = 8;

function splitRowsFor(rows: number): number {
  let size = TPCH_MIN_SPLIT_ROWS;
  while (size < TPCH_MAX_SPLIT_ROWS && size * TARGET_SPLITS < rows) size *= 2;
  return size;
}

/** TPC-H primary keys by column name. */
const PRIMARY_KEYS: Record<string, string[]> = {
  region: ['regionkey'],
  nation: ['nationkey'],
  supplier: ['suppkey'],
  customer: ['custkey'],
  part: ['partkey'],
  partsupp: ['partkey', 'suppkey'],
  orders: ['orderkey'],
  lineitem: ['orderkey', 'linenumber'],
};

/** Distinct values of tpch's low-cardinality columns (dbgen's fixed domains, any scale). */
const DISTINCT_VALUES: Record<string, Record<string, number>> = {
  region: { name: 5 },
  nation: { name: 25, regionkey: 5 },
  supplier: { nationkey: 25 },
  customer: { nationkey: 25, mktsegment: 5 },
  part: { mfgr: 5, brand: 25, type: 150, size: 50, container: 40 },
  orders: { orderstatus: 3, orderpriority: 5, shippriority: 1 },
  lineitem: { returnflag: 3, linestatus: 2, linenumber: 7, quantity: 50, discount: 11, tax: 9, shipinstruct: 4, shipmode: 7 },
};

/** Schemas Trino lists; any other `sf<number>` also resolves. */
const LISTED_SCHEMAS = ['tiny', 'sf1', 'sf100', 'sf300', 'sf1000', 'sf3000', 'sf10000', 'sf30000', 'sf100000'];

export function scaleFactorOf(schema: string): number | undefined {
  if (schema === 'tiny') return 0.01;
  const m = /^sf(\d+(?:\.\d+)?)$/u.exec(schema);
  if (!m) return undefined;
  const sf = Number(m[1]);
  return sf > 0 && Number.isFinite(sf) ? sf : undefined;
}

interface CachedSplit {
  length: number;
  /** Generated columns by table position; absent ones were never read. */
  readonly columns: (Column | undefined)[];
}

/** What the cache holds of one table at one scale, summed over its splits (system.runtime.table_data). */
interface HeldTable {
  readonly schema: string;
  readonly table: string;
  rows: number;
  readonly columns: Set<number>;
  bytes: number;
  arrowBytes: number;
}

/** The cache key of a split; `heldTableKey` reads the scale and table back from it. */
function splitCacheKey(sf: number, table: string, start: number, count: number): string {
  return `tpch/${sf}/${table}/${start}/${count}`;
}

function heldTableKey(cacheKey: string): { key: string; sf: number; table: string } {
  const [, sf, table] = cacheKey.split('/');
  return { key: `${sf}/${table}`, sf: Number(sf), table };
}

/** The schema name Trino shows for a scale factor. */
function schemaOf(sf: number): string {
  return sf === 0.01 ? 'tiny' : `sf${sf}`;
}

export class TpchConnector implements Connector {
  private readonly cache = new Map<string, CachedSplit>();
  private readonly held = new Map<string, HeldTable>();

  listSchemas(): string[] {
    return [...LISTED_SCHEMAS];
  }

  listTables(schema: string): string[] {
    return scaleFactorOf(schema) === undefined ? [] : [...TPCH_TABLE_NAMES].sort();
  }

  /** Table definitions are fixed (rows are read at execution time). */
  hasStableMetadata(): boolean {
    return true;
  }

  getTable(schema: string, table: string): TableMetadata | undefined {
    const sf = scaleFactorOf(schema);
    if (sf === undefined || !(table in TPCH_TABLES)) return undefined;
    const t = TPCH_TABLES[table as TpchTableName];
    const rowCount = table === 'lineitem' ? Math.round(6_000_000 * sf) : tpchRowCount(table as TpchTableName, sf);
    const primaryKey = PRIMARY_KEYS[table].map((k) => t.columns.findIndex((c) => c.name === k));
    // Splits hold whole generation units: lineitem rows by order, partsupp rows by part.
    const unitKey = table === 'lineitem' ? 'orderkey' : table === 'partsupp' ? 'partkey' : null;
    const partitionedBy = unitKey ? [t.columns.findIndex((c) => c.name === unitKey)] : primaryKey;
    // A one-column key has as many distinct values as rows.
    const distinct = (name: string, i: number): number | undefined => DISTINCT_VALUES[table]?.[name] ?? (primaryKey.length === 1 && primaryKey[0] === i ? rowCount : undefined);
    const columns = t.columns.map((c, i) => ({ name: c.name, type: c.type, ...(distinct(c.name, i) !== undefined ? { distinctValues: distinct(c.name, i) } : {}) }));
    return { catalog: 'tpch', schema, name: table, columns, rowCount, primaryKey, partitionedBy };
  }

  splits(table: TableMetadata, _targetRows: number, columns: readonly number[] = table.columns.map((_, i) => i)): Split[] {
    const sf = scaleFactorOf(table.schema) as number;
    const width = table.columns.length;
    return tpchSplits(table.name as TpchTableName, sf, splitRowsFor(table.rowCount)).map((s) => {
      const cacheKey = splitCacheKey(sf, s.table, s.start, s.count);
      const entry = this.cache.get(cacheKey);
      const cached = entry?.columns ?? new Array<Column | undefined>(width);
      const missing = columns.filter((c) => cached[c] === undefined);
      if (entry && missing.length === 0) return { kind: 'pages', pages: [{ length: entry.length, columns: entry.columns as Column[] }], rows: entry.length };
      const rows = entry?.length ?? (table.name === 'lineitem' || table.name === 'partsupp' ? s.count * 4 : s.count);
      // Only the columns this scan reads and nobody generated yet: comments cost most of the time.
      return { kind: 'generated', connector: 'tpch', descriptor: s, rows, cacheKey, columns: missing, cached: [...cached] };
    });
  }

  /** Keeps generated columns of a split for later scans. */
  store(cacheKey: string, length: number, positions: readonly number[], columns: readonly Column[]): void {
    const { key, sf, table } = heldTableKey(cacheKey);
    let held = this.held.get(key);
    if (!held) {
      held = { schema: schemaOf(sf), table, rows: 0, columns: new Set(), bytes: 0, arrowBytes: 0 };
      this.held.set(key, held);
    }
    let entry = this.cache.get(cacheKey);
    if (!entry) {
      entry = { length, columns: [] };
      this.cache.set(cacheKey, entry);
      held.rows += length;
    }
    positions.forEach((p, k) => {
      if (entry.columns[p] !== undefined) return;
      entry.columns[p] = columns[k];
      held.columns.add(p);
      held.bytes += columnBytes(columns[k]);
      held.arrowBytes += arrowBytes(columns[k]);
    });
  }

  /** Generated data held, per table and scale. */
  heldTables(): HeldTableData[] {
    return [...this.held.values()].map((h) => ({ catalog: 'tpch', schema: h.schema, table: h.table, rows: h.rows, columns: h.columns.size, bytes: h.bytes, arrowBytes: h.arrowBytes }));
  }
}

/** Whether generating these columns needs dbgen's text pool (every comment column slices it). */
export function needsTextPool(descriptor: unknown, columns: readonly number[]): boolean {
  const table = TPCH_TABLES[(descriptor as { table: TpchTableName }).table];
  return columns.some((c) => table.columns[c]?.name === 'comment');
}
