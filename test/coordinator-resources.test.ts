// End-to-end: the query, task and node resources and the system.runtime tables, against a real
// server — BasicQueryInfo and QueryInfo with airlift duration / data-size strings, TaskInfo with real
// operator statistics, the task results exchange (Arrow IPC pages with sequence tokens), and
// runtime.queries / tasks / nodes.

import { tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQuery, startServer, type StatementAnswer, type TestServer } from './support/server.js';

const DURATION = /^\d+\.\d{2}(ns|us|ms|s|m|h|d)$/;
const DATA_SIZE = /^\d+B$|^\d+\.\d{2}(kB|MB|GB)$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}(Z|[+-]\d{2}:\d{2})$/;
const ENGINE = { 'X-Engine-User': 'test', 'X-Engine-Catalog': 'tpch', 'X-Engine-Schema': 'tiny' };
const FILTER_SQL = 'SELECT orderkey FROM tpch.tiny.lineitem WHERE quantity > 45';

let server: TestServer;
let base: string;
/** The FINISHED filter query and its row count (from a separate count(*)). */
let filterId: string;
let filterRows: number;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

async function getJson(path: string, status = 200): Promise<Json> {
  const res = await fetch(path.startsWith('http') ? path : base + path);
  expect(res.status, path).toBe(status);
  return (await res.json()) as Json;
}

beforeAll(async () => {
  server = await startServer();
  base = server.baseUrl;
  const r = await runQuery(base, FILTER_SQL, { 'X-Engine-Source': 'e2e-resources' });
  expect(r.error).toBeUndefined();
  filterId = r.id;
  const c = await runQuery(base, 'SELECT count(*) FROM tpch.tiny.lineitem WHERE quantity > 45');
  filterRows = c.rows[0][0] as number;
  expect(r.rows).toHaveLength(filterRows);
});

afterAll(async () => {
  await server?.close();
});

function expectDurations(o: Json, keys: string[]): void {
  for (const k of keys) expect(o[k], k).toMatch(DURATION);
}
function expectSizes(o: Json, keys: string[]): void {
  for (const k of keys) expect(o[k], k).toMatch(DATA_SIZE);
}
function expectIntegers(o: Json, keys: string[]): void {
  for (const k of keys) expect(Number.isInteger(o[k]), `${k}=${o[k]}`).toBe(true);
}

