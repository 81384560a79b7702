// `npm run bench -- --load`'s client (the built dist/bench/load-worker.js, run by runLoad in a worker
// thread) against the real server: it completes POST + nextUri cycles (building the polls itself),
// counts each query once, measures each query's latency from its POST (noted by the poll that
// ended the connection's previous query), and reports a failing statement as failed rather than
// as a fast query; the rounds of `--load-rounds` are reported as medians.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server.js';
import { medianLoad, type MeasuredLoad } from '../src/bench/load.js';

type LoadModule = typeof import('../src/bench/load.js');
let runLoad: LoadModule['runLoad'];
let LoadClient: LoadModule['LoadClient'];
let server: TestServer;

beforeAll(async () => {
  // The worker thread needs JavaScript: the built tree (`make test` builds first).
  ({ runLoad, LoadClient } = (await import('../dist/bench/load.js' as string)) as LoadModule);
  server = await startServer();
});

afterAll(async () => {
  await server?.close();
});

const scenario = (sql: string, connections: number) =>
  ({ kind: 'statement', name: sql, url: server.baseUrl, connections, durationSeconds: 1, sql, catalog: 'tpch', schema: 'tiny' }) as const;

describe('the load client', () => {
  it('runs SELECT 1 cycles and times them from the POST', async () => {
    const r = await runLoad(scenario('SELECT 1', 4));
    expect(r.errors).toBe(0);
    expect(r.non2xx).toBe(0);
    expect(r.failedQueries).toBe(0);
    expect(r.abandonedQueries).toBe(0);
    expect(r.queries).toBeGreaterThan(50);
    // POST + one GET per SELECT 1; the cycles still running at the end count as requests only.
    expect(r.requests).toBeGreaterThanOrEqual(2 * r.queries!);
    expect(r.requests).toBeLessThanOrEqual(2 * r.queries! + 2 * 4);
    // Each connection's first query has no POST time; the rest do: two requests' worth at least.
    expect(r.queryP50Ms).toBeGreaterThan(0);
    expect(r.queryP50Ms!).toBeGreaterThanOrEqual(r.requestP50Ms);
    expect(r.queryP99Ms!).toBeLessThan(1000);
    // The percentiles leave out the run's first tenth (a 1 s run); the whole run's p99 is there too.
    expect(r.settleSeconds).toBe(0.1);
    expect(r.queryP99AllMs).toBeGreaterThan(0);
    // The polls' bytes came from the worker's own builder, not autocannon's (a changed autocannon
    // would silently fall back to its slower one).
    expect(r.pollsBuiltBy).toBe('load-worker');
  });

  it('counts a failing statement as failed', async () => {
    const r = await runLoad(scenario('SELECT nope FROM nation', 2));
    expect(r.queries).toBe(0);
    expect(r.failedQueries).toBeGreaterThan(10);
    expect(r.non2xx).toBe(0);
  });
});

describe('the load client thread', () => {
  it('runs scenarios one after the other on the same thread, one at a time', async () => {
    const client = new LoadClient();
    try {
      const first = await client.run(scenario('SELECT 1', 2));
      const second = await client.run(scenario('SELECT nope FROM nation', 2));
      expect(first.queries).toBeGreaterThan(20);
      expect(first.failedQueries).toBe(0);
      // The second run's counts are its own, not added to the first's.
      expect(second.queries).toBe(0);
      expect(second.failedQueries).toBeGreaterThan(10);
      const running = client.run(scenario('SELECT 1', 1));
      await expect(client.run(scenario('SELECT 1', 1))).rejects.toThrow(/one scenario at a time/);
      expect((await running).queries).toBeGreaterThan(10);
    } finally {
      await client.close();
    }
  });
});

describe('the load rounds', () => {
  const round = (rps: number, cpu: number | undefined, p99: number) =>
    ({ name: 'SELECT 1, 32 clients', connections: 32, seconds: 5, requests: rps * 5, requestsPerSecond: rps, requestP50Ms: 1, requestP99Ms: p99, non2xx: 0, errors: 0, serverCpuUsPerRequest: cpu }) as MeasuredLoad;

  it('reports each figure as its median over the rounds', () => {
    const m = medianLoad([round(100, 60, 9), round(300, 50, 7), round(200, 70, 8)]);
    expect(m.requestsPerSecond).toBe(200);
    expect(m.serverCpuUsPerRequest).toBe(60);
    expect(m.requestP99Ms).toBe(8);
    expect(m.connections).toBe(32);
    expect(m.name).toBe('SELECT 1, 32 clients');
    // An even count takes the middle two's mean; a figure some round lacks stays the first's.
    expect(medianLoad([round(100, 60, 9), round(300, undefined, 7)]).requestsPerSecond).toBe(200);
    expect(medianLoad([round(100, 60, 9), round(300, undefined, 7)]).serverCpuUsPerRequest).toBe(60);
  });

  it('passes a single round through as it is', () => {
    const one = round(100, 60, 9);
    expect(medianLoad([one])).toBe(one);
  });
});
