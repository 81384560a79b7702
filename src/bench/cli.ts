// npm run bench: TPC-H end to end through the real server, and through the in-process engine
// API, beside DuckDB on the same data; the native C limit for Q1/Q6, data-generation speed,
// statement-protocol throughput and kernel micro benchmarks. `npm run bench -- --help` lists the
// flags; results go to bench/results/. Started by run.ts (GC settings first).
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { createApp, type App } from '../app.js';
import { defaultConfig } from '../config.js';
import { localSession } from '../coordinator/query-manager.js';
import { parseArgs, UsageError, USAGE, type BenchOptions } from './args.js';
import { runChild } from './child.js';
import { StatementClientThread } from './client-thread.js';
import { diffRows } from './compare.js';
import { measureDataHeld } from './data-held.js';
import type { DatagenJob, DatagenMessage } from './datagen-child.js';
import type { DuckJob, DuckMessage, DuckQueryResult } from './duckdb-child.js';
import { loadScenarioCount, protocolLoad } from './load.js';
import { microBenchmarks } from './micro.js';
import { ensureNativeBuilt, InterleavedNative, NativeServer, runNative, type NativeBeside } from './native.js';
import { DEFAULT_RESULTS_DIR, tpchQuery, type TpchQuery } from './paths.js';
import { Progress } from './progress.js';
import { dataHeldTable, datagenTable, fmtMs, loadTable, microTable, nativeTable, ratioChart, tpchTable } from './report.js';
import { geomean, median, type BenchResults, type EngineRun, type QueryResult } from './results.js';
import { peakRss, RssSampler } from './rss.js';

const RSS_SAMPLE_MS = 10;

function schemaFor(sf: number): string {
  return sf === 0.01 ? 'tiny' : `sf${sf}`;
}

/**
 * The server under test. Authentication is off by default, as DuckDB in-process has none: the
 * figures compare the engines, not logins; the load runs also time SELECT 1 on a second server
 * with it on (startServer(threads, true), Basic credentials of its admin).
 */
