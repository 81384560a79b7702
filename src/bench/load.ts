// Statement-protocol throughput on loopback: our full POST + nextUri cycle under N concurrent
// clients, beside a bare uWebSockets.js reply (the ceiling: what the HTTP layer alone can do on this
// machine, served from the same main thread our server uses).
import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadScenario } from './load-worker.js';
import { mainThreadCpuMs } from './thread-cpu.js';

export type { LoadResult } from './load-worker.js';

/** A scenario's result, with the CPU the main thread (the server under test) spent per HTTP request. */
export type MeasuredLoad = LoadResult & { readonly serverCpuUsPerRequest?: number };

export async function runLoad(scenario: LoadScenario): Promise<MeasuredLoad> {
  const cpuBefore = mainThreadCpuMs();
  const result = await new Promise<LoadResult>((resolve, reject) => {
    const worker = new Worker(new URL('./load-worker.js', import.meta.url), { workerData: scenario });
    worker.once('message', (m: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
      void worker.terminate();
      if (m.ok) resolve(m.result);
      else reject(new Error(`load scenario ${scenario.name}: ${m.error}`));
    });
    worker.once('error', reject);
  });
  const cpuAfter = mainThreadCpuMs();
  if (cpuBefore === null || cpuAfter === null || result.requests === 0) return result;
  return { ...result, serverCpuUsPerRequest: ((cpuAfter - cpuBefore) * 1000) / result.requests };
}

interface UwsResponse {
  end(body: string): void;
  writeHeader(name: string, value: string): UwsResponse;
  onData(handler: (chunk: ArrayBuffer, isLast: boolean) => void): void;
  onAborted(handler: () => void): void;
  cork(f: () => void): void;
}
interface UwsRequest {
  getHeader(name: string): string;
  getUrl(): string;
}
type UwsHandler = (res: UwsResponse, req: UwsRequest) => void;
interface UwsApp {
  get(pattern: string, handler: UwsHandler): UwsApp;
  post(pattern: string, handler: UwsHandler): UwsApp;
  listen(host: string, port: number, cb: (token: unknown) => void): UwsApp;
  close(): void;
}
interface UwsModule {
  App(): UwsApp;
  us_socket_local_port(token: unknown): number;
}

/**
 * A uWebSockets.js server on a free loopback port: `hello` answers every GET with "hello" (the
 * issue's ceiling); `statement-shaped` answers the statement protocol's two requests for SELECT 1
 * with fixed answers of the same fields and sizes as ours (QUEUED with a nextUri, then FINISHED
 * with the row): what the HTTP layer alone costs for this traffic, without any query work.
 */
export async function startBareServer(kind: 'hello' | 'statement-shaped' = 'hello'): Promise<{ url: string; close(): void }> {
  const uws = ((await import('@uwsjs/core')) as unknown as { default: UwsModule }).default;
  const app = uws.App();
  if (kind === 'hello') app.get('/*', (res) => res.end('hello'));
  else {
    let counter = 0;
    app.post('/v1/statement', (res, req) => {
      const base = `http://${req.getHeader('host')}`;
      res.onAborted(() => undefined);
      res.onData((_chunk, last) => {
        if (!last) return;
        const id = `20261122_000000_${String(counter++ % 100_000).padStart(5, '0')}_bare0`;
        res.cork(() => res.writeHeader('Content-Type', 'application/json').end(shapedQueuedAnswer(id, base)));
      });
    });
    app.get('/v1/statement/*', (res, req) => {
      const id = req.getUrl().split('/')[3] ?? '';
      res.writeHeader('Content-Type', 'application/json').end(shapedFinalAnswer(id, `http://${req.getHeader('host')}`));
    });
  }
  const port = await new Promise<number>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (token) => (token ? resolve(uws.us_socket_local_port(token)) : reject(new Error('bare uWS: listen failed')))),
  );
  return { url: `http://127.0.0.1:${port}${kind === 'hello' ? '/' : ''}`, close: () => app.close() };
}

const SHAPED_COUNTS = '"nodes":1,"totalSplits":1,"queuedSplits":0,"runningSplits":0,"completedSplits":1,"cpuTimeMillis":0,"wallTimeMillis":0';

function shapedQueuedAnswer(id: string, base: string): string {
  return (
    `{"id":"${id}","infoUri":"${base}/v1/query/${id}","partialCancelUri":"${base}/v1/stage/${id}.0","nextUri":"${base}/v1/statement/${id}/1",` +
    `"stats":{"state":"QUEUED","queued":true,"scheduled":false,"nodes":0,"totalSplits":0,"queuedSplits":0,"runningSplits":0,"completedSplits":0,"cpuTimeMillis":0,"wallTimeMillis":0,` +
    `"queuedTimeMillis":0,"elapsedTimeMillis":0,"processedRows":0,"processedBytes":0,"physicalInputBytes":0,"peakMemoryBytes":0,"spilledBytes":0},"warnings":[]}`
  );
}

