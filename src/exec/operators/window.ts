// Window functions: gathers its input, and for each function sorts row indices by (partition keys,
// order keys), walks the partitions and computes one value per row — ranking, offsets (lag/lead),
// first/last/nth value and aggregates over ROWS or RANGE frames (in time linear or n log n in the
// partition: window-frames.ts). Output: the input rows with one column appended per function.

import type { Column, Page } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import { roundHalfUp } from '../../data/values.js';
import { columnFromNumbers, columnFromStrings } from '../build-columns.js';
import { isStringColumn, nullFlags, numericValues, stringValues } from '../column-readers.js';
import { concatPages } from '../concat.js';
import { emptyOperatorStats, nowNanos, recordInput, recordOutput, type OperatorStats } from '../metrics.js';
import type { WindowFunctionSpec } from '../specs.js';
import { sortedIndices } from '../sort-ranks.js';
import { frameExtremes, frameSums, partitionExtreme, partitionSum } from './window-frames.js';
import type { Operator, PageSink } from './operator.js';

/** Functions that read peer groups (rows with equal order keys). */
const PEER_FUNCTIONS = new Set(['rank', 'dense_rank', 'percent_rank', 'cume_dist']);

type Values = { nums: Float64Array | null; strs: string[] | null; nulls: Uint8Array | null };

function read(col: Column | undefined): Values {
  if (!col) return { nums: null, strs: null, nulls: null };
  const strings = isStringColumn(col);
  return { nums: strings ? null : numericValues(col), strs: strings ? stringValues(col) : null, nulls: nullFlags(col) };
}

/** Equality of two rows on some key columns (NULLs equal), for partition and peer boundaries. */
function sameKeys(keys: readonly Values[], a: number, b: number): boolean {
  for (const k of keys) {
    const an = k.nulls !== null && k.nulls[a] === 1;
    const bn = k.nulls !== null && k.nulls[b] === 1;
    if (an !== bn) return false;
    if (an) continue;
    if (k.nums ? k.nums[a] !== k.nums[b] && !(Number.isNaN(k.nums[a]) && Number.isNaN(k.nums[b])) : (k.strs as string[])[a] !== (k.strs as string[])[b]) return false;
  }
  return true;
}

export class WindowOperator implements Operator {
  readonly stats: OperatorStats;
  private readonly pages: Page[] = [];

  constructor(
    operatorId: number,
    private readonly functions: readonly WindowFunctionSpec[],
    private readonly types: readonly SqlType[],
    private readonly next: PageSink,
  ) {
    this.stats = emptyOperatorStats(operatorId, 'WindowOperator');
  }

  addInput(page: Page): void {
    recordInput(this.stats, page);
    this.pages.push(page);
    this.stats.peakMemoryBytes = Math.max(this.stats.peakMemoryBytes, this.stats.inputBytes);
  }

  finish(): void {
    const start = nowNanos();
    this.stats.finishCalls++;
    if (this.pages.length === 0) return;
    const all = concatPages(this.pages, this.types);
    this.pages.length = 0;
    const columns = [...all.columns, ...this.functions.map((f) => this.compute(all, f))];
    const out: Page = { length: all.length, columns };
    this.stats.finishNanos += nowNanos() - start;
    recordOutput(this.stats, out);
    this.next(out);
  }

  isDone(): boolean {
    return false;
  }

