// End-to-end: query failures reach the client as Trino does — HTTP 200, state FAILED, no nextUri,
// an error object with message, errorCode, errorName, errorType, errorLocation (parse and analysis
// errors) and failureInfo — and the server keeps serving.

import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

let server: TestServer;
let base: string;

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
});

afterAll(async () => {
  await server?.close();
});

interface ErrorCase {
  sql: string;
  name: string;
  code: number;
  message: string | RegExp;
  location?: { lineNumber: number; columnNumber: number };
  type?: string;
}

const CASES: ErrorCase[] = [
  { sql: 'SELEC 1', name: 'SYNTAX_ERROR', code: 1, message: /^line 1:1: mismatched input 'SELEC'\. Expecting: /, location: { lineNumber: 1, columnNumber: 1 } },
  { sql: 'select 1 +', name: 'SYNTAX_ERROR', code: 1, message: /^line 1:11: mismatched input '<EOF>'/, location: { lineNumber: 1, columnNumber: 11 } },
  { sql: 'select *\nfrom nation\nwhere', name: 'SYNTAX_ERROR', code: 1, message: /^line 3:6: /, location: { lineNumber: 3, columnNumber: 6 } },
  // Leading blank lines count: locations are in the text as sent.
  { sql: '\n\n  select nosuch from nation', name: 'COLUMN_NOT_FOUND', code: 47, message: "line 3:10: Column 'nosuch' cannot be resolved", location: { lineNumber: 3, columnNumber: 10 } },
  { sql: 'select * from tpch.tiny.nosuch', name: 'TABLE_NOT_FOUND', code: 46, message: "line 1:15: Table 'tpch.tiny.nosuch' does not exist", location: { lineNumber: 1, columnNumber: 15 } },
  { sql: 'select nosuch from nation', name: 'COLUMN_NOT_FOUND', code: 47, message: "line 1:8: Column 'nosuch' cannot be resolved", location: { lineNumber: 1, columnNumber: 8 } },
  { sql: "select 'a' = 1", name: 'TYPE_MISMATCH', code: 58, message: 'line 1:8: Cannot apply operator: varchar(1) = integer', location: { lineNumber: 1, columnNumber: 8 } },
  { sql: 'select * from nation where name', name: 'TYPE_MISMATCH', code: 58, message: /^line 1:28: WHERE clause must evaluate to a boolean: actual type varchar\(25\)$/, location: { lineNumber: 1, columnNumber: 28 } },
  { sql: 'select * from nosuchcatalog.tiny.nation', name: 'CATALOG_NOT_FOUND', code: 44, message: /Catalog 'nosuchcatalog'/ },
  { sql: 'select * from tpch.nosuchschema.nation', name: 'SCHEMA_NOT_FOUND', code: 45, message: /Schema 'nosuchschema' does not exist/ },
  { sql: 'select nosuchfn(1)', name: 'FUNCTION_NOT_FOUND', code: 6, message: /Function 'nosuchfn' not registered/ },
  { sql: 'with recursive t(n) as (select 1) select * from t', name: 'NOT_SUPPORTED', code: 13, message: /Recursive WITH queries are not supported/ },
  {
    sql: 'select (select count(distinct r.name) from region r where r.regionkey < n.regionkey) from nation n',
    name: 'NOT_SUPPORTED',
    code: 13,
    message: /Correlated subqueries with conditions other than equality/,
  },
];

describe('errors', () => {
  it.each(CASES)('$sql → $name ($code)', async (c) => {
    const r = await runQuery(base, c.sql);
    const last = r.answers.at(-1) as StatementAnswer;
    expect(last.stats.state).toBe('FAILED');
    expect(last.nextUri).toBeUndefined();
    expect(last.data).toBeUndefined();
    expect(r.rows).toEqual([]);
    const e = last.error as NonNullable<StatementAnswer['error']> & { failureInfo: { type: string; message: string; stack: unknown[]; suppressed: unknown[] }; sqlState: unknown };
    expect(e.errorName).toBe(c.name);
    expect(e.errorCode).toBe(c.code);
    expect(e.errorType).toBe(c.type ?? 'USER_ERROR');
    if (typeof c.message === 'string') expect(e.message).toBe(c.message);
    else expect(e.message).toMatch(c.message);
    if (c.location) expect(e.errorLocation).toEqual(c.location);
    // Parse and analysis errors always carry a location, with Trino's `line L:C: ` message prefix.
    if (e.errorLocation) expect(e.message.startsWith(`line ${e.errorLocation.lineNumber}:${e.errorLocation.columnNumber}: `)).toBe(true);
    expect(e.failureInfo).toMatchObject({ message: e.message, stack: [], suppressed: [] });
    expect(typeof e.failureInfo.type).toBe('string');
    expect(e.sqlState).toBeNull();
    // The failed query is visible with the same code on /v1/query/{id}.
    const info = (await (await fetch(`${base}/v1/query/${r.id}`)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ state: 'FAILED', errorType: e.errorType, errorCode: { code: c.code, name: c.name, type: e.errorType } });
  });

  it('a failing statement still answers HTTP 200 on every poll', async () => {
    const post = await fetch(`${base}/v1/statement`, { method: 'POST', body: 'SELEC 1', headers: { 'X-Engine-User': 'test' } });
    expect(post.status).toBe(200);
    const first = (await post.json()) as StatementAnswer;
    expect(first.stats.state).toBe('QUEUED');
    expect(first.error).toBeUndefined();
    const res = await fetch(first.nextUri as string);
    expect(res.status).toBe(200);
    const a = (await res.json()) as StatementAnswer;
    expect(a.error?.errorName).toBe('SYNTAX_ERROR');
    expect(a.warnings).toEqual([]);
    expect(a.infoUri).toBe(`${base}/v1/query/${first.id}`);
  });

  it.each([
    ['select 1/0', 'a constant'],
    ['select nationkey / 0 from tpch.tiny.nation', 'a column (on the workers)'],
    ['select count(*) from tpch.tiny.lineitem where orderkey / (linenumber - linenumber) > 0', 'a filter over a generated table'],
  ])('%s → DIVISION_BY_ZERO (8) from %s', async (sql) => {
    const r = await runQuery(base, sql);
    expect(r.error).toMatchObject({ message: 'Division by zero', errorCode: 8, errorName: 'DIVISION_BY_ZERO', errorType: 'USER_ERROR' });
    const last = r.answers.at(-1) as StatementAnswer;
    expect(last.stats.state).toBe('FAILED');
    expect(last.nextUri).toBeUndefined();
  });

  it('a runtime failure ends every task of the query', async () => {
    const r = await runQuery(base, 'select orderkey / (linenumber - linenumber) from tpch.tiny.lineitem');
    expect(r.error?.errorName).toBe('DIVISION_BY_ZERO');
    const info = (await (await fetch(`${base}/v1/query/${r.id}`)).json()) as { queryStats: { runningTasks: number }; outputStage: { tasks: { state: string }[] } };
    expect(info.queryStats.runningTasks).toBe(0);
    for (const t of info.outputStage.tasks) expect(['FAILED', 'ABORTED', 'CANCELED', 'FINISHED']).toContain(t.state);
  });

  it('keeps serving after the failures', async () => {
    const r = await runQuery(base, 'SELECT count(*), min(name), max(name) FROM tpch.tiny.nation');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([[25, 'ALGERIA', 'VIETNAM']]);
  });
});
