// End-to-end: canceling queries — DELETE on any live nextUri, DELETE /v1/query/{id}, and cancel in the
// middle of a large result (tasks must end, the query info must say FAILED / USER_CANCELED).

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

const ENGINE = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };
const TERMINAL_TASK = ['FINISHED', 'CANCELED', 'ABORTED', 'FAILED'];

let server: TestServer;
let base: string;

async function post(sql: string): Promise<StatementAnswer> {
  const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE });
  expect(res.status).toBe(200);
  return (await res.json()) as StatementAnswer;
}

async function getJson<T = StatementAnswer>(uri: string): Promise<T> {
  const res = await fetch(uri);
  expect(res.status, `GET ${uri}`).toBe(200);
  return (await res.json()) as T;
}

/** Reads answers until one carries rows; returns it. */
async function firstRows(answer: StatementAnswer, suffix = ''): Promise<StatementAnswer> {
  let a = answer;
  while (a.nextUri && !a.data) a = await getJson(a.nextUri + suffix);
  expect(a.data?.length).toBeGreaterThan(0);
  expect(a.nextUri).toBeDefined();
  return a;
}

function expectCanceled(a: StatementAnswer): void {
  expect(a.stats.state).toBe('FAILED');
  expect(a.nextUri).toBeUndefined();
  expect(a.data).toBeUndefined();
  expect(a.error).toMatchObject({ message: 'Query was canceled', errorCode: 3, errorName: 'USER_CANCELED', errorType: 'USER_ERROR' });
}

interface TaskInfo {
  taskId: string;
  state: string;
  outputBuffers: { state: string; totalBufferedBytes: number };
}

/** Polls until every task of the query is in a terminal state; returns them. */
async function tasksEnd(queryId: string, stages: number[], timeoutMs = 15_000): Promise<TaskInfo[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const tasks = await Promise.all(stages.map((s) => getJson<TaskInfo>(`${base}/v1/task/${queryId}.${s}.0`)));
    if (tasks.every((t) => TERMINAL_TASK.includes(t.state)) || Date.now() > deadline) return tasks;
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
});

afterAll(async () => {
  await server?.close();
});

