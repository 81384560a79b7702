// native-bench from the harness: build it when a C compiler is there and it is not built yet, run
// it over the same lineitem.tbl, and read its JSON lines.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
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

export function runNative(lineitemTbl: string, threads: number, runs: number): NativeResult {
  const r = spawnSync(NATIVE_BINARY, [lineitemTbl, String(threads), String(Math.max(runs, NATIVE_MIN_RUNS))], { encoding: 'utf8', maxBuffer: 1 << 20 });
  if (r.status !== 0) throw new Error(`native-bench failed (${r.status ?? r.signal}): ${r.stderr.trim()}`);
  let loadMs = NaN;
  const kernels: NativeKernel[] = [];
  for (const line of r.stdout.split('\n')) {
    if (!line.startsWith('{')) continue;
    const j = JSON.parse(line) as Record<string, unknown>;
    if (j.kind === 'load') loadMs = Number(j.ms);
    else if (j.kind === 'kernel') {
      kernels.push({
        name: j.name as NativeKernel['name'],
        threads: Number(j.threads),
        rows: Number(j.rows),
        medianMs: Number(j.median_ms),
        minMs: Math.min(...(j.runs_ms as number[]).map(Number)),
        runsMs: (j.runs_ms as number[]).map(Number),
        check: Number(j.check),
        gbPerSecond: j.gb_per_s === undefined ? undefined : Number(j.gb_per_s),
      });
    }
  }
  return { loadMs, kernels };
}
