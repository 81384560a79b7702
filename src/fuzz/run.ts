// The differential fuzzing loop: generate a query, run it on our engine (a child process) and on
// DuckDB over the same data, classify the outcome, shrink the wrong answers.

import type { DuckDBConnection } from '@duckdb/node-api';
import { deterministic, featuresOf, fullyOrdered, renderQuery, type Feature, type Query } from './ast.js';
import { diffResults, tpchDuckDb } from './duckdb.js';
import { EngineProcess, type Outcome } from './engine.js';
import { Generator } from './generate.js';
import { memorySetup } from './schema.js';
import { shrink } from './shrink.js';

export const VERDICTS = ['MATCH', 'WRONG', 'REFUSED-BY-US', 'DUCKDB-ERROR', 'BOTH-ERROR', 'TIMEOUT'] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Wrong answers in constructs tagged as known to be broken that are shrunk per run. */
const KNOWN_SHRINKS = 5;

export interface FuzzOptions {
  readonly seed: number;
  readonly n: number;
  readonly exclude: ReadonlySet<Feature>;
  readonly memory: boolean;
  /** Only tpch tables up to this many rows. */
  readonly maxTableRows?: number;
  readonly timeoutMs: number;
  /** Checks per shrunk query (0: no shrinking). */
  readonly shrinkBudget: number;
  /** At most this many wrong answers are shrunk. */
  readonly maxShrinks: number;
  /** The first query of at most this many refusal reasons is shrunk (keeping the reason). */
  readonly maxRefusalShrinks?: number;
  readonly onProgress?: (done: number, counts: Record<Verdict, number>) => void;
}

export interface Finding {
  readonly index: number;
  readonly verdict: Verdict;
  readonly sql: string;
  readonly duckSql: string;
  readonly detail: string;
  readonly features: readonly Feature[];
  shrunk?: { readonly sql: string; readonly duckSql: string; readonly detail: string; readonly checks: number; readonly query: Query };
}

export interface FuzzReport {
  readonly seed: number;
  readonly n: number;
  readonly exclude: readonly Feature[];
  readonly memory: boolean;
  readonly counts: Record<Verdict, number>;
  /** Our errors on queries DuckDB answers, grouped by error name and message shape. */
  readonly refusals: { readonly reason: string; readonly count: number; readonly example: string; readonly shrunk?: string }[];
  readonly findings: Finding[];
  readonly restarts: number;
  readonly elapsedMs: number;
  /** The slowest queries (both engines' time together). */
  readonly slowest: { readonly index: number; readonly ms: number; readonly verdict: Verdict; readonly sql: string }[];
}

/** The seed of query i of a run: each query can be regenerated on its own. */
export function querySeed(seed: number, i: number): number {
  return (Math.imul(seed, 1_000_003) + i * 7919 + 1) | 0;
}

export function generateQuery(seed: number, i: number, exclude: ReadonlySet<Feature>, memory: boolean, maxTableRows?: number): Query {
  return new Generator(querySeed(seed, i), { exclude, memory, maxTableRows }).query();
}

/** An error message with the parts that vary per query (positions, aliases, numbers) blanked. */
export function refusalReason(name: string, message: string): string {
  const m = message
    .replace(/^line \d+:\d+: /u, '')
    .replace(/\. Expecting: .*$/su, '')
    .replace(/\b(a|c|w)\d+\b/gu, '$1#')
    .replace(/\d+(\.\d+)?/gu, 'N')
    .slice(0, 160);
  return `${name}: ${m}`;
}

/** Larger results are not compared (a shrink that drops a join condition can make millions). */
const MAX_RESULT_ROWS = 200_000;

export async function duckRun(conn: DuckDBConnection, sql: string, timeoutMs: number): Promise<Outcome> {
  let timer: NodeJS.Timeout | undefined;
  const run = conn.streamAndReadUntil(sql, MAX_RESULT_ROWS + 1).then(
    (r): Outcome => (r.done ? { kind: 'rows', rows: r.getRowsJson() as unknown[][] } : { kind: 'error', name: 'DUCKDB', message: `more than ${MAX_RESULT_ROWS} rows: not compared` }),
    (e: unknown): Outcome => ({ kind: 'error', name: 'DUCKDB', message: (e as Error).message }),
  );
  const timeout = new Promise<Outcome>((ok) => {
    timer = setTimeout(() => {
      conn.interrupt();
      ok({ kind: 'timeout' });
    }, timeoutMs);
  });
  const r = await Promise.race([run, timeout]);
  clearTimeout(timer);
  if (r.kind === 'timeout') await run;
  return r;
}

export class Fuzzer {
  private constructor(
    readonly engine: EngineProcess,
    readonly duck: DuckDBConnection,
  ) {}

  static async create(memory: boolean): Promise<Fuzzer> {
    const setup = memory ? memorySetup() : [];
    const duck = await tpchDuckDb();
    for (const s of setup) await duck.run(s);
    return new Fuzzer(new EngineProcess(setup), duck);
  }

  async close(): Promise<void> {
    await this.engine.close();
    this.duck.disconnectSync();
  }

