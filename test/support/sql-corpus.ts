// Every query text of the repository's SQL tests: the .slt corpus, SQL strings in test/*.test.ts and
// the TPC-H queries; for the parser's differential check (test/sql-parser.test.ts).

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseSlt } from './slt.js';

const TEST_DIR = resolve(import.meta.dirname, '..');
const TPCH_QUERIES = '/work/shared/tpch/queries';

function files(dir: string, ext: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir).sort()) {
    const p = join(dir, e);
    if (statSync(p).isDirectory()) out.push(...files(p, ext));
    else if (e.endsWith(ext)) out.push(p);
  }
  return out;
}

export interface CorpusEntry {
  readonly where: string;
  readonly sql: string;
}

/** Statement texts (any kind: callers pick the queries). */
export function sqlCorpus(): CorpusEntry[] {
  const out: CorpusEntry[] = [];
  for (const f of files(join(TEST_DIR, 'sql'), '.slt')) {
    for (const r of parseSlt(f).records) out.push({ where: `${f}:${r.line}`, sql: r.sql });
  }
  // Not the parser's own test: its queries are there to fail.
  for (const f of readdirSync(TEST_DIR).filter((e) => e.endsWith('.test.ts') && e !== 'sql-parser.test.ts').sort()) {
    const text = readFileSync(join(TEST_DIR, f), 'utf8');
    for (const m of text.matchAll(/(['`])((?:SELECT|WITH|VALUES|EXPLAIN|CREATE|INSERT)\b(?:(?!\1)[^\\$]|\\.)*)\1/giu)) {
      const sql = m[1] === "'" ? m[2].replace(/\\'/gu, "'").replace(/\\n/gu, '\n') : m[2];
      out.push({ where: `${f}@${m.index}`, sql });
    }
  }
  if (existsSync(TPCH_QUERIES)) {
    for (const f of readdirSync(TPCH_QUERIES).filter((e) => e.endsWith('.sql')).sort()) out.push({ where: f, sql: readFileSync(join(TPCH_QUERIES, f), 'utf8') });
  }
  return out;
}
