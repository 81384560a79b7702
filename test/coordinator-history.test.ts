// The history of finished queries (/v1/query) stays within query.max-history as clients receive
// their final answers, not only when the periodic sweep runs: under a stream of small queries a
// second's worth of finished queries would otherwise stay in memory. Queries that end without a
// final answer read (abandoned ones) leave it on the sweep, oldest first.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';

let server: TestServer;

const CLIENT_TIMEOUT_MS = 1000;

beforeAll(async () => {
  server = await startServer({ queryMaxHistory: 3, queryClientTimeoutMs: CLIENT_TIMEOUT_MS });
});

async function listed(): Promise<string[]> {
  return ((await (await fetch(`${server.baseUrl}/v1/query`)).json()) as { queryId: string }[]).map((q) => q.queryId).sort();
}

afterAll(async () => {
  await server?.close();
});

describe('query history', () => {
  it('keeps the last query.max-history answered queries, at once', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) {
      const r = await runQuery(server.baseUrl, `SELECT ${i}`);
      expect(r.error).toBeUndefined();
      expect(r.rows).toEqual([[i]]);
      ids.push(r.id);
    }
    expect(await listed()).toEqual(ids.slice(3).sort());
    expect((await fetch(`${server.baseUrl}/v1/query/${ids[5]}`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/v1/query/${ids[0]}`)).status).toBe(410); // gone, as Trino answers
  });

  it('keeps the newest query.max-history of the queries abandoned without a final answer', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await fetch(`${server.baseUrl}/v1/statement`, { method: 'POST', body: `SELECT ${i}`, headers: { 'X-Trino-User': 'history-test' } });
      ids.push(((await res.json()) as { id: string }).id);
      await new Promise((r) => setTimeout(r, 5));
    }
    // Nobody polls: each is abandoned after the client timeout, by a sweep (one a second).
    await expect.poll(listed, { timeout: CLIENT_TIMEOUT_MS + 4000, interval: 200 }).toEqual(ids.slice(2).sort());
    const info = (await (await fetch(`${server.baseUrl}/v1/query/${ids[4]}`)).json()) as { state: string; errorCode: { name: string } };
    expect(info).toMatchObject({ state: 'FAILED', errorCode: { name: 'ABANDONED_QUERY' } });
    expect((await fetch(`${server.baseUrl}/v1/query/${ids[1]}`)).status).toBe(410);
  });
});
