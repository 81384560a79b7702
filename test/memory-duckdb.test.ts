// Differential: the same write statements run in our memory catalog and in DuckDB (over the same
// tpch.tiny data), then the same queries over the written tables must agree, as must the counts
// each INSERT/DELETE reports.

import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diffResults, duckRows, tpchDuckDb } from './support/duckdb.js';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

let server: TestServer;
let duck: DuckDBConnection;

beforeAll(async () => {
  [server, duck] = await Promise.all([startServer(), tpchDuckDb()]);
}, 120_000);

afterAll(async () => {
  await server?.close();
  duck?.closeSync();
});

/** `{tpch}` is the tpch qualifier: `tpch.tiny.` for us, nothing for DuckDB (its tables are in main). */
const WRITES = [
  'CREATE TABLE m_orders AS SELECT orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority FROM {tpch}orders WHERE orderdate < DATE \'1994-01-01\'',
  'INSERT INTO m_orders SELECT orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority FROM {tpch}orders WHERE orderdate >= DATE \'1997-06-01\'',
  "DELETE FROM m_orders WHERE orderstatus = 'P' OR totalprice < 2000",
  'CREATE TABLE m_items (id integer, label varchar(20), price decimal(10,2), qty bigint, ratio double, day date)',
  "INSERT INTO m_items VALUES (1, 'apple', 1.25, 10, 0.5, DATE '2024-01-01'), (2, 'pear', 2.50, NULL, 1.5, DATE '2024-01-02'), (3, NULL, 0.99, 3, NULL, NULL), (4, 'plum', 10.00, 7, 2.25, DATE '2024-03-01')",
  "INSERT INTO m_items (id, label, price) VALUES (5, 'fig', 3.335), (6, 'kiwi', 7)",
  'INSERT INTO m_items (id, qty, ratio) SELECT CAST(nationkey AS integer) + 100, regionkey, nationkey / 4.0 FROM {tpch}nation WHERE regionkey = 2',
  'DELETE FROM m_items WHERE qty < 3',
  'CREATE TABLE m_cust AS SELECT custkey, name, nationkey, acctbal, mktsegment FROM {tpch}customer WHERE acctbal > 5000',
  "DELETE FROM m_cust WHERE mktsegment IN ('AUTOMOBILE', 'HOUSEHOLD') AND nationkey < 10",
  'INSERT INTO m_cust SELECT custkey, name, nationkey, acctbal, mktsegment FROM {tpch}customer WHERE acctbal < -900',
];

const QUERIES = [
  'SELECT orderstatus, count(*), sum(totalprice), min(orderdate), max(orderdate) FROM m_orders GROUP BY orderstatus ORDER BY orderstatus',
  "SELECT o.orderpriority, count(*), round(avg(o.totalprice), 2) FROM m_orders o JOIN {tpch}customer c ON o.custkey = c.custkey WHERE c.mktsegment = 'MACHINERY' GROUP BY 1 ORDER BY 1",
  'SELECT * FROM m_items ORDER BY id',
  'SELECT label, price * qty, ratio + 1 FROM m_items WHERE qty IS NOT NULL ORDER BY id',
  'SELECT n.name, count(*), sum(m.acctbal) FROM m_cust m JOIN {tpch}nation n ON m.nationkey = n.nationkey GROUP BY n.name ORDER BY n.name',
  'SELECT count(*) FROM m_orders o WHERE EXISTS (SELECT 1 FROM m_cust c WHERE c.custkey = o.custkey)',
  'SELECT mktsegment, count(*), min(acctbal), max(name) FROM m_cust GROUP BY mktsegment ORDER BY mktsegment',
  'SELECT year(orderdate) AS y, count(*) FROM m_orders GROUP BY 1 ORDER BY 1',
  'SELECT c.custkey, count(o.orderkey) FROM m_cust c LEFT JOIN m_orders o ON o.custkey = c.custkey GROUP BY c.custkey ORDER BY 2 DESC, 1 LIMIT 10',
];

const ours = (sql: string): string => sql.replaceAll('{tpch}', 'tpch.tiny.');
const theirs = (sql: string): string => sql.replaceAll('{tpch}', '');

describe('memory tables beside DuckDB', () => {
  it('the same writes report the same counts', async () => {
    for (const w of WRITES) {
      const r = await runQuery(server.baseUrl, ours(w), { 'X-Engine-Catalog': 'memory', 'X-Engine-Schema': 'default' });
      expect(r.error, `${w}: ${r.error?.message}`).toBeUndefined();
      const result = await duck.run(theirs(w));
      const count = (r.answers.at(-1) as StatementAnswer & { updateCount?: number }).updateCount;
      if (/^(INSERT|DELETE)/u.test(w)) expect(count, w).toBe(result.rowsChanged);
      else if (/ AS SELECT /u.test(w)) {
        const table = /^CREATE TABLE (\w+)/u.exec(w)?.[1] as string;
        const [[n]] = await duckRows(duck, `SELECT count(*) FROM ${table}`);
        expect(count, w).toBe(Number(n));
      }
    }
  }, 120_000);

  it.each(QUERIES)('%s', async (q) => {
    const r = await runQuery(server.baseUrl, ours(q), { 'X-Engine-Catalog': 'memory', 'X-Engine-Schema': 'default' });
    expect(r.error, r.error?.message).toBeUndefined();
    const expected = await duckRows(duck, theirs(q));
    expect(expected.length).toBeGreaterThan(0);
    expect(diffResults(r.rows, expected, /ORDER BY/u.test(q))).toBeUndefined();
  });
});
