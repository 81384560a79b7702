// npm run bench -- [flags]: the options of one benchmark run.
import os from 'node:os';

export const USAGE = `usage: npm run bench -- [options]
  --sf <n>            TPC-H scale factor (default 1; 0.01 = tiny)
  --queries <list>    TPC-H query numbers, e.g. 1,6,14 (default all 22)
  --threads <n>       our worker threads and DuckDB's SET threads (default: cores)
  --runs <n>          timed runs per query after one warm-up (default 3)
  --timeout <s>       give up on one run of one query after this many seconds (default 600)
  --skip-duckdb       time only our engine
  --skip-native       do not build or run native-bench
  --skip-load         skip the statement-protocol throughput section
  --skip-micro        skip the tinybench kernel micro benchmarks
  --skip-identity     skip the identity API throughput section
  --skip-data-held    skip generating every tpch column to weigh the data the server holds
  --load              only the protocol load scenarios (autocannon): SELECT 1 and a tpch query
  --load-schema <s>   tpch schema of the load scenario's query (default tiny)
  --connections <n>   concurrent clients of the load scenarios (default 32)
  --few-connections <n>  SELECT 1 also with this many clients, for its latency at a lighter load
                      (default 8; 0 = not)
  --duration <s>      seconds per load scenario (default 5)
  --load-rounds <n>   run SELECT 1 (at --connections) and the bare uWS servers n times, alternating,
                      and report medians (default 3)
  --out <dir>         where results go (default bench/results)
  --keep-data         keep the generated .tbl directory (its path is printed)`;

export interface BenchOptions {
  readonly sf: number;
  readonly queries: readonly number[];
  readonly threads: number;
  readonly runs: number;
  readonly timeoutMs: number;
  readonly skipDuckdb: boolean;
  readonly skipNative: boolean;
  readonly skipLoad: boolean;
  readonly skipMicro: boolean;
  readonly skipIdentity: boolean;
  readonly skipDataHeld: boolean;
  readonly loadOnly: boolean;
  readonly loadSchema: string;
  readonly connections: number;
  /** SELECT 1 is also measured with this many clients; 0 = not. */
  readonly fewConnections: number;
  readonly durationSeconds: number;
  /** Rounds of the SELECT 1 and bare-server scenarios (medians reported). */
  readonly loadRounds: number;
  readonly out: string | undefined;
  readonly keepData: boolean;
}

export class UsageError extends Error {}

function positive(flag: string, text: string, integer: boolean): number {
  const n = Number(text);
  if (text.trim() === '' || !Number.isFinite(n) || n <= 0 || (integer && !Number.isInteger(n))) {
    throw new UsageError(`${flag} must be a positive ${integer ? 'whole number' : 'number'}, got '${text}'`);
  }
  return n;
}

export function parseArgs(argv: readonly string[]): BenchOptions {
  const o = {
    sf: 1,
    queries: Array.from({ length: 22 }, (_, i) => i + 1),
    threads: os.availableParallelism(),
    runs: 3,
    timeoutMs: 600_000,
    skipDuckdb: false,
    skipNative: false,
    skipLoad: false,
    skipMicro: false,
    skipIdentity: false,
    skipDataHeld: false,
    loadOnly: false,
    loadSchema: 'tiny',
    connections: 32,
    fewConnections: 8,
    durationSeconds: 5,
    loadRounds: 3,
    out: undefined as string | undefined,
    keepData: false,
  };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const eq = arg.indexOf('=');
    const flag = eq >= 0 ? arg.slice(0, eq) : arg;
    const value = (): string => {
      if (eq >= 0) return arg.slice(eq + 1);
      const v = argv[++i];
      if (v === undefined || v.startsWith('--')) throw new UsageError(`${flag} needs a value`);
      return v;
    };
    switch (flag) {
      case '--sf':
        o.sf = positive(flag, value(), false);
        break;
      case '--queries': {
        const list = value()
          .split(',')
          .map((q) => q.trim().replace(/^q/iu, ''))
          .filter((q) => q !== '');
        o.queries = list.map((q) => {
          const n = Number(q);
          if (!Number.isInteger(n) || n < 1 || n > 22) throw new UsageError(`--queries: '${q}' is not a TPC-H query number (1..22)`);
          return n;
        });
        if (o.queries.length === 0) throw new UsageError('--queries needs at least one query');
        break;
      }
      case '--threads':
        o.threads = positive(flag, value(), true);
        break;
      case '--runs':
        o.runs = positive(flag, value(), true);
        break;
      case '--timeout':
        o.timeoutMs = positive(flag, value(), false) * 1000;
        break;
      case '--skip-duckdb':
        o.skipDuckdb = true;
        break;
      case '--skip-native':
        o.skipNative = true;
        break;
      case '--skip-load':
        o.skipLoad = true;
        break;
      case '--skip-identity':
        o.skipIdentity = true;
        break;
      case '--skip-data-held':
        o.skipDataHeld = true;
        break;
      case '--skip-micro':
        o.skipMicro = true;
        break;
      case '--load':
        o.loadOnly = true;
        break;
      case '--load-schema':
        o.loadSchema = value();
        break;
      case '--connections':
        o.connections = positive(flag, value(), true);
        break;
      case '--few-connections': {
        const text = value();
        o.fewConnections = text === '0' ? 0 : positive(flag, text, true);
        break;
      }
      case '--duration':
        o.durationSeconds = positive(flag, value(), false);
        break;
      case '--load-rounds':
        o.loadRounds = positive(flag, value(), true);
        break;
      case '--out':
        o.out = value();
        break;
      case '--keep-data':
        o.keepData = true;
        break;
      case '--help':
      case '-h':
        throw new UsageError('');
      default:
        throw new UsageError(`unknown argument '${arg}'`);
    }
  }
  return o;
}
