import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type TestServer } from './support/server.js';

describe('statement protocol smoke', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it('counts tpch.tiny.lineitem', async () => {
    const r = await runQuery(server.baseUrl, 'SELECT count(*) FROM tpch.tiny.lineitem');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([[60175]]);
    expect(r.columns?.map((c) => c.type)).toEqual(['bigint']);
    expect(r.answers[0].stats.state).toBe('QUEUED');
    expect(r.answers.at(-1)?.stats.state).toBe('FINISHED');
    expect(r.answers.at(-1)?.nextUri).toBeUndefined();
  });
});
