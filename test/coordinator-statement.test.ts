// End-to-end: the statement protocol (POST /v1/statement, GET/DELETE nextUri) against a real server:
// the initial answer, body encodings, columns and values, states, tokens, batching, long polls,
// session headers in all three spellings, and malformed requests.

import { request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

const ID = /^\d{8}_\d{6}_\d{5}_[a-z0-9]{5}$/;
const ENGINE = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };
const STATE_ORDER = ['QUEUED', 'PLANNING', 'STARTING', 'RUNNING', 'FINISHING', 'FINISHED'];

let server: TestServer;
let base: string;

async function post(sql: string, headers: Record<string, string> = ENGINE): Promise<{ status: number; answer: StatementAnswer; headers: Headers }> {
  const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers });
  return { status: res.status, answer: (await res.json()) as StatementAnswer, headers: res.headers };
}

async function getJson(uri: string): Promise<StatementAnswer> {
  const res = await fetch(uri);
  expect(res.status, `GET ${uri}`).toBe(200);
  return (await res.json()) as StatementAnswer;
}

/** Follows nextUri from an answer to the end, collecting answers. */
async function follow(first: StatementAnswer, suffix = ''): Promise<StatementAnswer[]> {
  const answers = [first];
  let a = first;
  while (a.nextUri) {
    a = await getJson(a.nextUri + suffix);
    answers.push(a);
  }
  return answers;
}

function tokenOf(uri: string): number {
  return Number(uri.split('/').at(-1));
}

function withToken(uri: string, token: number | string): string {
  return uri.replace(/\/[^/]*$/u, `/${token}`);
}

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
});

afterAll(async () => {
  await server?.close();
});

describe('answer layout', () => {
  it("writes Trino's fields in Trino's order, stats and its stage tree included", async () => {
    const { answer } = await post('SELECT regionkey, count(*) FROM nation GROUP BY regionkey');
    expect(Object.keys(answer)).toEqual(['id', 'infoUri', 'partialCancelUri', 'nextUri', 'stats', 'warnings']);
    const answers = await follow(answer);
    const last = answers.at(-1) as StatementAnswer;
    expect(Object.keys(last)).toEqual(['id', 'infoUri', 'columns', 'data', 'stats', 'warnings']);
    expect(Object.keys(last.stats)).toEqual([
      'state', 'queued', 'scheduled', 'nodes', 'totalSplits', 'queuedSplits', 'runningSplits', 'completedSplits', 'cpuTimeMillis', 'wallTimeMillis',
      'queuedTimeMillis', 'elapsedTimeMillis', 'processedRows', 'processedBytes', 'physicalInputBytes', 'peakMemoryBytes', 'spilledBytes', 'progressPercentage', 'rootStage',
    ]);
    expect(last.stats.progressPercentage).toBe(100);
    const stageKeys = ['stageId', 'state', 'done', 'nodes', 'totalSplits', 'queuedSplits', 'runningSplits', 'completedSplits', 'cpuTimeMillis', 'wallTimeMillis', 'processedRows', 'processedBytes', 'physicalInputBytes', 'failedTasks', 'coordinatorOnly', 'subStages'];
    const walk = (stage: Record<string, unknown>): number => {
      expect(Object.keys(stage)).toEqual(stageKeys);
      expect(stage.done).toBe(true);
      expect(typeof stage.cpuTimeMillis).toBe('number');
      return 1 + (stage.subStages as Record<string, unknown>[]).reduce((n, s) => n + walk(s), 0);
    };
    expect(walk(last.stats.rootStage as Record<string, unknown>)).toBeGreaterThanOrEqual(2);
    const failed = await follow((await post('SELECT * FROM no_such_table')).answer);
    expect(Object.keys(failed.at(-1) as StatementAnswer)).toEqual(['id', 'infoUri', 'stats', 'error', 'warnings']);
  });
});