  private compute(page: Page, f: WindowFunctionSpec): Column {
    const n = page.length;
    const sortKeys = [...f.partitionBy.map((index) => ({ index, ascending: true, nullsFirst: false })), ...f.orderBy];
    let perm: Int32Array;
    if (sortKeys.length) perm = sortedIndices(page, sortKeys);
    else {
      perm = new Int32Array(n);
      for (let i = 0; i < n; i++) perm[i] = i;
    }
    const partKeys = f.partitionBy.map((c) => read(page.columns[c]));
    const orderKeys = f.orderBy.map((k) => read(page.columns[k.index]));
    const arg = read(page.columns[f.args[0]]);
    const stringResult = f.type.id === 'varchar';
    const outNums = new Float64Array(n);
    const outStrs: (string | null)[] = stringResult ? new Array(n).fill(null) : [];
    const outNulls = new Uint8Array(n);
    const set = (row: number, from: number | null): void => {
      // Copies the argument of row `from` (or NULL) into the result of `row`.
      if (from === null || (arg.nulls !== null && arg.nulls[from] === 1)) outNulls[row] = 1;
      else if (stringResult) outStrs[row] = (arg.strs as string[])[from];
      else outNums[row] = (arg.nums as Float64Array)[from];
    };
    const setLiteral = (row: number, v: number | string | boolean | null): void => {
      if (v === null) outNulls[row] = 1;
      else if (stringResult) outStrs[row] = String(v);
      else outNums[row] = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
    };

    const { unit, start, end } = f.frame;
    const needsPeers = PEER_FUNCTIONS.has(f.name) || (unit === 'range' && (start.kind === 'currentRow' || end.kind === 'currentRow'));
    let ps = 0;
    while (ps < n) {
      let pe = ps + 1;
      while (pe < n && sameKeys(partKeys, perm[ps], perm[pe])) pe++;
      // Peer groups (equal order keys) within the partition, for the functions that read them.
      const peerStart = new Int32Array(needsPeers ? pe - ps : 0);
      const peerEnd = new Int32Array(needsPeers ? pe - ps : 0);
      for (let i = ps; needsPeers && i < pe; ) {
        let j = i + 1;
        while (j < pe && sameKeys(orderKeys, perm[i], perm[j])) j++;
        for (let k = i; k < j; k++) {
          peerStart[k - ps] = i;
          peerEnd[k - ps] = j - 1;
        }
        i = j;
      }
      this.partition(f, perm, ps, pe, peerStart, peerEnd, arg, set, setLiteral, outNums, outNulls);
      ps = pe;
    }
    return stringResult ? columnFromStrings(f.type, outStrs, n) : columnFromNumbers(f.type, outNums, outNulls, n);
  }

