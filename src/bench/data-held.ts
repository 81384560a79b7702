// How much memory the generated TPC-H data takes in the server against its size in Arrow's plain
// layout: every column of every table is generated through the real server (one query per table
// reading them all), then system.runtime.table_data says what the tpch catalog holds.
import { runStatement, type Session } from './client.js';

export interface HeldTable {
  readonly table: string;
  readonly rows: number;
  readonly columns: number;
  readonly heldBytes: number;
  readonly arrowBytes: number;
}

export interface DataHeld {
  readonly schema: string;
  readonly tables: readonly HeldTable[];
  readonly heldBytes: number;
  readonly arrowBytes: number;
  /** The server process's RSS once everything is generated (data, text pool, heaps, threads). */
  readonly rssBytes: number;
  /** Time to generate what the TPC-H queries had not read yet. */
  readonly generateMs: number;
}

async function rows(baseUrl: string, sql: string, session: Session, timeoutMs: number): Promise<unknown[][]> {
  const outcome = await runStatement(baseUrl, sql, session, timeoutMs);
  if (outcome.error) throw new Error(`${outcome.error.errorName}: ${outcome.error.message} (${sql})`);
  if (outcome.timedOut) throw new Error(`over ${timeoutMs / 1000}s: ${sql}`);
  return outcome.rows;
}

export async function measureDataHeld(baseUrl: string, schema: string, timeoutMs: number): Promise<DataHeld> {
  const session = { catalog: 'tpch', schema };
  const t0 = performance.now();
  const tables = (await rows(baseUrl, `SELECT table_name FROM information_schema.tables WHERE table_schema = '${schema}'`, session, timeoutMs)).map((r) => String(r[0]));
  for (const table of tables) {
    const columns = await rows(baseUrl, `SELECT column_name FROM information_schema.columns WHERE table_schema = '${schema}' AND table_name = '${table}'`, session, timeoutMs);
    await rows(baseUrl, `SELECT ${columns.map((c) => `count(${String(c[0])})`).join(', ')} FROM ${table}`, session, timeoutMs);
  }
  const generateMs = performance.now() - t0;
  const held = await rows(
    baseUrl,
    `SELECT table_name, row_count, columns_held, held_bytes, arrow_bytes FROM system.runtime.table_data WHERE catalog_name = 'tpch' AND schema_name = '${schema}' ORDER BY arrow_bytes DESC`,
    session,
    timeoutMs,
  );
  const list = held.map(([table, rowCount, columns, heldBytes, arrowBytes]) => ({ table: String(table), rows: Number(rowCount), columns: Number(columns), heldBytes: Number(heldBytes), arrowBytes: Number(arrowBytes) }));
  return {
    schema,
    tables: list,
    heldBytes: list.reduce((n, t) => n + t.heldBytes, 0),
    arrowBytes: list.reduce((n, t) => n + t.arrowBytes, 0),
    rssBytes: process.memoryUsage().rss,
    generateMs,
  };
}
