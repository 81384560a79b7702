// Statement-protocol throughput on loopback: our full POST + nextUri cycle under N concurrent
// clients, beside a bare uWebSockets.js reply (the ceiling: what the HTTP layer alone can do on this
// machine, served from the same main thread our server uses).
import { Worker } from 'node:worker_threads';
import type { LoadResult, LoadScenario } from './load-worker.js';
import { startBareServer } from './bare-servers.js';
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
