// End-to-end: the public npm clients, unchanged, against a real server — trino-client 0.2.9 (axios,
// X-Trino-* headers, form-urlencoded POST, errors in value.error, queryInfo, cancel) and
// presto-client 1.2.0 (node http, chunked POST, X-Presto-* or X-Trino-*, data/columns/success/error
// callbacks, the cancel() option's absolute-form DELETE, kill()).

import { createRequire } from 'node:module';
import { BasicAuth, Trino, type QueryResult } from 'trino-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type TestServer } from './support/server.js';

const require = createRequire(import.meta.url);
// eslint-disable-next-line @typescript-eslint/no-require-imports
const presto = require('presto-client') as { Client: new (options: Record<string, unknown>) => PrestoClient };

interface PrestoClient {
  execute(options: Record<string, unknown>): void;
  kill(queryId: string, callback: (error: unknown) => void): void;
  query(queryId: string, callback: (error: unknown, info: Record<string, unknown>) => void): void;
  nodes(options: unknown, callback: (error: unknown, nodes: Record<string, unknown>[]) => void): void;
}

interface PrestoOutcome {
  error?: { message: string; errorCode?: number; errorName?: string; errorType?: string };
  rows: unknown[][];
  columns?: { name: string; type: string }[];
  stats?: Record<string, unknown>;
  states: string[];
  queryId?: string;
}

let server: TestServer;
let base: string;
let port: number;

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
  port = Number(new URL(base).port);
});

afterAll(async () => {
  await server?.close();
});

function trino(extra: Record<string, unknown> = {}): Trino {
  return Trino.create({ server: base, catalog: 'tpch', schema: 'tiny', auth: new BasicAuth('test'), ...extra });
}

async function collect(it: AsyncIterable<QueryResult>): Promise<{ pages: QueryResult[]; rows: unknown[][] }> {
  const pages: QueryResult[] = [];
  const rows: unknown[][] = [];
  for await (const page of it) {
    pages.push(page);
    rows.push(...(page.data ?? []));
  }
  return { pages, rows };
}

/** Runs one statement through presto-client and gathers what its callbacks report. */
function prestoRun(client: PrestoClient, query: string, extra: Record<string, unknown> = {}): Promise<PrestoOutcome> {
  return new Promise((resolve) => {
    const out: PrestoOutcome = { rows: [], states: [] };
    client.execute({
      query,
      state: (_e: unknown, id: string, stats: { state: string }) => {
        out.queryId = id;
        out.states.push(stats.state);
      },
      columns: (_e: unknown, columns: { name: string; type: string }[]) => (out.columns = columns),
      data: (_e: unknown, rows: unknown[][]) => out.rows.push(...rows),
      success: (_e: unknown, stats: Record<string, unknown>) => {
        out.stats = stats;
        resolve(out);
      },
      error: (error: PrestoOutcome['error']) => {
        out.error = error;
        resolve(out);
      },
      ...extra,
    });
  });
}

