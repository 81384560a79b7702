// Row order for ORDER BY and window partitions: each sort key becomes dense ranks (direction and
// NULL placement applied), then one stable counting sort per key, the last key first (LSD). Every
// step is linear in the rows but the ranking of non-integer numbers (a native sort of the values)
// and of distinct strings (a comparison sort of those only). A Float64 sort of packed ranks and
// a Map of every string cost Q16's 18k-row ORDER BY ~11 ms; this ~1 ms.

import type { Column, Page, VarcharColumn } from '../data/page.js';
import { readUtf8 } from '../data/page.js';
import type { SortKey } from '../sql/plan.js';
import { nullFlags, numericValues, stringValues } from './column-readers.js';
import { bytesHash } from './group-by-hash.js';
import { checkpoint } from './query-control.js';

export interface KeyRanks {
  /** Per row, its rank 0..count-1 in the key's order (direction and NULL placement applied). */
  readonly ranks: Int32Array;
  readonly count: number;
  readonly nullRank: number;
}

/** Row indices in the keys' order; ties keep input order. */
export function sortedIndices(page: Page, keys: readonly SortKey[]): Int32Array {
  const n = page.length;
  let perm = new Int32Array(n);
  for (let i = 0; i < n; i++) perm[i] = i;
  let spare = new Int32Array(n);
  for (let k = keys.length - 1; k >= 0; k--) {
    // Each key is a pass over every row: a stopped query ends between them.
    checkpoint();
    const { ranks, count } = keyRanks(page, keys[k], n);
    if (count <= 1) continue;
    countingSort(perm, spare, ranks, count, n);
    const t = perm;
    perm = spare;
    spare = t;
  }
  return perm;
}

/** `to` = `from` stably ordered by each row's rank. */
function countingSort(from: Int32Array, to: Int32Array, ranks: Int32Array, count: number, n: number): void {
  const starts = new Int32Array(count + 1);
  rankHistogram(starts, ranks, n);
  prefixSums(starts, count);
  scatterByRank(from, to, starts, ranks, n);
}

// The row loops are small functions of one loop each, over typed arrays, primed when the module
// loads (primeRankLoops): a function whose first loop is optimized while it runs (on-stack
// replacement) before the code after it ever ran deoptimizes there on every later call ("insufficient
// type feedback": hundreds of times over a few hundred sorts), see exec/gather.ts.

function rankHistogram(starts: Int32Array, ranks: Int32Array, n: number): void {
  for (let i = 0; i < n; i++) starts[ranks[i] + 1]++;
}

function prefixSums(starts: Int32Array, count: number): void {
  for (let r = 0; r < count; r++) starts[r + 1] += starts[r];
}

function scatterByRank(from: Int32Array, to: Int32Array, starts: Int32Array, ranks: Int32Array, n: number): void {
  for (let j = 0; j < n; j++) {
    const row = from[j];
    to[starts[ranks[row]]++] = row;
  }
}

/** Ranks 0..count-1 of one sort key per row, in the key's order (direction, NULLs first or last). */
export function keyRanks(page: Page, key: SortKey, n: number): KeyRanks {
  const col = page.columns[key.index];
  const nulls = nullFlags(col);
  const hasNull = nulls !== null && nulls.includes(1);
  if (col.kind === 'varchar') return varcharRanks(col, nulls, hasNull, key);
  if (col.kind === 'fixed') return numberRanks(numericValues(col), nulls, hasNull, key);
  // A dictionary's strings are ranked once and rows take their entry's rank (equal strings share
  // one), without decoding a string per row.
  const entries = stringRanks(stringValues(col.dictionary), hasNull, key);
  const ranks = new Int32Array(n);
  ranksById(ranks, col.indices, entries.ranks, nulls, entries.nullRank, n);
  return { ranks, count: entries.count, nullRank: entries.nullRank };
}

/** Where NULLs rank (0 or after the `distinct` values) and how far values shift past them. */
function nullPlacement(distinct: number, hasNull: boolean, key: SortKey): { nullRank: number; shift: number; count: number } {
  return { nullRank: key.nullsFirst ? 0 : distinct, shift: hasNull && key.nullsFirst ? 1 : 0, count: distinct + (hasNull ? 1 : 0) };
}

