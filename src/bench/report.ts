// What a run prints (tables via cli-table3, no colours so the text pastes cleanly) and the SVG
// chart of ratios it writes beside the JSON.
import Table from 'cli-table3';
import type { BenchResults, EngineRun, QueryResult } from './results.js';

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined || !Number.isFinite(ms)) return '-';
  if (ms >= 1000) return `${(ms / 1000).toFixed(2)} s`;
  if (ms >= 10) return `${ms.toFixed(1)} ms`;
  if (ms >= 0.1) return `${ms.toFixed(2)} ms`;
  return `${(ms * 1000).toFixed(1)} µs`;
}

export function fmtBytes(bytes: number | undefined): string {
  if (bytes === undefined || !Number.isFinite(bytes)) return '-';
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let v = bytes;
  let u = 0;
  while (v >= 1024 && u < units.length - 1) v /= 1024, u++;
  return `${v.toFixed(u === 0 ? 0 : 2)} ${units[u]}`;
}

export function fmtRate(perSecond: number | undefined, unit: string): string {
  if (perSecond === undefined || !Number.isFinite(perSecond)) return '-';
  if (perSecond >= 1e6) return `${(perSecond / 1e6).toFixed(2)} M ${unit}/s`;
  if (perSecond >= 1e4) return `${(perSecond / 1e3).toFixed(1)} k ${unit}/s`;
  return `${perSecond.toFixed(0)} ${unit}/s`;
}

function fmtRatio(r: number | undefined): string {
  return r === undefined || !Number.isFinite(r) ? '-' : `${r.toFixed(2)}×`;
}

function table(head: string[]): Table.Table {
  return new Table({ head, style: { head: [], border: [], compact: false } });
}

function engineCell(r: QueryResult['ours'], value: 'median' | 'first'): string {
  switch (r.status) {
    case 'ok':
      return fmtMs(value === 'median' ? r.medianMs : r.firstMs);
    case 'unsupported':
      return value === 'median' ? `unsupported: ${r.errorName ?? 'NOT_SUPPORTED'}` : '-';
    case 'failed':
      return value === 'median' ? `failed: ${r.errorName ?? r.error ?? '?'}` : '-';
    case 'timeout':
      return value === 'median' ? 'timeout' : '-';
    case 'skipped':
      return value === 'median' ? 'skipped' : '-';
  }
}

export function tpchTable(results: BenchResults): string {
  const { options: o } = results;
  const t = table(['query', 'ours (median)', 'ours first run\nincl. data generation', 'DuckDB (median)', 'ours / DuckDB', 'ours in-process\n(median)', 'in-process\n/ DuckDB', 'rows', 'check vs DuckDB']);
  for (const q of results.tpch) {
    const rows = q.ours.rows ?? q.duckdb.rows;
    const inProcess = q.inProcess ? engineCell(q.inProcess, 'median') : '-';
    t.push([q.name, engineCell(q.ours, 'median'), engineCell(q.ours, 'first'), engineCell(q.duckdb, 'median'), fmtRatio(q.ratio), inProcess, fmtRatio(q.inProcessRatio), rows === undefined ? '-' : String(rows), q.check ?? '-']);
  }
  const both = results.tpch.filter((q) => q.ratio !== undefined).length;
  const lines = [
    `TPC-H sf${o.sf}, ${o.threads} thread(s) each (our workers, DuckDB SET threads), median of ${o.runs} run(s) after one warm-up; end to end through POST /v1/statement + nextUri on loopback vs DuckDB in-process (@duckdb/node-api) on the same dbgen data`,
    t.toString(),
    `geometric mean of ours / DuckDB over the ${both} of ${results.tpch.length} queries both ran: ${fmtRatio(results.geomeanRatio)}` +
      (results.inProcessGeomeanRatio === undefined ? '' : `; through the in-process engine API (QueryManager.execute, runs alternating A-B-B-A with the HTTP ones): ${fmtRatio(results.inProcessGeomeanRatio)}`),
  ];
  const notes = results.tpch.flatMap((q) => {
    const out: string[] = [];
    if (q.ours.status === 'failed' || q.ours.status === 'timeout') out.push(`  ${q.name} ours ${q.ours.status}: ${q.ours.error ?? ''}`);
    if (q.duckdb.status === 'failed') out.push(`  ${q.name} DuckDB failed: ${q.duckdb.error ?? ''}`);
    if (q.check !== undefined && q.check !== 'match' && q.check !== 'rows match') out.push(`  ${q.name} check: ${q.check}`);
    return out;
  });
  if (notes.length > 0) lines.push(['failures and differences:', ...notes.map((n) => (n.length > 240 ? `${n.slice(0, 240)}…` : n))].join('\n'));
  if (results.peakRss) {
    lines.push(
      `peak RSS of the server process during the TPC-H queries: ${fmtBytes(results.peakRss.sampledBytes)} (in-process sampler thread, every ${results.peakRss.intervalMs} ms; whole process: HTTP main thread, worker pool, bench client; kernel VmHWM ${fmtBytes(results.peakRss.vmHwmBytes)}). DuckDB ran in a child process` +
        (results.duckdb ? ` (its peak RSS ${fmtBytes(results.duckdb.peakRssBytes)}, load ${fmtMs(results.duckdb.loadMs)})` : ''),
    );
  }
  return lines.join('\n');
}