describe('answer statistics', () => {
  // The statistics texts are remembered by the values they were built from (util/text-memo.ts):
  // statements alternating on the same server must each get their own figures.
  it("are each statement's own when statements of different shapes alternate", async () => {
    const final = async (sql: string): Promise<StatementAnswer> => (await follow((await post(sql)).answer)).at(-1) as StatementAnswer;
    type Stage = { stageId: string; processedRows: number; totalSplits: number; subStages: Stage[] };
    const tree = (s: Stage): string => `${s.stageId}:${s.processedRows}/${s.totalSplits}[${s.subStages.map(tree).join(',')}]`;
    const firstTrees = new Map<string, string>();
    for (let i = 0; i < 3; i++) {
      for (const [sql, rows] of [
        ['SELECT name FROM nation', 25],
        ['SELECT name FROM region', 5],
        ['SELECT count(*) FROM customer', 1500],
      ] as const) {
        const last = await final(sql);
        expect(last.stats.state, sql).toBe('FINISHED');
        expect(last.stats.processedRows, sql).toBe(rows);
        // Each stage's rows and splits are the same every time the statement runs.
        const t = tree(last.stats.rootStage as Stage);
        if (!firstTrees.has(sql)) firstTrees.set(sql, t);
        expect(t, sql).toBe(firstTrees.get(sql));
        expect(t, sql).toContain(`:${rows}/`);
      }
      const one = await final('SELECT 1');
      expect(one.stats.processedRows).toBe(1);
      expect(one.data).toEqual([[1]]);
    }
  });
});

describe('POST /v1/statement', () => {
  it('answers at once with QUEUED, an id, infoUri, partialCancelUri, an absolute nextUri, stats and no data', async () => {
    const { status, answer, headers } = await post('SELECT 1');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toMatch(/^application\/json/);
    expect(answer.id).toMatch(ID);
    expect(answer.infoUri).toBe(`${base}/v1/query/${answer.id}`);
    expect(answer.partialCancelUri).toBe(`${base}/v1/stage/${answer.id}.0`);
    expect(answer.nextUri).toBe(`${base}/v1/statement/${answer.id}/1`);
    expect(new URL(answer.nextUri as string).origin).toBe(base);
    expect(answer.stats).toMatchObject({ state: 'QUEUED', queued: true, scheduled: false, nodes: 0, totalSplits: 0, processedRows: 0 });
    expect(typeof answer.stats.elapsedTimeMillis).toBe('number');
    expect(answer.data).toBeUndefined();
    expect(answer.columns).toBeUndefined();
    expect(answer.error).toBeUndefined();
    expect(answer.warnings).toEqual([]);
    const rest = await follow(answer);
    expect(rest.at(-1)?.stats.state).toBe('FINISHED');
  });

  it('gives every query its own id', async () => {
    const ids = await Promise.all([1, 2, 3, 4].map(async () => (await post('SELECT 1')).answer.id));
    for (const id of ids) expect(id).toMatch(ID);
    expect(new Set(ids).size).toBe(4);
    // Let them finish (they would otherwise stay unpolled until the server closes).
    for (const id of ids) await fetch(`${base}/v1/query/${id}`, { method: 'DELETE' });
  });

  it.each([
    ['an empty body', ''],
    ['a blank body', '  \n\t '],
  ])('answers 400 "SQL statement is empty" to %s', async (_what, body) => {
    const res = await fetch(`${base}/v1/statement`, { method: 'POST', body, headers: ENGINE });
    expect(res.status).toBe(400);
    expect(await res.text()).toBe('SQL statement is empty');
  });

  it('takes the SQL as the raw body when sent as application/x-www-form-urlencoded (trino-client style)', async () => {
    const sql = "SELECT name FROM tpch.tiny.nation WHERE name LIKE 'UNITED%' ORDER BY name";
    const res = await fetch(`${base}/v1/statement`, {
      method: 'POST',
      body: sql,
      headers: { ...ENGINE, 'Content-Type': 'application/x-www-form-urlencoded' },
    });
    expect(res.status).toBe(200);
    const answers = await follow((await res.json()) as StatementAnswer);
    const last = answers.at(-1) as StatementAnswer;
    expect(last.error).toBeUndefined();
    expect(answers.flatMap((a) => a.data ?? [])).toEqual([['UNITED KINGDOM'], ['UNITED STATES']]);
    const info = (await (await fetch(last.infoUri)).json()) as { query: string };
    expect(info.query).toBe(sql);
  });

  it('builds nextUri and infoUri from the Host the client addressed', async () => {
    const port = new URL(base).port;
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port, path: '/v1/statement', method: 'POST', headers: { ...ENGINE, Host: `localhost:${port}` } }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve(text));
      });
      req.on('error', reject);
      req.end('SELECT 1');
    });
    const a = JSON.parse(body) as StatementAnswer;
    expect(a.nextUri).toBe(`http://localhost:${port}/v1/statement/${a.id}/1`);
    expect(a.infoUri).toBe(`http://localhost:${port}/v1/query/${a.id}`);
    await follow({ ...a, nextUri: `${base}/v1/statement/${a.id}/1` });
  });

  it('accepts a chunked body without Content-Length (presto-client style)', async () => {
    const { status, body, requestHeaders } = await new Promise<{ status: number; body: string; requestHeaders: string }>((resolve, reject) => {
      const url = new URL(`${base}/v1/statement`);
      const req = httpRequest(
        { host: url.hostname, port: url.port, path: url.pathname, method: 'POST', headers: { ...ENGINE, 'Transfer-Encoding': 'chunked' } },
        (res) => {
          let text = '';
          res.setEncoding('utf8');
          res.on('data', (c: string) => (text += c));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, requestHeaders: req.getHeaders()['content-length'] === undefined ? 'chunked' : 'length' }));
        },
      );
      req.on('error', reject);
      req.write('SELECT count(*) ');
      req.write('FROM tpch.tiny.');
      req.end('region');
    });
    expect(requestHeaders).toBe('chunked');
    expect(status).toBe(200);
    const answers = await follow(JSON.parse(body) as StatementAnswer);
    expect(answers.flatMap((a) => a.data ?? [])).toEqual([[5]]);
  });
});