async function startServer(threads: number, authentication = false): Promise<{ app: App; authorization: string; close(): Promise<void> }> {
  const dataDir = mkdtempSync(join(os.tmpdir(), 'bench-server-'));
  const adminPassword = randomBytes(12).toString('base64url');
  const app = await createApp(defaultConfig({ host: '127.0.0.1', port: 0, workers: threads, dataDir, authentication, adminUsername: 'admin', adminPassword }));
  return {
    app,
    authorization: `Basic ${Buffer.from(`admin:${adminPassword}`).toString('base64')}`,
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A query's runs: over HTTP (the statement protocol) and through the in-process engine API. */
interface OurRuns {
  readonly run: EngineRun;
  readonly inProcess?: EngineRun;
  readonly rows?: unknown[][];
  /** Set when the in-process rows differ from the HTTP ones. */
  readonly rowsDiffer?: string;
}

/**
 * One query through our server, from the client thread, and through the in-process engine API: a
 * warm-up over HTTP (it generates the tables the query touches first), then `o.runs` runs of each
 * in A-B-B-A order, so that neither way gets the warmer runs (V8 keeps warming a query's code over
 * its first dozen runs: run after run of one query gets faster).
 */
async function runOurs(client: StatementClientThread, app: App, q: TpchQuery, o: BenchOptions, progress: Progress, native?: NativeBeside): Promise<OurRuns> {
  const session = { catalog: 'tpch', schema: schemaFor(o.sf) };
  const local = localSession({ user: 'bench', source: 'npm-run-bench', ...session });
  const units = 1 + 2 * o.runs;
  let advanced = 0;
  const advance = (n = 1): void => {
    progress.advance(n);
    advanced += n;
  };
  const http: number[] = [];
  const inProcess: number[] = [];
  let rows: unknown[][] = [];
  let localRows: unknown[][] | undefined;
  let localFailure: EngineRun | undefined;

  /** One run over HTTP; an EngineRun when it failed (the query is given up). */
  const overHttp = async (label: string): Promise<EngineRun | undefined> => {
    progress.task(`ours ${q.name} ${label}`);
    let outcome;
    try {
      outcome = await client.run(app.baseUrl, q.sql, session, o.timeoutMs);
    } catch (error) {
      return { status: 'failed', error: error instanceof Error ? error.message : String(error) };
    }
    if (outcome.timedOut) return { status: 'timeout', error: `over ${o.timeoutMs / 1000}s`, firstMs: http[0] };
    if (outcome.error) {
      const e = outcome.error;
      return { status: e.errorName === 'NOT_SUPPORTED' ? 'unsupported' : 'failed', errorName: e.errorName, error: `${e.errorName}: ${e.message}` };
    }
    http.push(outcome.ms);
    rows = outcome.rows;
    advance();
    return undefined;
  };
  const viaEngine = async (label: string): Promise<void> => {
    progress.task(`ours ${q.name} ${label}`);
    advance();
    if (localFailure) return;
    const t0 = performance.now();
    const outcome = await app.coordinator.manager.execute(q.sql, local);
    if (outcome.error) localFailure = { status: 'failed', errorName: outcome.error.errorName, error: `${outcome.error.errorName}: ${outcome.error.message}` };
    else {
      inProcess.push(performance.now() - t0);
      localRows = outcome.rows;
    }
  };

  const failed = await overHttp('warm-up');
  if (failed) {
    advance(units - advanced);
    return { run: failed };
  }
  for (let r = 1; r <= o.runs; r++) {
    const order = r % 2 === 1 ? ['http', 'engine'] : ['engine', 'http'];
    for (const way of order) {
      if (native) {
        progress.task(`native C ${native.kernel} beside ours ${q.name} run ${r}/${o.runs}`);
        await native.time();
      }
      if (way === 'engine') await viaEngine(`in-process run ${r}/${o.runs}`);
      else {
        const failure = await overHttp(`run ${r}/${o.runs}`);
        if (failure) {
          advance(units - advanced);
          return { run: failure };
        }
      }
    }
  }
  const runsMs = http.slice(1);
  const run: EngineRun = { status: 'ok', firstMs: http[0], runsMs, medianMs: median(runsMs), rows: rows.length };
  // The values a statement client decodes: what came over HTTP (doubles summed in another split
  // order may differ in the last digits, as between any two runs: compared as against DuckDB).
  const d = localRows === undefined ? undefined : diffRows(localRows, rows);
  return {
    run,
    inProcess: localFailure ?? { status: 'ok', runsMs: inProcess, medianMs: median(inProcess), rows: localRows?.length },
    rows,
    rowsDiffer: d === undefined ? undefined : `IN-PROCESS ROWS DIFFER FROM HTTP: ${d}`,
  };
}

function duckRun(r: DuckQueryResult | undefined, skipped: boolean): EngineRun {
  if (skipped || !r) return { status: 'skipped' };
  if (r.error !== undefined) return { status: 'failed', error: r.error, errorName: r.error.split(':')[0] };
  const runs = r.runsMs ?? [];
  return { status: 'ok', firstMs: r.firstMs, runsMs: runs, medianMs: median(runs), rows: r.rowCount };
}

function check(ours: EngineRun, oursRows: unknown[][] | undefined, duck: DuckQueryResult | undefined): string | undefined {
  if (ours.status !== 'ok' || !duck || duck.error !== undefined) return undefined;
  if (ours.rows !== duck.rowCount) return `ROW COUNT DIFFERS: ${ours.rows} vs ${duck.rowCount}`;
  if (!duck.rows || !oursRows) return 'rows match';
  const d = diffRows(oursRows, duck.rows);
  return d === undefined ? 'match' : `DIFFERS: ${d}`;
}

function machine(): BenchResults['machine'] {
  return { cpus: os.availableParallelism(), model: os.cpus()[0]?.model ?? 'unknown', node: process.version, totalMemoryBytes: os.totalmem() };
}

function stamp(date: Date): string {
  return date.toISOString().replace(/[:]/gu, '').replace(/\..*$/u, '');
}

function writeResults(dir: string, base: string, results: BenchResults, svg?: string): string[] {
  mkdirSync(dir, { recursive: true });
  const written: string[] = [];
  const json = JSON.stringify(results, null, 2) + '\n';
  for (const name of [`${base}.json`, `latest${base.startsWith('load') ? '-load' : ''}.json`]) {
    writeFileSync(join(dir, name), json);
    written.push(join(dir, name));
  }
  if (svg !== undefined) {
    for (const name of [`${base}.svg`, 'latest.svg']) {
      writeFileSync(join(dir, name), svg);
      written.push(join(dir, name));
    }
  }
  return written;
}

async function loadOnly(o: BenchOptions, resultsDir: string): Promise<void> {
  const startedAt = new Date();
  const progress = new Progress(2 * loadScenarioCount(o.fewConnections > 0, true, o.loadRounds, true));
  const server = await startServer(o.threads);
  const guarded = await startServer(o.threads, true);
  let load;
  try {
    const q6 = tpchQuery(6);
    load = await protocolLoad(server.app.baseUrl, {
      authenticated: { url: guarded.app.baseUrl, authorization: guarded.authorization, user: 'admin' },
      connections: o.connections,
      fewConnections: o.fewConnections || undefined,
      durationSeconds: o.durationSeconds,
      tpch: { sql: q6.sql, schema: o.loadSchema, label: `TPC-H Q6 (tpch.${o.loadSchema})` },
      rounds: o.loadRounds,
      onStep: (label) => {
        progress.advance();
        progress.task(label);
      },
    });
  } finally {
    progress.stop();
    await guarded.close();
    await server.close();
  }
  const results: BenchResults = { startedAt: startedAt.toISOString(), machine: machine(), options: o, tpch: [], load };
  process.stdout.write(`${loadTable(results)}\n`);
  const files = writeResults(resultsDir, `load-${stamp(startedAt)}`, results);
  process.stdout.write(`\nwrote ${files.join(', ')}\n`);
}

async function main(): Promise<void> {
  let o: BenchOptions;
  try {
    o = parseArgs(process.argv.slice(2));
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    process.stderr.write(error.message ? `bench: ${error.message}\n${USAGE}\n` : `${USAGE}\n`);
    process.exit(error.message ? 2 : 0);
  }
  const resultsDir = resolve(o.out ?? DEFAULT_RESULTS_DIR);
  if (o.loadOnly) return loadOnly(o, resultsDir);

  const startedAt = new Date();
  const queries = o.queries.map(tpchQuery);
  const perQuery = o.runs + 1;
  const progress = new Progress(11 + 1 + (o.skipDuckdb ? 0 : 1 + queries.length * perQuery) + queries.length * (perQuery + o.runs) + (o.skipLoad ? 0 : 2 * loadScenarioCount(o.fewConnections > 0, false, o.loadRounds, true)) + (o.skipMicro ? 0 : 1) + (o.skipDataHeld ? 0 : 1));
  const dataDir = mkdtempSync(join(os.tmpdir(), `bench-tpch-sf${o.sf}-`));
  let results: BenchResults;
  try {
    // 1. The data, as dbgen .tbl text (timed: data-generation speed), for DuckDB and native-bench.
    let datagen: BenchResults['datagen'];
    await runChild<DatagenJob, DatagenMessage>(new URL('./datagen-child.js', import.meta.url), { sf: o.sf, out: dataDir }, (m) => {
      if (m.type === 'step') {
        progress.task(`data generation: ${m.label}`);
        progress.advance();
      } else datagen = { sf: o.sf, textPoolMs: m.textPoolMs, tbl: m.tbl, columnar: m.columnar };
    });

    // 2. The native limit for Q1 and Q6.
    let native: BenchResults['native'];
    let nativeError: string | undefined;
    progress.task('native-bench');
    if (o.skipNative) nativeError = '--skip-native';
    else {
      nativeError = ensureNativeBuilt();
      if (nativeError === undefined) {
        try {
          native = runNative(join(dataDir, 'lineitem.tbl'), o.threads, o.runs);
        } catch (error) {
          nativeError = error instanceof Error ? error.message : String(error);
        }
      }
    }
    // …and kept running to time Q1 and Q6 again between our runs of them (step 4).
    let interleaved: InterleavedNative | undefined;
    if (native && queries.some((q) => q.name === 'q01' || q.name === 'q06')) {
      progress.task('native-bench: loading lineitem to run beside ours');
      try {
        interleaved = new InterleavedNative(await NativeServer.start(join(dataDir, 'lineitem.tbl'), o.threads));
      } catch (error) {
        native = { ...native, interleavedError: error instanceof Error ? error.message : String(error) };
      }
    }
    progress.advance();

    // 3. DuckDB on the same files, in its own process.
    const duck = new Map<string, DuckQueryResult>();
    let duckdb: BenchResults['duckdb'];
    if (!o.skipDuckdb) {
      progress.task('DuckDB: loading the .tbl files');
      let loaded = { ms: NaN, rows: 0 };
      await runChild<DuckJob, DuckMessage>(
        new URL('./duckdb-child.js', import.meta.url),
        { dataDir, threads: o.threads, runs: o.runs, queries: queries.map((q) => ({ name: q.name, sql: q.sql })) },
        (m) => {
          if (m.type === 'loaded') {
            loaded = { ms: m.ms, rows: m.rows };
            progress.advance();
          } else if (m.type === 'run') progress.task(`DuckDB ${m.name} ${m.run === 0 ? 'warm-up' : `run ${m.run}/${o.runs}`}`);
          else if (m.type === 'query') {
            duck.set(m.result.name, m.result);
            progress.advance(perQuery);
          } else duckdb = { loadMs: loaded.ms, rows: loaded.rows, peakRssBytes: m.peakRssBytes };
        },
      );
    }
    if (!o.keepData) rmSync(dataDir, { recursive: true, force: true });

    // 4. Ours, end to end through the real server (the client on its own thread), then through the
    // in-process engine API; RSS sampled while the queries run.
    progress.task('starting the server');
    const sampler = new RssSampler(RSS_SAMPLE_MS);
    const server = await startServer(o.threads);
    const client = new StatementClientThread();
    const tpch: QueryResult[] = [];
    let peak: BenchResults['peakRss'];
    let load: BenchResults['load'];
    let dataHeld: BenchResults['dataHeld'];
    try {
      for (const q of queries) {
        const { run, inProcess, rows, rowsDiffer } = await runOurs(client, server.app, q, o, progress, interleaved?.beside(q.name));
        const d = duck.get(q.name);
        const duckdbRun = duckRun(d, o.skipDuckdb);
        const ratio = run.status === 'ok' && duckdbRun.status === 'ok' ? run.medianMs! / duckdbRun.medianMs! : undefined;
        const inProcessRatio = inProcess?.status === 'ok' && duckdbRun.status === 'ok' ? inProcess.medianMs! / duckdbRun.medianMs! : undefined;
        tpch.push({ name: q.name, ours: run, duckdb: duckdbRun, ratio, inProcess, inProcessRatio, check: rowsDiffer ?? check(run, rows, d) });
      }
      peak = { sampledBytes: await sampler.stop(), vmHwmBytes: peakRss(), intervalMs: RSS_SAMPLE_MS };
      if (interleaved && native) {
        await interleaved.close();
        native = { ...native, interleaved: interleaved.results() };
        interleaved = undefined;
      }

      // 5. Statement-protocol throughput beside a bare uWebSockets.js reply.
      if (!o.skipLoad) {
        const guarded = await startServer(o.threads, true);
        try {
        load = await protocolLoad(server.app.baseUrl, {
          authenticated: { url: guarded.app.baseUrl, authorization: guarded.authorization, user: 'admin' },
          connections: o.connections,
          fewConnections: o.fewConnections || undefined,
          durationSeconds: o.durationSeconds,
          rounds: o.loadRounds,
          onStep: (label) => {
            progress.task(label);
            if (!label.includes('warm-up')) progress.advance(2);
          },
        });
        } finally {
          await guarded.close();
        }
      }

      // 7. What the generated data weighs in memory against Arrow (generates every column first).
      if (!o.skipDataHeld) {
        progress.task('data held: generating every tpch column');
        dataHeld = await measureDataHeld(server.app.baseUrl, schemaFor(o.sf), o.timeoutMs);
        progress.advance();
      }
    } finally {
      await interleaved?.close();
      await client.close();
      await server.close();
    }

    // 8. Kernel micro benchmarks, one thread.
    let micro: BenchResults['micro'];
    if (!o.skipMicro) {
      progress.task('micro benchmarks (tinybench)');
      micro = await microBenchmarks();
      progress.advance();
    }

    // 9. Identity throughput (durable user creations, reads, token grants) in its own process.
    let identity: Record<string, number> | undefined;
    if (!o.skipIdentity) {
      progress.task('identity: creations, reads, token grants');
      identity = identityThroughput(o.durationSeconds);
      progress.advance();
    }

    const ratios = tpch.flatMap((q) => (q.ratio === undefined ? [] : [q.ratio]));
    const inProcessRatios = tpch.flatMap((q) => (q.inProcessRatio === undefined ? [] : [q.inProcessRatio]));
    results = { startedAt: startedAt.toISOString(), machine: machine(), options: o, datagen, duckdb, tpch, geomeanRatio: geomean(ratios), inProcessGeomeanRatio: geomean(inProcessRatios), peakRss: peak, dataHeld, native, nativeError, load, micro, identity };
  } finally {
    progress.stop();
    if (!o.keepData) rmSync(dataDir, { recursive: true, force: true });
    else process.stderr.write(`kept the generated .tbl files in ${dataDir}\n`);
  }

  const m = results.machine;
  const sections = [
    `machine: ${m.cpus} cores (${m.model}), ${(m.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB, Node ${m.node}; bench took ${fmtMs(Date.now() - startedAt.getTime())}`,
    tpchTable(results),
    nativeTable(results),
    dataHeldTable(results),
    datagenTable(results),
    loadTable(results),
    microTable(results),
    results.identity ? `identity API through the real HTTP server on loopback (autocannon, 128 connections, ${o.durationSeconds} s each):\n${Object.entries(results.identity).map(([k, v]) => `  ${k}: ${v}`).join('\n')}` : '',
  ].filter((s) => s !== '');
  process.stdout.write(sections.join('\n\n') + '\n');
  const files = writeResults(resultsDir, `tpch-sf${o.sf}-${stamp(startedAt)}`, results, ratioChart(results));
  process.stdout.write(`\nwrote ${files.join(', ')}\n`);
}

/** Runs dist/identity/bench.js (a separate process: its own server, store and load generator). */
function identityThroughput(seconds: number): Record<string, number> | undefined {
  const script = fileURLToPath(new URL('../identity/bench.js', import.meta.url));
  const out = spawnSync(process.execPath, [script], { env: { ...process.env, BENCH_SECONDS: String(seconds) }, encoding: 'utf8', timeout: 10 * 60_000 });
  const text = out.stdout ?? '';
  const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1);
  try {
    return JSON.parse(json) as Record<string, number>;
  } catch {
    process.stderr.write(`identity bench failed: ${out.stderr ?? ''}\n`);
    return undefined;
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
