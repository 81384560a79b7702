// Column-at-a-time LIKE (runtime.ts byteLikeColumnMatcher): a page's rows matched by native
// substring searches over its bytes must agree with the row-at-a-time matcher on every row, for
// `%a%b%` chains (searches alone) and patterns with a fixed start or end (search + row matcher).

import { describe, expect, it } from 'vitest';
import { byteLikeColumnMatcher, byteLikeMatcher } from '../src/exec/compile/runtime.js';

/** A page of strings as a varchar column's offsets and bytes. */
function column(rows: readonly string[]): { length: number; data: Uint8Array; offsets: Int32Array } {
  const encoded = rows.map((r) => Buffer.from(r, 'utf8'));
  const offsets = new Int32Array(rows.length + 1);
  encoded.forEach((b, i) => (offsets[i + 1] = offsets[i] + b.length));
  const data = new Uint8Array(offsets[rows.length] + 5); // trailing bytes past the last row must not count
  encoded.forEach((b, i) => data.set(b, offsets[i]));
  data.set(Buffer.from('abcab'), offsets[rows.length]);
  return { length: rows.length, data, offsets };
}

function randomRows(count: number, seed: number): string[] {
  let s = seed;
  const next = (): number => ((s = (s * 1103515245 + 12345) >>> 0) / 4294967296);
  return Array.from({ length: count }, () => Array.from({ length: Math.floor(next() * 12) }, () => 'abc'[Math.floor(next() * 3)]).join(''));
}

describe('byteLikeColumnMatcher', () => {
  const patterns = ['%a%', '%ab%', '%ab%ca%', '%a%b%c%', '%aa%aa%', '%abc%cab%', '%b%b%b%b%', 'a%b%', '%a%c', 'ab%ba%ca', '%é%ü%'];

  it('agrees with the row matcher on every row of random pages', () => {
    for (const pattern of patterns) {
      const columnWide = byteLikeColumnMatcher(pattern);
      const row = byteLikeMatcher(pattern);
      expect(columnWide, pattern).not.toBeNull();
      for (let seed = 1; seed <= 20; seed++) {
        const rows = randomRows(200, seed * 7919);
        if (pattern.includes('é')) rows.push('xéyüz', 'üé', 'éü');
        const col = column(rows);
        const hits = columnWide!(col);
        const expected = rows.map((_, i) => (row!(col.data, col.offsets[i], col.offsets[i + 1]) ? 1 : 0));
        expect([...hits], `${pattern} seed ${seed}`).toEqual(expected);
      }
    }
  });

  it('finds parts in order, non-overlapping, inside one row', () => {
    const m = byteLikeColumnMatcher('%special%requests%')!;
    const rows = ['special requests', 'requests special', 'specialrequests', 'special', 'requests', 'special req', 'uests then special requests!', 'specialrequest', 's'];
    expect([...m(column(rows))]).toEqual([1, 0, 1, 0, 0, 0, 1, 0, 0]);
    // A part split across two rows is in neither.
    expect([...m(column(['a special re', 'quests']))]).toEqual([0, 0]);
    expect([...byteLikeColumnMatcher('%aa%aa%')!(column(['aaa', 'aaaa', 'aa aa']))]).toEqual([0, 1, 1]);
    // The second part's next occurrence straddles the row's end: the search goes on in the next row.
    expect([...byteLikeColumnMatcher('%x%bc%')!(column(['xab', 'cxbc', 'bc']))]).toEqual([0, 1, 0]);
  });
});