function shapedFinalAnswer(id: string, base: string): string {
  return (
    `{"id":"${id}","infoUri":"${base}/v1/query/${id}","columns":[{"name":"_col0","type":"integer","typeSignature":{"rawType":"integer","arguments":[]}}],"data":[[1]],` +
    `"stats":{"state":"FINISHED","queued":false,"scheduled":true,${SHAPED_COUNTS},"queuedTimeMillis":0,"elapsedTimeMillis":0,"processedRows":1,"processedBytes":0,` +
    `"physicalInputBytes":0,"peakMemoryBytes":4,"spilledBytes":0,"progressPercentage":100,"rootStage":{"stageId":"0","state":"FINISHED","done":true,${SHAPED_COUNTS},` +
    `"processedRows":1,"processedBytes":0,"physicalInputBytes":0,"failedTasks":0,"coordinatorOnly":false,"subStages":[]}},"warnings":[]}`
  );
}

export interface ProtocolResults {
  readonly trivial: MeasuredLoad;
  /** SELECT 1 with fewer clients (LoadOptions.fewConnections): the latency at a lighter load. */
  readonly trivialFew?: MeasuredLoad;
  readonly tpch?: MeasuredLoad;
  readonly bare: MeasuredLoad;
  /** The bare uWS server answering SELECT 1's two requests with fixed answers of our sizes. */
  readonly bareShaped?: MeasuredLoad;
  /** Our time per HTTP request over the bare reply's (bare req/s ÷ our req/s). */
  readonly perRequestOverhead: number;
  /** Our time per complete SELECT 1 (POST + every GET) over one bare reply's. */
  readonly perQueryOverhead: number;
  /** Our server thread's CPU per HTTP request over the bare server's (where /proc tells). */
  readonly cpuPerRequestOverhead?: number;
  /** …and over the statement-shaped bare server's: the cost of our work beyond HTTP. */
  readonly cpuPerRequestOverShaped?: number;
}

export interface LoadOptions {
  readonly connections: number;
  /** Also run SELECT 1 with this many clients (fewer: the latency at a lighter load); omitted = not. */
  readonly fewConnections?: number;
  readonly durationSeconds: number;
  /** The tpch scenario's query and schema; omitted = only SELECT 1. */
  readonly tpch?: { readonly sql: string; readonly schema: string; readonly label: string };
  readonly onStep?: (label: string) => void;
}

/** Scenarios protocolLoad runs (each after a short warm-up), for progress bars. */
export function loadScenarioCount(withFewConnections: boolean, withTpch: boolean): number {
  return 3 + (withFewConnections ? 1 : 0) + (withTpch ? 1 : 0);
}

export async function protocolLoad(baseUrl: string, o: LoadOptions): Promise<ProtocolResults> {
  const common = { connections: o.connections, durationSeconds: o.durationSeconds };
  const statement = (name: string, sql: string, schema: string, url = baseUrl): LoadScenario => ({ kind: 'statement', name, url, sql, catalog: 'tpch', schema, ...common });
  const measure = async (s: LoadScenario): Promise<MeasuredLoad> => {
    o.onStep?.(`load: ${s.name} (warm-up)`);
    await runLoad({ ...s, durationSeconds: Math.min(1, s.durationSeconds) });
    o.onStep?.(`load: ${s.name}`);
    return runLoad(s);
  };
  const onBare = async (kind: 'hello' | 'statement-shaped', scenario: (url: string) => LoadScenario): Promise<MeasuredLoad> => {
    const server = await startBareServer(kind);
    try {
      return await measure(scenario(server.url));
    } finally {
      server.close();
    }
  };

  const trivial = await measure(statement(`SELECT 1, ${o.connections} clients`, 'SELECT 1', 'tiny'));
  const trivialFew =
    o.fewConnections === undefined ? undefined : await measure({ ...statement(`SELECT 1, ${o.fewConnections} clients`, 'SELECT 1', 'tiny'), connections: o.fewConnections });
  const tpch = o.tpch ? await measure(statement(o.tpch.label, o.tpch.sql, o.tpch.schema)) : undefined;
  const bare = await onBare('hello', (url) => ({ kind: 'plain', name: 'bare uWS hello', url, ...common }));
  const bareShaped = await onBare('statement-shaped', (url) => statement('bare uWS, SELECT 1-shaped answers', 'SELECT 1', 'tiny', url));
  const cpuOver = (base: MeasuredLoad): number | undefined =>
    trivial.serverCpuUsPerRequest !== undefined && base.serverCpuUsPerRequest !== undefined ? trivial.serverCpuUsPerRequest / base.serverCpuUsPerRequest : undefined;
  return {
    trivial,
    trivialFew,
    tpch,
    bare,
    bareShaped,
    perRequestOverhead: bare.requestsPerSecond / trivial.requestsPerSecond,
    perQueryOverhead: bare.requestsPerSecond / (trivial.queriesPerSecond ?? NaN),
    cpuPerRequestOverhead: cpuOver(bare),
    cpuPerRequestOverShaped: cpuOver(bareShaped),
  };
}