export function nativeTable(results: BenchResults): string {
  if (results.nativeError) return `native-bench: not run (${results.nativeError})`;
  const n = results.native;
  if (!n) return '';
  const t = table(['kernel', 'ours (median)', 'ours in-process\n(median)', 'native C between\nour runs (median)', 'native C up front\n(median / best)', 'ours / native', 'in-process\n/ native', 'native check']);
  const over = (run: EngineRun | undefined, c: number): string => fmtRatio(run?.status === 'ok' && run.medianMs !== undefined ? run.medianMs / c : undefined);
  for (const k of n.kernels) {
    if (k.name === 'bandwidth') continue;
    const q = results.tpch.find((r) => r.name === (k.name === 'q1' ? 'q01' : 'q06'));
    const inProcess = q?.inProcess ? engineCell(q.inProcess, 'median') : '-';
    // The ratios are to C timed between our runs when it was: the same minutes, the same machine speed.
    const beside = n.interleaved?.find((x) => x.name === k.name);
    const c = beside?.medianMs ?? k.medianMs;
    t.push([k.name.toUpperCase(), q ? engineCell(q.ours, 'median') : 'not run', inProcess, beside ? `${fmtMs(beside.medianMs)} (${beside.runsMs.length} runs)` : '-', `${fmtMs(k.medianMs)} / ${fmtMs(k.minMs)}`, over(q?.ours, c), over(q?.inProcess, c), String(k.check)]);
  }
  const bw = n.kernels.find((k) => k.name === 'bandwidth');
  const lines = [
    `native-bench (C, -O3 -march=native, OpenMP, ${n.kernels[0]?.threads ?? '?'} thread(s); load of lineitem.tbl ${fmtMs(n.loadMs)} not timed): ${n.kernels.find((k) => k.name !== 'bandwidth')?.runsMs.length ?? 0} runs up front, and one before each of our runs of Q1 and Q6 (the ratios use these when they ran${n.interleavedError ? `; they did not: ${n.interleavedError}` : ''})`,
    t.toString(),
  ];
  if (bw) lines.push(`memory bandwidth: summing the 7 lineitem columns Q1 reads (${fmtBytes(bw.rows * 38)}) takes ${fmtMs(bw.medianMs)} = ${bw.gbPerSecond?.toFixed(1)} GB/s`);
  return lines.join('\n');
}

export function dataHeldTable(results: BenchResults): string {
  const d = results.dataHeld;
  if (!d) return '';
  const t = table(['table', 'rows', 'columns', 'held in memory', 'as Arrow', 'held / Arrow']);
  for (const x of d.tables) t.push([x.table, String(x.rows), String(x.columns), fmtBytes(x.heldBytes), fmtBytes(x.arrowBytes), fmtRatio(x.heldBytes / x.arrowBytes)]);
  t.push(['all', '', '', fmtBytes(d.heldBytes), fmtBytes(d.arrowBytes), fmtRatio(d.heldBytes / d.arrowBytes)]);
  return [
    `tpch.${d.schema} data held by the server once every column is generated (${fmtMs(d.generateMs)} to generate what the queries had not read; Arrow = plain layout, strings as Utf8, buffers padded to 8 bytes; server process RSS then ${fmtBytes(d.rssBytes)})`,
    t.toString(),
  ].join('\n');
}

