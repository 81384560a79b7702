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

/**
 * The load generator's thread, kept for a series of scenarios (one at a time): the client's code
 * stays compiled from one run to the next, so a warm-up run warms the client as well as the server.
 */
export class LoadClient {
  private readonly worker = new Worker(new URL('./load-worker.js', import.meta.url));
  private pending: { resolve(r: LoadResult): void; reject(e: Error): void; name: string } | undefined;

  constructor() {
    this.worker.on('message', (m: { ok: true; result: LoadResult } | { ok: false; error: string }) => {
      const p = this.pending;
      this.pending = undefined;
      if (m.ok) p?.resolve(m.result);
      else p?.reject(new Error(`load scenario ${p?.name}: ${m.error}`));
    });
    const fail = (error: Error): void => {
      this.pending?.reject(error);
      this.pending = undefined;
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(new Error(`load client thread exited (code ${code})`)));
  }

  /** Runs a scenario; the server under test is on this (the main) thread, whose CPU it charges per request. */
  async run(scenario: LoadScenario): Promise<MeasuredLoad> {
    if (this.pending !== undefined) throw new Error('the load client runs one scenario at a time');
    const cpuBefore = mainThreadCpuMs();
    const result = await new Promise<LoadResult>((resolve, reject) => {
      this.pending = { resolve, reject, name: scenario.name };
      this.worker.postMessage(scenario);
    });
    const cpuAfter = mainThreadCpuMs();
    if (cpuBefore === null || cpuAfter === null || result.requests === 0) return result;
    return { ...result, serverCpuUsPerRequest: ((cpuAfter - cpuBefore) * 1000) / result.requests };
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

/** One scenario on a client thread of its own (cold: see LoadClient). */
export async function runLoad(scenario: LoadScenario): Promise<MeasuredLoad> {
  const client = new LoadClient();
  try {
    return await client.run(scenario);
  } finally {
    await client.close();
  }
}

export interface ProtocolResults {
  readonly trivial: MeasuredLoad;
  /** SELECT 1 with fewer clients (LoadOptions.fewConnections): the latency at a lighter load. */
  readonly trivialFew?: MeasuredLoad;
  /** SELECT 1 on a server with SQL authentication on, every request with Basic credentials. */
  readonly authenticated?: MeasuredLoad;
  /** Its queries/s over SELECT 1's without authentication: the median of each round's ratio. */
  readonly authenticationThroughputRatio?: number;
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
  /**
   * Rounds of SELECT 1 at `connections` and the two bare servers, run one after the other in each
   * round; trivial, bare and bareShaped then hold each figure's median over the rounds, and the
   * ratios are medians of each round's own ratio (its scenarios measured within seconds of each
   * other: this machine's speed moves by 1.5× from one minute to the next).
   */
  readonly rounds: number;
  /** Each round's CPU ratios (ours ÷ hello, ours ÷ shaped), where /proc tells. */
  readonly roundCpuRatios?: readonly { readonly overHello: number; readonly overShaped: number }[];
  /** Each round's SELECT 1 throughput and p99 at `connections`, and the SELECT 1-shaped bare server's p99. */
  readonly roundLatencies?: readonly { readonly queriesPerSecond: number; readonly queryP99Ms: number; readonly shapedP99Ms: number }[];
}

export interface LoadOptions {
  readonly connections: number;
  /** Also run SELECT 1 with this many clients (fewer: the latency at a lighter load); omitted = not. */
  readonly fewConnections?: number;
  readonly durationSeconds: number;
  /** The tpch scenario's query and schema; omitted = only SELECT 1. */
  readonly tpch?: { readonly sql: string; readonly schema: string; readonly label: string };
  /** Rounds of SELECT 1 and the bare servers (see ProtocolResults.rounds); default 1. */
  readonly rounds?: number;
  /** A server with SQL authentication on and the header that signs in to it: SELECT 1 there too, each round. */
  readonly authenticated?: { readonly url: string; readonly authorization: string; readonly user: string };
  readonly onStep?: (label: string) => void;
}

/** Scenarios protocolLoad runs (each after a short warm-up), for progress bars. */
export function loadScenarioCount(withFewConnections: boolean, withTpch: boolean, rounds = 1, withAuthenticated = false): number {
  return (withAuthenticated ? 4 : 3) * rounds + (withFewConnections ? 1 : 0) + (withTpch ? 1 : 0);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** A scenario's rounds as one result: each numeric figure's median (counts too), the name and setup of the first. */
export function medianLoad(rounds: readonly MeasuredLoad[]): MeasuredLoad {
  if (rounds.length === 1) return rounds[0]!;
  const first = rounds[0]!;
  const out: Record<string, unknown> = { ...first };
  for (const [key, value] of Object.entries(first)) {
    if (typeof value !== 'number' || key === 'connections') continue;
    const values = rounds.map((r) => (r as unknown as Record<string, unknown>)[key]).filter((v): v is number => typeof v === 'number');
    out[key] = values.length === rounds.length ? median(values) : value;
  }
  return out as unknown as MeasuredLoad;
}

export async function protocolLoad(baseUrl: string, o: LoadOptions): Promise<ProtocolResults> {
  const client = new LoadClient();
  try {
    return await protocolLoadWith(client, baseUrl, o);
  } finally {
    await client.close();
  }
}

async function protocolLoadWith(client: LoadClient, baseUrl: string, o: LoadOptions): Promise<ProtocolResults> {
  const common = { connections: o.connections, durationSeconds: o.durationSeconds };
  const statement = (name: string, sql: string, schema: string, url = baseUrl): Extract<LoadScenario, { kind: 'statement' }> => ({ kind: 'statement', name, url, sql, catalog: 'tpch', schema, ...common });
  /** Runs a scenario after a short warm-up; `of` names the round in the progress labels. */
  const measure = async (s: LoadScenario, of = ''): Promise<MeasuredLoad> => {
    o.onStep?.(`load: ${s.name}${of} (warm-up)`);
    await client.run({ ...s, durationSeconds: Math.min(1, s.durationSeconds) });
    o.onStep?.(`load: ${s.name}${of}`);
    return client.run(s);
  };
  const onBare = async (kind: 'hello' | 'statement-shaped', scenario: (url: string) => LoadScenario, of: string): Promise<MeasuredLoad> => {
    const server = await startBareServer(kind);
    try {
      return await measure(scenario(server.url), of);
    } finally {
      server.close();
    }
  };

  // Each round: ours, then the bare servers, so that each round's ratios compare scenarios a few
  // seconds apart.
  const rounds = Math.max(1, o.rounds ?? 1);
  const trivialRounds: MeasuredLoad[] = [];
  const bareRounds: MeasuredLoad[] = [];
  const shapedRounds: MeasuredLoad[] = [];
  const authenticatedRounds: MeasuredLoad[] = [];
  for (let r = 0; r < rounds; r++) {
    const of = rounds > 1 ? `, round ${r + 1} of ${rounds}` : '';
    trivialRounds.push(await measure(statement(`SELECT 1, ${o.connections} clients`, 'SELECT 1', 'tiny'), of));
    if (o.authenticated) authenticatedRounds.push(await measure({ ...statement(`SELECT 1 with Basic authentication, ${o.connections} clients`, 'SELECT 1', 'tiny', o.authenticated.url), authorization: o.authenticated.authorization, user: o.authenticated.user }, of));
    bareRounds.push(await onBare('hello', (url) => ({ kind: 'plain', name: 'bare uWS hello', url, ...common }), of));
    shapedRounds.push(await onBare('statement-shaped', (url) => statement('bare uWS, SELECT 1-shaped answers', 'SELECT 1', 'tiny', url), of));
  }
  const trivial = medianLoad(trivialRounds);
  const bare = medianLoad(bareRounds);
  const bareShaped = medianLoad(shapedRounds);
  const trivialFew =
    o.fewConnections === undefined ? undefined : await measure({ ...statement(`SELECT 1, ${o.fewConnections} clients`, 'SELECT 1', 'tiny'), connections: o.fewConnections });
  const tpch = o.tpch ? await measure(statement(o.tpch.label, o.tpch.sql, o.tpch.schema)) : undefined;
  const cpuOver = (ours: MeasuredLoad, base: MeasuredLoad): number | undefined =>
    ours.serverCpuUsPerRequest !== undefined && base.serverCpuUsPerRequest !== undefined ? ours.serverCpuUsPerRequest / base.serverCpuUsPerRequest : undefined;
  const roundCpuRatios = trivialRounds.map((t, r) => ({ overHello: cpuOver(t, bareRounds[r]!), overShaped: cpuOver(t, shapedRounds[r]!) }));
  const cpuKnown = roundCpuRatios.every((x) => x.overHello !== undefined && x.overShaped !== undefined);
  return {
    trivial,
    trivialFew,
    ...(authenticatedRounds.length
      ? {
          authenticated: medianLoad(authenticatedRounds),
          authenticationThroughputRatio: median(authenticatedRounds.map((a, r) => (a.queriesPerSecond ?? NaN) / (trivialRounds[r]!.queriesPerSecond ?? NaN))),
        }
      : {}),
    tpch,
    bare,
    bareShaped,
    perRequestOverhead: median(trivialRounds.map((t, r) => bareRounds[r]!.requestsPerSecond / t.requestsPerSecond)),
    perQueryOverhead: median(trivialRounds.map((t, r) => bareRounds[r]!.requestsPerSecond / (t.queriesPerSecond ?? NaN))),
    cpuPerRequestOverhead: cpuKnown ? median(roundCpuRatios.map((x) => x.overHello!)) : undefined,
    cpuPerRequestOverShaped: cpuKnown ? median(roundCpuRatios.map((x) => x.overShaped!)) : undefined,
    rounds,
    roundCpuRatios: cpuKnown ? roundCpuRatios.map((x) => ({ overHello: x.overHello!, overShaped: x.overShaped! })) : undefined,
    roundLatencies: trivialRounds.map((t, r) => ({ queriesPerSecond: t.queriesPerSecond ?? NaN, queryP99Ms: t.queryP99Ms ?? NaN, shapedP99Ms: shapedRounds[r]!.queryP99Ms ?? NaN })),
  };
}