describe('columns and values', () => {
  it('names Trino types with typeSignature (varchar(25), bigint)', async () => {
    const r = await runQuery(base, 'SELECT nationkey, name, regionkey FROM tpch.tiny.nation WHERE nationkey = 7');
    expect(r.error).toBeUndefined();
    expect(r.columns).toEqual([
      { name: 'nationkey', type: 'bigint', typeSignature: { rawType: 'bigint', arguments: [] } },
      { name: 'name', type: 'varchar(25)', typeSignature: { rawType: 'varchar', arguments: [{ kind: 'LONG', value: 25 }] } },
      { name: 'regionkey', type: 'bigint', typeSignature: { rawType: 'bigint', arguments: [] } },
    ]);
    expect(r.rows).toEqual([[7, 'GERMANY', 3]]);
  });

  it('encodes values as Trino does: date and decimal as strings, double and bigint as numbers', async () => {
    const r = await runQuery(
      base,
      "SELECT DATE '1996-01-02', 1.50, CAST(1.5 AS double), CAST(7 AS bigint), 1, true, 'x', CAST(NULL AS bigint), -0.05",
    );
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([['1996-01-02', '1.50', 1.5, 7, 1, true, 'x', null, '-0.05']]);
    expect(r.columns?.map((c) => c.name)).toEqual(['_col0', '_col1', '_col2', '_col3', '_col4', '_col5', '_col6', '_col7', '_col8']);
    expect(r.columns?.map((c) => c.type)).toEqual(['date', 'decimal(3,2)', 'double', 'bigint', 'integer', 'boolean', 'varchar(1)', 'bigint', 'decimal(2,2)']);
    expect(r.columns?.[1].typeSignature).toEqual({ rawType: 'decimal', arguments: [{ kind: 'LONG', value: 3 }, { kind: 'LONG', value: 2 }] });
    expect(r.columns?.[0].typeSignature).toEqual({ rawType: 'date', arguments: [] });
  });

  it('encodes timestamp(3), intervals, real, tinyint, smallint and unbounded varchar as Trino does', async () => {
    const r = await runQuery(base, "SELECT TIMESTAMP '2020-01-02 03:04:05.123', INTERVAL '1' DAY, INTERVAL '2' MONTH, CAST(1.5 AS real), CAST(1 AS tinyint), CAST(2 AS smallint), CAST('abc' AS varchar), CAST(123.456 AS decimal(20,3))");
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([['2020-01-02 03:04:05.123', '1 00:00:00.000', '0-2', 1.5, 1, 2, 'abc', '123.456']]);
    expect(r.columns?.map((c) => [c.type, c.typeSignature])).toEqual([
      ['timestamp(3)', { rawType: 'timestamp', arguments: [{ kind: 'LONG', value: 3 }] }],
      ['interval day to second', { rawType: 'interval day to second', arguments: [] }],
      ['interval year to month', { rawType: 'interval year to month', arguments: [] }],
      ['real', { rawType: 'real', arguments: [] }],
      ['tinyint', { rawType: 'tinyint', arguments: [] }],
      ['smallint', { rawType: 'smallint', arguments: [] }],
      ['varchar', { rawType: 'varchar', arguments: [{ kind: 'LONG', value: 2147483647 }] }],
      ['decimal(20,3)', { rawType: 'decimal', arguments: [{ kind: 'LONG', value: 20 }, { kind: 'LONG', value: 3 }] }],
    ]);
  });

  // BUG (src/sql/bind.ts numberLiteral): a decimal literal whose unscaled value is beyond 2^53 silently
  // becomes a DOUBLE (value rounded) instead of decimal(19,2) '12345678901234567.89' as in Trino
  // (integer literals beyond 2^53 fail with NOT_SUPPORTED instead, which is at least not silent).
  it.fails('types a decimal literal beyond 2^53 as decimal, exactly (Trino: decimal(19,2))', async () => {
    const r = await runQuery(base, 'SELECT 12345678901234567.89');
    expect(r.error).toBeUndefined();
    expect(r.columns?.[0].type).toBe('decimal(19,2)');
    expect(r.rows).toEqual([['12345678901234567.89']]);
  });

  // BUG (src/sql bind/types): CHAR(n) is mapped to varchar(n) — Trino answers type char(3) and the
  // value padded with spaces ('a  ').
  it.fails("CAST('a' AS char(3)) is char(3) 'a  ' as in Trino", async () => {
    const r = await runQuery(base, "SELECT CAST('a' AS char(3))");
    expect(r.error).toBeUndefined();
    expect(r.columns?.[0].type).toBe('char(3)');
    expect(r.rows).toEqual([['a  ']]);
  });

  it('sends non-ASCII values and column names as UTF-8 with their byte length, ASCII answers alike', async () => {
    for (const sql of ["SELECT 'ünïcödé ✓ 🙂' AS \"naïve\", 'plain' AS p", "SELECT 'plain' AS p, 42 AS n"]) {
      const post = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: { 'X-Trino-User': 'u' } });
      let next = ((await post.json()) as { nextUri?: string }).nextUri;
      let last: { columns?: { name: string }[]; data?: unknown[][] } = {};
      while (next) {
        const res = await fetch(next);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(Number(res.headers.get('content-length'))).toBe(bytes.length);
        last = JSON.parse(bytes.toString('utf8')) as typeof last & { nextUri?: string };
        next = (last as { nextUri?: string }).nextUri;
      }
      if (sql.includes('naïve')) {
        expect(last.columns?.map((c) => c.name)).toEqual(['naïve', 'p']);
        expect(last.data).toEqual([['ünïcödé ✓ 🙂', 'plain']]);
      } else expect(last.data).toEqual([['plain', 42]]);
    }
  });

  it('returns dbgen-exact tpch rows with their table types', async () => {
    const r = await runQuery(base, 'SELECT orderkey, custkey, orderstatus, totalprice, orderdate, orderpriority, shippriority FROM tpch.tiny.orders WHERE orderkey <= 3 ORDER BY orderkey');
    expect(r.error).toBeUndefined();
    expect(r.columns?.map((c) => c.type)).toEqual(['bigint', 'bigint', 'varchar(1)', 'double', 'date', 'varchar(15)', 'integer']);
    expect(r.rows).toEqual([
      [1, 370, 'O', 172799.49, '1996-01-02', '5-LOW', 0],
      [2, 781, 'O', 38426.09, '1996-12-01', '1-URGENT', 0],
      [3, 1234, 'F', 205654.3, '1993-10-14', '5-LOW', 0],
    ]);
  });
});

