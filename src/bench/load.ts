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

interface UwsApp {
  get(pattern: string, handler: (res: { end(body: string): void }, req: unknown) => void): UwsApp;
  listen(host: string, port: number, cb: (token: unknown) => void): UwsApp;
  close(): void;
}
interface UwsModule {
  App(): UwsApp;
  us_socket_local_port(token: unknown): number;
}

/** A uWebSockets.js hello-world on a free loopback port. */
export async function startBareServer(): Promise<{ url: string; close(): void }> {
  const uws = ((await import('@uwsjs/core')) as unknown as { default: UwsModule }).default;
  const app = uws.App().get('/*', (res) => res.end('hello'));
  const port = await new Promise<number>((resolve, reject) =>
    app.listen('127.0.0.1', 0, (token) => (token ? resolve(uws.us_socket_local_port(token)) : reject(new Error('bare uWS: listen failed')))),
  );
  return { url: `http://127.0.0.1:${port}/`, close: () => app.close() };
}

export interface ProtocolResults {
  readonly trivial: MeasuredLoad;
  readonly tpch?: MeasuredLoad;
  readonly bare: MeasuredLoad;
  /** Our time per HTTP request over the bare reply's (bare req/s ÷ our req/s). */
  readonly perRequestOverhead: number;
  /** Our time per complete SELECT 1 (POST + every GET) over one bare reply's. */
  readonly perQueryOverhead: number;
  /** Our server thread's CPU per HTTP request over the bare server's (where /proc tells). */
  readonly cpuPerRequestOverhead?: number;
}

export interface LoadOptions {
  readonly connections: number;
  readonly durationSeconds: number;
  /** The tpch scenario's query and schema; omitted = only SELECT 1. */
  readonly tpch?: { readonly sql: string; readonly schema: string; readonly label: string };
  readonly onStep?: (label: string) => void;
}

export async function protocolLoad(baseUrl: string, o: LoadOptions): Promise<ProtocolResults> {
  const common = { connections: o.connections, durationSeconds: o.durationSeconds };
  const statement = (name: string, sql: string, schema: string): LoadScenario => ({ kind: 'statement', name, url: baseUrl, sql, catalog: 'tpch', schema, ...common });
  const warm = (s: LoadScenario): LoadScenario => ({ ...s, durationSeconds: Math.min(1, s.durationSeconds) });

  o.onStep?.('load: SELECT 1 (warm-up)');
  await runLoad(warm(statement('SELECT 1', 'SELECT 1', 'tiny')));
  o.onStep?.('load: SELECT 1');
  const trivial = await runLoad(statement('SELECT 1', 'SELECT 1', 'tiny'));
  let tpch: MeasuredLoad | undefined;
  if (o.tpch) {
    const s = statement(o.tpch.label, o.tpch.sql, o.tpch.schema);
    o.onStep?.(`load: ${o.tpch.label} (warm-up)`);
    await runLoad(warm(s));
    o.onStep?.(`load: ${o.tpch.label}`);
    tpch = await runLoad(s);
  }
  const bareServer = await startBareServer();
  let bare: MeasuredLoad;
  try {
    const s: LoadScenario = { kind: 'plain', name: 'bare uWS hello', url: bareServer.url, ...common };
    o.onStep?.('load: bare uWS (warm-up)');
    await runLoad(warm(s));
    o.onStep?.('load: bare uWS');
    bare = await runLoad(s);
  } finally {
    bareServer.close();
  }
  return {
    trivial,
    tpch,
    bare,
    perRequestOverhead: bare.requestsPerSecond / trivial.requestsPerSecond,
    perQueryOverhead: bare.requestsPerSecond / (trivial.queriesPerSecond ?? NaN),
    cpuPerRequestOverhead:
      trivial.serverCpuUsPerRequest !== undefined && bare.serverCpuUsPerRequest !== undefined ? trivial.serverCpuUsPerRequest / bare.serverCpuUsPerRequest : undefined,
  };
}