/** Ranks of distinct-or-not strings (a dictionary's entries), equal strings one rank. */
function stringRanks(values: readonly string[], hasNull: boolean, key: SortKey): KeyRanks {
  const order = Int32Array.from({ length: values.length }, (_, i) => i).sort((a, b) => compareStrings(values[a], values[b]));
  const byOrder = new Int32Array(values.length);
  let d = 0;
  for (let j = 0; j < order.length; j++) {
    if (j > 0 && values[order[j]] !== values[order[j - 1]]) d++;
    byOrder[j] = d;
  }
  const distinct = order.length > 0 ? d + 1 : 0;
  const { nullRank, shift, count } = nullPlacement(distinct, hasNull, key);
  const ranks = new Int32Array(values.length);
  for (let j = 0; j < order.length; j++) ranks[order[j]] = (key.ascending ? byOrder[j] : distinct - 1 - byOrder[j]) + shift;
  return { ranks, count, nullRank };
}

function compareStrings(x: string, y: string): number {
  return x < y ? -1 : x > y ? 1 : 0;
}

/**
 * Ranks of a varchar column: rows interned by their UTF-8 bytes (open addressing over typed
 * arrays), only the distinct strings decoded and compared.
 */
function varcharRanks(col: VarcharColumn, nulls: Uint8Array | null, hasNull: boolean, key: SortKey): KeyRanks {
  const n = col.length;
  const ids = new Int32Array(n);
  const firstRows = new Int32Array(n);
  const distinct = internBytes(col.offsets, col.data, nulls, n, ids, firstRows);
  // Many distinct values: one decode of the whole column beats one per value.
  const all = distinct * 4 > n ? stringValues(col) : null;
  const strings = new Array<string>(distinct);
  for (let d = 0; d < distinct; d++) strings[d] = all !== null ? all[firstRows[d]] : readUtf8(col, firstRows[d]);
  const entries = stringRanks(strings, hasNull, key);
  const ranks = new Int32Array(n);
  ranksById(ranks, ids, entries.ranks, nulls, entries.nullRank, n);
  return { ranks, count: entries.count, nullRank: entries.nullRank };
}

/** Each non-NULL row's id among the distinct byte strings (first-seen order); returns how many. */
function internBytes(offsets: Int32Array, data: Uint8Array, nulls: Uint8Array | null, n: number, ids: Int32Array, firstRows: Int32Array): number {
  let capacity = 16;
  while (capacity < 2 * n) capacity *= 2;
  const mask = capacity - 1;
  const slotIds = new Int32Array(capacity).fill(-1);
  const slotHashes = new Int32Array(capacity);
  let distinct = 0;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    const start = offsets[i];
    const end = offsets[i + 1];
    const h = bytesHash(data, start, end);
    let slot = (h ^ (h >>> 15)) & mask;
    for (;;) {
      const id = slotIds[slot];
      if (id < 0) {
        slotIds[slot] = distinct;
        slotHashes[slot] = h;
        firstRows[distinct] = i;
        ids[i] = distinct++;
        break;
      }
      if (slotHashes[slot] === h && sameBytes(data, offsets[firstRows[id]], offsets[firstRows[id] + 1], start, end)) {
        ids[i] = id;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  return distinct;
}

function sameBytes(data: Uint8Array, aStart: number, aEnd: number, bStart: number, bEnd: number): boolean {
  if (aEnd - aStart !== bEnd - bStart) return false;
  for (let k = 0; k < aEnd - aStart; k++) if (data[aStart + k] !== data[bStart + k]) return false;
  return true;
}

function ranksById(ranks: Int32Array, ids: Int32Array, idRanks: Int32Array, nulls: Uint8Array | null, nullRank: number, n: number): void {
  for (let i = 0; i < n; i++) ranks[i] = nulls !== null && nulls[i] === 1 ? nullRank : idRanks[ids[i]];
}

/** Integer values spanning fewer than this many values (or 4 per row) are ranked by counting. */
const COUNTED_RANGE = 1 << 16;

/** [min, max] of the non-NULL values when all are integers (min > max when there are none). */
const bounds = new Float64Array(2);

/**
 * Ranks of numbers. Integers over a small range are ranked by marking each value present and
 * counting (Q16's sizes and counts); others are sorted natively and made distinct, each row's rank
 * found by binary search. -0 and 0 are one value, every NaN one value above all others
 * (Float64Array's sort puts them last).
 */
function numberRanks(values: Float64Array, nulls: Uint8Array | null, hasNull: boolean, key: SortKey): KeyRanks {
  const n = values.length;
  const ranks = new Int32Array(n);
  if (integerBounds(values, nulls, n, bounds) && bounds[1] - bounds[0] < Math.max(COUNTED_RANGE, 4 * n)) {
    const min = bounds[0];
    // value − min → 1 + its rank among the values present (0: absent); -0 − 0 indexes slot 0.
    const present = new Int32Array(bounds[1] >= min ? bounds[1] - min + 1 : 0);
    markPresent(present, values, nulls, min, n);
    const d = numberPresent(present);
    const { nullRank, shift, count } = nullPlacement(d, hasNull, key);
    countedRanks(ranks, present, values, nulls, min, key.ascending ? 1 : -1, key.ascending ? shift - 1 : d + shift, nullRank, n);
    return { ranks, count, nullRank };
  }
  const sorted = new Float64Array(n);
  const m = copyNonNull(sorted, values, nulls, n);
  const distinct = sorted.subarray(0, m).sort();
  const d = dedupeSorted(distinct, m);
  const nanRank = d > 0 && distinct[d - 1] !== distinct[d - 1] ? d - 1 : -1;
  const { nullRank, shift, count } = nullPlacement(d, hasNull, key);
  searchedRanks(ranks, distinct, d, values, nulls, nanRank, key.ascending, shift, nullRank, n);
  return { ranks, count, nullRank };
}

/** False when a non-NULL value is not an integer (NaN included); else its bounds in `out`. */
function integerBounds(values: Float64Array, nulls: Uint8Array | null, n: number, out: Float64Array): boolean {
  let min = Infinity;
  let max = -Infinity;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    const v = values[i];
    if (v !== Math.floor(v)) return false;
    if (v < min) min = v;
    if (v > max) max = v;
  }
  out[0] = min;
  out[1] = max;
  return true;
}

function markPresent(present: Int32Array, values: Float64Array, nulls: Uint8Array | null, min: number, n: number): void {
  for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) present[values[i] - min] = 1;
}

