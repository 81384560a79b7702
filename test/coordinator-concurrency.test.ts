// End-to-end: many queries at once. 60 statements (SELECT 1, counts, aggregations, top-N, filters
// on tpch.tiny) are submitted together and followed concurrently; every one must return exactly the
// result it returns when run alone.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';
import { diffResults } from './support/duckdb.js';

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
});

afterAll(async () => {
  await server?.close();
});

/** Queries with results known from the TPC-H spec / dbgen (tiny = scale 0.01). */
const KNOWN: [string, unknown[][]][] = [
  ['SELECT 1', [[1]]],
  ["SELECT 1 + 2, 'x'", [[3, 'x']]],
  ['SELECT count(*) FROM tpch.tiny.nation', [[25]]],
  ['SELECT count(*) FROM tpch.tiny.region', [[5]]],
  ['SELECT count(*) FROM tpch.tiny.supplier', [[100]]],
  ['SELECT count(*) FROM tpch.tiny.customer', [[1500]]],
  ['SELECT count(*) FROM tpch.tiny.part', [[2000]]],
  ['SELECT count(*) FROM tpch.tiny.partsupp', [[8000]]],
  ['SELECT count(*) FROM tpch.tiny.orders', [[15000]]],
  ['SELECT count(*) FROM tpch.tiny.lineitem', [[60175]]],
  ['SELECT regionkey, count(*) FROM tpch.tiny.nation GROUP BY regionkey ORDER BY regionkey', [[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]],
  ['SELECT name FROM tpch.tiny.region ORDER BY regionkey', [['AFRICA'], ['AMERICA'], ['ASIA'], ['EUROPE'], ['MIDDLE EAST']]],
  ['SELECT max(orderkey), min(orderkey) FROM tpch.tiny.lineitem', [[60000, 1]]],
  ["SELECT orderkey, orderdate FROM tpch.tiny.orders WHERE orderkey = 1", [[1, '1996-01-02']]],
];

/** Queries whose result is taken from a run on its own first. */
const BASELINE = [
  'SELECT returnflag, linestatus, count(*), sum(quantity), sum(extendedprice), avg(discount) FROM tpch.tiny.lineitem GROUP BY returnflag, linestatus ORDER BY returnflag, linestatus',
  'SELECT mktsegment, count(*), sum(acctbal) FROM tpch.tiny.customer GROUP BY mktsegment ORDER BY mktsegment',
  'SELECT orderpriority, count(*) FROM tpch.tiny.orders GROUP BY orderpriority ORDER BY orderpriority',
  'SELECT orderkey, totalprice FROM tpch.tiny.orders ORDER BY totalprice DESC, orderkey LIMIT 10',
  'SELECT count(*) FROM tpch.tiny.lineitem WHERE quantity > 45',
  "SELECT count(*), sum(extendedprice * discount) FROM tpch.tiny.lineitem WHERE shipdate >= DATE '1994-01-01' AND shipdate < DATE '1995-01-01' AND discount BETWEEN 0.05 AND 0.07 AND quantity < 24",
  'SELECT brand, count(*) FROM tpch.tiny.part GROUP BY brand ORDER BY brand',
  'SELECT suppkey, name FROM tpch.tiny.supplier ORDER BY suppkey LIMIT 7',
];

describe('concurrency', () => {
  it('runs 60 mixed queries at once, every one with the right result', async () => {
    const expected = new Map<string, unknown[][]>(KNOWN);
    for (const sql of BASELINE) {
      const r = await runQuery(base, sql);
      expect(r.error, sql).toBeUndefined();
      expect(r.rows.length, sql).toBeGreaterThan(0);
      expected.set(sql, r.rows);
    }
    const all = [...expected.keys()];
    const batch = Array.from({ length: 60 }, (_, i) => all[i % all.length]);
    const t0 = Date.now();
    const results = await Promise.all(batch.map((sql) => runQuery(base, sql)));
    const elapsed = Date.now() - t0;
    const ids = new Set<string>();
    results.forEach((r, i) => {
      const sql = batch[i];
      expect(r.error, sql).toBeUndefined();
      // Doubles summed in parallel may differ in the last bits from a solo run (merge order varies).
      expect(diffResults(r.rows, expected.get(sql) as unknown[][], true), sql).toBeUndefined();
      expect(r.answers.at(-1)?.stats.state, sql).toBe('FINISHED');
      ids.add(r.id);
    });
    expect(ids.size).toBe(60);
    expect(elapsed).toBeLessThan(45_000);
    // All 60 are in the query list as FINISHED.
    const list = (await (await fetch(`${base}/v1/query`)).json()) as { queryId: string; state: string }[];
    const states = new Map(list.map((q) => [q.queryId, q.state]));
    for (const id of ids) expect(states.get(id)).toBe('FINISHED');
  });

  it('interleaves a failing and a canceled query with the rest without disturbing them', async () => {
    const good = Array.from({ length: 20 }, (_, i) => (i % 2 ? 'SELECT count(*) FROM tpch.tiny.orders' : 'SELECT 1'));
    const bad = runQuery(base, 'SELECT nosuch FROM tpch.tiny.orders');
    const post = await fetch(`${base}/v1/statement`, { method: 'POST', body: 'SELECT * FROM tpch.tiny.lineitem', headers: { 'X-Engine-User': 'test' } });
    const victim = (await post.json()) as { id: string; nextUri: string };
    const running = good.map((sql) => runQuery(base, sql));
    expect((await fetch(victim.nextUri, { method: 'DELETE' })).status).toBe(204);
    const results = await Promise.all(running);
    results.forEach((r, i) => expect(r.rows).toEqual(i % 2 ? [[15000]] : [[1]]));
    expect((await bad).error?.errorName).toBe('COLUMN_NOT_FOUND');
    const canceled = (await (await fetch(victim.nextUri)).json()) as { error: { errorName: string } };
    expect(canceled.error.errorName).toBe('USER_CANCELED');
  });
});
