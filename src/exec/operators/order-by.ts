// ORDER BY (and top-N when a limit is given): gathers its input, sorts row indices by the keys,
// and emits the rows in order. Trino's default: NULLs last in both directions unless stated.

import { readUtf8, type Page, type VarcharColumn } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import type { SortKey } from '../../sql/plan.js';
import { nullFlags, numericValues } from '../column-readers.js';
import { keyRanks, sortedIndices } from '../sort-ranks.js';
import { concatPages } from '../concat.js';
import { gatherColumn } from '../gather.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { Operator, PageSink } from './operator.js';
import { checkpoint } from '../query-control.js';

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
    checkpoint();
    const n = all.length;
    const count = this.limit === null ? n : Math.min(n, this.limit);
    const perm = count * TOP_N_HEAP_RATIO < n ? topIndices(all, this.keys, count) : sortedIndices(all, this.keys);
    checkpoint();
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
    const nulls = nullFlags(col);
    const sign = key.ascending ? 1 : -1;
    // A NULL against anything: NULLs first or last, whatever the direction.
    const nullOrder = (a: number, b: number): number => (nulls![a] === nulls![b] ? 0 : (nulls![a] === 1) === key.nullsFirst ? -1 : 1);
    if (col.kind === 'varchar') {
      // Rows compared on their bytes: ranking every row first sorts all the distinct strings
      // (150k customer names: 270 ms for a top 5), where most rows lose to the heap's top at once.
      return (a, b) => (nulls !== null && (nulls[a] === 1 || nulls[b] === 1) ? nullOrder(a, b) : sign * compareUtf8Rows(col, a, b));
    }
    if (col.kind !== 'fixed') {
      const { ranks } = keyRanks(page, key, n);
      return (a, b) => ranks[a] - ranks[b];
    }
    const v = numericValues(col);
    return (a, b) => {
      if (nulls !== null && (nulls[a] === 1 || nulls[b] === 1)) return nullOrder(a, b);
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
 * Rows a and b of a varchar column in the order keyRanks sorts strings (JavaScript's, by UTF-16
 * units), read from their UTF-8 bytes: the bytes' order is the same except where the first
 * characters that differ are at U+E000 or above (lead byte 0xEE or more), which are decoded and
 * compared as strings.
 */
function compareUtf8Rows(col: VarcharColumn, a: number, b: number): number {
  const { offsets, data } = col;
  const startA = offsets[a];
  const endA = offsets[a + 1];
  const startB = offsets[b];
  const endB = offsets[b + 1];
  const common = Math.min(endA - startA, endB - startB);
  for (let k = 0; k < common; k++) {
    const x = data[startA + k];
    const y = data[startB + k];
    if (x === y) continue;
    // The differing characters start where the identical prefix's last lead byte is.
    let lead = k;
    while (lead > 0 && (data[startA + lead] & 0xc0) === 0x80) lead--;
    if (data[startA + lead] >= 0xee || data[startB + lead] >= 0xee) {
      const s = readUtf8(col, a);
      const t = readUtf8(col, b);
      return s < t ? -1 : s > t ? 1 : 0;
    }
    return x < y ? -1 : 1;
  }
  return endA - startA === endB - startB ? 0 : endA - startA < endB - startB ? -1 : 1;
}