describe('states and tokens', () => {
  it('moves states forward only and ends FINISHED with no nextUri; only the last answer lacks nextUri', async () => {
    const r = await runQuery(base, 'SELECT regionkey, count(*) FROM tpch.tiny.nation GROUP BY regionkey ORDER BY regionkey');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]);
    const states = r.answers.map((a) => a.stats.state);
    expect(states[0]).toBe('QUEUED');
    expect(states.at(-1)).toBe('FINISHED');
    const positions = states.map((s) => STATE_ORDER.indexOf(s));
    expect(positions.every((p) => p >= 0)).toBe(true);
    for (let i = 1; i < positions.length; i++) expect(positions[i]).toBeGreaterThanOrEqual(positions[i - 1]);
    r.answers.slice(0, -1).forEach((a, i) => {
      expect(a.nextUri, `answer ${i}`).toBe(`${base}/v1/statement/${r.id}/${i + 1}`);
      expect(a.id).toBe(r.id);
      expect(a.infoUri).toBe(`${base}/v1/query/${r.id}`);
    });
    const last = r.answers.at(-1) as StatementAnswer;
    expect(last.nextUri).toBeUndefined();
    // The last rows travel on the final answer (as the spec's example and Presto show): POST + one GET.
    expect(last.data).toEqual([[0, 5], [1, 5], [2, 5], [3, 5], [4, 5]]);
    expect(r.answers).toHaveLength(2);
    expect(last.columns?.map((c) => c.name)).toEqual(['regionkey', '_col1']);
    // Columns come before or with the first rows, and every answer with rows has columns.
    for (const a of r.answers) if (a.data) expect(a.columns).toBeDefined();
    expect(last.stats).toMatchObject({ state: 'FINISHED', queued: false, scheduled: true, nodes: 1 });
    expect((last.stats.rootStage as { stageId: string; done: boolean; state: string }).stageId).toBe('0');
    expect((last.stats.rootStage as { done: boolean }).done).toBe(true);
    expect(last.stats.processedRows).toBe(25);
  });

  it('ends in POST + one GET also when the root stage runs after stages on the worker pool', async () => {
    // The root stage's last page and "no more pages" come in one step, so the client woken by that
    // page already gets the final answer (an await between them once cost a third request).
    for (let i = 0; i < 3; i++) {
      const r = await runQuery(base, 'SELECT returnflag, count(*) FROM tpch.tiny.lineitem WHERE quantity < 30 GROUP BY returnflag ORDER BY returnflag');
      expect(r.error).toBeUndefined();
      expect(r.rows.map((row) => row[0])).toEqual(['A', 'N', 'R']);
      expect(r.answers.map((a) => a.stats.state)).toEqual(['QUEUED', 'FINISHED']);
    }
  });

  it('repeats the identical body for the same token, 410 for an older one, 404 beyond the next and after the end', async () => {
    const { answer: first } = await post('SELECT orderkey, linenumber FROM tpch.tiny.lineitem');
    const uri1 = first.nextUri as string;
    const r1 = await fetch(uri1);
    const body1 = await r1.text();
    const again = await fetch(uri1);
    expect(again.status).toBe(200);
    expect(await again.text()).toBe(body1);
    const a1 = JSON.parse(body1) as StatementAnswer;
    expect(a1.nextUri).toBe(withToken(uri1, 2));

    // A token beyond the next one.
    expect((await fetch(withToken(uri1, 3))).status).toBe(404);
    expect((await fetch(withToken(uri1, 99))).status).toBe(404);

    const a2 = await getJson(a1.nextUri as string);
    // Now token 1 is older than the last answered one.
    const old = await fetch(uri1);
    expect(old.status).toBe(410);
    await old.text();
    // Token 2 again: the cached answer, still identical.
    const a2again = await getJson(a1.nextUri as string);
    expect(a2again).toEqual(a2);

    // Drain, then every token after the final answer is 404 and the final one repeats.
    const rest = await follow(a2);
    const answers = [a1, ...rest];
    const final = answers.at(-1) as StatementAnswer;
    expect(final.stats.state).toBe('FINISHED');
    const lastUri = (answers.at(-2) as StatementAnswer).nextUri as string;
    expect(await getJson(lastUri)).toEqual(final);
    expect((await fetch(withToken(lastUri, tokenOf(lastUri) + 1))).status).toBe(404);
    // rest starts with a2: a1's rows plus the rest are all rows, none repeated by the retries.
    const total = [a1, ...rest].reduce((n, a) => n + (a.data?.length ?? 0), 0);
    expect(total).toBe(60175);
  });

  it('answers two concurrent GETs of the same token with the same body (retry while computing)', async () => {
    const { answer } = await post('SELECT * FROM tpch.tiny.orders');
    const [x, y] = await Promise.all([fetch(answer.nextUri as string), fetch(answer.nextUri as string)]);
    expect([x.status, y.status]).toEqual([200, 200]);
    const [bx, by] = [await x.text(), await y.text()];
    expect(bx).toBe(by);
    const rest = await follow(JSON.parse(bx) as StatementAnswer);
    const rows = (JSON.parse(bx) as StatementAnswer).data?.length ?? 0;
    expect(rows + rest.slice(1).reduce((n, a) => n + (a.data?.length ?? 0), 0)).toBe(15000);
  });

  it('answers 404 for unknown query ids and for token text that is not a number', async () => {
    const unknown = await fetch(`${base}/v1/statement/20200101_000000_00000_abcde/1`);
    expect(unknown.status).toBe(404);
    expect(await unknown.text()).toBe('Query not found');
    const { answer } = await post('SELECT 1');
    for (const bad of ['abc', '-1', '1.5', '0x1']) {
      const res = await fetch(withToken(answer.nextUri as string, bad));
      expect(res.status, bad).toBe(404);
      await res.text();
    }
    const rest = await follow(answer);
    expect(rest.flatMap((a) => a.data ?? [])).toEqual([[1]]);
  });
});