describe('trino-client 0.2.9', () => {
  it('iterates the rows and columns of a query', async () => {
    const iter = await trino().query('SELECT nationkey, name FROM nation WHERE regionkey = 3 ORDER BY nationkey');
    const { pages, rows } = await collect(iter);
    expect(rows).toEqual([[6, 'FRANCE'], [7, 'GERMANY'], [19, 'ROMANIA'], [22, 'RUSSIA'], [23, 'UNITED KINGDOM']]);
    const withRows = pages.find((p) => p.data);
    expect(withRows?.columns?.map((c) => [c.name, c.type])).toEqual([['nationkey', 'bigint'], ['name', 'varchar(25)']]);
    expect(pages.at(-1)?.stats?.state).toBe('FINISHED');
    expect(pages.at(-1)?.error).toBeUndefined();
  });

  it('reads a large result spread over many answers', async () => {
    const { rows } = await collect(await trino().query('SELECT orderkey, comment FROM lineitem'));
    expect(rows).toHaveLength(60175);
  });

  it('sends X-Trino-User from BasicAuth and X-Trino-Source, seen in the query info', async () => {
    const client = trino({ source: 'e2e-trino-client' });
    const { pages } = await collect(await client.query('SELECT 1'));
    const id = pages[0].id;
    const info = (await client.queryInfo(id)) as unknown as { queryId: string; state: string; query: string; session: Record<string, unknown> };
    expect(info).toMatchObject({ queryId: id, state: 'FINISHED', query: 'SELECT 1' });
    expect(info.session).toMatchObject({ user: 'test', source: 'e2e-trino-client', catalog: 'tpch', schema: 'tiny', protocolName: 'trino' });
  });

  it('reports a failed query in value.error (not thrown), with Trino code and message', async () => {
    const { pages, rows } = await collect(await trino().query('SELECT * FROM tpch.tiny.nosuch'));
    expect(rows).toEqual([]);
    const last = pages.at(-1) as QueryResult;
    expect(last.stats?.state).toBe('FAILED');
    expect(last.error).toMatchObject({ errorCode: 46, errorName: 'TABLE_NOT_FOUND', errorType: 'USER_ERROR', message: "line 1:15: Table 'tpch.tiny.nosuch' does not exist" });
    expect(last.error?.failureInfo.message).toBe("line 1:15: Table 'tpch.tiny.nosuch' does not exist");
  });

  it('follows USE through X-Trino-Set-Catalog / X-Trino-Set-Schema', async () => {
    const client = trino();
    const use = await collect(await client.query('USE tpch.sf1'));
    expect(use.pages.at(-1)?.stats?.state).toBe('FINISHED');
    // The client now sends schema sf1: sf1 has 10000 suppliers (tiny: 100).
    const { rows } = await collect(await client.query('SELECT count(*) FROM supplier'));
    expect(rows).toEqual([[10000]]);
  });

  it('follows SET SESSION / RESET SESSION through X-Trino-Set-Session / X-Trino-Clear-Session', async () => {
    const client = trino();
    const plan = async (): Promise<string> => String((await collect(await client.query('EXPLAIN SELECT count(*) FROM nation n, region r WHERE n.regionkey = r.regionkey'))).rows[0]?.[0]);
    const set = await collect(await client.query("SET SESSION disabled_rules = 'prune_columns'"));
    expect(set.pages.at(-1)?.updateType).toBe('SET SESSION');
    // The client now sends the property: without column pruning the scans keep every column.
    const off = await plan();
    expect((await collect(await client.query('SHOW SESSION'))).rows[0]?.[1]).toBe('prune_columns');
    await collect(await client.query('RESET SESSION disabled_rules'));
    const on = await plan();
    expect(off).not.toEqual(on);
    expect(off).toMatch(/comment/u);
    expect(on).not.toMatch(/comment/u);
    const bad = await collect(await client.query("SET SESSION no_such_property = '1'"));
    expect(bad.pages.at(-1)?.error?.errorName).toBe('INVALID_SESSION_PROPERTY');
  });

  it('PREPARE answers X-Trino-Added-Prepare, which the client sends back for EXECUTE ... USING', async () => {
    const client = trino();
    const prepare = await collect(await client.query('PREPARE plus_one FROM SELECT ? + 1, count(*) FROM nation WHERE regionkey = ?'));
    expect(prepare.pages.at(-1)?.updateType).toBe('PREPARE');
    expect((await collect(await client.query('EXECUTE plus_one USING 41, 2'))).rows).toEqual([[42, 5]]);
    const info = (await (await fetch(`${base}/v1/query/${prepare.pages.at(-1)?.id}`)).json()) as { addedPreparedStatements: Record<string, string> };
    expect(info.addedPreparedStatements).toEqual({ plus_one: 'SELECT ? + 1, count(*) FROM nation WHERE regionkey = ?' });
    expect((await collect(await client.query('PREPARE broken FROM SELEC 1'))).pages.at(-1)?.error?.errorName).toBe('SYNTAX_ERROR');
  });

  it('cancel(id) sends DELETE /v1/query/{id}; the query ends FAILED with USER_CANCELED', async () => {
    const client = trino();
    const iter = await client.query('SELECT * FROM lineitem');
    const first = await iter.next();
    expect(first.done).toBe(false);
    const id = first.value.id;
    expect(first.value.data?.length).toBeGreaterThan(0);
    const canceled = await client.cancel(id);
    expect(canceled).toEqual({ id });
    const rest: QueryResult[] = [];
    for (let r = await iter.next(); !r.done; r = await iter.next()) rest.push(r.value);
    const last = rest.at(-1) as QueryResult;
    expect(last.stats?.state).toBe('FAILED');
    expect(last.error?.errorName).toBe('USER_CANCELED');
    const info = (await client.queryInfo(id)) as unknown as { state: string; failureInfo: { message: string } };
    expect(info.state).toBe('FAILED');
    expect(info.failureInfo.message).toBe('Query was canceled');
  });

  it('queryInfo of an unknown id rejects with the server status (410)', async () => {
    await expect(trino().queryInfo('20200101_000000_00000_abcde')).rejects.toMatchObject({ response: { status: 410 } });
  });
});

