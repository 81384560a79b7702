// The shape of one benchmark run, as written to bench/results/*.json.
import type { BenchOptions } from './args.js';
import type { DataHeld } from './data-held.js';
import type { DatagenRate } from './datagen-child.js';
import type { ProtocolResults } from './load.js';
import type { MicroResult } from './micro.js';
import type { NativeResult } from './native.js';

export interface EngineRun {
  readonly status: 'ok' | 'unsupported' | 'failed' | 'timeout' | 'skipped';
  /** 'NOT_SUPPORTED: line 12:2: Joins are not supported yet'. */
  readonly error?: string;
  readonly errorName?: string;
  /** The warm-up run; for us it includes generating the tables the query touches first. */
  readonly firstMs?: number;
  readonly runsMs?: readonly number[];
  readonly medianMs?: number;
  readonly rows?: number;
}

export interface QueryResult {
  readonly name: string;
  readonly ours: EngineRun;
  readonly duckdb: EngineRun;
  /** ours / DuckDB, medians; only when both ran. */
  readonly ratio?: number;
  /** The same query through the in-process engine API (QueryManager.execute: no HTTP, no JSON text), its runs alternating with the HTTP ones. */
  readonly inProcess?: EngineRun;
  /** inProcess / DuckDB, medians. */
  readonly inProcessRatio?: number;
  /** 'match' (rows and values), 'rows match' (values not compared: too many rows), or the difference. */
  readonly check?: string;
}

export interface BenchResults {
  readonly startedAt: string;
  readonly machine: { readonly cpus: number; readonly model: string; readonly node: string; readonly totalMemoryBytes: number };
  readonly options: BenchOptions;
  readonly datagen?: { readonly sf: number; readonly textPoolMs: number; readonly tbl: readonly DatagenRate[]; readonly columnar: readonly DatagenRate[] };
  readonly duckdb?: { readonly loadMs: number; readonly rows: number; readonly peakRssBytes: number };
  readonly tpch: readonly QueryResult[];
  /** Geometric mean of the ratios over the queries both engines ran. */
  /** Geometric mean of inProcessRatio. */
  readonly inProcessGeomeanRatio?: number;
  readonly geomeanRatio?: number;
  readonly peakRss?: { readonly sampledBytes: number; readonly vmHwmBytes: number; readonly intervalMs: number };
  /** The generated tpch data the server holds once every column is generated, against its Arrow size. */
  readonly dataHeld?: DataHeld;
  readonly native?: NativeResult;
  readonly nativeError?: string;
  readonly load?: ProtocolResults;
  readonly micro?: readonly MicroResult[];
  /** Identity API throughput: durable user creations/s, user reads/s, token grants/s. */
  readonly identity?: Readonly<Record<string, number>>;
}

export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
}

export function geomean(xs: readonly number[]): number | undefined {
  if (xs.length === 0) return undefined;
  return Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length);
}