describe('batching and long polls', () => {
  it('spreads SELECT * FROM tpch.tiny.lineitem over several answers bounded by targetResultSize=100kB', async () => {
    const { answer } = await post('SELECT * FROM tpch.tiny.lineitem');
    const answers = [answer];
    const sizes: number[] = [];
    let a = answer;
    let rows = 0;
    let orderKeySum = 0;
    let quantitySum = 0;
    while (a.nextUri) {
      const res = await fetch(`${a.nextUri}?targetResultSize=100kB`);
      expect(res.status).toBe(200);
      const text = await res.text();
      a = JSON.parse(text) as StatementAnswer;
      answers.push(a);
      if (a.data) {
        sizes.push(Buffer.byteLength(JSON.stringify(a.data)));
        rows += a.data.length;
        for (const row of a.data) {
          orderKeySum += row[0] as number;
          quantitySum += row[4] as number;
        }
        expect(a.columns).toHaveLength(16);
      }
    }
    expect(a.stats.state).toBe('FINISHED');
    expect(rows).toBe(60175);
    expect(sizes.length).toBeGreaterThanOrEqual(5);
    // Batches stop at about the target (the engine estimates JSON size; allow it to be off by 2x).
    for (const s of sizes) expect(s).toBeLessThan(200 * 1024);
    // No row lost or repeated at the batch boundaries.
    const check = await runQuery(base, 'SELECT sum(orderkey), sum(quantity) FROM tpch.tiny.lineitem');
    expect(check.rows).toEqual([[orderKeySum, quantitySum]]);
  });

  it('sends at least one row per answer even with targetResultSize=1B', async () => {
    const { answer } = await post('SELECT name FROM tpch.tiny.region ORDER BY regionkey');
    const answers = await follow(answer, '?targetResultSize=1B');
    const batches = answers.filter((a) => a.data).map((a) => a.data);
    expect(batches).toEqual([[['AFRICA']], [['AMERICA']], [['ASIA']], [['EUROPE']], [['MIDDLE EAST']]]);
  });

  it('bounds batches by the 1MB default when no targetResultSize is given', async () => {
    const r = await runQuery(base, 'SELECT * FROM tpch.tiny.lineitem');
    expect(r.error).toBeUndefined();
    expect(r.rows).toHaveLength(60175);
    const batches = r.answers.filter((a) => a.data).map((a) => Buffer.byteLength(JSON.stringify(a.data)));
    expect(batches.length).toBeGreaterThan(3);
    for (const b of batches) expect(b).toBeLessThan(2 * 1024 * 1024);
  });

  it('answers a GET within about maxWait when no data is ready (default 1 s, ?maxWait= shorter, longer capped)', async () => {
    // sf100 (600M rows) cannot finish within these polls: they find no data ready. Canceled at the end.
    const { answer } = await post('SELECT sum(extendedprice) FROM tpch.sf100.lineitem WHERE quantity > 49');
    let a = answer;
    const polls: { suffix: string; ms: number; empty: boolean }[] = [];
    const poll = async (suffix: string): Promise<void> => {
      const t0 = Date.now();
      a = await getJson(`${a.nextUri}${suffix}`);
      polls.push({ suffix, ms: Date.now() - t0, empty: !a.data && a.nextUri !== undefined && a.stats.state === 'RUNNING' });
    };
    try {
      await poll('?maxWait=200ms');
      await poll('?maxWait=10s');
      await poll('');
      await poll('');
      await poll('?maxWait=300ms');
    } finally {
      if (a.nextUri) await fetch(a.nextUri, { method: 'DELETE' });
    }
    expect(polls.every((p) => p.empty), JSON.stringify(polls)).toBe(true);
    const limit = { '?maxWait=200ms': [150, 900], '?maxWait=300ms': [250, 1000], '?maxWait=10s': [900, 1400], '': [900, 1400] } as Record<string, number[]>;
    for (const p of polls) {
      expect(p.ms, JSON.stringify(p)).toBeGreaterThanOrEqual(limit[p.suffix][0]);
      expect(p.ms, JSON.stringify(p)).toBeLessThan(limit[p.suffix][1]);
    }
  });
});

