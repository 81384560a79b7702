// The plan cache: a repeated statement reuses its plan only while that plan stays right. Unit
// checks on PlanCache (what is kept, the key, eviction) and end-to-end checks through the server:
// memory tables redefined under the same statement text, current_date, session catalog/schema.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CatalogRegistry, type TableMetadata } from '../src/connectors/catalog.js';
import { MemoryConnector } from '../src/connectors/memory.js';
import { SystemConnector } from '../src/connectors/system.js';
import { TpchConnector } from '../src/connectors/tpch/connector.js';
import { PlanCache, type PlanKey } from '../src/coordinator/plan-cache.js';
import type { QueryPlan } from '../src/sql/fragment.js';
import { runQueryOk, startServer, type TestServer } from './support/server.js';

function table(catalog: string, schema: string, name: string): TableMetadata {
  return { catalog, schema, name, columns: [], rowCount: 1 };
}

const plan = (tag: string): QueryPlan => ({ stages: [], names: [tag], types: [] });
const key = (sql: string, over: Partial<PlanKey> = {}): PlanKey => ({ sql, catalog: 'tpch', schema: 'tiny', disabledRules: undefined, ...over });

describe('PlanCache', () => {
  const catalogs = new CatalogRegistry();
  catalogs.register('tpch', new TpchConnector());
  catalogs.register('memory', new MemoryConnector());
  catalogs.register('system', new SystemConnector({ nodes: () => [], queries: () => [], tasks: () => [] }));

  it('keeps plans over fixed tables or none, and not plans over memory tables or the clock', () => {
    const cache = new PlanCache(catalogs);
    const none = { timeDependent: false, tables: [] };
    expect(cache.offer(key('SELECT 1'), plan('a'), none)).toBe(true);
    expect(cache.offer(key('q1'), plan('b'), { timeDependent: false, tables: [table('tpch', 'tiny', 'lineitem'), table('tpch', 'information_schema', 'tables')] })).toBe(true);
    expect(cache.offer(key('q2'), plan('c'), { timeDependent: false, tables: [table('system', 'runtime', 'queries')] })).toBe(true);
    expect(cache.offer(key('q3'), plan('d'), { timeDependent: false, tables: [table('tpch', 'tiny', 'nation'), table('memory', 'default', 't')] })).toBe(false);
    expect(cache.offer(key('q4'), plan('e'), { timeDependent: true, tables: [] })).toBe(false);
    expect(cache.offer(key('q5'), plan('f'), { timeDependent: false, tables: [table('nowhere', 's', 't')] })).toBe(false);
    expect(cache.get(key('SELECT 1'))?.names).toEqual(['a']);
    expect(cache.get(key('q1'))?.names).toEqual(['b']);
    expect(cache.get(key('q3'))).toBeUndefined();
    expect(cache.get(key('q4'))).toBeUndefined();
    expect(cache.size).toBe(3);
  });

  it('keys on the session catalog, schema and disabled rules as well as the text', () => {
    const cache = new PlanCache(catalogs);
    const none = { timeDependent: false, tables: [] };
    cache.offer(key('SELECT * FROM nation'), plan('tiny'), none);
    expect(cache.get(key('SELECT * FROM nation', { schema: 'sf1' }))).toBeUndefined();
    expect(cache.get(key('SELECT * FROM nation', { catalog: 'memory' }))).toBeUndefined();
    expect(cache.get(key('SELECT * FROM nation', { disabledRules: 'join_reorder' }))).toBeUndefined();
    expect(cache.get(key('select * from nation'))).toBeUndefined();
    expect(cache.get(key('SELECT * FROM nation'))?.names).toEqual(['tiny']);
  });

  it('drops the least recently used statement first', () => {
    const cache = new PlanCache(catalogs, 2);
    const none = { timeDependent: false, tables: [] };
    cache.offer(key('a'), plan('a'), none);
    cache.offer(key('b'), plan('b'), none);
    cache.get(key('a'));
    cache.offer(key('c'), plan('c'), none);
    expect(cache.get(key('b'))).toBeUndefined();
    expect(cache.get(key('a'))?.names).toEqual(['a']);
    expect(cache.get(key('c'))?.names).toEqual(['c']);
  });

  it('keeps the order right when one statement repeats back to back and others are added between', () => {
    const cache = new PlanCache(catalogs, 2);
    const none = { timeDependent: false, tables: [] };
    cache.offer(key('a'), plan('a'), none);
    cache.get(key('a'));
    cache.get(key('a'));
    cache.offer(key('b'), plan('b'), none);
    // a was used last before b came: b is now the most recent, and a used again passes it.
    cache.get(key('a'));
    cache.offer(key('c'), plan('c'), none);
    expect(cache.get(key('b'))).toBeUndefined();
    expect(cache.get(key('a'))?.names).toEqual(['a']);
    cache.get(key('a'));
    cache.offer(key('d'), plan('d'), none);
    expect(cache.get(key('c'))).toBeUndefined();
    expect(cache.get(key('a'))?.names).toEqual(['a']);
  });
});