/** Numbers the present slots 1, 2, ... in order; returns how many. */
function numberPresent(present: Int32Array): number {
  let d = 0;
  for (let k = 0; k < present.length; k++) if (present[k] !== 0) present[k] = ++d;
  return d;
}

/** rank = base + sign × (slot number): ascending base = shift − 1, descending base = d + shift. */
function countedRanks(ranks: Int32Array, present: Int32Array, values: Float64Array, nulls: Uint8Array | null, min: number, sign: number, base: number, nullRank: number, n: number): void {
  for (let i = 0; i < n; i++) ranks[i] = nulls !== null && nulls[i] === 1 ? nullRank : base + sign * present[values[i] - min];
}

function copyNonNull(to: Float64Array, values: Float64Array, nulls: Uint8Array | null, n: number): number {
  let m = 0;
  for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) to[m++] = values[i];
  return m;
}

/** Sorted values made distinct in place (-0 equals 0; NaNs are one value); returns how many. */
function dedupeSorted(sorted: Float64Array, m: number): number {
  let d = 0;
  for (let i = 0; i < m; i++) {
    const v = sorted[i];
    const prev = d > 0 ? sorted[d - 1] : 0;
    if (d === 0 || !(v === prev || (v !== v && prev !== prev))) sorted[d++] = v;
  }
  return d;
}

function searchedRanks(ranks: Int32Array, distinct: Float64Array, d: number, values: Float64Array, nulls: Uint8Array | null, nanRank: number, ascending: boolean, shift: number, nullRank: number, n: number): void {
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] === 1) {
      ranks[i] = nullRank;
      continue;
    }
    const v = values[i];
    let r: number;
    if (v !== v) r = nanRank;
    else {
      // The first distinct value not below v: v itself (-0 finds 0 and 0 finds -0; a NaN at the
      // end is never below anything).
      let lo = 0;
      let hi = d;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if (distinct[mid] < v) lo = mid + 1;
        else hi = mid;
      }
      r = lo;
    }
    ranks[i] = (ascending ? r : d - 1 - r) + shift;
  }
}

/** Runs every path once on a few rows when the module loads (see the note above rankHistogram). */
function primeRankLoops(): void {
  const type = { id: 'varchar' } as VarcharColumn['type'];
  const text: VarcharColumn = { kind: 'varchar', type, length: 3, validity: Uint8Array.of(0b101), offsets: Int32Array.of(0, 1, 1, 3), data: Uint8Array.of(98, 97, 98) };
  const numbers = { kind: 'fixed', type: { id: 'double' }, length: 3, validity: null, values: Float64Array.of(2.5, NaN, -1) } as unknown as Column;
  const integers = { kind: 'fixed', type: { id: 'double' }, length: 3, validity: Uint8Array.of(0b011), values: Float64Array.of(3, -0, 7) } as unknown as Column;
  const page: Page = { length: 3, columns: [text, numbers, integers] };
  for (const ascending of [true, false]) {
    sortedIndices(page, [0, 1, 2].map((index) => ({ index, ascending, nullsFirst: !ascending })));
  }
}
primeRankLoops();
