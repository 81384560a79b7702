// DuckDB as the independent reference engine: loads the official dbgen .tbl files into tables
// declared as Trino's tpch connector shows them (../shared/tpch/trino_schema.sql), runs SQL, and
// compares result sets with ours.

import { join } from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

export { SHARED_TPCH } from './shared.js';
import { SHARED_TPCH } from './shared.js';
import { trinoSchema } from '../bench/paths.js';

export async function tpchDuckDb(dataDir = join(SHARED_TPCH, 'sf0.01')): Promise<DuckDBConnection> {
  const instance = await DuckDBInstance.create(':memory:');
  const conn = await instance.connect();
  const { ddl, tables } = trinoSchema(SHARED_TPCH);
  await conn.run(ddl);
  for (const t of tables) {
    // dbgen lines end with a trailing '|', which reads as one extra empty column.
    const cols = [...t.columns.map((c) => `'${c.name}': '${c.type.toUpperCase()}'`), `'_trailing': 'VARCHAR'`].join(', ');
    const names = t.columns.map((c) => c.name).join(', ');
    await conn.run(`insert into ${t.name} select ${names} from read_csv('${join(dataDir, `${t.name}.tbl.gz`)}', delim='|', header=false, columns={${cols}})`);
  }
  return conn;
}

export async function duckRows(conn: DuckDBConnection, sql: string): Promise<unknown[][]> {
  const reader = await conn.runAndReadAll(sql);
  return reader.getRowsJson() as unknown[][];
}

function normalize(v: unknown): unknown {
  if (typeof v === 'string' && /^-?\d+(\.\d+)?$/u.test(v)) return Number(v);
  return v;
}

function close(a: unknown, b: unknown, relTol: number): boolean {
  const x = normalize(a);
  const y = normalize(b);
  if (typeof x === 'number' && typeof y === 'number') {
    if (x === y) return true;
    return Math.abs(x - y) <= relTol * Math.max(Math.abs(x), Math.abs(y), 1e-300);
  }
  return x === y;
}

function rowKey(row: readonly unknown[]): string {
  return JSON.stringify(row.map((v) => {
    const n = normalize(v);
    return typeof n === 'number' ? Number(n.toPrecision(8)) : n;
  }));
}

/** Rows in the order of their keys, each key computed once. */
function sortedByKey(rows: readonly unknown[][]): unknown[][] {
  const keyed = rows.map((row) => ({ row, key: rowKey(row) }));
  keyed.sort((x, y) => (x.key < y.key ? -1 : x.key > y.key ? 1 : 0));
  return keyed.map((k) => k.row);
}

/** A description of the first difference between two result sets, or undefined when equal. */
export function diffResults(ours: readonly unknown[][], theirs: readonly unknown[][], ordered: boolean, relTol = 1e-9): string | undefined {
  if (ours.length !== theirs.length) return `row count ${ours.length} vs DuckDB ${theirs.length}`;
  const a = ordered ? ours : sortedByKey(ours);
  const b = ordered ? theirs : sortedByKey(theirs);
  for (let i = 0; i < a.length; i++) {
    if (a[i].length !== b[i].length) return `row ${i}: width ${a[i].length} vs ${b[i].length}`;
    for (let j = 0; j < a[i].length; j++) {
      if (!close(a[i][j], b[i][j], relTol)) return `row ${i} column ${j}: ${JSON.stringify(a[i][j])} vs DuckDB ${JSON.stringify(b[i][j])} (ours ${JSON.stringify(a[i])}, DuckDB ${JSON.stringify(b[i])})`;
    }
  }
  return undefined;
}
