// Dictionary-encoded columns through page operations. Concatenating pages (join builds, sorts,
// final aggregations): values survive exactly, and dictionary columns stay dictionary-encoded when
// their dictionaries hold the same strings, even when the dictionary objects differ (pages from
// another thread arrive as structured clones). Sorting ranks dictionary entries, not rows.

import { describe, expect, it } from 'vitest';
import { dictionaryColumn, type Page, type VarcharColumn } from '../src/data/page.js';
import { BIGINT, VARCHAR } from '../src/data/types.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { numericValues, stringValues } from '../src/exec/column-readers.js';
import { concatPages } from '../src/exec/concat.js';

const dict = (strings: string[]): VarcharColumn => columnFromStrings(VARCHAR, strings, strings.length) as VarcharColumn;

function page(keys: number[], names: ReturnType<typeof columnFromStrings>): Page {
  return { length: keys.length, columns: [columnFromNumbers(BIGINT, keys, null, keys.length), names] };
}

describe('concatPages', () => {
  it('keeps dictionary encoding across equal dictionaries that are different objects', () => {
    const a = dict(['PROMO BRUSHED', 'STANDARD', 'ECONOMY']);
    const b = structuredClone(a);
    expect(b).not.toBe(a);
    const out = concatPages([page([1, 2], dictionaryColumn(VARCHAR, Int32Array.of(0, 2), a)), page([3], dictionaryColumn(VARCHAR, Int32Array.of(1), b))], [BIGINT, VARCHAR]);
    expect(out.columns[1].kind).toBe('dict');
    expect(stringValues(out.columns[1])).toEqual(['PROMO BRUSHED', 'ECONOMY', 'STANDARD']);
    expect([...numericValues(out.columns[0])]).toEqual([1, 2, 3]);
  });

  it('decodes to UTF-8 when dictionaries differ, and copies plain UTF-8 columns (with offsets not starting at 0)', () => {
    const a = dict(['x', 'y']);
    const c = dict(['x', 'z']);
    const plain = columnFromStrings(VARCHAR, ['ünïcode', '', 'tail'], 3) as VarcharColumn;
    // A slice of a larger column: its offsets start past 0.
    const shifted: VarcharColumn = { ...plain, length: 2, offsets: plain.offsets.subarray(1) };
    const out = concatPages(
      [page([1, 2], dictionaryColumn(VARCHAR, Int32Array.of(1, 0), a)), page([3, 4], dictionaryColumn(VARCHAR, Int32Array.of(1, 1), c)), page([5, 6, 7], plain), page([8, 9], shifted)],
      [BIGINT, VARCHAR],
    );
    expect(out.columns[1].kind).toBe('varchar');
    expect(stringValues(out.columns[1])).toEqual(['y', 'x', 'z', 'z', 'ünïcode', '', 'tail', '', 'tail']);
  });

  it('keeps NULLs of varchar columns', () => {
    const withNull = columnFromStrings(VARCHAR, ['a', null, 'c'], 3);
    const out = concatPages([page([1, 2, 3], withNull), page([4], columnFromStrings(VARCHAR, ['d'], 1))], [BIGINT, VARCHAR]);
    expect(stringValues(out.columns[1]).map((s, i) => (out.columns[1].validity !== null && ((out.columns[1].validity[i >> 3] >> (i & 7)) & 1) === 0 ? null : s))).toEqual(['a', null, 'c', 'd']);
  });
});

describe('sorting dictionary columns', () => {
  it('ranks dictionary entries once: repeated entries tie, NULLs first or last, both directions', async () => {
    const { sortedIndices } = await import('../src/exec/sort-ranks.js');
    // Entries 0 and 3 are the same string; row 4 is NULL.
    const dictionary = dict(['b', 'a', 'c', 'b']);
    const indices = Int32Array.of(3, 1, 2, 0, 1, 0);
    const validity = Uint8Array.of(0b101111);
    const col = { ...dictionaryColumn(VARCHAR, indices, dictionary), validity };
    const p: Page = { length: 6, columns: [col] };
    const order = (ascending: boolean, nullsFirst: boolean): number[] => [...sortedIndices(p, [{ index: 0, ascending, nullsFirst }])];
    expect(order(true, false)).toEqual([1, 0, 3, 5, 2, 4]);
    expect(order(true, true)).toEqual([4, 1, 0, 3, 5, 2]);
    expect(order(false, false)).toEqual([2, 0, 3, 5, 1, 4]);
  });
});
