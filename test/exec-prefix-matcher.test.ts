// `substring(col, 1, n) IN (literals)` answered on a varchar column's bytes (runtime.ts) selects
// exactly the rows the string function would: short rows, multi-byte characters, empty strings.

import { describe, expect, it } from 'vitest';
import { VARCHAR } from '../src/data/types.js';
import { columnFromStrings } from '../src/exec/build-columns.js';
import { prefixInColumnMatcher } from '../src/exec/compile/runtime.js';
import type { VarcharColumn } from '../src/data/page.js';

const rows = ['13-555', '31', '3', '', '1', '13', 'é1', '1é', 'ab', 'abc', 'abcd', 'a', 'éé', '13é', '\u0000ab', 'ab\u0000'];
const column = columnFromStrings(VARCHAR, rows, rows.length) as VarcharColumn;

/** What the SQL means: the first n characters (code points) of each row, among the literals. */
function expected(n: number, literals: readonly string[]): number[] {
  return rows.map((r) => (literals.includes([...r].slice(0, n).join('')) ? 1 : 0));
}

describe('prefix IN matcher on bytes', () => {
  it.each([
    [2, ['13', '31', '1', '']],
    [1, ['1', '3', 'a', '']],
    [3, ['abc', 'ab', '13-', '\u0000ab', 'ab\u0000', '']],
    [4, ['abcd', '13-5', 'ab', '13']],
    [2, ['zz', 'abc']],
  ])('first %i characters in %j', (n, literals) => {
    const matcher = prefixInColumnMatcher(n, literals);
    expect(matcher).not.toBeNull();
    expect([...(matcher as NonNullable<typeof matcher>)(column)]).toEqual(expected(n, literals));
  });

  it('declines non-ASCII literals (bytes and characters differ)', () => {
    expect(prefixInColumnMatcher(1, ['é'])).toBeNull();
  });
});
