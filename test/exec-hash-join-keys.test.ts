// The probe loops over NULL-free bigint keys (hash-join.ts matchInt64): when every key of the
// index is a non-negative int32 they work on the low word only and reject any key with a high
// word. These cases sit on the edges of that shortcut: keys near 2^31, keys whose low word falls
// inside the index but whose high word does not, negative keys, and an index that starts below 0.

import { describe, expect, it } from 'vitest';
import { BIGINT } from '../src/data/types.js';
import type { Page } from '../src/data/page.js';
import { columnFromNumbers } from '../src/exec/build-columns.js';
import { numericValues } from '../src/exec/column-readers.js';
import { buildJoinTable } from '../src/exec/join-table.js';
import { HashJoinOperator } from '../src/exec/operators/hash-join.js';

function bigints(values: readonly number[]): Page {
  return { length: values.length, columns: [columnFromNumbers(BIGINT, values, null, values.length)] };
}

/** The probe keys an inner join of `probe` against `build` lets through, in probe order. */
function joined(build: readonly number[], probe: readonly number[], joinType: 'inner' | 'semi' | 'anti' = 'inner'): number[] {
  const table = buildJoinTable([bigints(build)], [BIGINT], [0], false);
  const out: number[] = [];
  const op = new HashJoinOperator(1, table, joinType, [0], null, false, false, joinType === 'inner' ? [0] : null, (page) => out.push(...numericValues(page.columns[0])));
  op.addInput(bigints(probe));
  op.finish();
  return out;
}

describe('bigint probe keys', () => {
  const near = 2 ** 31 - 3;

  it('finds keys just below 2^31 and rejects keys whose low word matches but high word does not', () => {
    const probe = [near, near + 1, near + 2, 2 ** 32 + near, 2 ** 32 + near + 1, near - 1, -1, -near, 0];
    expect(joined([near, near + 1], probe)).toEqual([near, near + 1]);
    expect(joined([near, near + 1], probe, 'semi')).toEqual([near, near + 1]);
    expect(joined([near, near + 1], probe, 'anti')).toEqual([near + 2, 2 ** 32 + near, 2 ** 32 + near + 1, near - 1, -1, -near, 0]);
  });

  it('matches sparse keys (a rank index) the same way', () => {
    const build = Array.from({ length: 50 }, (_, i) => 7 + i * 4001);
    const probe = [7, 8, 4008, 2 ** 32 + 7, 2 ** 33 + 4008, 7 + 49 * 4001, -7];
    expect(joined(build, probe)).toEqual([7, 4008, 7 + 49 * 4001]);
  });

  it('keeps negative keys and keys beyond 2^32 when the index holds them', () => {
    expect(joined([-3, 4], [-3, 4, 3, -4, 2 ** 32 - 3])).toEqual([-3, 4]);
    expect(joined([2 ** 32 + 1, 2 ** 32 + 2], [1, 2, 2 ** 32 + 1, 2 ** 32 + 2])).toEqual([2 ** 32 + 1, 2 ** 32 + 2]);
  });
});
