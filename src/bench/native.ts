// native-bench from the harness: build it when a C compiler is there and it is not built yet, run
// it over the same lineitem.tbl, and read its JSON lines.
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { median } from './results.js';
import { NATIVE_BINARY, NATIVE_DIR } from './paths.js';

/** Kernels take milliseconds, so more runs cost nothing and steady the median on a shared machine. */
const NATIVE_MIN_RUNS = 10;

export interface NativeKernel {
  readonly name: 'q1' | 'q6' | 'bandwidth';
  readonly threads: number;
  readonly rows: number;
  readonly medianMs: number;
  readonly minMs: number;
  readonly runsMs: number[];
  readonly check: number;
  readonly gbPerSecond?: number;
}

export interface NativeResult {
  readonly loadMs: number;
  readonly kernels: NativeKernel[];
  /** Q1 and Q6 timed between our runs of the same query (NativeServer), when they ran. */
  readonly interleaved?: NativeKernel[];
  /** Why they did not. */
  readonly interleavedError?: string;
}

/** Builds native-bench if needed; returns why it cannot run, or undefined when it can. */
export function ensureNativeBuilt(): string | undefined {
  if (existsSync(NATIVE_BINARY)) return undefined;
  const cc = spawnSync('sh', ['-c', 'command -v "${CC:-cc}"'], { encoding: 'utf8' });
  if (cc.status !== 0) return 'no C compiler (cc) found; install one and run `make native-bench`';
  const make = spawnSync('make', ['-C', NATIVE_DIR], { encoding: 'utf8' });
  if (make.status !== 0 || !existsSync(NATIVE_BINARY)) return `make -C native-bench failed: ${(make.stderr || make.stdout || String(make.error)).trim().split('\n').slice(-3).join(' | ')}`;
  return undefined;
}

function kernelOf(j: Record<string, unknown>): NativeKernel {
  const runsMs = (j.runs_ms as number[]).map(Number);
  return {
    name: j.name as NativeKernel['name'],
    threads: Number(j.threads),
    rows: Number(j.rows),
    medianMs: Number(j.median_ms),
    minMs: Math.min(...runsMs),
    runsMs,
    check: Number(j.check),
    gbPerSecond: j.gb_per_s === undefined ? undefined : Number(j.gb_per_s),
  };
}

export function runNative(lineitemTbl: string, threads: number, runs: number): NativeResult {
  const r = spawnSync(NATIVE_BINARY, [lineitemTbl, String(threads), String(Math.max(runs, NATIVE_MIN_RUNS))], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`native-bench failed (${r.status ?? r.signal}): ${r.stderr.trim()}`);
  let loadMs = NaN;
  const kernels: NativeKernel[] = [];
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const j = JSON.parse(line) as Record<string, unknown>;
    if (j.kind === 'load') loadMs = Number(j.ms);
    else if (j.kind === 'kernel') kernels.push(kernelOf(j));
  }
  return { loadMs, kernels };
}

/**
 * native-bench kept running (its `serve` mode) with lineitem loaded, timing a kernel on request: the
 * bench runs C's Q1 and Q6 between its own runs of those queries, so that both are measured in the
 * same minutes (this machine's speed moves by 1.5× from one minute to the next).
 */
export class NativeServer {
  private readonly lines: AsyncIterator<string>;
  private exited: string | undefined;

  private constructor(private readonly child: ChildProcessWithoutNullStreams) {
    this.lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code, signal) => (this.exited = `native-bench exited (${code ?? signal}): ${stderr.trim()}`));
  }

  /** Starts native-bench over `lineitemTbl`; resolves once the data is loaded and each kernel warmed up. */
  static async start(lineitemTbl: string, threads: number): Promise<NativeServer> {
    // Passive OpenMP threads: idle between requests, they must not spin on the cores our runs use.
    const child = spawn(NATIVE_BINARY, [lineitemTbl, String(threads), '1', 'serve'], { env: { ...process.env, OMP_WAIT_POLICY: 'passive' } });
    const server = new NativeServer(child);
    try {
      await server.next('ready');
    } catch (error) {
      child.kill();
      throw error;
    }
    return server;
  }

  /** `runs` timed runs of one kernel. */
  async run(name: 'q1' | 'q6', runs: number): Promise<NativeKernel> {
    this.child.stdin.write(`${name} ${runs}\n`);
    return kernelOf(await this.next('kernel'));
  }

  async close(): Promise<void> {
    if (this.exited !== undefined) return;
    const exit = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    await exit;
  }

  /** The next JSON line, which must be of `kind`. */
  private async next(kind: string): Promise<Record<string, unknown>> {
    for (;;) {
      const { value, done } = await this.lines.next();
      if (done) throw new Error(this.exited ?? 'native-bench closed its output');
      if (!value.startsWith('{')) continue;
      const j = JSON.parse(value) as Record<string, unknown>;
      if (j.kind === kind) return j;
      if (j.kind === 'error') throw new Error(`native-bench: ${String(j.message)}`);
    }
  }
}

/** The native kernel doing a query's work, timed once before each of our runs of it. */
export interface NativeBeside {
  readonly kernel: 'q1' | 'q6';
  time(): Promise<void>;
}

/** C's Q1 and Q6 timed between our runs of q01 and q06 (see NativeServer). */
export class InterleavedNative {
  private readonly runs = new Map<'q1' | 'q6', NativeKernel[]>();

  constructor(private readonly server: NativeServer) {}

  /** What runOurs needs for query `name`; undefined when no C kernel does its work. */
  beside(name: string): NativeBeside | undefined {
    const kernel = name === 'q01' ? 'q1' : name === 'q06' ? 'q6' : undefined;
    if (!kernel) return undefined;
    return {
      kernel,
      time: async () => {
        const k = await this.server.run(kernel, 1);
        const runs = this.runs.get(kernel);
        if (runs) runs.push(k);
        else this.runs.set(kernel, [k]);
      },
    };
  }

  /** Every kernel's runs as one NativeKernel (median and best over all of them). */
  results(): NativeKernel[] {
    return [...this.runs.values()].map((ks) => {
      const runsMs = ks.flatMap((k) => k.runsMs);
      return { ...ks[0]!, runsMs, medianMs: median(runsMs), minMs: Math.min(...runsMs) };
    });
  }

  close(): Promise<void> {
    return this.server.close();
  }
}
