// The history of finished queries (/v1/query) stays within query.max-history as clients receive
// their final answers, not only when the periodic sweep runs: under a stream of small queries a
// second's worth of finished queries would otherwise stay in memory.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';

let server: TestServer;

beforeAll(async () => {
  server = await startServer({ queryMaxHistory: 3 });
});

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
    const listed = ((await (await fetch(`${server.baseUrl}/v1/query`)).json()) as { queryId: string }[]).map((q) => q.queryId);
    expect(listed.sort()).toEqual(ids.slice(3).sort());
    expect((await fetch(`${server.baseUrl}/v1/query/${ids[5]}`)).status).toBe(200);
    expect((await fetch(`${server.baseUrl}/v1/query/${ids[0]}`)).status).toBe(410); // gone, as Trino answers
  });
});
