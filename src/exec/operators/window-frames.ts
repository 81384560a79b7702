// Aggregates over window frames in time linear (min/max, running sums) or n log n (sliding sums)
// in the partition, for any ROWS or RANGE frame of window.ts: as the current row moves forward
// both frame bounds only move forward, so min/max keep a monotonic queue of candidates and sums
// read prefix sums (frames from the partition's start) or a segment tree (other frames, whose
// prefix-sum differences would cancel digits of a double).

/** A partition's argument values, by row number (perm maps partition positions to rows). */
export interface FrameInput {
  readonly perm: Int32Array;
  readonly nums: Float64Array | null;
  readonly strs: string[] | null;
  readonly nulls: Uint8Array | null;
}

/**
 * Per partition position i in [ps, pe): the row (not position) holding the frame's min or max,
 * -1 when the frame has no non-NULL value. Frames are [starts[i - ps], ends[i - ps]] in positions,
 * empty when start > end; both bounds never decrease with i. Doubles order NaN above every
 * number (as ORDER BY and the min/max aggregates do).
 */
export function frameExtremes(kind: 'min' | 'max', input: FrameInput, ps: number, pe: number, starts: Int32Array, ends: Int32Array): Int32Array {
  const { perm, nulls } = input;
  const beats = comparator(kind, input);
  const size = pe - ps;
  const result = new Int32Array(size);
  // Candidate positions, their values strictly worsening from head to tail.
  const queue = new Int32Array(size);
  let head = 0;
  let tail = 0;
  let next = ps;
  for (let i = 0; i < size; i++) {
    const a = starts[i];
    const b = ends[i];
    for (; next <= b; next++) {
      const row = perm[next];
      if (nulls !== null && nulls[row] === 1) continue;
      while (tail > head && !beats(perm[queue[tail - 1]], row)) tail--;
      queue[tail++] = next;
    }
    while (tail > head && queue[head] < a) head++;
    result[i] = a <= b && tail > head ? perm[queue[head]] : -1;
  }
  return result;
}

/** Whether row x's value beats row y's (strictly): then y can never be the answer while x is in the frame. */
function comparator(kind: 'min' | 'max', { nums, strs }: FrameInput): (x: number, y: number) => boolean {
  const max = kind === 'max';
  return (x, y) => {
    if (strs) return max ? strs[x] > strs[y] : strs[x] < strs[y];
    const vx = (nums as Float64Array)[x];
    const vy = (nums as Float64Array)[y];
    if (max) return vx > vy || (vx !== vx && vy === vy);
    return vx < vy || (vy !== vy && vx === vx);
  };
}

/** The row holding the min or max of a whole partition (one frame for all its rows), -1 when all are NULL. */
export function partitionExtreme(kind: 'min' | 'max', input: FrameInput, ps: number, pe: number): number {
  const { perm, nulls } = input;
  const beats = comparator(kind, input);
  let best = -1;
  for (let k = ps; k < pe; k++) {
    const row = perm[k];
    if (nulls !== null && nulls[row] === 1) continue;
    if (best < 0 || beats(row, best)) best = row;
  }
  return best;
}

/** The sum and count of a whole partition's non-NULL values (count_star: of its rows), added in row order. */
export function partitionSum(input: FrameInput, countStar: boolean, ps: number, pe: number): { sum: number; count: number } {
  const { perm, nums, nulls } = input;
  if (countStar) return { sum: 0, count: pe - ps };
  let sum = 0;
  let count = 0;
  for (let k = ps; k < pe; k++) {
    const row = perm[k];
    if (nulls !== null && nulls[row] === 1) continue;
    if (nums !== null) sum += nums[row];
    count++;
  }
  return { sum, count };
}

/**
 * Per partition position: the sum and the count of the non-NULL values in its frame (count_star:
 * of the rows). Frames as for frameExtremes.
 */
export function frameSums(input: FrameInput, countStar: boolean, ps: number, pe: number, starts: Int32Array, ends: Int32Array, fromPartitionStart: boolean): { sums: Float64Array; counts: Float64Array } {
  const { perm, nums, nulls } = input;
  const size = pe - ps;
  const values = new Float64Array(size);
  const prefixCount = new Float64Array(size + 1);
  for (let k = 0; k < size; k++) {
    const row = perm[ps + k];
    const present = countStar || nulls === null || nulls[row] === 0;
    if (present && nums !== null && !countStar) values[k] = nums[row];
    prefixCount[k + 1] = prefixCount[k] + (present ? 1 : 0);
  }
  const sums = new Float64Array(size);
  const counts = new Float64Array(size);
  const sumOf = fromPartitionStart ? prefixSummer(values) : treeSummer(values);
  for (let i = 0; i < size; i++) {
    const a = starts[i] - ps;
    const b = ends[i] - ps;
    if (a > b) continue;
    counts[i] = prefixCount[b + 1] - prefixCount[a];
    sums[i] = sumOf(a, b);
  }
  return { sums, counts };
}

/** Sums of [0, b] (a is always 0): a running total, added in row order. */
function prefixSummer(values: Float64Array): (a: number, b: number) => number {
  const prefix = new Float64Array(values.length + 1);
  for (let k = 0; k < values.length; k++) prefix[k + 1] = prefix[k] + values[k];
  return (_a, b) => prefix[b + 1];
}

/** Sums of any [a, b] from a segment tree: each a sum of O(log n) partial sums, no subtraction. */
function treeSummer(values: Float64Array): (a: number, b: number) => number {
  const m = values.length;
  const tree = new Float64Array(2 * m);
  tree.set(values, m);
  for (let k = m - 1; k > 0; k--) tree[k] = tree[2 * k] + tree[2 * k + 1];
  return (a, b) => {
    let sum = 0;
    for (let l = a + m, r = b + m + 1; l < r; l >>= 1, r >>= 1) {
      if (l & 1) sum += tree[l++];
      if (r & 1) sum += tree[--r];
    }
    return sum;
  };
}