describe('plan reuse through the server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const MEMORY = { 'X-Engine-Catalog': 'memory', 'X-Engine-Schema': 'default' };
  const TPCH = { 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };

  async function ok(sql: string, headers: Record<string, string>): Promise<{ rows: unknown[][]; types: string[] }> {
    const r = await runQueryOk(server.baseUrl, sql, headers);
    return { rows: r.rows, types: (r.columns ?? []).map((c) => c.type) };
  }

  it('a memory table dropped and created again with other columns is read with its new definition', async () => {
    await ok('CREATE TABLE pc_t (a integer)', MEMORY);
    await ok('INSERT INTO pc_t VALUES (1), (2)', MEMORY);
    expect(await ok('SELECT * FROM pc_t ORDER BY 1', MEMORY)).toEqual({ rows: [[1], [2]], types: ['integer'] });
    await ok('DROP TABLE pc_t', MEMORY);
    await ok('CREATE TABLE pc_t (a varchar, b bigint)', MEMORY);
    await ok("INSERT INTO pc_t VALUES ('x', 7)", MEMORY);
    expect(await ok('SELECT * FROM pc_t ORDER BY 1', MEMORY)).toEqual({ rows: [['x', 7]], types: ['varchar', 'bigint'] });
  });

  it('the same text under another session schema plans against that schema', async () => {
    const sql = 'SELECT count(*) FROM nation';
    expect((await ok(sql, TPCH)).rows).toEqual([[25]]);
    expect((await ok(sql, TPCH)).rows).toEqual([[25]]);
    expect((await ok(sql, { ...TPCH, 'X-Engine-Schema': 'sf1' })).rows).toEqual([[25]]);
    const orders = 'SELECT count(*) FROM orders';
    expect((await ok(orders, TPCH)).rows).toEqual([[15000]]);
    expect((await ok(orders, { ...TPCH, 'X-Engine-Schema': 'sf0.01' })).rows).toEqual([[15000]]);
    expect((await ok(orders, TPCH)).rows).toEqual([[15000]]);
  });

  it('a repeated statement over tpch answers the same every time', async () => {
    const sql = 'SELECT regionkey, count(*) FROM nation GROUP BY regionkey ORDER BY 1';
    const first = await ok(sql, TPCH);
    expect(first.rows).toEqual([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]);
    for (let i = 0; i < 3; i++) expect(await ok(sql, TPCH)).toEqual(first);
  });

  it('current_date and now() are evaluated for each query, not frozen in a reused plan', async () => {
    const sql = "SELECT current_date = CAST(substr(CAST(now() AS varchar), 1, 10) AS date), now() > TIMESTAMP '2020-01-01 00:00:00'";
    const a = await ok(sql, TPCH);
    expect(a.rows).toEqual([[true, true]]);
    // A plan with the clock folded in is not kept: time moves between the two runs.
    const t0 = await ok('SELECT CAST(now() AS varchar)', TPCH);
    await new Promise((r) => setTimeout(r, 20));
    const t1 = await ok('SELECT CAST(now() AS varchar)', TPCH);
    expect(t1.rows[0][0]).not.toEqual(t0.rows[0][0]);
  });

  it('random() draws a new value in every run of a reused plan and on every row, never folded at planning', async () => {
    const draws = new Set<unknown>();
    for (let i = 0; i < 4; i++) draws.add((await ok('SELECT random()', TPCH)).rows[0][0]);
    expect(draws.size).toBe(4);
    const perRow = await ok('SELECT count(DISTINCT r), min(r) >= 0, max(r) < 1 FROM (SELECT random() AS r FROM nation)', TPCH);
    expect(perRow.rows).toEqual([[25, true, true]]);
    // Constants around it still fold, and constant projections over VALUES still merge.
    const mixed = await ok("SELECT random() < 2, 'a' || 'b'", TPCH);
    expect(mixed.rows).toEqual([[true, 'ab']]);
  });
});
