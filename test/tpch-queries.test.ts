// The 22 TPC-H queries (validation parameters, Trino naming) on tpch.tiny, each compared with
// DuckDB on the same dbgen data: doubles to 1e-9 relative, row order where ORDER BY fixes it.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DuckDBConnection } from '@duckdb/node-api';
import { SHARED_TPCH, diffResults, duckRows, tpchDuckDb } from './support/duckdb.js';
import { runQuery, startServer, type TestServer } from './support/server.js';

const QUERIES = Array.from({ length: 22 }, (_, i) => i + 1);

/** Whether the query's ORDER BY determines the row order completely (TPC-H ties are rare). */
function ordered(sql: string): boolean {
  return /order\s+by/iu.test(sql);
}

describe('TPC-H queries on tpch.tiny equal DuckDB', () => {
  let server: TestServer;
  let duck: DuckDBConnection;
  beforeAll(async () => {
    [server, duck] = await Promise.all([startServer(), tpchDuckDb()]);
  });
  afterAll(async () => {
    await server?.close();
  });

  for (const q of QUERIES) {
    it(`Q${q}`, async () => {
      const sql = readFileSync(join(SHARED_TPCH, 'queries', `q${String(q).padStart(2, '0')}.sql`), 'utf8');
      const [ours, theirs] = await Promise.all([runQuery(server.baseUrl, sql), duckRows(duck, sql.replace(/;\s*$/u, ''))]);
      expect(ours.error?.message).toBeUndefined();
      expect(diffResults(ours.rows, theirs, ordered(sql))).toBeUndefined();
    });
  }
});