describe('session headers', () => {
  it.each(['X-Engine-', 'X-Trino-', 'X-Presto-'])('%s* set user, source, catalog and schema', async (p) => {
    const { answer } = await post('SELECT count(*) FROM nation', { [`${p}User`]: 'alice', [`${p}Source`]: 'e2e', [`${p}Catalog`]: 'tpch', [`${p}Schema`]: 'tiny' });
    const answers = await follow(answer);
    expect(answers.at(-1)?.error).toBeUndefined();
    expect(answers.flatMap((a) => a.data ?? [])).toEqual([[25]]);
    const info = (await (await fetch(answer.infoUri)).json()) as { session: Record<string, unknown> };
    expect(info.session).toMatchObject({ user: 'alice', source: 'e2e', catalog: 'tpch', schema: 'tiny' });
  });

  it('takes the user from Basic authorization when no user header is sent, else "anonymous"', async () => {
    const auth = `Basic ${Buffer.from('bob:secret').toString('base64')}`;
    const { answer } = await post('SELECT 1', { Authorization: auth });
    await follow(answer);
    const info = (await (await fetch(answer.infoUri)).json()) as { session: Record<string, unknown> };
    expect(info.session.user).toBe('bob');
    const { answer: anon } = await post('SELECT 1', {});
    await follow(anon);
    const anonInfo = (await (await fetch(anon.infoUri)).json()) as { session: Record<string, unknown> };
    expect(anonInfo.session.user).toBe('anonymous');
  });

  it('fails an unqualified table without a session catalog and schema', async () => {
    const { answer } = await post('SELECT count(*) FROM nation', { 'X-Engine-User': 'test' });
    const last = (await follow(answer)).at(-1) as StatementAnswer;
    expect(last.stats.state).toBe('FAILED');
    expect(last.error?.message).toMatch(/must be specified when session (catalog|schema) is not set/);
  });

  it.each(['X-Engine-', 'X-Trino-', 'X-Presto-'])('USE tpch.sf1 answers %sSet-Catalog and Set-Schema, updateType USE', async (p) => {
    const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: 'USE tpch.sf1', headers: { [`${p}User`]: 'u', [`${p}Catalog`]: 'tpch', [`${p}Schema`]: 'tiny' } });
    let a = (await res.json()) as StatementAnswer;
    const setHeaders: Record<string, string>[] = [];
    while (a.nextUri) {
      const r = await fetch(a.nextUri);
      const h: Record<string, string> = {};
      r.headers.forEach((v, k) => {
        if (k.includes('-set-')) h[k] = v;
      });
      setHeaders.push(h);
      a = (await r.json()) as StatementAnswer;
    }
    expect(a.error).toBeUndefined();
    expect(a.stats.state).toBe('FINISHED');
    expect(a.updateType).toBe('USE');
    expect(a.columns).toEqual([]);
    expect(a.data).toBeUndefined();
    const lower = p.toLowerCase();
    expect(setHeaders.at(-1)).toEqual({ [`${lower}set-catalog`]: 'tpch', [`${lower}set-schema`]: 'sf1' });
    const info = (await (await fetch(a.infoUri)).json()) as Record<string, unknown>;
    expect(info).toMatchObject({ setCatalog: 'tpch', setSchema: 'sf1', updateType: 'USE', state: 'FINISHED' });
  });

  it('USE with a schema only keeps the session catalog', async () => {
    const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: 'USE sf1', headers: ENGINE });
    let a = (await res.json()) as StatementAnswer;
    let last: Response | undefined;
    while (a.nextUri) {
      last = await fetch(a.nextUri);
      a = (await last.json()) as StatementAnswer;
    }
    expect(a.updateType).toBe('USE');
    expect(last?.headers.get('x-engine-set-catalog')).toBe('tpch');
    expect(last?.headers.get('x-engine-set-schema')).toBe('sf1');
  });

  it('USE of an unknown schema fails with SCHEMA_NOT_FOUND', async () => {
    const r = await runQuery(base, 'USE tpch.nosuch');
    expect(r.error).toMatchObject({ errorName: 'SCHEMA_NOT_FOUND', errorCode: 45, errorType: 'USER_ERROR' });
  });
});

