// End-to-end: limits on a server started with small ones — a 1 MB per-query memory limit
// (EXCEEDED_LOCAL_MEMORY_LIMIT), a 4 kB request body limit (413), and a 1.5 s client timeout
// (ABANDONED_QUERY for queries nobody polls; the sweeper runs every second).

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

const ENGINE = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };
const MAX_BODY = 4096;
const CLIENT_TIMEOUT_MS = 1500;

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startServer({ queryMaxMemoryBytes: 1024 * 1024, maxBodyBytes: MAX_BODY, queryClientTimeoutMs: CLIENT_TIMEOUT_MS });
  base = server.baseUrl;
});

afterAll(async () => {
  await server?.close();
});

async function post(sql: string): Promise<StatementAnswer> {
  const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE });
  expect(res.status).toBe(200);
  return (await res.json()) as StatementAnswer;
}

/** A chunked POST (no Content-Length) of `body`, answered status and text. */
function chunkedPost(path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const url = new URL(base + path);
    const req = httpRequest({ host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...ENGINE, 'Transfer-Encoding': 'chunked' } }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    for (let i = 0; i < body.length; i += 1000) req.write(body.slice(i, i + 1000));
    req.end();
  });
}

describe('memory limit', () => {
  it('fails an ORDER BY over tpch.tiny.lineitem with EXCEEDED_LOCAL_MEMORY_LIMIT (131079)', async () => {
    const r = await runQuery(base, 'SELECT * FROM tpch.tiny.lineitem ORDER BY orderkey DESC');
    const last = r.answers.at(-1) as StatementAnswer;
    expect(last.stats.state).toBe('FAILED');
    expect(last.nextUri).toBeUndefined();
    expect(r.error).toMatchObject({ errorCode: 131079, errorName: 'EXCEEDED_LOCAL_MEMORY_LIMIT', errorType: 'INSUFFICIENT_RESOURCES' });
    expect(r.error?.message).toMatch(/^Query exceeded per-node memory limit of 1\.00MB \[Allocated: \d+(\.\d+)?(B|kB|MB|GB)\]$/);
    const info = (await (await fetch(`${base}/v1/query/${r.id}`)).json()) as { state: string; errorCode: { code: number }; queryStats: { runningTasks: number } };
    expect(info.state).toBe('FAILED');
    expect(info.errorCode.code).toBe(131079);
    expect(info.queryStats.runningTasks).toBe(0);
  });

  it('keeps serving small queries under the same limit afterwards', async () => {
    const r = await runQuery(base, 'SELECT count(*), sum(quantity) FROM tpch.tiny.lineitem');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([[60175, 1536127]]);
    const top = await runQuery(base, 'SELECT orderkey FROM tpch.tiny.lineitem ORDER BY orderkey DESC LIMIT 3');
    expect(top.error).toBeUndefined();
    expect(top.rows).toEqual([[60000], [60000], [60000]]);
  });
});

describe('request body limit', () => {
  it('answers 413 to a body over the limit (with Content-Length)', async () => {
    const sql = `SELECT 1 -- ${'x'.repeat(MAX_BODY)}`;
    const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE });
    expect(res.status).toBe(413);
    const body = (await res.json()) as { error: string; message: string };
    expect(body.error).toBe('Payload Too Large');
    expect(body.message).toContain(String(MAX_BODY));
  });

  it('answers 413 to a chunked body that grows over the limit', async () => {
    const r = await chunkedPost('/v1/statement', `SELECT 1 -- ${'y'.repeat(MAX_BODY * 2)}`);
    expect(r.status).toBe(413);
  });

  it('still takes a body just under the limit', async () => {
    const sql = `SELECT 42 -- ${'z'.repeat(MAX_BODY - 100)}`;
    const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE });
    expect(res.status).toBe(200);
    let a = (await res.json()) as StatementAnswer;
    const rows: unknown[][] = [];
    while (a.nextUri) {
      a = (await (await fetch(a.nextUri)).json()) as StatementAnswer;
      rows.push(...(a.data ?? []));
    }
    expect(rows).toEqual([[42]]);
  });

  it('answers 413 on the task resource too, and keeps serving', async () => {
    const big = JSON.stringify({ fragment: { source: { kind: 'scan', columns: [0] }, operators: [] }, table: { catalog: 'tpch', schema: 'tiny', table: 'nation' }, pad: 'p'.repeat(MAX_BODY) });
    const res = await fetch(`${base}/v1/task/bigbody.1.0`, { method: 'POST', body: big });
    expect(res.status).toBe(413);
    await res.text();
    const r = await runQuery(base, 'SELECT 1');
    expect(r.rows).toEqual([[1]]);
  });
});

describe('abandoned queries', () => {
  it('fails a query nobody polls with ABANDONED_QUERY (2) after the client timeout', async () => {
    const first = await post('SELECT count(*) FROM tpch.tiny.orders');
    // A client that read a first batch and then went away (a narrow column stays under 1 MB buffered).
    const slow = await post('SELECT orderkey FROM tpch.tiny.lineitem');
    let read = slow;
    while (read.nextUri && !read.data) read = (await (await fetch(`${read.nextUri}?targetResultSize=10kB`)).json()) as StatementAnswer;
    expect(read.data?.length).toBeGreaterThan(0);
    expect(read.nextUri).toBeDefined();
    // Nobody polls for longer than the timeout plus a sweep period.
    await new Promise((r) => setTimeout(r, CLIENT_TIMEOUT_MS + 1600));
    for (const q of [first, read]) {
      const info = (await (await fetch(`${base}/v1/query/${q.id}`)).json()) as { state: string; errorCode: { code: number; name: string } };
      expect(info.state).toBe('FAILED');
      expect(info.errorCode).toMatchObject({ code: 2, name: 'ABANDONED_QUERY' });
      const res = await fetch(q.nextUri as string);
      expect(res.status).toBe(200);
      const a = (await res.json()) as StatementAnswer;
      expect(a.stats.state).toBe('FAILED');
      expect(a.nextUri).toBeUndefined();
      expect(a.error).toMatchObject({ errorCode: 2, errorName: 'ABANDONED_QUERY', errorType: 'USER_ERROR' });
      expect(a.error?.message).toMatch(new RegExp(`^Query ${q.id} was abandoned by the client`));
    }
    // The abandoned query's tasks are not left running.
    const tasks = (await (await fetch(`${base}/v1/task`)).json()) as { taskId: string; state: string }[];
    for (const t of tasks.filter((x) => x.taskId.startsWith(slow.id))) expect(t.state).not.toBe('RUNNING');
  });

  it('does not abandon a query that is polled more often than the timeout', async () => {
    // Each GET long-polls at most 1 s, below the 1.5 s timeout: a polling client keeps the query alive.
    const first = await post('SELECT count(*) FROM tpch.tiny.partsupp');
    await new Promise((r) => setTimeout(r, 900));
    let a = (await (await fetch(first.nextUri as string)).json()) as StatementAnswer;
    const rows: unknown[][] = [...(a.data ?? [])];
    while (a.nextUri) {
      await new Promise((r) => setTimeout(r, 900));
      a = (await (await fetch(a.nextUri)).json()) as StatementAnswer;
      rows.push(...(a.data ?? []));
    }
    expect(a.error).toBeUndefined();
    expect(rows).toEqual([[8000]]);
  });
});
