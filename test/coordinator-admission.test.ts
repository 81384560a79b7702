// End-to-end: admission control (--max-running-queries, --max-queued-queries) and the server-wide
// memory limit (--query-max-total-memory), on real servers with low limits.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Query } from '../src/coordinator/query.js';
import { startServer, type StatementAnswer, type TestServer } from './support/server.js';

/** A join that keeps the workers busy for a second or so on tpch.tiny. */
const SLOW = 'SELECT count(*) FROM lineitem l1 JOIN lineitem l2 ON l1.suppkey = l2.suppkey WHERE l1.linenumber <= 2';
const HEADERS = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };
/** Whether a statement is planned or executed: past QUEUED, not ended, its result not yet complete. */
function working(q: Query): boolean {
  return (q.state === 'PLANNING' || q.state === 'STARTING' || q.state === 'RUNNING') && q.execution?.rootTask.outputBuffer.isFinished !== true;
}

async function post(base: string, sql: string): Promise<StatementAnswer> {
  const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: HEADERS });
  expect(res.status).toBe(200);
  return (await res.json()) as StatementAnswer;
}

interface Followed {
  readonly rows: unknown[][];
  readonly error: StatementAnswer['error'];
  /** stats.state of every answer after the POST's. */
  readonly states: string[];
}

/** Follows nextUri from a POST's answer to the end. */
async function follow(first: StatementAnswer): Promise<Followed> {
  let answer = first;
  const rows: unknown[][] = [];
  const states: string[] = [];
  while (answer.nextUri) {
    const res = await fetch(answer.nextUri);
    expect(res.status).toBe(200);
    answer = (await res.json()) as StatementAnswer;
    states.push(answer.stats.state);
    if (answer.data) rows.push(...answer.data);
  }
  return { rows, error: answer.error, states };
}

async function run(base: string, sql: string): Promise<Followed> {
  return follow(await post(base, sql));
}

async function queryState(base: string, id: string): Promise<string> {
  const res = await fetch(`${base}/v1/query/${id}`);
  expect(res.status).toBe(200);
  return ((await res.json()) as { state: string }).state;
}

async function until(condition: () => boolean | Promise<boolean>, what: string, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('admission control, at most 2 running and 100 queued', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startServer({ maxRunningQueries: 2, maxQueuedQueries: 100 });
    base = server.baseUrl;
  });

  afterAll(async () => {
    await server?.close();
  });

  const manager = () => server.app.coordinator.manager;

  it('runs 6 slow statements 2 at a time, first in first out, the others QUEUED until a slot frees', async () => {
    const expected = (await run(base, SLOW)).rows;
    expect(expected).toHaveLength(1);
    const firsts: StatementAnswer[] = [];
    for (let i = 0; i < 6; i++) firsts.push(await post(base, SLOW));
    const ids = firsts.map((a) => a.id);
    const ours = (): Query[] => ids.map((id) => manager().get(id)!);
    // Sampled on the server's own thread: never more than 2 of them at work.
    let maxInSlot = 0;
    let maxQueued = 0;
    const startOrder: string[] = [];
    const sample = (): void => {
      const qs = ours();
      maxInSlot = Math.max(maxInSlot, qs.filter(working).length);
      maxQueued = Math.max(maxQueued, qs.filter((q) => q.state === 'QUEUED').length);
      for (const q of qs) if (q.state !== 'QUEUED' && !startOrder.includes(q.id)) startOrder.push(q.id);
    };
    sample();
    const sampler = setInterval(sample, 2);
    try {
      expect(manager().admissionCounts()).toEqual({ running: 2, queued: 4 });
      // Reported honestly to the clients and in /v1/query while waiting.
      expect(await queryState(base, ids[5])).toBe('QUEUED');
      const waited = (await (await fetch(`${firsts[5].nextUri}?maxWait=10ms`)).json()) as StatementAnswer;
      expect(waited.stats.state).toBe('QUEUED');
      expect(waited.stats.queued).toBe(true);
      const outcomes = await Promise.all(firsts.map((first, i) => follow(i === 5 ? waited : first)));
      for (const o of outcomes) {
        expect(o.error).toBeUndefined();
        expect(o.rows).toEqual(expected);
      }
    } finally {
      clearInterval(sampler);
    }
    sample();
    expect(maxInSlot).toBe(2);
    expect(maxQueued).toBe(4);
    expect(startOrder).toEqual(ids);
    expect(manager().admissionCounts()).toEqual({ running: 0, queued: 0 });
  });

  it('takes a cancelled queued statement out of the queue; the others run on', async () => {
    const a = await post(base, SLOW);
    const b = await post(base, SLOW);
    const c = await post(base, SLOW);
    const d = await post(base, SLOW);
    expect(manager().admissionCounts()).toEqual({ running: 2, queued: 2 });
    expect((await fetch(c.nextUri!, { method: 'DELETE' })).status).toBe(204);
    expect(manager().admissionCounts()).toEqual({ running: 2, queued: 1 });
    const canceled = await follow(c);
    expect(canceled.error?.errorName).toBe('USER_CANCELED');
    expect(manager().get(c.id)!.planningStartTime).toBeUndefined();
    const [ra, rb, rd] = await Promise.all([follow(a), follow(b), follow(d)]);
    for (const r of [ra, rb, rd]) expect(r.error).toBeUndefined();
    expect(rd.rows).toEqual(ra.rows);
    expect(manager().admissionCounts()).toEqual({ running: 0, queued: 0 });
  });

  it('gives the slot up once the result is complete, before the client reads it', async () => {
    const answers = [await post(base, SLOW), await post(base, SLOW), await post(base, SLOW)];
    // Nobody reads: the third one starts when one of the first two has its result anyway.
    await until(() => manager().admissionCounts().running === 0, 'every result to be complete');
    for (const a of answers) expect(manager().get(a.id)!.state).toBe('RUNNING');
    const outcomes = await Promise.all(answers.map(follow));
    for (const o of outcomes) expect(o.rows).toEqual(outcomes[0].rows);
    // A trivial statement's result is complete within its POST.
    const trivial = await Promise.all(Array.from({ length: 5 }, () => post(base, 'SELECT 1')));
    expect(manager().admissionCounts()).toEqual({ running: 0, queued: 0 });
    for (const a of trivial) expect((await follow(a)).rows).toEqual([[1]]);
  });

  it('answers 200 concurrent small statements, each with its rows or a clean failure', async () => {
    const outcomes = await Promise.all(Array.from({ length: 200 }, () => run(base, 'SELECT count(*) FROM nation')));
    for (const o of outcomes) {
      if (o.error) expect(o.error.errorName).toBe('QUERY_QUEUE_FULL');
      else expect(o.rows).toEqual([[25]]);
    }
    expect(outcomes.filter((o) => !o.error).length).toBeGreaterThan(0);
    expect(manager().admissionCounts()).toEqual({ running: 0, queued: 0 });
  });
});

