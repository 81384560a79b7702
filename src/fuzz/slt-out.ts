// Shrunk wrong answers as an .slt file for test/sql/known-bugs/: the queries without expectations
// (`npm run slt:complete -- <file>` fills them from DuckDB), with the memory tables they use.

import { writeFileSync } from 'node:fs';
import { renderForSlt, type Query } from './ast.js';
import { memorySetupForSlt } from './schema.js';

export interface SltCase {
  readonly q: Query;
  readonly comment: string;
}

export function sltText(name: string, description: string, cases: readonly SltCase[]): string {
  const sqls = cases.map((c) => renderForSlt(c.q, 'trino'));
  const memory = sqls.some((s) => /\bt[123]\b/u.test(s));
  const out = [`# name: ${name}`, `# description: ${description}`, ''];
  if (memory) {
    out.push('require memory', '');
    for (const s of memorySetupForSlt()) out.push('statement ok', s, '');
  }
  cases.forEach((c, i) => out.push(`# bug: ${c.comment.replaceAll('\n', ' ')}`, 'query', sqls[i], ''));
  return out.join('\n');
}

export function writeSlt(path: string, name: string, description: string, cases: readonly SltCase[]): void {
  writeFileSync(path, sltText(name, description, cases));
}
