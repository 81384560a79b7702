// End-to-end: a cancelled query stops using the workers (drivers poll the query's stop flag between
// pages, a cross join's probe between parts), and a query past its memory limit fails with
// EXCEEDED_LOCAL_MEMORY_LIMIT while its drivers run, instead of after they made their output.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

const ENGINE = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };

let server: TestServer;
let base: string;
/** A server whose queries may hold only 32 MB. */
let small: TestServer;

async function post(sql: string): Promise<StatementAnswer> {
  const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE });
  expect(res.status).toBe(200);
  return (await res.json()) as StatementAnswer;
}

async function next(uri: string): Promise<StatementAnswer> {
  const res = await fetch(uri);
  expect(res.status).toBe(200);
  return (await res.json()) as StatementAnswer;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls until the pool has no request in flight; returns how long that took (ms), or -1 past `timeoutMs`. */
async function poolIdle(timeoutMs: number, on = server): Promise<number> {
  const t0 = Date.now();
  while (Date.now() - t0 < timeoutMs) {
    if (on.app.coordinator.pool.busyRequests === 0) return Date.now() - t0;
    await sleep(10);
  }
  return -1;
}

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
  // A small limit: the cross joins below pass it within their first driver.
  small = await startServer({ queryMaxMemoryBytes: 32 * 1024 * 1024 });
});

afterAll(async () => {
  await server?.close();
  await small?.close();
});

describe('cancel frees the work', () => {
  it('a cancelled cross join leaves the pool idle at once, and a plain count answers', async () => {
    // 60k x 60k lineitem pairs, each tested: minutes of probing on two workers, little memory (a count).
    const first = await post('SELECT count(*) FROM lineitem a, lineitem b WHERE a.quantity < b.discount');
    let answer = first;
    // Wait until its drivers are on the workers.
    for (let i = 0; i < 500 && server.app.coordinator.pool.busyRequests === 0; i++) {
      if (answer.nextUri) answer = await next(answer.nextUri);
      await sleep(10);
    }
    expect(server.app.coordinator.pool.busyRequests).toBeGreaterThan(0);
    // Some time on the workers, so the cancel lands inside the probe, not before it.
    await sleep(300);
    const del = await fetch(answer.nextUri as string, { method: 'DELETE' });
    expect(del.status).toBe(204);
    // Before drivers polled the flag this stayed busy for tens of seconds.
    expect(await poolIdle(5_000)).toBeGreaterThanOrEqual(0);
    // Idle means no CPU either: the process's CPU over a quiet while is a fraction of one core
    // (two busy workers would use two).
    const cpu0 = process.cpuUsage();
    await sleep(500);
    const cpu = process.cpuUsage(cpu0);
    expect((cpu.user + cpu.system) / 1000).toBeLessThan(400);
    const t0 = Date.now();
    const r = await runQuery(base, 'SELECT count(*) FROM nation');
    expect(r.rows).toEqual([[25]]);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const info = (await (await fetch(`${base}/v1/query/${first.id}`)).json()) as { state: string; errorCode: { name: string } };
    expect(info.state).toBe('FAILED');
    expect(info.errorCode.name).toBe('USER_CANCELED');
  }, 20_000);

  it('a cross join producing more than the query memory limit fails with EXCEEDED_LOCAL_MEMORY_LIMIT; the server still answers', async () => {
    const rss0 = process.memoryUsage().rss;
    // Each probe part forms ~1M pairs of two bigints: 16 MB a page, past 32 MB in the first driver.
    const r = await runQuery(small.baseUrl, 'SELECT a.orderkey, b.partkey FROM lineitem a, lineitem b');
    expect(r.error?.errorName).toBe('EXCEEDED_LOCAL_MEMORY_LIMIT');
    expect(r.error?.message).toMatch(/^Query exceeded per-node memory limit of 32.00MB/);
    expect(await poolIdle(5_000, small)).toBeGreaterThanOrEqual(0);
    const ok = await runQuery(small.baseUrl, 'SELECT count(*) FROM nation');
    expect(ok.rows).toEqual([[25]]);
    // What it made is let go of: RSS stays within a few limits' worth of where it started.
    expect(process.memoryUsage().rss - rss0).toBeLessThan(512 * 1024 * 1024);
  }, 30_000);

  it('a blocking stage counts the input it drained: a window over 43 MB of rows fails at a 32 MB limit', async () => {
    // The window's stage holds its whole input, which once read from the upstream buffer was counted
    // nowhere (the query ran to the end).
    const r = await runQuery(small.baseUrl, 'SELECT max(x) FROM (SELECT row_number() OVER (ORDER BY l.comment, r.comment) x FROM lineitem l, region r)');
    expect(r.error?.errorName).toBe('EXCEEDED_LOCAL_MEMORY_LIMIT');
    expect(await poolIdle(5_000, small)).toBeGreaterThanOrEqual(0);
    const ok = await runQuery(small.baseUrl, 'SELECT count(*) FROM orders');
    expect(ok.rows).toEqual([[15000]]);
  }, 30_000);
});
