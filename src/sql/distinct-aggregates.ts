// `sum(DISTINCT x)`: the postgresql dialect of node-sql-parser takes DISTINCT only inside
// count(). The keyword is blanked out before parsing (the text keeps every character's position,
// so error locations still hold) and put back on the parsed call found at the same offset.

import { AGGREGATE_NAMES } from './aggregate-names.js';
import type { AstNode } from './ast.js';
import { skipQuoted } from './lexical.js';

// Not before `)`: `sum(DISTINCT)` stays a syntax error at its `)`.
const DISTINCT_CALL = /\b([A-Za-z_][A-Za-z0-9_]*)(\s*\(\s*)(DISTINCT)\b(?!\s*\))/iy;

/** The text with DISTINCT blanked in aggregate calls other than count(), and where those calls start. */
export function blankDistinctAggregates(sql: string): { readonly sql: string; readonly calls: ReadonlySet<number> } {
  const calls = new Set<number>();
  let out = '';
  let copied = 0;
  for (let i = 0; i < sql.length; ) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      i = skipQuoted(sql, i, c);
      continue;
    }
    if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      i = end < 0 ? sql.length : end;
      continue;
    }
    if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
      continue;
    }
    if (/[A-Za-z_]/u.test(c) && (i === 0 || !/[A-Za-z0-9_$]/u.test(sql[i - 1]))) {
      DISTINCT_CALL.lastIndex = i;
      const m = DISTINCT_CALL.exec(sql);
      const name = m?.[1].toLowerCase();
      if (m && name !== 'count' && name !== undefined && AGGREGATE_NAMES.has(name)) {
        const keywordAt = i + m[1].length + m[2].length;
        out += sql.slice(copied, keywordAt) + ' '.repeat(m[3].length);
        copied = keywordAt + m[3].length;
        calls.add(i);
        i = copied;
        continue;
      }
      while (i < sql.length && /[A-Za-z0-9_$]/u.test(sql[i])) i++;
      continue;
    }
    i++;
  }
  return { sql: calls.size === 0 ? sql : out + sql.slice(copied), calls };
}

/** Marks the parsed calls that start at `calls`' offsets DISTINCT. */
export function markDistinctAggregates(ast: unknown, calls: ReadonlySet<number>): void {
  if (calls.size === 0 || ast === null || typeof ast !== 'object') return;
  if (Array.isArray(ast)) {
    for (const item of ast) markDistinctAggregates(item, calls);
    return;
  }
  const node = ast as AstNode;
  const start = node.loc?.start?.offset;
  if ((node.type === 'aggr_func' || node.type === 'function') && typeof start === 'number' && calls.has(start) && node.args) {
    node.args.distinct = 'DISTINCT';
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'loc') markDistinctAggregates(value, calls);
}