describe('/v1/query', () => {
  it('lists running and recent queries as BasicQueryInfo', async () => {
    // One query left RUNNING: a first batch read, the rest not.
    const post = await fetch(`${base}/v1/statement`, { method: 'POST', body: 'SELECT * FROM tpch.tiny.lineitem', headers: ENGINE });
    let a = (await post.json()) as StatementAnswer;
    while (a.nextUri && !a.data) a = (await getJson(`${a.nextUri}?targetResultSize=32kB`)) as StatementAnswer;
    try {
      const list = (await getJson('/v1/query')) as unknown as Json[];
      const running = list.find((q) => q.queryId === a.id) as Json;
      const recent = list.find((q) => q.queryId === filterId) as Json;
      expect(running).toMatchObject({ state: 'RUNNING', query: 'SELECT * FROM tpch.tiny.lineitem', self: `${base}/v1/query/${a.id}`, scheduled: true });
      expect(recent).toMatchObject({ state: 'FINISHED', query: FILTER_SQL, self: `${base}/v1/query/${filterId}`, session: { user: 'test', source: 'e2e-resources', catalog: 'tpch', schema: 'tiny' } });
      for (const q of [running, recent]) {
        expect(q.queryId).toMatch(/^\d{8}_\d{6}_\d{5}_[a-z0-9]{5}$/);
        expect(q.queryStats.createTime).toMatch(TIMESTAMP);
        expectDurations(q.queryStats, ['elapsedTime', 'queuedTime', 'executionTime', 'totalCpuTime', 'totalScheduledTime', 'totalBlockedTime']);
        expectSizes(q.queryStats, ['rawInputDataSize', 'physicalInputDataSize', 'userMemoryReservation', 'totalMemoryReservation', 'peakUserMemoryReservation', 'peakTotalMemoryReservation']);
        expectIntegers(q.queryStats, ['totalDrivers', 'queuedDrivers', 'runningDrivers', 'completedDrivers', 'rawInputPositions']);
      }
      expect(recent.queryStats.endTime).toMatch(TIMESTAMP);
      expect(recent.queryStats.rawInputPositions).toBe(60175);
      expect(running.queryStats.endTime).toBeUndefined();
      // ?state= filters.
      const onlyRunning = (await getJson('/v1/query?state=RUNNING')) as unknown as Json[];
      expect(onlyRunning.map((q) => q.queryId)).toContain(a.id);
      expect(onlyRunning.every((q) => q.state === 'RUNNING')).toBe(true);
      const onlyFinished = (await getJson('/v1/query?state=finished')) as unknown as Json[];
      expect(onlyFinished.map((q) => q.queryId)).toContain(filterId);
      expect(onlyFinished.map((q) => q.queryId)).not.toContain(a.id);
    } finally {
      if (a.nextUri) await fetch(a.nextUri, { method: 'DELETE' });
    }
  });

  it('/v1/query/{id} gives QueryInfo with session, fieldNames, queryStats and the output stage with its tasks', async () => {
    const info = await getJson(`/v1/query/${filterId}`);
    expect(info).toMatchObject({
      queryId: filterId,
      state: 'FINISHED',
      self: `${base}/v1/query/${filterId}`,
      fieldNames: ['orderkey'],
      query: FILTER_SQL,
      finalQueryInfo: true,
      session: { user: 'test', source: 'e2e-resources', catalog: 'tpch', schema: 'tiny', remoteUserAddress: '127.0.0.1' },
    });
    expect(typeof info.session.userAgent).toBe('string');
    expect(Number.isInteger(info.session.startTime)).toBe(true);
    const qs = info.queryStats;
    for (const k of ['createTime', 'executionStartTime', 'lastHeartbeat', 'endTime']) expect(qs[k], k).toMatch(TIMESTAMP);
    expectDurations(qs, ['elapsedTime', 'queuedTime', 'analysisTime', 'totalScheduledTime', 'totalCpuTime', 'totalBlockedTime']);
    expectSizes(qs, ['totalMemoryReservation', 'rawInputDataSize', 'processedInputDataSize', 'outputDataSize']);
    expectIntegers(qs, ['totalTasks', 'runningTasks', 'completedTasks', 'totalDrivers', 'queuedDrivers', 'runningDrivers', 'completedDrivers', 'rawInputPositions', 'processedInputPositions', 'outputPositions']);
    expect(qs).toMatchObject({ totalTasks: 2, runningTasks: 0, completedTasks: 2, rawInputPositions: 60175, processedInputPositions: 60175, outputPositions: filterRows, totalMemoryReservation: '0B' });
    expect(Date.parse(qs.endTime)).toBeGreaterThanOrEqual(Date.parse(qs.createTime));

    const stage = info.outputStage;
    expect(stage).toMatchObject({ stageId: `${filterId}.0`, state: 'FINISHED', self: `${base}/v1/stage/${filterId}.0` });
    expect(stage.tasks.map((t: Json) => t.taskId)).toEqual([`${filterId}.0.0`]);
    expect(stage.tasks[0].state).toBe('FINISHED');
    expect(stage.subStages).toHaveLength(1);
    expect(stage.subStages[0].stageId).toBe(`${filterId}.1`);
    expect(stage.subStages[0].tasks.map((t: Json) => [t.taskId, t.state])).toEqual([[`${filterId}.1.0`, 'FINISHED']]);
    expect(stage.stageStats).toMatchObject({ stageId: '0', state: 'FINISHED', done: true });
  });

  it('the stage tree of a join query holds every stage and task (build sides included)', async () => {
    const r = await runQuery(base, 'SELECT n.name, r.name FROM tpch.tiny.nation n JOIN tpch.tiny.region r ON n.regionkey = r.regionkey WHERE r.name = \'ASIA\' ORDER BY n.name');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([['CHINA', 'ASIA'], ['INDIA', 'ASIA'], ['INDONESIA', 'ASIA'], ['JAPAN', 'ASIA'], ['VIETNAM', 'ASIA']]);
    const info = await getJson(`/v1/query/${r.id}`);
    // Done, it holds no hash tables any more: no memory reserved (as Trino reports a finished query).
    expect(info.queryStats.totalMemoryReservation).toBe('0B');
    const inTree: string[] = [];
    const stageIds: string[] = [];
    const walk = (s: Json): void => {
      stageIds.push(s.stageId);
      for (const t of s.tasks) inTree.push(t.taskId);
      for (const c of s.subStages) walk(c);
    };
    walk(info.outputStage);
    const all = ((await getJson('/v1/task')) as unknown as Json[]).map((t) => t.taskId as string).filter((id) => id.startsWith(`${r.id}.`));
    expect(all.length).toBeGreaterThanOrEqual(3);
    expect(info.queryStats.totalTasks).toBe(all.length);
    expect(inTree.sort()).toEqual(all.sort());
    expect(new Set(stageIds).size).toBe(stageIds.length);
    // The statement stats' stage tree names the same stages.
    const statStages: string[] = [];
    const walkStats = (s: Json): void => {
      statStages.push(s.stageId);
      for (const c of s.subStages) walkStats(c);
    };
    walkStats((r.answers.at(-1) as StatementAnswer).stats.rootStage as Json);
    expect(statStages.map((id) => `${r.id}.${id}`).sort()).toEqual([...stageIds].sort());
  });

  it('answers 410 for an unknown query id (Trino)', async () => {
    const res = await fetch(`${base}/v1/query/20200101_000000_00000_abcde`);
    expect(res.status).toBe(410);
    await res.text();
  });

  it('PUT /v1/query/{id}/killed fails a running query with ADMINISTRATIVELY_KILLED; 409 once done, 410 unknown', async () => {
    const post = await fetch(`${base}/v1/statement`, { method: 'POST', body: 'SELECT * FROM tpch.tiny.orders', headers: ENGINE });
    const first = (await post.json()) as StatementAnswer;
    const kill = await fetch(`${base}/v1/query/${first.id}/killed`, { method: 'PUT', body: 'too slow' });
    expect(kill.status).toBe(202);
    let a = first;
    while (a.nextUri) a = (await getJson(a.nextUri)) as StatementAnswer;
    expect(a.error).toMatchObject({ errorName: 'ADMINISTRATIVELY_KILLED', errorCode: 38, message: 'Query killed. Message: too slow' });
    const again = await fetch(`${base}/v1/query/${first.id}/killed`, { method: 'PUT', body: '' });
    expect(again.status).toBe(409);
    const unknown = await fetch(`${base}/v1/query/20200101_000000_00000_abcde/killed`, { method: 'PUT', body: '' });
    expect(unknown.status).toBe(410);
  });
});