export function datagenTable(results: BenchResults): string {
  const d = results.datagen;
  if (!d) return '';
  const t = table(['table', 'form', 'rows', 'time', 'rows/s', 'MB/s']);
  for (const r of d.columnar) t.push([r.table, 'columnar pages (generateTpchSplit)', String(r.rows), fmtMs(r.ms), fmtRate(r.rowsPerSecond, 'rows'), '-']);
  for (const r of d.tbl) {
    if (r.table !== 'lineitem' && r.table !== 'orders') continue;
    t.push([r.table, '.tbl text (writeTbl, to disk)', String(r.rows), fmtMs(r.ms), fmtRate(r.rowsPerSecond, 'rows'), r.bytes === undefined ? '-' : (r.bytes / 1e6 / (r.ms / 1000)).toFixed(0)]);
  }
  const all = d.tbl.reduce((a, r) => a + r.ms, 0);
  return [`data generation, sf${d.sf}, one thread (text pool built once first: ${fmtMs(d.textPoolMs)}; all 8 tables as .tbl: ${fmtMs(all)})`, t.toString()].join('\n');
}

export function loadTable(results: BenchResults): string {
  const l = results.load;
  if (!l) return '';
  const t = table(['scenario', 'clients', 'queries/s', 'query p50', 'query p99', 'HTTP req/s', 'req p50', 'req p99', 'server CPU / req', 'failed / non-2xx']);
  for (const r of [l.trivial, l.authenticated, l.trivialFew, l.tpch, l.bare, l.bareShaped]) {
    if (!r) continue;
    t.push([
      r.name,
      String(r.connections),
      r.queriesPerSecond === undefined ? '-' : r.queriesPerSecond.toFixed(0),
      fmtMs(r.queryP50Ms),
      fmtMs(r.queryP99Ms),
      r.requestsPerSecond.toFixed(0),
      `${r.requestP50Ms} ms`,
      `${r.requestP99Ms} ms`,
      r.serverCpuUsPerRequest === undefined ? '-' : `${r.serverCpuUsPerRequest.toFixed(1)} µs`,
      `${r.failedQueries ?? '-'} / ${r.non2xx + r.errors}`,
    ]);
  }
  const cpu =
    l.cpuPerRequestOverhead === undefined
      ? ''
      : `; server thread CPU per HTTP request ${fmtRatio(l.cpuPerRequestOverhead)} the bare reply's` +
        (l.cpuPerRequestOverShaped === undefined ? '' : `, ${fmtRatio(l.cpuPerRequestOverShaped)} the SELECT 1-shaped bare answers'`);
  const rounds = l.rounds;
  const perRound =
    l.roundCpuRatios !== undefined && l.roundCpuRatios.length > 1
      ? `\nserver thread CPU per HTTP request by round: ${l.roundCpuRatios.map((x) => `${fmtRatio(x.overHello)} / ${fmtRatio(x.overShaped)}`).join(', ')} (over the bare reply / the SELECT 1-shaped answers)`
      : '';
  const latencyRounds =
    l.roundLatencies !== undefined && l.roundLatencies.length > 1
      ? `\nSELECT 1 at ${l.trivial.connections} clients by round: ${l.roundLatencies.map((x) => `${Math.round(x.queriesPerSecond)} queries/s, p99 ${fmtMs(x.queryP99Ms)} (bare shaped ${fmtMs(x.shapedP99Ms)})`).join('; ')}`
      : '';
  const roundsNote = rounds > 1 ? `; SELECT 1 at ${l.trivial.connections} clients and the bare servers: medians of ${rounds} rounds, each running the three one after the other, and ratios the median of each round's own` : '';
  return [
    `statement protocol on loopback: keep-alive clients (autocannon in one worker thread for every scenario) for ${l.trivial.seconds.toFixed(1)} s each; a query = POST /v1/statement + GET nextUri until done; query p50/p99 leave out the queries started in a run's first ${l.trivial.settleSeconds ?? 0} s (its connections are new: every server, the bare ones too, starts slow), the JSON has the whole run's p99 too${roundsNote}`,
    t.toString(),
    `per-request cost vs the bare uWebSockets.js reply: ${fmtRatio(l.perRequestOverhead)} per HTTP request, ${fmtRatio(l.perQueryOverhead)} per complete SELECT 1 (POST + GETs)${cpu}` +
      ' (the load client shares the two cores and costs as much per request as the server: it bounds every throughput here)' +
      perRound +
      latencyRounds +
      (l.authenticationThroughputRatio === undefined
        ? ''
        : `\nSQL authentication: SELECT 1 with Basic credentials on a server with authentication on runs ${fmtRatio(l.authenticationThroughputRatio)} the queries/s of SELECT 1 with it off (the other runs here use it off, as DuckDB in-process has none)`),
  ].join('\n');
}

