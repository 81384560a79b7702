// The in-process engine API (QueryManager.execute): the same statements give the same columns and
// row values as the statement protocol over HTTP, failures resolve with the engine's error, DDL
// and DML report their update, and the queries are in the server's history like any other.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { localSession } from '../src/coordinator/query-manager.js';
import { runQuery, startServer, type TestServer } from './support/server.js';

describe('in-process engine API', () => {
  let server: TestServer;
  const session = localSession({ catalog: 'tpch', schema: 'tiny', source: 'engine-api-test' });
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  const statements = [
    'SELECT 1, 2.5, \'x\', NULL, true',
    'SELECT returnflag, linestatus, sum(quantity), count(*) FROM lineitem GROUP BY 1, 2 ORDER BY 1, 2',
    'SELECT orderkey, orderdate, totalprice FROM orders WHERE orderkey < 200 ORDER BY orderkey',
    'SELECT n.name, r.name FROM nation n JOIN region r ON n.regionkey = r.regionkey ORDER BY n.name',
    'SELECT custkey, name FROM customer ORDER BY custkey LIMIT 1400',
  ];
  it.each(statements)('answers %s as HTTP does', async (sql) => {
    const http = await runQuery(server.baseUrl, sql);
    expect(http.error?.message).toBeUndefined();
    const local = await server.app.coordinator.manager.execute(sql, session);
    expect(local.error?.message).toBeUndefined();
    expect(local.columns).toEqual(http.columns);
    expect(local.rows).toEqual(http.rows);
  });

  it('resolves a failed statement with its error', async () => {
    const bad = await server.app.coordinator.manager.execute('SELECT nope FROM lineitem', session);
    expect(bad.error?.errorName).toBe('COLUMN_NOT_FOUND');
    expect(bad.rows).toEqual([]);
    const syntax = await server.app.coordinator.manager.execute('SELEC 1', session);
    expect(syntax.error?.errorName).toBe('SYNTAX_ERROR');
  });

  it('runs DDL and DML with their update type and count', async () => {
    const m = server.app.coordinator.manager;
    const memory = localSession({ catalog: 'memory', schema: 'default' });
    expect((await m.execute('CREATE TABLE engine_api_t (a integer, b varchar)', memory)).updateType).toBe('CREATE TABLE');
    const insert = await m.execute("INSERT INTO engine_api_t VALUES (1, 'one'), (2, 'two')", memory);
    expect(insert.error).toBeUndefined();
    expect(insert.updateType).toBe('INSERT');
    expect(insert.updateCount).toBe(2);
    expect((await m.execute('SELECT b FROM engine_api_t ORDER BY a', memory)).rows).toEqual([['one'], ['two']]);
  });

  it('resolves a cancelled statement with USER_CANCELED', async () => {
    const m = server.app.coordinator.manager;
    // Generating sf1's lineitem takes seconds: long enough to cancel while it runs.
    const pending = m.execute('SELECT count(*) FROM tpch.sf1.lineitem WHERE comment LIKE \'%x%\'', session);
    for (let i = 0; i < 200 && !m.list().some((q) => q.sql.includes('sf1.lineitem') && q.state === 'RUNNING'); i++) await new Promise((r) => setTimeout(r, 10));
    const running = m.list().find((q) => q.sql.includes('sf1.lineitem'));
    expect(running?.state).toBe('RUNNING');
    expect(m.cancel(running!.id)).toBe(true);
    const outcome = await pending;
    expect(outcome.error?.errorName).toBe('USER_CANCELED');
    expect(outcome.rows).toEqual([]);
  }, 30_000);

  it('leaves its queries in the history, finished', async () => {
    const outcome = await server.app.coordinator.manager.execute('SELECT 42', session);
    const res = await fetch(`${server.baseUrl}/v1/query/${outcome.id}`, { headers: { 'X-Trino-User': 'test' } });
    expect(res.status).toBe(200);
    const info = (await res.json()) as { state: string; query: string; session: { source?: string } };
    expect(info.state).toBe('FINISHED');
    expect(info.query).toBe('SELECT 42');
  });
  it('answers the GET that reads a small statement\'s rows at once, as the final answer, its tasks FINISHED', async () => {
    const manager = server.app.coordinator.manager;
    const stays = { aborted: false, addEventListener() {}, removeEventListener() {} };
    for (const sql of ['SELECT 1', "SELECT name FROM nation WHERE regionkey = 1 ORDER BY name"]) {
      const { query } = manager.submit(sql, session, 'http://in-test');
      // The POST's answer is out; the query runs in the microtasks after it, as after a real POST.
      for (let i = 0; i < 50 && query.state !== 'RUNNING'; i++) await Promise.resolve();
      await new Promise((r) => setImmediate(r));
      // Reading the last rows finishes the execution in the same turn: no promise, no second GET.
      const reply = query.answer(1, 1000, 1 << 20, stays);
      expect(reply).not.toBeInstanceOf(Promise);
      expect(reply.status).toBe(200);
      const answer = (reply as { answer: { final: boolean; json: string | Buffer } }).answer;
      expect(answer.final).toBe(true);
      const body = JSON.parse(answer.json.toString()) as { stats: { state: string }; data: unknown[][]; nextUri?: string };
      expect(body.stats.state).toBe('FINISHED');
      expect(body.nextUri).toBeUndefined();
      expect(body.data.length).toBe(sql === 'SELECT 1' ? 1 : 5);
      expect(query.execution?.tasks.every((t) => t.state === 'FINISHED')).toBe(true);
    }
  });

  it('withdraws the state waits of polls that ended on their deadline', async () => {
    const manager = server.app.coordinator.manager;
    const query = manager.create('SELECT count(*) FROM lineitem a, lineitem b WHERE a.orderkey = b.orderkey AND a.quantity > b.quantity', session, 'http://in-test');
    const stays = { aborted: false, addEventListener() {}, removeEventListener() {} };
    const waiters = (): number => (query as unknown as { stateWaiters?: unknown[] }).stateWaiters?.length ?? 0;
    let token = 0;
    // Polls with a 1 ms maxWait while the join runs: each ends on its deadline, not on a state change.
    while (!query.done && token < 40) {
      const reply = await query.answer(++token, 1, 1 << 20, stays);
      expect(reply.status).toBe(200);
      expect(waiters()).toBeLessThanOrEqual(1);
    }
    expect(token).toBeGreaterThan(3);
    for (let more = 0; more < 2000 && !query.done; more++) await query.answer(++token, 1000, 1 << 20, stays);
    expect(query.state).toBe('FINISHED');
  });
});