describe('malformed requests', () => {
  it('answers 404 to an unknown path', async () => {
    const res = await fetch(`${base}/v1/nosuch`);
    expect(res.status).toBe(404);
    await res.text();
    const deep = await fetch(`${base}/v1/statement/a/b/c/d`);
    expect(deep.status).toBe(404);
    await deep.text();
  });

  it('answers 405 with Allow to a wrong method', async () => {
    const put = await fetch(`${base}/v1/statement`, { method: 'PUT', body: 'SELECT 1' });
    expect(put.status).toBe(405);
    expect(put.headers.get('allow')?.split(/,\s*/)).toContain('POST');
    await put.text();
    const get = await fetch(`${base}/v1/statement`);
    expect(get.status).toBe(405);
    await get.text();
    const postToken = await fetch(`${base}/v1/statement/20200101_000000_00000_abcde/1`, { method: 'POST', body: 'x' });
    expect(postToken.status).toBe(405);
    expect(postToken.headers.get('allow')?.split(/,\s*/)).toEqual(expect.arrayContaining(['GET', 'DELETE']));
    await postToken.text();
  });

  it('answers 404 to DELETE of an unknown query on the statement resource', async () => {
    const res = await fetch(`${base}/v1/statement/20200101_000000_00000_abcde/1`, { method: 'DELETE' });
    expect(res.status).toBe(404);
    await res.text();
  });

  it('keeps serving after all of the above', async () => {
    const r = await runQuery(base, 'SELECT count(*) FROM tpch.tiny.customer');
    expect(r.rows).toEqual([[1500]]);
  });
});