describe('/v1/task', () => {
  it('GET /v1/task lists the tasks of the queries it knows', async () => {
    const tasks = (await getJson('/v1/task')) as unknown as Json[];
    const ids = tasks.map((t) => t.taskId);
    expect(ids).toEqual(expect.arrayContaining([`${filterId}.0.0`, `${filterId}.1.0`]));
    for (const t of tasks) {
      expect(t.taskId).toMatch(/\.\d+\.\d+$/);
      expect(typeof t.state).toBe('string');
      expect(t.self).toBe(`${base}/v1/task/${t.taskId}`);
    }
  });

  it('the leaf task of a filter query shows TableScan → FilterAndProject → TaskOutput with real positions', async () => {
    const t = await getJson(`/v1/task/${filterId}.1.0`);
    expect(t).toMatchObject({ taskId: `${filterId}.1.0`, state: 'FINISHED', self: `${base}/v1/task/${filterId}.1.0`, failures: [], outputs: {}, noMoreSplits: ['0'] });
    expect(Number.isInteger(t.version)).toBe(true);
    expect(t.lastHeartbeat).toMatch(TIMESTAMP);
    expect(t.outputBuffers).toMatchObject({ state: 'FINISHED', totalBufferedPages: 0, totalRowsSent: filterRows });
    expect(t.outputBuffers.masterSequenceId).toBe(t.outputBuffers.pagesAdded);
    expect(t.outputBuffers.buffers).toEqual([{ bufferId: '0', finished: true, bufferedPages: 0, pagesSent: expect.any(Number) }]);
    const s = t.stats;
    for (const k of ['createTime', 'startTime', 'endTime']) expect(s[k], k).toMatch(TIMESTAMP);
    expectDurations(s, ['elapsedTime', 'queuedTime', 'totalScheduledTime', 'totalCpuTime', 'totalBlockedTime']);
    expectSizes(s, ['memoryReservation', 'rawInputDataSize', 'processedInputDataSize', 'outputDataSize']);
    expect(s).toMatchObject({ rawInputPositions: 60175, processedInputPositions: 60175, outputPositions: filterRows, runningDrivers: 0, queuedDrivers: 0 });
    expect(s.completedDrivers).toBe(s.totalDrivers);
    expect(s.pipelines).toHaveLength(1);
    const p = s.pipelines[0];
    expect(p).toMatchObject({ inputPipeline: true, outputPipeline: true, outputPositions: filterRows, drivers: [] });
    expect(p.elapsedTime).toMatchObject({ count: s.totalDrivers });
    const ops = p.operatorSummaries as Json[];
    expect(ops.map((o) => o.operatorType)).toEqual(['TableScanOperator', 'FilterAndProjectOperator', 'TaskOutputOperator']);
    expect(ops.map((o) => o.operatorId)).toEqual([0, 1, 2]);
    expect(ops[0]).toMatchObject({ inputPositions: 60175, outputPositions: 60175 });
    expect(ops[1]).toMatchObject({ inputPositions: 60175, outputPositions: filterRows });
    expect(ops[2]).toMatchObject({ inputPositions: filterRows, outputPositions: filterRows });
    for (const o of ops) {
      expectDurations(o, ['addInputWall', 'addInputCpu', 'getOutputWall', 'getOutputCpu', 'blockedWall', 'finishWall', 'finishCpu']);
      expectSizes(o, ['inputDataSize', 'outputDataSize', 'memoryReservation']);
      expectIntegers(o, ['addInputCalls', 'getOutputCalls', 'finishCalls']);
    }
  });

  it('the root task shows an ExchangeOperator with pageBufferClientStatuses', async () => {
    const t = await getJson(`/v1/task/${filterId}.0.0`);
    expect(t.state).toBe('FINISHED');
    expect(t.outputBuffers.state).toBe('FINISHED');
    expect(t.noMoreSplits).toEqual([]);
    const ops = t.stats.pipelines[0].operatorSummaries as Json[];
    expect(ops[0].operatorType).toBe('ExchangeOperator');
    expect(ops.at(-1)?.operatorType).toBe('TaskOutputOperator');
    expect(ops[0]).toMatchObject({ inputPositions: filterRows, outputPositions: filterRows });
    const info = ops[0].info;
    expectIntegers(info, ['bufferedBytes', 'averageBytesPerRequest', 'bufferedPages']);
    expect(info.pageBufferClientStatuses).toHaveLength(1);
    const status = info.pageBufferClientStatuses[0];
    expect(status).toMatchObject({ uri: `${base}/v1/task/${filterId}.1.0/results/0`, state: expect.any(String), httpRequestState: expect.any(String) });
    expect(status.lastUpdate).toMatch(TIMESTAMP);
    expectIntegers(status, ['pagesReceived', 'requestsScheduled', 'requestsCompleted']);
    expect(status.pagesReceived).toBeGreaterThan(0);
  });

  it('POST a task request, read its output as Arrow IPC with sequence tokens, then delete it', async () => {
    const taskId = 'e2etask.1.0';
    const request = { fragment: { source: { kind: 'scan', columns: [0, 1] }, operators: [] }, table: { catalog: 'tpch', schema: 'tiny', table: 'nation' } };
    const created = await fetch(`${base}/v1/task/${taskId}`, { method: 'POST', body: JSON.stringify(request) });
    expect(created.status).toBe(200);
    const info = (await created.json()) as Json;
    expect(info.taskId).toBe(taskId);
    const instance = info.taskInstanceId as string;

    // Token 0 until the first page is there (204 while nothing is ready).
    let res: Response;
    for (;;) {
      res = await fetch(`${base}/v1/task/${taskId}/results/0/0`);
      if (res.status === 200) break;
      expect(res.status).toBe(204);
      expect(res.headers.get('x-engine-buffer-complete')).toBe('false');
      await res.arrayBuffer();
    }
    expect(res.headers.get('content-type')).toBe('application/vnd.apache.arrow.stream');
    expect(res.headers.get('x-engine-task-instance-id')).toBe(instance);
    expect(res.headers.get('x-engine-page-sequence-id')).toBe('0');
    const end = Number(res.headers.get('x-engine-page-end-sequence-id'));
    expect(end).toBeGreaterThanOrEqual(1);
    expect(['true', 'false']).toContain(res.headers.get('x-engine-buffer-complete'));
    const bytes = new Uint8Array(await res.arrayBuffer());
    const table = tableFromIPC(bytes);
    expect(table.numRows).toBe(25);
    expect(table.numCols).toBe(2);
    const keys = [...table.getChildAt(0)!].map(Number);
    const names = [...table.getChildAt(1)!] as string[];
    expect(keys).toEqual(Array.from({ length: 25 }, (_, i) => i));
    expect(names[0]).toBe('ALGERIA');
    expect(names[24]).toBe('UNITED STATES');

    // The same token again returns the same pages (safe retry).
    const retry = await fetch(`${base}/v1/task/${taskId}/results/0/0`);
    expect(retry.status).toBe(200);
    expect(retry.headers.get('x-engine-page-end-sequence-id')).toBe(String(end));
    const again = tableFromIPC(new Uint8Array(await retry.arrayBuffer()));
    const rowsOf = (t: typeof table): string[] => t.toArray().map((r) => `${String(r.toJSON()[t.schema.fields[0].name])}|${String(r.toJSON()[t.schema.fields[1].name])}`);
    expect(rowsOf(again)).toEqual(rowsOf(table));
    expect(rowsOf(again)[7]).toBe('7|GERMANY');

    // Following the end token: eventually Buffer-Complete true and no body.
    let complete = false;
    let token = end;
    for (let i = 0; i < 20 && !complete; i++) {
      const next = await fetch(`${base}/v1/task/${taskId}/results/0/${token}`, { headers: { 'X-Engine-Max-Wait': '200ms' } });
      expect([200, 204]).toContain(next.status);
      expect(next.headers.get('x-engine-page-sequence-id')).toBe(String(token));
      complete = next.headers.get('x-engine-buffer-complete') === 'true';
      token = Number(next.headers.get('x-engine-page-end-sequence-id'));
      await next.arrayBuffer();
    }
    expect(complete).toBe(true);

    // Headers follow the client's spelling.
    const trino = await fetch(`${base}/v1/task/${taskId}/results/0/${token}`, { headers: { 'X-Trino-Max-Wait': '0s' } });
    expect(trino.headers.get('x-trino-buffer-complete')).toBe('true');
    expect(trino.headers.get('x-trino-task-instance-id')).toBe(instance);
    await trino.arrayBuffer();

    const delResults = await fetch(`${base}/v1/task/${taskId}/results/0`, { method: 'DELETE' });
    expect(delResults.status).toBe(204);
    const done = await getJson(`/v1/task/${taskId}`);
    expect(done.state).toBe('FINISHED');
    expect(done.stats.rawInputPositions).toBe(25);

    const del = await fetch(`${base}/v1/task/${taskId}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    const deleted = (await del.json()) as Json;
    expect(deleted.taskId).toBe(taskId);
    expect(['FINISHED', 'CANCELED', 'ABORTED']).toContain(deleted.state);
    expect((await getJson('/v1/task')).map?.((t: Json) => t.taskId) ?? []).toContain(taskId);
  });

  it('a task request with a limit operator over tpch.tiny.lineitem', async () => {
    const taskId = 'e2elimit.1.0';
    const request = { fragment: { source: { kind: 'scan', columns: [0, 3] }, operators: [{ op: 'limit', count: 7, offset: 0 }] }, table: { catalog: 'tpch', schema: 'tiny', table: 'lineitem' } };
    const created = await fetch(`${base}/v1/task/${taskId}`, { method: 'POST', body: JSON.stringify(request) });
    expect(created.status).toBe(200);
    await created.text();
    let rows = 0;
    let token = 0;
    for (let i = 0; i < 40; i++) {
      const res = await fetch(`${base}/v1/task/${taskId}/results/0/${token}`);
      if (res.status === 200) rows += tableFromIPC(new Uint8Array(await res.arrayBuffer())).numRows;
      else await res.arrayBuffer();
      token = Number(res.headers.get('x-engine-page-end-sequence-id'));
      if (res.headers.get('x-engine-buffer-complete') === 'true') break;
    }
    expect(rows).toBe(7);
    expect((await fetch(`${base}/v1/task/${taskId}`, { method: 'DELETE' })).status).toBe(200);
  });

  it.each([
    ['malformed JSON', '{nope'],
    ['an empty body', ''],
    ['a missing table', JSON.stringify({ fragment: { source: { kind: 'scan', columns: [0] }, operators: [] } })],
    ['an unknown source kind', JSON.stringify({ fragment: { source: { kind: 'exchange', columns: [0] }, operators: [] }, table: { catalog: 'tpch', schema: 'tiny', table: 'nation' } })],
    ['an unknown operator', JSON.stringify({ fragment: { source: { kind: 'scan', columns: [0] }, operators: [{ op: 'drop' }] }, table: { catalog: 'tpch', schema: 'tiny', table: 'nation' } })],
    ['a column out of range (nation has 4 columns)', JSON.stringify({ fragment: { source: { kind: 'scan', columns: [0, 4] }, operators: [] }, table: { catalog: 'tpch', schema: 'tiny', table: 'nation' } })],
    ['an unknown table', JSON.stringify({ fragment: { source: { kind: 'scan', columns: [0] }, operators: [] }, table: { catalog: 'tpch', schema: 'tiny', table: 'nosuch' } })],
  ])('POST /v1/task with %s → 400', async (_what, body) => {
    const res = await fetch(`${base}/v1/task/bad${Math.random().toString(36).slice(2, 8)}.1.0`, { method: 'POST', body });
    expect(res.status).toBe(400);
    await res.text();
  });

  it('POST of an existing task id → 409', async () => {
    const res = await fetch(`${base}/v1/task/${filterId}.1.0`, { method: 'POST', body: '{}' });
    expect(res.status).toBe(409);
    await res.text();
  });

  it('unknown tasks → 404 on GET, DELETE and results', async () => {
    for (const [method, path] of [
      ['GET', '/v1/task/nosuch.1.0'],
      ['DELETE', '/v1/task/nosuch.1.0'],
      ['GET', '/v1/task/nosuch.1.0/results/0/0'],
      ['DELETE', '/v1/task/nosuch.1.0/results/0'],
      ['GET', `/v1/task/${filterId}.7.0`],
    ]) {
      const res = await fetch(base + path, { method });
      expect(res.status, `${method} ${path}`).toBe(404);
      await res.text();
    }
  });

  it('results of an unknown buffer → 404, a bad token → 400', async () => {
    const badBuffer = await fetch(`${base}/v1/task/${filterId}.1.0/results/9/0`);
    expect(badBuffer.status).toBe(404);
    const badToken = await fetch(`${base}/v1/task/${filterId}.1.0/results/0/abc`);
    expect(badToken.status).toBe(400);
  });
});

describe('/v1/task on the tasks of a running query', () => {
  /** POSTs a statement and reads until a first batch of rows arrived. */
  async function started(sql: string): Promise<{ answer: StatementAnswer; rows: number }> {
    const res = await fetch(`${base}/v1/statement`, { method: 'POST', body: sql, headers: ENGINE });
    let a = (await res.json()) as StatementAnswer;
    while (a.nextUri && !a.data) a = (await getJson(`${a.nextUri}?targetResultSize=100kB`)) as StatementAnswer;
    expect(a.data?.length).toBeGreaterThan(0);
    expect(a.nextUri).toBeDefined();
    return { answer: a, rows: a.data?.length ?? 0 };
  }

  /** Follows nextUri to the end (bounded: a query that never ends fails the test instead of hanging it). */
  async function drain(a: StatementAnswer): Promise<{ last: StatementAnswer; rows: number }> {
    let rows = 0;
    for (let i = 0; i < 400 && a.nextUri; i++) {
      a = (await getJson(`${a.nextUri}?targetResultSize=100kB`)) as StatementAnswer;
      rows += a.data?.length ?? 0;
    }
    expect(a.nextUri, 'the query should have ended').toBeUndefined();
    return { last: a, rows };
  }

  it('an HTTP reader of its task results only observes: the client still gets every row', async () => {
    const { answer, rows } = await started('SELECT * FROM tpch.tiny.lineitem');
    for (const path of [`${answer.id}.0.0/results/0/5`, `${answer.id}.0.0/results/0/1`, `${answer.id}.1.0/results/0/3`]) {
      const res = await fetch(`${base}/v1/task/${path}`, { headers: { 'X-Engine-Max-Wait': '0s' } });
      expect([200, 204]).toContain(res.status);
      await res.arrayBuffer();
    }
    const rest = await drain(answer);
    expect(rest.last.error).toBeUndefined();
    expect(rest.last.stats.state).toBe('FINISHED');
    expect(rows + rest.rows).toBe(60175);
  });

  it('acknowledge and DELETE results on a query task answer 409 (the coordinator is the consumer)', async () => {
    const { answer, rows } = await started('SELECT * FROM tpch.tiny.lineitem');
    const ack = await fetch(`${base}/v1/task/${answer.id}.0.0/results/0/9/acknowledge`);
    expect(ack.status).toBe(409);
    await ack.text();
    const del = await fetch(`${base}/v1/task/${answer.id}.0.0/results/0`, { method: 'DELETE' });
    expect(del.status).toBe(409);
    await del.text();
    const rest = await drain(answer);
    expect(rest.last.stats.state).toBe('FINISHED');
    expect(rows + rest.rows).toBe(60175);
  });

  it.each([
    ['', 'ABORTED'],
    ['?abort=false', 'CANCELED'],
  ])('DELETE /v1/task/{root}%s fails the query (GENERIC_INTERNAL_ERROR) instead of finishing it short', async (query, state) => {
    const { answer } = await started('SELECT * FROM tpch.tiny.lineitem');
    const del = await fetch(`${base}/v1/task/${answer.id}.0.0${query}`, { method: 'DELETE' });
    expect(del.status).toBe(200);
    const info = (await del.json()) as Json;
    expect(info.state).toBe(state);
    const rest = await drain(answer);
    expect(rest.last.stats.state).toBe('FAILED');
    expect(rest.last.error).toMatchObject({ errorName: 'GENERIC_INTERNAL_ERROR', errorCode: 65536, errorType: 'INTERNAL_ERROR' });
    expect(rest.last.error?.message).toContain(`${answer.id}.0.0`);
  });
});

describe('/v1/node', () => {
  it('/v1/node lists this node; /v1/node/failed is empty', async () => {
    const res = await fetch(`${base}/v1/node`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript');
    expect(res.headers.get('vary')).toBe('Accept');
    const nodes = (await res.json()) as Json[];
    expect(nodes).toHaveLength(1);
    const n = nodes[0];
    expect(n.uri).toBe(base);
    for (const k of ['recentRequests', 'recentFailures', 'recentSuccesses', 'recentFailureRatio']) expect(typeof n[k], k).toBe('number');
    expect(n.recentRequests).toBeGreaterThan(1);
    expect(n.recentFailureRatio).toBeGreaterThanOrEqual(0);
    expect(n.lastRequestTime).toMatch(TIMESTAMP);
    expect(n.lastResponseTime).toMatch(TIMESTAMP);
    expect(n.age).toMatch(DURATION);
    expect(n.recentFailuresByType).toEqual({});
    const failed = await fetch(`${base}/v1/node/failed`);
    expect(failed.status).toBe(200);
    expect(await failed.json()).toEqual([]);
  });
});

describe('system.runtime', () => {
  it('runtime.queries shows the running query itself and recent ones', async () => {
    const sql = "SELECT query_id, state, user, query FROM system.runtime.queries WHERE query LIKE '%runtime-marker-1%'";
    const r = await runQuery(base, sql);
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([[r.id, 'RUNNING', 'test', sql]]);
    const all = await runQuery(base, 'SELECT query_id, state, error_code FROM system.runtime.queries');
    const byId = new Map(all.rows.map((row) => [row[0], row]));
    expect(byId.get(filterId)).toEqual([filterId, 'FINISHED', null]);
    expect(byId.get(r.id)?.[1]).toBe('FINISHED');
    expect(all.columns?.map((c) => c.type)).toEqual(['varchar', 'varchar', 'varchar']);
  });

  it('runtime.tasks shows the tasks of a finished query', async () => {
    const r = await runQuery(base, `SELECT task_id, stage_id, state, raw_input_rows, output_rows FROM system.runtime.tasks WHERE query_id = '${filterId}' ORDER BY task_id`);
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([
      // The root task's raw input is what it read from the exchange.
      [`${filterId}.0.0`, `${filterId}.0`, 'FINISHED', filterRows, filterRows],
      [`${filterId}.1.0`, `${filterId}.1`, 'FINISHED', 60175, filterRows],
    ]);
  });

  it('runtime.table_data weighs the generated tpch columns and memory tables against Arrow', async () => {
    // A scale no other test reads, so the cache holds exactly what this test reads.
    const held = async (): Promise<number[]> => {
      const r = await runQuery(base, "SELECT row_count, columns_held, held_bytes, arrow_bytes FROM system.runtime.table_data WHERE catalog_name = 'tpch' AND schema_name = 'sf0.005' AND table_name = 'lineitem'");
      expect(r.error).toBeUndefined();
      return (r.rows[0] as number[] | undefined) ?? [];
    };
    expect(await held()).toEqual([]);
    const count = await runQuery(base, 'SELECT count(*), count(orderkey), sum(quantity) FROM tpch."sf0.005".lineitem');
    const rows = count.rows[0][0] as number;
    const [heldRows, columns, bytes, arrow] = await held();
    // bigint orderkey and double quantity: 8 bytes a row each, in memory as in Arrow.
    expect([heldRows, columns]).toEqual([rows, 2]);
    expect(Math.abs(bytes - 16 * rows)).toBeLessThan(200);
    expect(Math.abs(arrow - 16 * rows)).toBeLessThan(200);
    // Reading the comment column adds its Utf8 offsets and bytes (give or take 8-byte padding per split).
    const text = await runQuery(base, 'SELECT sum(length(comment)) FROM tpch."sf0.005".lineitem');
    const commentBytes = (text.rows[0][0] as number) + 4 * rows;
    const after = await held();
    expect(after.slice(0, 2)).toEqual([rows, 3]);
    expect(Math.abs(after[2] - bytes - commentBytes)).toBeLessThan(200);
    expect(Math.abs(after[3] - arrow - commentBytes)).toBeLessThan(200);

    const created = await runQuery(base, 'CREATE TABLE memory.default.held_check AS SELECT orderkey, orderstatus FROM tpch.tiny.orders');
    expect(created.error).toBeUndefined();
    const m = await runQuery(base, "SELECT schema_name, row_count, columns_held, held_bytes, arrow_bytes FROM system.runtime.table_data WHERE catalog_name = 'memory' AND table_name = 'held_check'");
    expect(m.rows).toHaveLength(1);
    const [schema, mRows, mColumns, mHeld, mArrow] = m.rows[0] as [string, number, number, number, number];
    expect([schema, mRows, mColumns]).toEqual(['default', 15000, 2]);
    // Arrow: 8-byte keys, then the one-letter statuses as Utf8 offsets and bytes.
    expect(Math.abs(mArrow - (8 * 15000 + 4 * 15000 + 15000))).toBeLessThan(1000);
    expect(mHeld).toBeGreaterThanOrEqual(8 * 15000);
    expect(mHeld).toBeLessThanOrEqual(mArrow);
    await runQuery(base, 'DROP TABLE memory.default.held_check');
    const gone = await runQuery(base, "SELECT count(*) FROM system.runtime.table_data WHERE table_name = 'held_check'");
    expect(gone.rows).toEqual([[0]]);
  });

  it('runtime.nodes shows the coordinator', async () => {
    const r = await runQuery(base, 'SELECT node_id, http_uri, coordinator, state FROM system.runtime.nodes');
    expect(r.error).toBeUndefined();
    expect(r.rows).toEqual([['coordinator', base, true, 'active']]);
  });
});