describe.each([
  ['presto (default)', undefined, 'presto'],
  ['trino', 'trino', 'trino'],
])('presto-client 1.2.0, engine %s', (_label, engine, protocol) => {
  const client = (): PrestoClient => new presto.Client({ host: '127.0.0.1', port, catalog: 'tpch', schema: 'tiny', user: 'test', checkInterval: 20, ...(engine ? { engine } : {}) });

  it('runs a query: columns once, rows through data, success at the end', async () => {
    const r = await prestoRun(client(), 'SELECT regionkey, count(*) AS n FROM nation GROUP BY regionkey ORDER BY regionkey');
    expect(r.error).toBeUndefined();
    expect(r.columns?.map((c) => [c.name, c.type])).toEqual([['regionkey', 'bigint'], ['n', 'bigint']]);
    expect(r.rows).toEqual([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]);
    expect(r.stats?.state).toBe('FINISHED');
    expect(r.states[0]).toBe('QUEUED');
    expect(r.states.at(-1)).toBe('FINISHED');
  });

  it('reads a large result without losing rows', async () => {
    const r = await prestoRun(client(), 'SELECT orderkey, linenumber FROM lineitem');
    expect(r.error).toBeUndefined();
    expect(r.rows).toHaveLength(60175);
  });

  it(`sends X-${protocol === 'trino' ? 'Trino' : 'Presto'}-* headers (seen in the session) with a chunked POST`, async () => {
    const r = await prestoRun(client(), 'SELECT 1');
    expect(r.rows).toEqual([[1]]);
    const info = (await (await fetch(`${base}/v1/query/${r.queryId}`)).json()) as { session: Record<string, unknown> };
    expect(info.session).toMatchObject({ user: 'test', source: 'nodejs-client', catalog: 'tpch', schema: 'tiny', protocolName: protocol, userAgent: expect.stringMatching(/^presto-client-node/) });
  });

  it('runs EXECUTE of statements sent with the prepares option (X-…-Prepared-Statement), parameters bound', async () => {
    const prepares = ["SELECT name FROM nation WHERE nationkey = ? OR name = ? ORDER BY name", "SELECT count(*) FROM nation WHERE name LIKE '?%'"];
    const r = await prestoRun(client(), "EXECUTE query0 USING 3, 'PERU'", { prepares });
    expect(r.rows).toEqual([['CANADA'], ['PERU']]);
    expect((await prestoRun(client(), 'EXECUTE query1', { prepares })).rows).toEqual([[0]]);
    const wrong = await prestoRun(client(), 'EXECUTE query0 USING 3', { prepares });
    expect(wrong.error).toMatchObject({ errorName: 'INVALID_PARAMETER_USAGE', message: 'Incorrect number of parameters: expected 2 but found 1' });
    expect((await prestoRun(client(), 'EXECUTE query9', { prepares })).error).toMatchObject({ errorName: 'NOT_FOUND' });
  });

  it('calls error with the QueryError of a failed query', async () => {
    const r = await prestoRun(client(), 'SELECT nosuch FROM nation');
    expect(r.error).toMatchObject({ errorCode: 47, errorName: 'COLUMN_NOT_FOUND', message: "line 1:8: Column 'nosuch' cannot be resolved" });
  });

  it('cancel() option: an absolute-form DELETE of the pending nextUri, answered 204', async () => {
    let polls = 0;
    const r = await prestoRun(client(), 'SELECT * FROM lineitem', { cancel: () => ++polls >= 2 });
    expect(r.error?.message).toBe('query fetch canceled by operation');
    expect(r.queryId).toBeDefined();
    const info = (await (await fetch(`${base}/v1/query/${r.queryId}`)).json()) as { state: string; errorCode: { name: string } };
    expect(info.state).toBe('FAILED');
    expect(info.errorCode.name).toBe('USER_CANCELED');
  });

  it('kill(id): DELETE /v1/query/{id}, and the next poll delivers USER_CANCELED', async () => {
    const c = client();
    const outcome = new Promise<PrestoOutcome>((resolve) => {
      const out: PrestoOutcome = { rows: [], states: [] };
      let killed = false;
      c.execute({
        query: 'SELECT * FROM lineitem',
        state: (_e: unknown, id: string) => {
          out.queryId = id;
          if (killed) return;
          killed = true;
          c.kill(id, (error) => expect(error).toBeNull());
        },
        data: (_e: unknown, rows: unknown[][]) => out.rows.push(...rows),
        success: () => resolve(out),
        error: (e: PrestoOutcome['error']) => {
          out.error = e;
          resolve(out);
        },
      });
    });
    const r = await outcome;
    expect(r.error).toMatchObject({ errorCode: 3, errorName: 'USER_CANCELED', message: 'Query was canceled' });
    expect(r.rows.length).toBeLessThan(60175);
  });

  it('query(id) and nodes() work', async () => {
    const c = client();
    const r = await prestoRun(c, 'SELECT 2');
    const info = await new Promise<Record<string, unknown>>((resolve, reject) => c.query(r.queryId as string, (e, i) => (e ? reject(e) : resolve(i))));
    expect(info).toMatchObject({ queryId: r.queryId, state: 'FINISHED', query: 'SELECT 2' });
    const nodes = await new Promise<Record<string, unknown>[]>((resolve, reject) => c.nodes(null, (e, n) => (e ? reject(e) : resolve(n))));
    expect(nodes).toHaveLength(1);
    expect(nodes[0].uri).toBe(base);
  });
});
