// ORDER BY (and top-N when a limit is given): gathers its input, sorts row indices by the keys,
// and emits the rows in order. Trino's default: NULLs last in both directions unless stated.

import type { Page } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import type { SortKey } from '../../sql/plan.js';
import { isStringColumn, nullFlags, numericValues, stringValues } from '../column-readers.js';
import { concatPages } from '../concat.js';
import { gatherColumn } from '../gather.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink } from './operator.js';

export class OrderByOperator implements Operator {
  readonly stats: OperatorStats;
  private readonly pages: Page[] = [];
  private rows = 0;
  private bytes = 0;

  constructor(
    operatorId: number,
    private readonly keys: readonly SortKey[],
    private readonly limit: number | null,
    private readonly types: readonly SqlType[],
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, limit === null ? 'OrderByOperator' : 'TopNOperator');
  }

  addInput(page: Page): void {
    recordInput(this.stats, page);
    this.pages.push(page);
    this.rows += page.length;
    this.bytes = this.stats.inputBytes;
    this.stats.peakMemoryBytes = Math.max(this.stats.peakMemoryBytes, this.bytes);
  }

  finish(): void {
    const start = nowNanos();
    this.stats.finishCalls++;
    if (this.rows === 0) return;
    const all = concatPages(this.pages, this.types);
    this.pages.length = 0;
    const n = all.length;
    const count = this.limit === null ? n : Math.min(n, this.limit);
    const perm = count * TOP_N_HEAP_RATIO < n ? topIndices(all, this.keys, count) : sortedIndices(all, this.keys);
    const out: Page = { length: count, columns: all.columns.map((c) => gatherColumn(c, perm, count)) };
    this.stats.finishNanos += nowNanos() - start;
    recordOutput(this.stats, out);
    this.next(out);
  }

  isDone(): boolean {
    return false;
  }
}

/** A top-N keeps its best rows in a heap (n log N comparisons) while N is this many times fewer than the rows. */
const TOP_N_HEAP_RATIO = 8;

/**
 * The first `count` rows in the keys' order (ties in input order), without ordering the rest: a
 * heap of the best rows so far, its worst on top (Q3's top 10 of 11k groups: ~0.2 ms instead of
 * ranking and sorting every row, ~4 ms).
 */
export function topIndices(page: Page, keys: readonly SortKey[], count: number): Int32Array {
  const n = page.length;
  const compare = rowComparator(page, keys);
  const heap = new Int32Array(count);
  let size = 0;
  // Sift the row at `k` down (worse rows rise: the top is the worst kept).
  const siftDown = (k: number): void => {
    const row = heap[k];
    for (;;) {
      const left = 2 * k + 1;
      if (left >= size) break;
      const right = left + 1;
      const worse = right < size && compare(heap[right], heap[left]) > 0 ? right : left;
      if (compare(heap[worse], row) <= 0) break;
      heap[k] = heap[worse];
      k = worse;
    }
    heap[k] = row;
  };
  for (let i = 0; i < n; i++) {
    if (size < count) {
      // Sift up.
      let k = size++;
      while (k > 0) {
        const parent = (k - 1) >> 1;
        if (compare(heap[parent], i) >= 0) break;
        heap[k] = heap[parent];
        k = parent;
      }
      heap[k] = i;
    } else if (count > 0 && compare(i, heap[0]) < 0) {
      heap[0] = i;
      siftDown(0);
    }
  }
  return Int32Array.from(heap.subarray(0, size)).sort(compare);
}

/** Compares two rows by the keys, then by position (input order breaks ties). */
function rowComparator(page: Page, keys: readonly SortKey[]): (a: number, b: number) => number {
  const n = page.length;
  const byKey = keys.map((key): ((a: number, b: number) => number) => {
    const col = page.columns[key.index];
    if (col.kind !== 'fixed') {
      const { ranks } = keyRanks(page, key, n);
      return (a, b) => ranks[a] - ranks[b];
    }
    const v = numericValues(col);
    const nulls = nullFlags(col);
    const sign = key.ascending ? 1 : -1;
    return (a, b) => {
      if (nulls !== null && (nulls[a] === 1 || nulls[b] === 1)) {
        if (nulls[a] === nulls[b]) return 0;
        return (nulls[a] === 1) === key.nullsFirst ? -1 : 1;
      }
      const x = v[a];
      const y = v[b];
      // NaN above every number; -0 equal to 0.
      if (x !== x || y !== y) return x !== x && y !== y ? 0 : sign * (x !== x ? 1 : -1);
      return x < y ? -sign : x > y ? sign : 0;
    };
  });
  return (a, b) => {
    for (let k = 0; k < byKey.length; k++) {
      const c = byKey[k](a, b);
      if (c !== 0) return c;
    }
    return a - b;
  };
}