describe('admission control, 1 running and 2 queued', () => {
  let server: TestServer;
  let base: string;

  beforeAll(async () => {
    server = await startServer({ maxRunningQueries: 1, maxQueuedQueries: 2 });
    base = server.baseUrl;
  });

  afterAll(async () => {
    await server?.close();
  });

  it('fails a statement beyond the queue at once with QUERY_QUEUE_FULL; system.runtime.queries shows who waits', async () => {
    const running = await post(base, SLOW);
    const listing = await post(base, 'SELECT query_id, state, error_code FROM system.runtime.queries');
    const waiting = await post(base, SLOW);
    const overflow = await post(base, 'SELECT 1');
    // Failed before any GET: its first answer is its last.
    expect(server.app.coordinator.manager.get(overflow.id)!.state).toBe('FAILED');
    const refused = await follow(overflow);
    expect(refused.states).toEqual(['FAILED']);
    expect(refused.error).toMatchObject({ errorName: 'QUERY_QUEUE_FULL', errorCode: 131074, errorType: 'INSUFFICIENT_RESOURCES', message: 'Too many queued queries for "global"' });
    const list = await follow(listing);
    expect(list.error).toBeUndefined();
    // The listing ran once the first statement's result was complete (not yet read); the one queued after it still waited.
    const states = new Map(list.rows.map((r) => [r[0], [r[1], r[2]]]));
    expect(states.get(running.id)).toEqual(['RUNNING', null]);
    expect(states.get(listing.id)).toEqual(['RUNNING', null]);
    expect(states.get(waiting.id)).toEqual(['QUEUED', null]);
    expect(states.get(overflow.id)).toEqual(['FAILED', 'QUERY_QUEUE_FULL']);
    const [first, last] = await Promise.all([follow(running), follow(waiting)]);
    expect(first.error).toBeUndefined();
    expect(last.rows).toEqual(first.rows);
    // The queue has room again.
    expect((await run(base, 'SELECT 1')).rows).toEqual([[1]]);
  });
});

describe('server-wide memory limit', () => {
  /** Numbers only: the output buffer holds them without the TPC-H text pool. */
  const HOLDER = 'SELECT orderkey, partkey, suppkey, quantity, extendedprice FROM lineitem';

  /** POSTs HOLDER and waits until its whole result is buffered (nobody reads it); returns its answer and what it holds. */
  async function holding(server: TestServer): Promise<{ answer: StatementAnswer; bytes: number }> {
    const answer = await post(server.baseUrl, HOLDER);
    const query = server.app.coordinator.manager.get(answer.id)!;
    await until(() => query.execution?.rootTask.outputBuffer.isFinished === true || query.done, 'the result to be buffered');
    expect(query.error).toBeUndefined();
    return { answer, bytes: query.execution!.memoryReservation() };
  }

  it('fails the query whose memory takes the sum over --query-max-total-memory; the others go on', async () => {
    // What the holder holds, measured on a server without a low limit.
    let size: number;
    const probe = await startServer();
    try {
      const held = await holding(probe);
      size = held.bytes;
      expect((await follow(held.answer)).rows).toHaveLength(60175);
    } finally {
      await probe.close();
    }
    expect(size).toBeGreaterThan(1024 * 1024);
    // Room for one holder and its transient peak (its drained input and its output count together for a moment: 2x), not for two.
    const limit = Math.floor(size * 2.5);
    const server = await startServer({ queryMaxTotalMemoryBytes: limit });
    try {
      const first = await holding(server);
      expect(server.app.coordinator.manager.memoryPool.reservedBytes()).toBe(first.bytes);
      const second = await run(server.baseUrl, HOLDER);
      expect(second.error).toMatchObject({ errorName: 'EXCEEDED_GLOBAL_MEMORY_LIMIT', errorCode: 131073, errorType: 'INSUFFICIENT_RESOURCES' });
      expect(second.error?.message).toMatch(/^Query exceeded distributed total memory limit of /u);
      // The first one is unharmed, and once it is read its memory is free for the next.
      expect((await follow(first.answer)).rows).toHaveLength(60175);
      expect(server.app.coordinator.manager.memoryPool.reservedBytes()).toBe(0);
      const third = await run(server.baseUrl, HOLDER);
      expect(third.error).toBeUndefined();
      expect(third.rows).toHaveLength(60175);
    } finally {
      await server.close();
    }
  });
});