export function microTable(results: BenchResults): string {
  if (!results.micro) return '';
  const t = table(['kernel (one 64Ki-row lineitem page, one thread)', 'mean', 'p50', 'rows/s']);
  for (const m of results.micro) t.push(m.error ? [m.name, `error: ${m.error}`, '-', '-'] : [m.name, fmtMs(m.meanMs), fmtMs(m.p50Ms), fmtRate(m.rowsPerSecond, 'rows')]);
  return ['micro benchmarks (tinybench, runPipeline over the planner\'s leaf fragment)', t.toString()].join('\n');
}

function esc(s: string): string {
  return s.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;').replace(/"/gu, '&quot;');
}

/** A horizontal bar per query: ours / DuckDB on a log scale around 1×. */
export function ratioChart(results: BenchResults): string {
  const rows = results.tpch;
  const ratios = rows.flatMap((q) => (q.ratio === undefined ? [] : [q.ratio]));
  const lo = Math.min(0.5, ...ratios.map((r) => r / 1.2));
  const hi = Math.max(10, ...ratios.map((r) => r * 1.2));
  const width = 760;
  const left = 60;
  const right = 150;
  const top = 56;
  const rowH = 22;
  const plotW = width - left - right;
  const height = top + rows.length * rowH + 40;
  const x = (r: number) => left + ((Math.log10(r) - Math.log10(lo)) / (Math.log10(hi) - Math.log10(lo))) * plotW;
  const out: string[] = [];
  out.push(`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`);
  out.push(`<rect width="100%" height="100%" fill="white"/>`);
  const o = results.options;
  out.push(`<text x="${left}" y="20" font-size="14" font-weight="bold">${esc(`TPC-H sf${o.sf}: our time / DuckDB's (median of ${o.runs}, ${o.threads} threads) — lower is better`)}</text>`);
  out.push(`<text x="${left}" y="38" fill="#555">${esc(`geometric mean ${fmtRatio(results.geomeanRatio)} over ${ratios.length} queries; ${results.startedAt}`)}</text>`);
  for (const tick of [0.1, 0.2, 0.5, 1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]) {
    if (tick < lo || tick > hi) continue;
    const tx = x(tick).toFixed(1);
    out.push(`<line x1="${tx}" y1="${top - 6}" x2="${tx}" y2="${top + rows.length * rowH}" stroke="${tick === 1 ? '#000' : '#ddd'}" stroke-width="${tick === 1 ? 1.5 : 1}"/>`);
    out.push(`<text x="${tx}" y="${top + rows.length * rowH + 16}" text-anchor="middle" fill="#555">${tick}×</text>`);
  }
  rows.forEach((q, i) => {
    const y = top + i * rowH;
    out.push(`<text x="${left - 8}" y="${y + 15}" text-anchor="end">${esc(q.name.toUpperCase())}</text>`);
    if (q.ratio === undefined) {
      const why = q.ours.status === 'ok' ? `DuckDB ${q.duckdb.status}` : engineCell(q.ours, 'median');
      out.push(`<text x="${(x(1) + 6).toFixed(1)}" y="${y + 15}" fill="#999">${esc(why)}</text>`);
      return;
    }
    const x0 = x(1);
    const x1 = x(q.ratio);
    const color = q.ratio <= 1 ? '#2a9d58' : q.ratio <= 2 ? '#e9a23b' : q.ratio <= 5 ? '#e76f51' : '#c0392b';
    out.push(`<rect x="${Math.min(x0, x1).toFixed(1)}" y="${y + 4}" width="${Math.max(1, Math.abs(x1 - x0)).toFixed(1)}" height="${rowH - 8}" fill="${color}"/>`);
    out.push(`<text x="${(Math.max(x0, x1) + 6).toFixed(1)}" y="${y + 15}">${esc(`${fmtRatio(q.ratio)}  (${fmtMs(q.ours.medianMs)} vs ${fmtMs(q.duckdb.medianMs)})`)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}
