// The lexical helper only the former parser's text rewrites used (test/support/legacy-sql-parser.ts,
// the oracle of test/sql-parser.test.ts); the others it shares with src/sql/lexical.ts.

import { maskQuoted, skipQuoted } from '../../src/sql/lexical.js';

export { locationAt, maskQuoted, topLevelRanges } from '../../src/sql/lexical.js';

/** Ranges [start, end) of the insides of single-quoted strings (doubled quotes included). */
export function stringLiteralRanges(sql: string): [number, number][] {
  const masked = maskQuoted(sql);
  const ranges: [number, number][] = [];
  for (let i = 0; i < sql.length; i++) {
    if (masked[i] !== "'") continue;
    const end = skipQuoted(sql, i, "'");
    ranges.push([i + 1, Math.max(i + 1, end - 1)]);
    i = end - 1;
  }
  return ranges;
}