/**
 * Row order for the sort keys: each key becomes dense ranks (direction and NULL placement applied),
 * and when all ranks and the row index fit one exact double the rows sort as plain numbers (the
 * engine's native numeric sort); otherwise by comparing rank arrays. Ties keep input order.
 */
export function sortedIndices(page: Page, keys: readonly SortKey[]): Int32Array {
  const n = page.length;
  const ranks = keys.map((k) => keyRanks(page, k, n));
  let span = n;
  for (const r of ranks) span *= r.count;
  const perm = new Int32Array(n);
  if (span < Number.MAX_SAFE_INTEGER) {
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      let x = 0;
      for (const r of ranks) x = x * r.count + r.ranks[i];
      packed[i] = x * n + i;
    }
    packed.sort();
    for (let j = 0; j < n; j++) perm[j] = packed[j] % n;
    return perm;
  }
  for (let i = 0; i < n; i++) perm[i] = i;
  perm.sort((a, b) => {
    for (const r of ranks) {
      const c = r.ranks[a] - r.ranks[b];
      if (c !== 0) return c;
    }
    return a - b;
  });
  return perm;
}

/** Ranks 0..count-1 of one sort key per row, in the key's order (direction, NULLs first or last). */
function keyRanks(page: Page, key: SortKey, n: number): { ranks: Int32Array; count: number } {
  const col = page.columns[key.index];
  const nulls = nullFlags(col);
  const hasNull = nulls !== null && nulls.includes(1);
  if (col.kind !== 'dict') return valueRanks(isStringColumn(col) ? stringValues(col) : numericValues(col), nulls, hasNull, key);
  // A dictionary's strings are ranked once and rows take their entry's rank (equal strings share
  // one), without decoding a string per row.
  const entries = valueRanks(stringValues(col.dictionary), null, hasNull, key);
  const ranks = new Int32Array(n);
  for (let i = 0; i < n; i++) ranks[i] = nulls !== null && nulls[i] === 1 ? entries.nullRank : entries.ranks[col.indices[i]];
  return { ranks, count: entries.count };
}

/**
 * Dense ranks of `values` (NULL where `nulls` says) in the key's order; `hasNull` places the NULL
 * rank first or last (and counts it) even when these values hold none.
 */
function valueRanks(values: ArrayLike<number> | readonly string[], nulls: Uint8Array | null, hasNull: boolean, key: SortKey): { ranks: Int32Array; count: number; nullRank: number } {
  const n = values.length;
  if (n > 0 && typeof values[0] === 'number') return numberRanks(values as ArrayLike<number>, nulls, hasNull, key);
  // Map keys compare as SameValueZero: -0 and 0 are one value, and so is NaN.
  const rank = new Map<number | string, number>();
  for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) rank.set(values[i], 0);
  const distinct: (number | string)[] =
    typeof values[0] === 'string'
      ? [...rank.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0))
      : // Numeric order with NaN above every other value, as in Trino.
        Array.from(Float64Array.from(rank.keys() as Iterable<number>).sort());
  const d = distinct.length;
  // NULLs take rank 0 (first) or d (last); values shift by one when NULLs come first.
  const shift = hasNull && key.nullsFirst ? 1 : 0;
  distinct.forEach((v, r) => rank.set(v, (key.ascending ? r : d - 1 - r) + shift));
  const nullRank = key.nullsFirst ? 0 : d;
  const ranks = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] === 1) ranks[i] = nullRank;
    else ranks[i] = rank.get(values[i]) as number;
  }
  return { ranks, count: d + (hasNull ? 1 : 0), nullRank };
}

/**
 * valueRanks of numbers: the values sorted natively and made distinct, each row's rank found by
 * binary search (Q3's top 10 of 11k revenues: a Map of every value was ~100 ns a row). -0 and 0
 * are one value, every NaN one value above all others (Float64Array's sort puts them last).
 */
function numberRanks(values: ArrayLike<number>, nulls: Uint8Array | null, hasNull: boolean, key: SortKey): { ranks: Int32Array; count: number; nullRank: number } {
  const n = values.length;
  const sorted = new Float64Array(n);
  let m = 0;
  for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) sorted[m++] = values[i];
  const distinct = sorted.subarray(0, m).sort();
  let d = 0;
  for (let i = 0; i < m; i++) {
    const v = distinct[i];
    const prev = d > 0 ? distinct[d - 1] : 0;
    if (d === 0 || !(v === prev || (v !== v && prev !== prev))) distinct[d++] = v;
  }
  const nanRank = d > 0 && distinct[d - 1] !== distinct[d - 1] ? d - 1 : -1;
  const shift = hasNull && key.nullsFirst ? 1 : 0;
  const nullRank = key.nullsFirst ? 0 : d;
  const ranks = new Int32Array(n);
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
    ranks[i] = (key.ascending ? r : d - 1 - r) + shift;
  }
  return { ranks, count: d + (hasNull ? 1 : 0), nullRank };
}
