// npm run fuzz -- --seed S --n N [--exclude f1,f2|known] [--no-memory] [--timeout ms] [--shrink checks]
//   [--max-table-rows n] [--out report.json] [--slt file.slt] [--only i]
// Differential fuzzing of our engine against DuckDB (see test/sql/README.md, "Fuzzing").

import { writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { FEATURES, renderQuery, type Feature } from './ast.js';
import { Fuzzer, generateQuery, VERDICTS, type FuzzReport } from './run.js';
import { writeSlt } from './slt-out.js';

function parseArgs(argv: string[]): Map<string, string> {
  const m = new Map<string, string>();
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (!a.startsWith('--')) throw new Error(`unexpected argument ${a}`);
    const [k, v] = a.includes('=') ? a.slice(2).split('=', 2) : [a.slice(2), argv[i + 1]?.startsWith('--') || i + 1 >= argv.length ? 'true' : argv[++i]];
    m.set(k, v);
  }
  return m;
}

function parseExclude(text: string | undefined): Set<Feature> {
  if (!text) return new Set();
  if (text === 'known') return new Set(FEATURES);
  const out = new Set<Feature>();
  for (const f of text.split(',')) {
    if (!(FEATURES as readonly string[]).includes(f)) throw new Error(`unknown feature ${f}; known: ${FEATURES.join(', ')}`);
    out.add(f as Feature);
  }
  return out;
}

export function summary(r: FuzzReport): string {
  const counts = VERDICTS.map((v) => `${v} ${r.counts[v]}`).join(', ');
  const top = r.refusals.slice(0, 5).map((x) => `${x.count}× ${x.reason}`).join(' | ');
  return `seed ${r.seed}, ${r.n} queries in ${(r.elapsedMs / 1000).toFixed(0)} s: ${counts}${top ? `; top refusals: ${top}` : ''}`;
}

async function main(): Promise<void> {
  const a = parseArgs(process.argv.slice(2));
  const seed = Number(a.get('seed') ?? 1);
  const n = Number(a.get('n') ?? 100);
  const exclude = parseExclude(a.get('exclude'));
  const memory = a.get('no-memory') !== 'true';
  const timeoutMs = Number(a.get('timeout') ?? 10_000);
  const maxTableRows = a.has('max-table-rows') ? Number(a.get('max-table-rows')) : undefined;
  if (a.has('only')) {
    const q = generateQuery(seed, Number(a.get('only')), exclude, memory, maxTableRows);
    console.log(`-- ours\n${renderQuery(q, 'trino')}\n-- DuckDB\n${renderQuery(q, 'duck')}`);
    return;
  }
  const fuzzer = await Fuzzer.create(memory);
  let last = 0;
  const report = await fuzzer.run({
    seed, n, exclude, memory, timeoutMs, maxTableRows,
    shrinkBudget: Number(a.get('shrink') ?? 300),
    maxShrinks: Number(a.get('max-shrinks') ?? 40),
    maxRefusalShrinks: Number(a.get('max-refusal-shrinks') ?? 25),
    onProgress: (done, counts) => {
      if (Date.now() - last > 10_000 || done === n) {
        last = Date.now();
        console.error(`[${done}/${n}] ${VERDICTS.map((v) => `${v} ${counts[v]}`).join(', ')}`);
      }
    },
  });
  await fuzzer.close();
  const out = resolve(a.get('out') ?? `fuzz-report-${seed}.json`);
  writeFileSync(out, JSON.stringify(report, (k, v) => (k === 'query' ? undefined : v), 2));
  console.log(summary(report));
  const wrong = report.findings.filter((f) => f.verdict === 'WRONG');
  const distinct = new Map<string, (typeof wrong)[number]>();
  for (const f of wrong) if (f.shrunk && !distinct.has(f.shrunk.sql)) distinct.set(f.shrunk.sql, f);
  for (const [sql, f] of distinct) console.log(`WRONG #${f.index} shrunk (${f.shrunk!.checks} checks): ${sql}\n  ${f.shrunk!.detail}`);
  const slt = a.get('slt');
  if (slt && distinct.size) {
    const path = resolve(slt);
    const name = path.slice(path.indexOf('test/sql/'));
    writeSlt(path, name, `wrong answers found by npm run fuzz -- --seed ${seed} --n ${n}, shrunk; excluded from the default run, see test/sql/README.md`,
      [...distinct.values()].map((f) => ({ q: f.shrunk!.query, comment: `fuzz seed ${seed} query ${f.index}: ${f.shrunk!.detail}` })));
    console.log(`wrote ${path}; fill its expectations with: npm run slt:complete -- ${path}`);
  }
  console.log(`report: ${out}`);
}

await main();