  private partition(
    f: WindowFunctionSpec,
    perm: Int32Array,
    ps: number,
    pe: number,
    peerStart: Int32Array,
    peerEnd: Int32Array,
    arg: Values,
    set: (row: number, from: number | null) => void,
    setLiteral: (row: number, v: number | string | boolean | null) => void,
    out: Float64Array,
    outNulls: Uint8Array,
  ): void {
    const size = pe - ps;
    switch (f.name) {
      case 'row_number':
        for (let i = ps; i < pe; i++) out[perm[i]] = i - ps + 1;
        return;
      case 'rank':
        for (let i = ps; i < pe; i++) out[perm[i]] = peerStart[i - ps] - ps + 1;
        return;
      case 'dense_rank': {
        let rank = 0;
        for (let i = ps; i < pe; i++) {
          if (i === ps || peerStart[i - ps] === i) rank++;
          out[perm[i]] = rank;
        }
        return;
      }
      case 'percent_rank':
        for (let i = ps; i < pe; i++) out[perm[i]] = size === 1 ? 0 : (peerStart[i - ps] - ps) / (size - 1);
        return;
      case 'cume_dist':
        for (let i = ps; i < pe; i++) out[perm[i]] = (peerEnd[i - ps] - ps + 1) / size;
        return;
      case 'ntile': {
        const buckets = Number(f.params[0]);
        const base = Math.floor(size / buckets);
        const extra = size % buckets;
        for (let i = ps; i < pe; i++) {
          const r = i - ps;
          // The first `extra` buckets hold one row more.
          const big = extra * (base + 1);
          out[perm[i]] = r < big ? Math.floor(r / (base + 1)) + 1 : extra + Math.floor((r - big) / Math.max(1, base)) + 1;
        }
        return;
      }
      case 'lag':
      case 'lead': {
        const offset = f.params[0] === null || f.params[0] === undefined ? 1 : Number(f.params[0]);
        const dflt = f.params[1];
        for (let i = ps; i < pe; i++) {
          const j = f.name === 'lag' ? i - offset : i + offset;
          if (j >= ps && j < pe) set(perm[i], perm[j]);
          else setLiteral(perm[i], dflt ?? null);
        }
        return;
      }
      default:
        break;
    }
    // Frame-based functions.
    const { unit, start, end } = f.frame;
    /** Position of frame bound `b` for the row at position i (before clamping to the partition). */
    const bound = (b: typeof start, i: number, isStart: boolean): number => {
      switch (b.kind) {
        case 'unboundedPreceding':
          return ps;
        case 'unboundedFollowing':
          return pe - 1;
        case 'currentRow':
          return unit === 'range' ? (isStart ? peerStart[i - ps] : peerEnd[i - ps]) : i;
        case 'preceding':
          return i - b.offset;
        case 'following':
          return i + b.offset;
      }
    };
    const frameStart = (i: number): number => Math.max(ps, bound(start, i, true));
    const frameEnd = (i: number): number => Math.min(pe - 1, bound(end, i, false));
    const valueAt = (k: number): number | null => {
      const row = perm[k];
      if (arg.nulls !== null && arg.nulls[row] === 1) return null;
      return arg.nums ? arg.nums[row] : null;
    };
    const name = f.name;
    if (name === 'first_value' || name === 'last_value' || name === 'nth_value') {
      for (let i = ps; i < pe; i++) {
        const a = frameStart(i);
        const b = frameEnd(i);
        const nth = name === 'nth_value' ? Number(f.params[0]) : 1;
        const k = name === 'first_value' ? a : name === 'last_value' ? b : a + nth - 1;
        set(perm[i], a <= b && k <= b && k >= a ? perm[k] : null);
      }
      return;
    }
    // Aggregates over the frame (window-frames.ts): over the whole partition once, else linear or
    // n log n in the partition.
    const input = { perm, nums: arg.nums, strs: arg.strs, nulls: arg.nulls };
    const whole = start.kind === 'unboundedPreceding' && end.kind === 'unboundedFollowing';
    if (whole && (name === 'min' || name === 'max')) {
      const best = partitionExtreme(name, input, ps, pe);
      for (let i = ps; i < pe; i++) set(perm[i], best < 0 ? null : best);
      return;
    }
    if (name !== 'min' && name !== 'max' && name !== 'count' && name !== 'count_star' && name !== 'sum' && name !== 'avg') throw new Error(`unknown window function ${name}`);
    const starts = new Int32Array(whole ? 0 : size);
    const ends = new Int32Array(whole ? 0 : size);
    for (let i = ps; !whole && i < pe; i++) {
      starts[i - ps] = frameStart(i);
      ends[i - ps] = frameEnd(i);
    }
    if (name === 'min' || name === 'max') {
      const best = frameExtremes(name, input, ps, pe, starts, ends);
      for (let i = ps; i < pe; i++) set(perm[i], best[i - ps] < 0 ? null : best[i - ps]);
      return;
    }
    const total = whole ? partitionSum(input, name === 'count_star', ps, pe) : undefined;
    const frames = whole ? undefined : frameSums(input, name === 'count_star', ps, pe, starts, ends, start.kind === 'unboundedPreceding');
    for (let i = ps; i < pe; i++) {
      const row = perm[i];
      const count = total ? total.count : (frames as { counts: Float64Array }).counts[i - ps];
      const sum = total ? total.sum : (frames as { sums: Float64Array }).sums[i - ps];
      if (name === 'count' || name === 'count_star') out[row] = count;
      else if (count === 0) outNulls[row] = 1;
      else if (name === 'sum') out[row] = sum;
      else out[row] = f.type.id === 'decimal' ? roundHalfUp(sum / count) : sum / count;
    }
  }
}
