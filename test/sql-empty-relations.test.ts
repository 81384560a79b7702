// A predicate that never holds (WHERE false, 1 = 0, an AND false conjunct, ON false, HAVING false)
// empties its relation at planning (optimize/empty-relations.ts, join-planner.ts): the plan reads
// no table and joins nothing. Asserted on EXPLAIN's text; the answers are in
// test/sql/edge/false_predicates.slt against DuckDB.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';

describe('predicates that never hold empty their relation', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const plan = async (sql: string): Promise<string> => {
    const r = await runQuery(server.baseUrl, `explain ${sql}`);
    expect(r.error?.message).toBeUndefined();
    return r.rows.map((row) => String(row[0])).join('\n');
  };

  it.each([
    'select count(*) from partsupp ps, part p, orders o where false',
    'select count(*) from partsupp ps, part p, orders o where 1 = 0',
    'select count(*) from partsupp ps, part p, orders o where ps.partkey = p.partkey and false',
    'select count(*) from partsupp ps, part p, orders o where ps.partkey = p.partkey and cast(null as boolean)',
    'select count(*) from lineitem l1, lineitem l2 where l1.orderkey = l2.orderkey and false',
    'select count(*) from partsupp ps join part p on false',
    'select count(*) from partsupp ps join part p on ps.partkey = p.partkey and 1 > 2',
    'select count(*) from orders where false',
  ])('%s scans and joins nothing', async (sql) => {
    const text = await plan(sql);
    expect(text).toMatch(/Values\[rows = 0\]/u);
    expect(text).not.toMatch(/TableScan|Join\[/u);
    // The global aggregation stays: it answers one row (count 0) over no input.
    expect(text).toMatch(/Aggregate\[keys = \[\]/u);
  });

  it('HAVING false over a grouped aggregation leaves no aggregation and no scan', async () => {
    const text = await plan('select partkey, count(*) from lineitem group by partkey having false');
    expect(text).toMatch(/Values\[rows = 0\]/u);
    expect(text).not.toMatch(/TableScan|Aggregate/u);
  });

  it('a LEFT JOIN ON false keeps its left side and joins it against no rows', async () => {
    const text = await plan('select count(*) from orders o left join lineitem l on false');
    expect(text).toMatch(/TableScan\[table = tpch.tiny.orders/u);
    expect(text).not.toMatch(/tpch.tiny.lineitem/u);
    expect(text).toMatch(/Values\[rows = 0\]/u);
  });

  it('a filter that holds for some rows is kept (no false conjunct)', async () => {
    const text = await plan('select count(*) from partsupp ps, part p where ps.partkey = -1');
    expect(text).not.toMatch(/Values\[rows = 0\]/u);
    expect(text).toMatch(/TableScan\[table = tpch.tiny.partsupp/u);
  });
});