  /** Runs one query on both engines and classifies the outcome. */
  async check(q: Query, timeoutMs: number): Promise<{ verdict: Verdict; detail: string; sql: string; duckSql: string; ours: Outcome }> {
    const sql = renderQuery(q, 'trino');
    const duckSql = renderQuery(q, 'duck');
    const ours = await this.engine.run(sql, timeoutMs);
    if (ours.kind === 'timeout') return { verdict: 'TIMEOUT', detail: `no answer in ${timeoutMs} ms`, sql, duckSql, ours };
    if (ours.kind === 'error' && ours.name === 'FUZZ_TOO_MANY_ROWS') return { verdict: 'DUCKDB-ERROR', detail: `more than ${MAX_RESULT_ROWS} rows: not compared`, sql, duckSql, ours };
    const theirs = await duckRun(this.duck, duckSql, timeoutMs);
    if (theirs.kind !== 'rows') {
      const why = theirs.kind === 'timeout' ? 'DuckDB timed out' : theirs.message.split('\n')[0];
      return { verdict: ours.kind === 'error' ? 'BOTH-ERROR' : 'DUCKDB-ERROR', detail: why, sql, duckSql, ours };
    }
    if (ours.kind === 'error') return { verdict: 'REFUSED-BY-US', detail: `${ours.name}: ${ours.message}`, sql, duckSql, ours };
    const diff = diffResults(ours.rows, theirs.rows, fullyOrdered(q));
    return diff ? { verdict: 'WRONG', detail: diff, sql, duckSql, ours } : { verdict: 'MATCH', detail: '', sql, duckSql, ours };
  }

  async run(o: FuzzOptions): Promise<FuzzReport> {
    const t0 = Date.now();
    const counts = Object.fromEntries(VERDICTS.map((v) => [v, 0])) as Record<Verdict, number>;
    const refusals = new Map<string, { count: number; example: string; shrunk?: string }>();
    const findings: Finding[] = [];
    let shrunk = 0;
    let shrunkKnown = 0;
    const slowest: FuzzReport['slowest'] = [];
    for (let i = 0; i < o.n; i++) {
      const q = generateQuery(o.seed, i, o.exclude, o.memory, o.maxTableRows);
      const started = Date.now();
      const c = await this.check(q, o.timeoutMs);
      slowest.push({ index: i, ms: Date.now() - started, verdict: c.verdict, sql: c.sql });
      slowest.sort((a, b) => b.ms - a.ms);
      if (slowest.length > 10) slowest.pop();
      counts[c.verdict]++;
      if (c.verdict === 'REFUSED-BY-US' && c.ours.kind === 'error') {
        const reason = refusalReason(c.ours.name, c.ours.message);
        let r = refusals.get(reason);
        if (!r) {
          r = { count: 0, example: c.sql };
          refusals.set(reason, r);
          if (refusals.size <= (o.maxRefusalShrinks ?? 0)) r.shrunk = await this.shrinkRefusal(q, reason, o.timeoutMs);
        }
        r.count++;
      }
      if (c.verdict !== 'MATCH') {
        const f: Finding = { index: i, verdict: c.verdict, sql: c.sql, duckSql: c.duckSql, detail: c.detail, features: [...featuresOf(q)] };
        findings.push(f);
        // wrong answers in constructs not known to be broken first: those are the news
        const known = f.features.length > 0;
        if (c.verdict === 'WRONG' && o.shrinkBudget > 0 && (known ? shrunkKnown < KNOWN_SHRINKS : shrunk < o.maxShrinks)) {
          if (known) shrunkKnown++;
          else shrunk++;
          f.shrunk = await this.shrinkWrong(q, o.shrinkBudget, o.timeoutMs);
        }
      }
      o.onProgress?.(i + 1, counts);
    }
    const ranked = [...refusals].sort((a, b) => b[1].count - a[1].count).map(([reason, r]) => ({ reason, ...r }));
    return { seed: o.seed, n: o.n, exclude: [...o.exclude], memory: o.memory, counts, refusals: ranked, findings, restarts: this.engine.restarts, elapsedMs: Date.now() - t0, slowest };
  }

  /** The smallest variant we still refuse for the same reason while DuckDB answers it. */
  async shrinkRefusal(q: Query, reason: string, timeoutMs: number): Promise<string> {
    const seen = new Map<string, boolean>();
    const r = await shrink(q, async (candidate) => {
      if (!deterministic(candidate)) return false;
      const sql = renderQuery(candidate, 'trino');
      const known = seen.get(sql);
      if (known !== undefined) return known;
      const c = await this.check(candidate, Math.min(timeoutMs, 2000));
      const same = c.verdict === 'REFUSED-BY-US' && c.ours.kind === 'error' && refusalReason(c.ours.name, c.ours.message) === reason;
      seen.set(sql, same);
      return same;
    }, 200);
    return renderQuery(r.q, 'trino');
  }

  async shrinkWrong(q: Query, budget: number, timeoutMs: number): Promise<NonNullable<Finding['shrunk']>> {
    const seen = new Map<string, boolean>();
    let lastDetail = '';
    let limit = timeoutMs;
    const stillFails = async (candidate: Query): Promise<boolean> => {
      if (!deterministic(candidate)) return false;
      const sql = renderQuery(candidate, 'trino');
      const known = seen.get(sql);
      if (known !== undefined) return known;
      const c = await this.check(candidate, limit);
      const fails = c.verdict === 'WRONG';
      if (fails) lastDetail = c.detail;
      seen.set(sql, fails);
      return fails;
    };
    const started = Date.now();
    const first = await this.check(q, timeoutMs);
    lastDetail = first.detail;
    // a candidate much slower than the query is a cross product the shrinking made: not worth a restart
    limit = Math.min(timeoutMs, Math.max(1000, 5 * (Date.now() - started)));
    const r = await shrink(q, stillFails, budget);
    return { sql: renderQuery(r.q, 'trino'), duckSql: renderQuery(r.q, 'duck'), detail: lastDetail, checks: r.checks, query: r.q };
  }
}
