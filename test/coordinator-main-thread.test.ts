// The coordinator's thread serves HTTP: a query over a few in-memory rows may run its drivers there
// (execution.ts smallWork), but not when its joins multiply those rows into a large product. Here
// a cross join of tiny tables (7 tiny scans, 1.2 billion rows) must leave /v1/info answering
// while it runs on the workers; the vitest timeout is the bound.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type StatementAnswer, type TestServer } from './support/server.js';

const ENGINE = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };

describe('the coordinator thread stays responsive', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer({ workers: 2 });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('a cross join of tiny tables runs off the HTTP thread: /v1/info answers while the query is still running', { timeout: 60_000 }, async () => {
    const sql = 'select count(*) from nation a, nation b, nation c, nation d, nation e, nation f, region g';
    const post = (await (await fetch(`${server.baseUrl}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE })).json()) as StatementAnswer;
    // The first nextUri starts the query; its answer comes once the first rows or the long poll end.
    const polling = fetch(post.nextUri as string).then((r) => r.json() as Promise<StatementAnswer>);
    const info = await fetch(`${server.baseUrl}/v1/info`);
    expect(info.status).toBe(200);
    const query = (await (await fetch(`${server.baseUrl}/v1/query/${post.id}`)).json()) as { state: string };
    // Had the product run on this thread, /v1/info would have waited for the whole query.
    expect(query.state).not.toMatch(/FINISH/u);
    await fetch(`${server.baseUrl}/v1/query/${post.id}`, { method: 'DELETE' });
    await polling;
  });
});
