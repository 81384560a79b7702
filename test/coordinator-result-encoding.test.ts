// Result rows are encoded straight into JSON text (encodeRowsJson): byte for byte what
// JSON.stringify writes for the value form (encodeRows), for every column type and layout.

import { describe, expect, it } from 'vitest';
import { dictionaryColumn, type Page, type VarcharColumn } from '../src/data/page.js';
import { BIGINT, BOOLEAN, DATE, decimal, DOUBLE, INTEGER, INTERVAL_DAY_TIME, INTERVAL_YEAR_MONTH, REAL, SMALLINT, TIMESTAMP, TINYINT, UNKNOWN, VARCHAR, type SqlType } from '../src/data/types.js';
import { columnFromNumbers, columnFromStrings } from '../src/exec/build-columns.js';
import { encodeRows, encodeRowsJson, encodeRowsJsonBytes, JsonBytes, rowsAscii, type JsonValue } from '../src/coordinator/result-encoding.js';

const n = 9;
const nullEvery = (k: number): number[] => Array.from({ length: n }, (_, i) => (i % k === k - 1 ? 1 : 0));

function page(withNulls: boolean): { page: Page; types: SqlType[] } {
  const nulls = (k: number): number[] | null => (withNulls ? nullEvery(k) : null);
  const numbers: [SqlType, number[]][] = [
    [TINYINT, [-128, 0, 1, 127, 5, 6, 7, 8, 9]],
    [SMALLINT, [-32768, 32767, 0, 1, 2, 3, 4, 5, 6]],
    [INTEGER, [-(2 ** 31), 2 ** 31 - 1, 0, -1, 42, 7, 8, 9, 10]],
    [BIGINT, [-(2 ** 53) + 1, 2 ** 53 - 1, 0, -1, 2 ** 32, -(2 ** 32) - 5, 12, 13, 14]],
    [DOUBLE, [NaN, Infinity, -Infinity, -0, 0.1 + 0.2, 1e21, 1e-7, -123.5, 5e-324]],
    [REAL, [Math.fround(0.1), NaN, -Infinity, 3, -0, 1.5, 2.25, 1e30, 7]],
    [decimal(12, 2), [12345, -5, 0, 1, 99999999, -100, 7, 8, 9]],
    [decimal(38, 4), [1e20, -1e19, 0, 12345678, 1, 2, 3, 4, 5]],
    [DATE, [0, -1, 10471, 9496, 2932896, -719468, 1, 2, 3]],
    [TIMESTAMP, [0, 1_700_000_000_123_000, -1, 86_400_000_000, 5, 6, 7, 8, 9]],
    [INTERVAL_DAY_TIME, [0, 86_400_000, -3_600_001, 1, 2, 3, 4, 5, 6]],
    [INTERVAL_YEAR_MONTH, [0, 13, -25, 1, 2, 3, 4, 5, 6]],
    [BOOLEAN, [1, 0, 1, 1, 0, 0, 1, 0, 1]],
  ];
  const strings = ['plain', 'quote " and \\ backslash', 'tab\tnew\nline', 'ünïcödé ✓', '\u0001 control', '', 'emoji 🙂', '</script>', 'x'];
  const dictionary = columnFromStrings(VARCHAR, ['dict "a"', 'dict\nb', 'dict ✓'], 3) as VarcharColumn;
  const columns = [
    ...numbers.map(([type, values], k) => columnFromNumbers(type, values, nulls(2 + (k % 3)), n)),
    columnFromStrings(VARCHAR, withNulls ? strings.map((s, i) => (i % 3 === 1 ? null : s)) : strings, n),
    dictionaryColumn(VARCHAR, Int32Array.from({ length: n }, (_, i) => (i * 5) % 3), dictionary),
    columnFromNumbers(UNKNOWN, new Array<number>(n).fill(0), new Array<number>(n).fill(1), n),
  ];
  return { page: { length: n, columns }, types: [...numbers.map(([type]) => type), VARCHAR, VARCHAR, UNKNOWN] };
}

describe('result rows as JSON text', () => {
  for (const withNulls of [false, true]) {
    it(`equals JSON.stringify of the row arrays, every type${withNulls ? ', with NULLs' : ''}`, () => {
      const { page: p, types } = page(withNulls);
      const rows: JsonValue[][] = [];
      encodeRows(p, types, rows);
      expect(`[${encodeRowsJson(p, types)}]`).toBe(JSON.stringify(rows));
      // A range of rows, as a batch ending mid-page takes it.
      const some: JsonValue[][] = [];
      encodeRows(p, types, some, 2, 7);
      expect(`[${encodeRowsJson(p, types, 2, 7)}]`).toBe(JSON.stringify(some));
      expect(encodeRowsJson(p, types, 4, 4)).toBe('');
    });

    it(`as UTF-8 bytes (large batches) equals the text${withNulls ? ', with NULLs' : ''}`, () => {
      const { page: p, types } = page(withNulls);
      // A tiny first capacity: the sink grows many times over, also in the middle of a value.
      for (const capacity of [1, 8, 1 << 16]) {
        const all = new JsonBytes(capacity);
        encodeRowsJsonBytes(p, types, all);
        expect(all.toBuffer().toString('utf8')).toBe(encodeRowsJson(p, types));
        const some = new JsonBytes(capacity);
        encodeRowsJsonBytes(p, types, some, 2, 7);
        expect(some.toBuffer().toString('utf8')).toBe(encodeRowsJson(p, types, 2, 7));
      }
      const none = new JsonBytes();
      encodeRowsJsonBytes(p, types, none, 4, 4);
      expect(none.length).toBe(0);
    });
  }
});

describe('rowsAscii: whether rows encode to ASCII text', () => {
  const isAscii = (text: string): boolean => /^[\x00-\x7f]*$/.test(text);
  it('agrees with the encoded text for every row range of plain strings; a dictionary counts whole', () => {
    const { page: p, types } = page(false);
    // Plain strings (and the numbers before them): exactly when the range's text is ASCII.
    const plain: Page = { length: n, columns: p.columns.slice(0, 14) };
    for (let start = 0; start < n; start++) {
      for (let end = start; end <= n; end++) expect(rowsAscii(plain, start, end), `rows ${start}-${end}`).toBe(isAscii(encodeRowsJson(plain, types.slice(0, 14), start, end)));
    }
    // A dictionary with a non-ASCII entry: never ASCII, whichever entries the rows use (never wrong, only careful).
    for (let end = 0; end <= n; end++) expect(rowsAscii(p, 0, end)).toBe(false);
    // Numbers, booleans, dates, NULLs: ASCII whatever their values.
    const numbersOnly: Page = { length: n, columns: p.columns.slice(0, 13) };
    expect(rowsAscii(numbersOnly)).toBe(true);
    const asciiDict = columnFromStrings(VARCHAR, ['a', 'b "c"'], 2) as VarcharColumn;
    const dictPage: Page = { length: 3, columns: [dictionaryColumn(VARCHAR, Int32Array.from([0, 1, 0]), asciiDict)] };
    expect(rowsAscii(dictPage)).toBe(true);
    expect(isAscii(encodeRowsJson(dictPage, [VARCHAR]))).toBe(true);
  });
});