describe('cancel', () => {
  it('DELETE of the first nextUri (never fetched) answers 204; the outstanding nextUri then gives FAILED USER_CANCELED', async () => {
    const first = await post('SELECT * FROM tpch.tiny.lineitem');
    const del = await fetch(first.nextUri as string, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    const after = await getJson(first.nextUri as string);
    expectCanceled(after);
    // The failed answer is stable for retries.
    expect(await getJson(first.nextUri as string)).toEqual(after);
    const info = await getJson<Record<string, unknown>>(`${base}/v1/query/${first.id}`);
    expect(info).toMatchObject({ state: 'FAILED', errorType: 'USER_ERROR', errorCode: { code: 3, name: 'USER_CANCELED', type: 'USER_ERROR' } });
  });

  it('DELETE of an older live token cancels too, and a later DELETE still answers 204', async () => {
    const first = await post('SELECT * FROM tpch.tiny.orders');
    const a1 = await getJson(first.nextUri as string);
    expect(a1.nextUri).toBeDefined();
    // Token 1 was answered already; its URI still names the live query.
    const del = await fetch(first.nextUri as string, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const after = await getJson(a1.nextUri as string);
    expectCanceled(after);
    const again = await fetch(a1.nextUri as string, { method: 'DELETE' });
    expect(again.status).toBe(204);
  });

  it('DELETE /v1/query/{id} answers 204 and the next poll gives USER_CANCELED', async () => {
    const first = await post('SELECT * FROM tpch.tiny.lineitem');
    const del = await fetch(`${base}/v1/query/${first.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    let a = await getJson(first.nextUri as string);
    // Anything already buffered for that token is not delivered after a cancel.
    while (a.nextUri) a = await getJson(a.nextUri);
    expectCanceled(a);
    const info = await getJson<Record<string, unknown>>(`${base}/v1/query/${first.id}`);
    expect(info.state).toBe('FAILED');
  });

  it('DELETE /v1/query/{id} of an unknown query answers 204 (Trino)', async () => {
    const res = await fetch(`${base}/v1/query/20200101_000000_00000_abcde`, { method: 'DELETE' });
    expect(res.status).toBe(204);
  });

  it('cancel after a query finished leaves it FINISHED', async () => {
    const r = await runQuery(base, 'SELECT 1');
    expect(r.rows).toEqual([[1]]);
    const res = await fetch(`${base}/v1/query/${r.id}`, { method: 'DELETE' });
    expect(res.status).toBe(204);
    const info = await getJson<Record<string, unknown>>(`${base}/v1/query/${r.id}`);
    expect(info.state).toBe('FINISHED');
    expect(info.errorCode).toBeUndefined();
  });

  it('cancel in the middle of tpch.tiny.lineitem: tasks end, buffers are released, query info FAILED/USER_CANCELED', async () => {
    const first = await post('SELECT * FROM tpch.tiny.lineitem');
    const page = await firstRows(first, '?targetResultSize=64kB');
    expect(page.data?.length).toBeLessThan(60175);
    const del = await fetch(page.nextUri as string, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expectCanceled(await getJson(page.nextUri as string));

    const tasks = await tasksEnd(first.id, [0, 1]);
    for (const t of tasks) {
      expect(t.state, t.taskId).not.toBe('RUNNING');
      expect(TERMINAL_TASK, t.taskId).toContain(t.state);
      expect(t.outputBuffers.totalBufferedBytes).toBe(0);
    }
    const info = await getJson<{ state: string; errorCode: { name: string; code: number }; failureInfo: { message: string }; outputStage: { state: string; tasks: TaskInfo[]; subStages: { tasks: TaskInfo[] }[] }; queryStats: { runningTasks: number } }>(`${base}/v1/query/${first.id}`);
    expect(info.state).toBe('FAILED');
    expect(info.errorCode).toMatchObject({ code: 3, name: 'USER_CANCELED' });
    expect(info.failureInfo.message).toBe('Query was canceled');
    expect(info.queryStats.runningTasks).toBe(0);
    expect(info.outputStage.tasks[0].state).not.toBe('RUNNING');
    expect(info.outputStage.subStages[0].tasks[0].state).not.toBe('RUNNING');
  });

  it('cancel in the middle of tpch.sf1.lineitem stops the leaf task (no more splits scheduled)', async () => {
    const first = await post('SELECT * FROM tpch.sf1.lineitem');
    const page = await firstRows(first, '?targetResultSize=256kB');
    const del = await fetch(`${base}/v1/query/${first.id}`, { method: 'DELETE' });
    expect(del.status).toBe(204);
    const tasks = await tasksEnd(first.id, [0, 1], 30_000);
    for (const t of tasks) expect(TERMINAL_TASK, `${t.taskId} ${t.state}`).toContain(t.state);
    type Leaf = { stats: { totalDrivers: number; runningDrivers: number; rawInputPositions: number } };
    // Drivers already on a worker thread stop at their next page; no new ones start.
    let leaf = await getJson<Leaf>(`${base}/v1/task/${first.id}.1.0`);
    for (let i = 0; i < 150 && leaf.stats.runningDrivers > 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      leaf = await getJson<Leaf>(`${base}/v1/task/${first.id}.1.0`);
    }
    expect(leaf.stats.runningDrivers).toBe(0);
    await new Promise((r) => setTimeout(r, 500));
    const later = await getJson<Leaf>(`${base}/v1/task/${first.id}.1.0`);
    expect(later.stats.rawInputPositions).toBe(leaf.stats.rawInputPositions);
    // sf1 has 6001215 rows in many splits; a canceled query reads only a few of them.
    expect(leaf.stats.totalDrivers).toBeGreaterThan(10);
    expect(leaf.stats.rawInputPositions).toBeLessThan(6_001_215 / 2);
    expectCanceled(await getJson(page.nextUri as string));
    // The pool is free again: a new query runs at once.
    const t0 = Date.now();
    const r = await runQuery(base, 'SELECT count(*) FROM tpch.tiny.nation');
    expect(r.rows).toEqual([[25]]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });

  it('cancel of a multi-stage join query ends every one of its tasks', async () => {
    const first = await post('SELECT l.orderkey, o.orderdate, l.comment FROM tpch.tiny.lineitem l JOIN tpch.tiny.orders o ON l.orderkey = o.orderkey');
    const page = await firstRows(first, '?targetResultSize=50kB');
    const del = await fetch(page.nextUri as string, { method: 'DELETE' });
    expect(del.status).toBe(204);
    expectCanceled(await getJson(page.nextUri as string));
    const ids = ((await getJson<TaskInfo[]>(`${base}/v1/task`)) as TaskInfo[]).map((t) => t.taskId).filter((id) => id.startsWith(`${first.id}.`));
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const stages = ids.map((id) => Number(id.split('.')[1]));
    const tasks = await tasksEnd(first.id, stages);
    for (const t of tasks) expect(TERMINAL_TASK, `${t.taskId} ${t.state}`).toContain(t.state);
    const info = await getJson<{ state: string; queryStats: { runningTasks: number } }>(`${base}/v1/query/${first.id}`);
    expect(info.state).toBe('FAILED');
    expect(info.queryStats.runningTasks).toBe(0);
  });

  it('the canceled queries are listed as FAILED in /v1/query', async () => {
    const list = await getJson<{ queryId: string; state: string; errorCode?: { name: string } }[]>(`${base}/v1/query`);
    const failed = list.filter((q) => q.state === 'FAILED');
    expect(failed.length).toBeGreaterThanOrEqual(6);
    for (const q of failed) expect(q.errorCode?.name).toBe('USER_CANCELED');
    expect(list.filter((q) => q.state === 'RUNNING')).toEqual([]);
  });
});
