// Aggregate functions as descriptors over typed-array state indexed by group id: each knows its
// intermediate (partial) state columns, how to update from raw rows, merge states, and finalize.

import { allocShared, readBit, type Column, type VarcharColumn } from '../data/page.js';
import { BIGINT, BOOLEAN, DOUBLE, decimal, MAX_DECIMAL_PRECISION, UNKNOWN, type SqlType } from '../data/types.js';
import { roundHalfUp } from '../data/values.js';
import type { AggregateSpec } from './specs.js';
import { EngineError } from '../util/engine-error.js';
import { anyValues, isStringColumn, nullFlags, numericValues, stringValues } from './column-readers.js';
import { columnFromNumbers, columnFromStrings } from './build-columns.js';
import { DistinctPairs } from './distinct-pairs.js';

export interface Accumulator {
  /** Raw input: argument columns (already filtered by `mask` when a FILTER clause applies); group ids are below `groupCount`. */
  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void;
  /** Intermediate input: this aggregate's state columns from a partial step. */
  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void;
  intermediate(groupCount: number): Column[];
  final(groupCount: number): Column;
  memoryBytes(): number;
  /**
   * For a fused update loop (fused-aggregation.ts): this accumulator's per-row operation and its state
   * arrays sized for `groupCount`, or undefined when it has no fused form.
   */
  fused?(groupCount: number): FusedPart | undefined;
}

/** One aggregate's part of a fused raw update (see fused-aggregation.ts). */
export interface FusedPart {
  /** count_star: n[g]++; count: n[g]++ for non-NULL; sum: v[g] += x, e[g] = 0; avg: v[g] += x, n[g]++. */
  readonly op: 'count_star' | 'count' | 'sum' | 'avg';
  /** count*: [counts]; sum: [values, empty flags]; avg: [sums, counts]. */
  readonly states: readonly (Float64Array | Uint8Array)[];
}

export function intermediateTypes(spec: AggregateSpec): SqlType[] {
  switch (spec.name) {
    case 'count':
    case 'count_star':
      return [BIGINT];
    case 'sum':
      return [spec.type];
    case 'avg':
      return spec.type.id === 'decimal' ? [decimal(MAX_DECIMAL_PRECISION, spec.type.scale ?? 0), BIGINT] : [DOUBLE, BIGINT];
    case 'bool_and':
    case 'bool_or':
      return [BOOLEAN];
    case 'min':
    case 'max':
    case 'arbitrary':
      return [spec.type];
    case 'var_samp':
    case 'var_pop':
    case 'stddev_samp':
    case 'stddev_pop':
      return [BIGINT, DOUBLE, DOUBLE];
    case 'covar_samp':
    case 'covar_pop':
    case 'corr':
    case 'regr_slope':
    case 'regr_intercept':
      // count, mean of y, mean of x, co-moment, M2 of y, M2 of x (CovarianceAccumulator).
      return [BIGINT, DOUBLE, DOUBLE, DOUBLE, DOUBLE, DOUBLE];
    case 'max_by':
    case 'min_by':
      // The chosen row's value and its key (NULL key: nothing chosen yet).
      return [spec.type, spec.keyType ?? UNKNOWN];
    case 'approx_percentile':
    case 'listagg':
      // Never split into steps (needsAllRows).
      return [spec.type];
  }
}

class Growable {
  values = new Float64Array(64);
  /** 1 = no value yet (NULL) */
  empty = new Uint8Array(64).fill(1);

  ensure(n: number): void {
    if (n <= this.values.length) return;
    let size = this.values.length;
    while (size < n) size *= 2;
    const v = new Float64Array(size);
    v.set(this.values);
    const e = new Uint8Array(size).fill(1);
    e.set(this.empty);
    this.values = v;
    this.empty = e;
  }
}

class CountAccumulator implements Accumulator {
  private readonly counts = new Growable();

  constructor(private readonly star: boolean) {}

  fused(groupCount: number): FusedPart {
    this.counts.ensure(groupCount);
    return { op: this.star ? 'count_star' : 'count', states: [this.counts.values] };
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    this.counts.ensure(groupCount);
    const c = this.counts.values;
    const nulls = this.star ? null : nullFlags(args[0]);
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      c[groups[i]]++;
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.counts.ensure(groupCount);
    const c = this.counts.values;
    const v = numericValues(states[0]);
    for (let i = 0; i < n; i++) c[groups[i]] += v[i];
  }

  intermediate(groupCount: number): Column[] {
    return [this.final(groupCount)];
  }

  final(groupCount: number): Column {
    this.counts.ensure(groupCount);
    return columnFromNumbers(BIGINT, this.counts.values, null, groupCount);
  }

  memoryBytes(): number {
    return this.counts.values.byteLength * 1.125;
  }
}

/**
 * Per-group double sums whose merges are compensated (Neumaier). A driver sums its own split in a
 * fixed order, but partial states reach the final step in whatever order workers finish, and plain
 * float addition would make the total depend on that order: a query comparing a sum with itself
 * (Q15's `total_revenue = max(total_revenue)`) would then fail at random. Merged compensated, the
 * total is the exactly rounded sum of the partials, whatever their order (all but pathological cases).
 */
class CompensatedSums {
  readonly sums = new Growable();
  private comp = new Float64Array(64);

  ensure(n: number): void {
    this.sums.ensure(n);
    if (this.comp.length < this.sums.values.length) {
      const c = new Float64Array(this.sums.values.length);
      c.set(this.comp);
      this.comp = c;
    }
  }

  /**
   * Raw values in row order: plain addition (rows with mask 0 or NULL skipped). Aggregations that
   * can run fused do (fused-aggregation.ts); this loop serves FILTER clauses and aggregations
   * mixing sums with aggregates that have no fused form.
   */
  update(groups: Int32Array, n: number, v: ArrayLike<number>, nulls: Uint8Array | null, mask: Uint8Array | null): void {
    const values = this.sums.values;
    const empty = this.sums.empty;
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      const g = groups[i];
      values[g] += v[i];
      empty[g] = 0;
    }
  }

  /** A partial sum, in any order: compensated. Sums start at 0, so a group's first partial is exact. */
  merge(g: number, x: number): void {
    const s = this.sums;
    const a = s.values[g];
    const t = a + x;
    this.comp[g] += Math.abs(a) >= Math.abs(x) ? a - t + x : x - t + a;
    s.values[g] = t;
    s.empty[g] = 0;
  }

  total(g: number): number {
    const s = this.sums.values[g];
    // Past ±Infinity (or at NaN) the compensation means nothing.
    return Number.isFinite(s) ? s + this.comp[g] : s;
  }

  totals(groupCount: number): Float64Array {
    this.ensure(groupCount);
    const out = new Float64Array(groupCount);
    for (let g = 0; g < groupCount; g++) out[g] = this.total(g); // empty groups hold 0
    return out;
  }
}

/** sum over double (partial state: the sum). */
class DoubleSumAccumulator implements Accumulator {
  private readonly state = new CompensatedSums();

  fused(groupCount: number): FusedPart {
    this.state.ensure(groupCount);
    return { op: 'sum', states: [this.state.sums.values, this.state.sums.empty] };
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    this.state.ensure(groupCount);
    this.state.update(groups, n, numericValues(args[0]), nullFlags(args[0]), mask);
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.state.ensure(groupCount);
    const v = numericValues(states[0]);
    const nulls = nullFlags(states[0]);
    for (let i = 0; i < n; i++) if (nulls === null || nulls[i] === 0) this.state.merge(groups[i], v[i]);
  }

  intermediate(groupCount: number): Column[] {
    return [this.final(groupCount)];
  }

  final(groupCount: number): Column {
    return columnFromNumbers(DOUBLE, this.state.totals(groupCount), this.state.sums.empty, groupCount);
  }

  memoryBytes(): number {
    return this.state.sums.values.byteLength * 2.125;
  }
}

type NumericFold = 'sum' | 'min' | 'max' | 'and' | 'or' | 'first';

/** Growable.empty: no value yet (NULL). */
const EMPTY = 1;
/** Growable.empty of a min: only NaNs seen so far (the min is NaN unless a number comes). */
const EXTREME_NAN = 2;

/** A fixed-width column's values as numbers, read in place where one slot is one value. */
function plainNumbers(col: Column): ArrayLike<number> {
  if (col.kind === 'fixed' && (col.values instanceof Int32Array || col.values instanceof Float64Array) && col.type.id !== 'bigint' && col.type.id !== 'timestamp') return col.values;
  return numericValues(col);
}

/** sum/min/max/bool_and/bool_or/arbitrary over numbers: one value per group plus an empty flag. */
class NumericAccumulator implements Accumulator {
  private readonly state = new Growable();
  /** Groups whose slot extreme() has set to its identity. */
  private primedGroups = 0;

  constructor(
    private readonly fold: NumericFold,
    private readonly type: SqlType,
  ) {}

  fused(groupCount: number): FusedPart | undefined {
    if (this.fold !== 'sum') return undefined;
    this.state.ensure(groupCount);
    return { op: 'sum', states: [this.state.values, this.state.empty] };
  }

  /** One row into its group for the folds without a loop of their own (min/max: extreme()). */
  private apply(g: number, x: number): void {
    const s = this.state;
    if (s.empty[g] === EMPTY) {
      s.values[g] = x;
      s.empty[g] = 0;
      return;
    }
    switch (this.fold) {
      case 'sum':
        s.values[g] += x;
        break;
      case 'and':
        s.values[g] = s.values[g] && x ? 1 : 0;
        break;
      case 'or':
        s.values[g] = s.values[g] || x ? 1 : 0;
        break;
      case 'first':
        break;
    }
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    this.state.ensure(groupCount);
    const nulls = nullFlags(args[0]);
    if (this.fold === 'min' || this.fold === 'max') {
      const v = plainNumbers(args[0]);
      if (groupCount === 1) this.globalExtreme(n, v, mask, nulls, this.fold === 'max');
      else this.extreme(groups, n, v, mask, nulls, this.fold === 'max', groupCount);
      return;
    }
    const v = numericValues(args[0]);
    if (this.fold === 'sum' && mask === null && nulls === null) {
      const s = this.state;
      for (let i = 0; i < n; i++) {
        const g = groups[i];
        s.values[g] = s.empty[g] === EMPTY ? v[i] : s.values[g] + v[i];
        s.empty[g] = 0;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      this.apply(groups[i], v[i]);
    }
  }

  /**
   * min/max in a loop of their own (apply's per-row switch cost 14 ns a row: max(orderkey) over
   * 730k orders). A group's slot starts at the fold's identity (±Infinity) instead of being tested
   * for emptiness every row (2.8 → 1.6 ns a row). NaN orders above every number, as in ORDER BY
   * (and DuckDB): max is NaN once a NaN is seen; min is NaN only when every value is (EXTREME_NAN).
   */
  private extreme(groups: Int32Array, n: number, v: ArrayLike<number>, mask: Uint8Array | null, nulls: Uint8Array | null, max: boolean, groupCount: number): void {
    const values = this.state.values;
    const empty = this.state.empty;
    for (let g = this.primedGroups; g < groupCount; g++) if (empty[g] === EMPTY) values[g] = max ? -Infinity : Infinity;
    this.primedGroups = Math.max(this.primedGroups, groupCount);
    const all = mask === null && nulls === null;
    if (max) {
      for (let i = 0; i < n; i++) {
        if (!all && ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1))) continue;
        const g = groups[i];
        const x = v[i];
        const c = values[g];
        values[g] = x > c || x !== x ? x : c;
        empty[g] = 0;
      }
      return;
    }
    for (let i = 0; i < n; i++) {
      if (!all && ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1))) continue;
      const g = groups[i];
      const x = v[i];
      if (x !== x) {
        if (empty[g] === EMPTY) empty[g] = EXTREME_NAN;
        continue;
      }
      const c = values[g];
      values[g] = x < c ? x : c;
      empty[g] = 0;
    }
  }

  /** extreme() for a global aggregation (one group: every id is 0), the state in locals. */
  private globalExtreme(n: number, v: ArrayLike<number>, mask: Uint8Array | null, nulls: Uint8Array | null, max: boolean): void {
    let flag = this.state.empty[0];
    let best = flag === 0 ? this.state.values[0] : max ? -Infinity : Infinity;
    const all = mask === null && nulls === null;
    if (max) {
      for (let i = 0; i < n; i++) {
        if (!all && ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1))) continue;
        const x = v[i];
        if (x > best || x !== x) best = x;
        flag = 0;
      }
    } else {
      for (let i = 0; i < n; i++) {
        if (!all && ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1))) continue;
        const x = v[i];
        if (x !== x) {
          if (flag === EMPTY) flag = EXTREME_NAN;
        } else {
          if (x < best) best = x;
          flag = 0;
        }
      }
    }
    this.state.empty[0] = flag;
    if (flag === 0) this.state.values[0] = best;
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.update(groups, n, states, null, groupCount);
  }

  intermediate(groupCount: number): Column[] {
    return [this.final(groupCount)];
  }

  final(groupCount: number): Column {
    this.state.ensure(groupCount);
    const empty = this.state.empty;
    for (let g = 0; g < groupCount; g++) {
      if (empty[g] === EXTREME_NAN) {
        this.state.values[g] = NaN;
        empty[g] = 0;
      }
    }
    if (this.type.id === 'bigint') {
      for (let g = 0; g < groupCount; g++) {
        const v = this.state.values[g];
        if (this.state.empty[g] === 0 && !Number.isSafeInteger(v)) throw new EngineError('NUMERIC_VALUE_OUT_OF_RANGE', `bigint sum ${v} is beyond the exact range of this engine (2^53)`);
      }
    }
    let values: ArrayLike<number> = this.state.values;
    if (this.type.id === 'real') values = Float32Array.from(this.state.values.subarray(0, groupCount));
    return columnFromNumbers(this.type, values, this.state.empty, groupCount);
  }

  memoryBytes(): number {
    return this.state.values.byteLength * 1.125;
  }
}

class AverageAccumulator implements Accumulator {
  /** Double averages merge compensated (see CompensatedSums); decimal sums are exact scaled integers. */
  private readonly sums = new CompensatedSums();
  private readonly counts = new Growable();

  constructor(private readonly type: SqlType) {}

  private ensure(m: number): void {
    this.sums.ensure(m);
    this.counts.ensure(m);
  }

  fused(groupCount: number): FusedPart {
    this.ensure(groupCount);
    return { op: 'avg', states: [this.sums.sums.values, this.counts.values] };
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    this.ensure(groupCount);
    const v = numericValues(args[0]);
    const nulls = nullFlags(args[0]);
    // Sums start at 0 and the counts say which groups are empty: one plain loop.
    const s = this.sums.sums.values;
    const c = this.counts.values;
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      s[groups[i]] += v[i];
      c[groups[i]]++;
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.ensure(groupCount);
    const sv = numericValues(states[0]);
    const cv = numericValues(states[1]);
    const c = this.counts.values;
    for (let i = 0; i < n; i++) {
      this.sums.merge(groups[i], sv[i]);
      c[groups[i]] += cv[i];
    }
  }

  intermediate(groupCount: number): Column[] {
    this.ensure(groupCount);
    const sumType = this.type.id === 'decimal' ? decimal(MAX_DECIMAL_PRECISION, this.type.scale ?? 0) : DOUBLE;
    return [columnFromNumbers(sumType, this.sums.totals(groupCount), null, groupCount), columnFromNumbers(BIGINT, this.counts.values, null, groupCount)];
  }

  final(groupCount: number): Column {
    const sums = this.sums.totals(groupCount);
    this.counts.ensure(groupCount);
    const out = new Float64Array(groupCount);
    const nulls = new Uint8Array(groupCount);
    const decimalType = this.type.id === 'decimal';
    for (let g = 0; g < groupCount; g++) {
      const c = this.counts.values[g];
      if (c === 0) nulls[g] = 1;
      else out[g] = decimalType ? roundHalfUp(sums[g] / c) : sums[g] / c;
    }
    return columnFromNumbers(this.type, this.type.id === 'real' ? Float32Array.from(out) : out, nulls, groupCount);
  }

  memoryBytes(): number {
    return this.sums.sums.values.byteLength * 3.25;
  }
}

/** Variance and standard deviation: Welford's running (count, mean, M2), mergeable across workers. */
class VarianceAccumulator implements Accumulator {
  private readonly counts = new Growable();
  private readonly means = new Growable();
  private readonly m2s = new Growable();

  constructor(private readonly kind: 'var_samp' | 'var_pop' | 'stddev_samp' | 'stddev_pop') {}

  private ensure(n: number): void {
    this.counts.ensure(n);
    this.means.ensure(n);
    this.m2s.ensure(n);
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    this.ensure(groupCount);
    const v = numericValues(args[0]);
    const nulls = nullFlags(args[0]);
    const c = this.counts.values;
    const mean = this.means.values;
    const m2 = this.m2s.values;
    const scale = args[0].type.id === 'decimal' ? 10 ** (args[0].type.scale ?? 0) : 1;
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      const g = groups[i];
      const x = v[i] / scale;
      const count = ++c[g];
      const delta = x - mean[g];
      mean[g] += delta / count;
      m2[g] += delta * (x - mean[g]);
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.ensure(groupCount);
    const sc = numericValues(states[0]);
    const smean = numericValues(states[1]);
    const sm2 = numericValues(states[2]);
    const c = this.counts.values;
    const mean = this.means.values;
    const m2 = this.m2s.values;
    for (let i = 0; i < n; i++) {
      const g = groups[i];
      const nb = sc[i];
      if (nb === 0) continue;
      const na = c[g];
      const total = na + nb;
      const delta = smean[i] - mean[g];
      mean[g] += (delta * nb) / total;
      m2[g] += sm2[i] + (delta * delta * na * nb) / total;
      c[g] = total;
    }
  }

  intermediate(groupCount: number): Column[] {
    this.ensure(groupCount);
    return [columnFromNumbers(BIGINT, this.counts.values, null, groupCount), columnFromNumbers(DOUBLE, this.means.values, null, groupCount), columnFromNumbers(DOUBLE, this.m2s.values, null, groupCount)];
  }

  final(groupCount: number): Column {
    this.ensure(groupCount);
    const out = new Float64Array(groupCount);
    const nulls = new Uint8Array(groupCount);
    const sample = this.kind === 'var_samp' || this.kind === 'stddev_samp';
    for (let g = 0; g < groupCount; g++) {
      const c = this.counts.values[g];
      if (c === 0 || (sample && c < 2)) {
        nulls[g] = 1;
        continue;
      }
      const variance = this.m2s.values[g] / (sample ? c - 1 : c);
      out[g] = this.kind.startsWith('stddev') ? Math.sqrt(variance) : variance;
    }
    return columnFromNumbers(DOUBLE, out, nulls, groupCount);
  }

  memoryBytes(): number {
    return this.counts.values.byteLength * 3.5;
  }
}

/** A numeric argument's values as plain numbers (decimals unscaled). */
function plainValues(col: Column): Float64Array {
  const v = numericValues(col);
  if (col.type.id !== 'decimal') return v;
  const scale = 10 ** (col.type.scale ?? 0);
  const out = new Float64Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i] / scale;
  return out;
}

/**
 * covar_samp, covar_pop, corr, regr_slope and regr_intercept over (y, x): per group the count,
 * both means, the co-moment Σ(x−x̄)(y−ȳ) and both M2s, updated as Welford's variance is and
 * merged across workers with the same pairwise formulas (numerically stable either way).
 */
class CovarianceAccumulator implements Accumulator {
  private readonly states = Array.from({ length: 6 }, () => new Growable());

  constructor(private readonly kind: 'covar_samp' | 'covar_pop' | 'corr' | 'regr_slope' | 'regr_intercept') {}

  private ensure(n: number): Float64Array[] {
    for (const s of this.states) s.ensure(n);
    return this.states.map((s) => s.values);
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    const [c, my, mx, cxy, m2y, m2x] = this.ensure(groupCount);
    const yv = plainValues(args[0]);
    const xv = plainValues(args[1]);
    const yn = nullFlags(args[0]);
    const xn = nullFlags(args[1]);
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (yn !== null && yn[i] === 1) || (xn !== null && xn[i] === 1)) continue;
      const g = groups[i];
      const y = yv[i];
      const x = xv[i];
      const count = ++c[g];
      const dx = x - mx[g];
      const dy = y - my[g];
      mx[g] += dx / count;
      my[g] += dy / count;
      cxy[g] += dx * (y - my[g]);
      m2x[g] += dx * (x - mx[g]);
      m2y[g] += dy * (y - my[g]);
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    const [c, my, mx, cxy, m2y, m2x] = this.ensure(groupCount);
    const [sc, smy, smx, scxy, sm2y, sm2x] = states.map((s) => numericValues(s));
    for (let i = 0; i < n; i++) {
      const nb = sc[i];
      if (nb === 0) continue;
      const g = groups[i];
      const na = c[g];
      const total = na + nb;
      const dx = smx[i] - mx[g];
      const dy = smy[i] - my[g];
      const w = (na * nb) / total;
      cxy[g] += scxy[i] + dx * dy * w;
      m2x[g] += sm2x[i] + dx * dx * w;
      m2y[g] += sm2y[i] + dy * dy * w;
      mx[g] += (dx * nb) / total;
      my[g] += (dy * nb) / total;
      c[g] = total;
    }
  }

  intermediate(groupCount: number): Column[] {
    const values = this.ensure(groupCount);
    return values.map((v, k) => columnFromNumbers(k === 0 ? BIGINT : DOUBLE, v, null, groupCount));
  }

  final(groupCount: number): Column {
    const [c, my, mx, cxy, m2y, m2x] = this.ensure(groupCount);
    const out = new Float64Array(groupCount);
    const nulls = new Uint8Array(groupCount);
    for (let g = 0; g < groupCount; g++) {
      const count = c[g];
      // Sample covariance needs two rows; the rest are undefined without spread in x (or y).
      if (count === 0 || (count < 2 && this.kind !== 'covar_pop')) {
        nulls[g] = 1;
        continue;
      }
      switch (this.kind) {
        case 'covar_pop':
          out[g] = cxy[g] / count;
          break;
        case 'covar_samp':
          out[g] = cxy[g] / (count - 1);
          break;
        case 'corr':
          if (m2x[g] === 0 || m2y[g] === 0) nulls[g] = 1;
          else out[g] = cxy[g] / Math.sqrt(m2x[g] * m2y[g]);
          break;
        case 'regr_slope':
        case 'regr_intercept': {
          if (m2x[g] === 0) {
            nulls[g] = 1;
            break;
          }
          const slope = cxy[g] / m2x[g];
          out[g] = this.kind === 'regr_slope' ? slope : my[g] - slope * mx[g];
          break;
        }
      }
    }
    return columnFromNumbers(DOUBLE, out, nulls, groupCount);
  }

  memoryBytes(): number {
    return this.states[0].values.byteLength * 6.2;
  }
}

/** min/max/arbitrary over strings. */
class StringAccumulator implements Accumulator {
  private values: (string | null)[] = [];

  constructor(
    private readonly fold: 'min' | 'max' | 'first',
    private readonly type: SqlType,
  ) {}

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    const v = stringValues(args[0]);
    const nulls = nullFlags(args[0]);
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      const g = groups[i];
      const cur = this.values[g];
      if (cur === undefined || cur === null) this.values[g] = v[i];
      else if (this.fold === 'min' ? v[i] < cur : this.fold === 'max' ? v[i] > cur : false) this.values[g] = v[i];
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.update(groups, n, states, null, groupCount);
  }

  intermediate(groupCount: number): Column[] {
    return [this.final(groupCount)];
  }

  final(groupCount: number): Column {
    return columnFromStrings(this.type, this.values, groupCount);
  }

  memoryBytes(): number {
    return this.values.length * 48;
  }
}

/**
 * arbitrary over strings: the first value's UTF-8 bytes per group, copied once, never decoded
 * (group keys made dependent by reduce_group_keys arrive here for every row).
 */
class FirstBytesAccumulator implements Accumulator {
  private start = new Int32Array(0);
  private size = new Int32Array(0); // -1: no value yet
  private bytes = new Uint8Array(1 << 16);
  private used = 0;

  constructor(private readonly type: SqlType) {}

  private ensureGroups(g: number): void {
    if (g < this.size.length) return;
    const n = Math.max(1024, this.size.length * 2, g + 1);
    const start = new Int32Array(n);
    start.set(this.start);
    const size = new Int32Array(n).fill(-1);
    size.set(this.size);
    this.start = start;
    this.size = size;
  }

  private append(data: Uint8Array, from: number, to: number): number {
    const at = this.used;
    const need = at + (to - from);
    if (need > this.bytes.length) {
      const next = new Uint8Array(Math.max(need, this.bytes.length * 2));
      next.set(this.bytes.subarray(0, at));
      this.bytes = next;
    }
    const bytes = this.bytes;
    for (let k = from, o = at; k < to; k++, o++) bytes[o] = data[k];
    this.used = need;
    return at;
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    const col = args[0];
    if (col.kind === 'fixed') throw new Error('arbitrary over strings got a fixed-width column');
    const source: VarcharColumn = col.kind === 'dict' ? col.dictionary : col;
    const indices = col.kind === 'dict' ? col.indices : null;
    const { data, offsets } = source;
    const nulls = nullFlags(col);
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      const g = groups[i];
      if (g >= this.size.length) this.ensureGroups(g);
      if (this.size[g] >= 0) continue;
      const r = indices === null ? i : indices[i];
      const from = offsets[r];
      const to = offsets[r + 1];
      this.start[g] = this.append(data, from, to);
      this.size[g] = to - from;
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[], groupCount: number): void {
    this.update(groups, n, states, null, groupCount);
  }

  intermediate(groupCount: number): Column[] {
    return [this.final(groupCount)];
  }

  final(groupCount: number): Column {
    this.ensureGroups(Math.max(0, groupCount - 1));
    let total = 0;
    for (let g = 0; g < groupCount; g++) if (this.size[g] > 0) total += this.size[g];
    const offsets = allocShared(Int32Array, groupCount + 1);
    const data = allocShared(Uint8Array, total);
    let validity: Uint8Array | null = null;
    let pos = 0;
    for (let g = 0; g < groupCount; g++) {
      const len = this.size[g];
      if (len < 0) {
        validity ??= allocShared(Uint8Array, Math.ceil(groupCount / 8)).fill(0xff);
        validity[g >> 3] &= ~(1 << (g & 7));
      } else {
        data.set(this.bytes.subarray(this.start[g], this.start[g] + len), pos);
        pos += len;
      }
      offsets[g + 1] = pos;
    }
    const out: VarcharColumn = { kind: 'varchar', type: this.type, length: groupCount, validity, offsets, data };
    return out;
  }

  memoryBytes(): number {
    return this.bytes.length + this.size.length * 8;
  }
}

/**
 * max_by(x, y) / min_by(x, y): per group, x of the row with the largest (smallest) y; rows whose y
 * is NULL are skipped, x may be NULL. The first row wins ties. State: the chosen x and y.
 */
class ByAccumulator implements Accumulator {
  private values: (number | string | null)[] = [];
  private keys: (number | string | undefined)[] = [];

  constructor(
    private readonly max: boolean,
    private readonly type: SqlType,
    private readonly keyType: SqlType,
  ) {}

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null): void {
    const [x, y] = args;
    const xs = anyValues(x);
    const xNulls = nullFlags(x);
    const ys = anyValues(y);
    const yNulls = nullFlags(y);
    const keys = this.keys;
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (yNulls !== null && yNulls[i] === 1)) continue;
      const g = groups[i];
      const k = ys[i];
      const best = keys[g];
      if (best === undefined || (this.max ? k > best : k < best)) {
        keys[g] = k;
        this.values[g] = xNulls !== null && xNulls[i] === 1 ? null : xs[i];
      }
    }
  }

  merge(groups: Int32Array, n: number, states: readonly Column[]): void {
    this.update(groups, n, states, null);
  }

  private column(type: SqlType, values: readonly (number | string | null | undefined)[], groupCount: number): Column {
    if (type.id === 'varchar') return columnFromStrings(type, values as (string | null | undefined)[], groupCount);
    const numbers = new Float64Array(groupCount);
    const nulls = new Uint8Array(groupCount);
    for (let g = 0; g < groupCount; g++) {
      const v = values[g];
      if (v === null || v === undefined) nulls[g] = 1;
      else numbers[g] = v as number;
    }
    return columnFromNumbers(type, numbers, nulls, groupCount);
  }

  intermediate(groupCount: number): Column[] {
    return [this.final(groupCount), this.column(this.keyType, this.keys, groupCount)];
  }

  final(groupCount: number): Column {
    return this.column(this.type, this.values, groupCount);
  }

  memoryBytes(): number {
    return this.keys.length * 64;
  }
}

/**
 * approx_percentile(x, p), answered exactly: each group's values kept, sorted at the end, and the
 * one at rank ceil(p * n) taken (rank 1 for p = 0). Runs in a single step (needsAllRows).
 */
class PercentileAccumulator implements Accumulator {
  private values: number[][] = [];
  private percentage = NaN;

  constructor(private readonly type: SqlType) {}

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null): void {
    if (n === 0) return;
    const x = numericValues(args[0]);
    const nulls = nullFlags(args[0]);
    if (Number.isNaN(this.percentage)) this.percentage = numericValues(args[1])[0];
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      const g = groups[i];
      (this.values[g] ??= []).push(x[i]);
    }
  }

  merge(): void {
    throw new Error('approx_percentile runs in a single step');
  }

  intermediate(): Column[] {
    throw new Error('approx_percentile runs in a single step');
  }

  final(groupCount: number): Column {
    const out = new Float64Array(groupCount);
    const nulls = new Uint8Array(groupCount);
    for (let g = 0; g < groupCount; g++) {
      const v = this.values[g];
      if (v === undefined || v.length === 0) {
        nulls[g] = 1;
        continue;
      }
      const sorted = Float64Array.from(v).sort();
      out[g] = sorted[Math.max(0, Math.ceil(this.percentage * sorted.length) - 1)];
    }
    return columnFromNumbers(this.type, out, nulls, groupCount);
  }

  memoryBytes(): number {
    let n = 0;
    for (const v of this.values) n += v === undefined ? 0 : v.length;
    return n * 8 + this.values.length * 32;
  }
}

/**
 * listagg(x, separator) WITHIN GROUP (ORDER BY keys): each group's non-NULL values with their
 * order keys, sorted at the end (NULL keys last unless NULLS FIRST, ties in input order) and joined;
 * NULL for a group without values. Arguments: value, separator, per key its direction and NULL
 * place ('A'/'D', 'l'/'f'), keys. Single step.
 */
class ListaggAccumulator implements Accumulator {
  private rows: { value: string; keys: (number | string | null)[] }[][] = [];
  private separator = '';
  private directions = '';

  constructor(private readonly type: SqlType) {}

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null): void {
    if (n === 0) return;
    const values = stringValues(args[0]);
    const nulls = nullFlags(args[0]);
    this.separator = stringValues(args[1])[0] ?? '';
    this.directions = stringValues(args[2])[0] ?? '';
    const keys = args.slice(3).map((c) => ({ values: anyValues(c), nulls: nullFlags(c) }));
    for (let i = 0; i < n; i++) {
      if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
      const g = groups[i];
      (this.rows[g] ??= []).push({ value: values[i], keys: keys.map((k) => (k.nulls !== null && k.nulls[i] === 1 ? null : k.values[i])) });
    }
  }

  merge(): void {
    throw new Error('listagg runs in a single step');
  }

  intermediate(): Column[] {
    throw new Error('listagg runs in a single step');
  }

  final(groupCount: number): Column {
    const out: (string | null)[] = [];
    const compare = (a: { keys: (number | string | null)[] }, b: { keys: (number | string | null)[] }): number => {
      for (let k = 0; k < a.keys.length; k++) {
        const x = a.keys[k];
        const y = b.keys[k];
        if (x === y) continue;
        const nullsFirst = this.directions[2 * k + 1] === 'f';
        if (x === null) return nullsFirst ? -1 : 1;
        if (y === null) return nullsFirst ? 1 : -1;
        const c = x < y ? -1 : x > y ? 1 : 0;
        if (c !== 0) return this.directions[2 * k] === 'D' ? -c : c;
      }
      return 0;
    };
    for (let g = 0; g < groupCount; g++) {
      const rows = this.rows[g];
      out.push(rows === undefined || rows.length === 0 ? null : [...rows].sort(compare).map((r) => r.value).join(this.separator));
    }
    return columnFromStrings(this.type, out, groupCount);
  }

  memoryBytes(): number {
    let n = 0;
    for (const g of this.rows) n += g === undefined ? 0 : g.length;
    return n * 96;
  }
}

/** Feeds the wrapped accumulator only the first occurrence of each value per group (single step only). */
class DistinctAccumulator implements Accumulator {
  /** Seen (group, value) pairs; strings are interned to numbers first. */
  private readonly seen = new DistinctPairs();
  private readonly stringIds = new Map<string, number>();

  constructor(
    private readonly inner: Accumulator,
    private readonly isString: boolean,
  ) {}

  private codes(col: Column): Float64Array {
    if (!this.isString) return numericValues(col);
    const strings = stringValues(col);
    const out = new Float64Array(strings.length);
    for (let i = 0; i < strings.length; i++) {
      let id = this.stringIds.get(strings[i]);
      if (id === undefined) {
        id = this.stringIds.size;
        this.stringIds.set(strings[i], id);
      }
      out[i] = id;
    }
    return out;
  }

  update(groups: Int32Array, n: number, args: readonly Column[], mask: Uint8Array | null, groupCount: number): void {
    const values = this.codes(args[0]);
    const nulls = nullFlags(args[0]);
    const keep = new Uint8Array(n);
    this.seen.add(groups, values, mask, nulls, keep, n, groupCount);
    this.inner.update(groups, n, args, keep, groupCount);
  }

  merge(): void {
    throw new Error('DISTINCT aggregates run in a single step');
  }

  intermediate(): Column[] {
    throw new Error('DISTINCT aggregates run in a single step');
  }

  final(groupCount: number): Column {
    return this.inner.final(groupCount);
  }

  memoryBytes(): number {
    return this.inner.memoryBytes() + this.seen.bytes + this.stringIds.size * 48;
  }
}

export function createAccumulator(spec: AggregateSpec, argIsString: boolean): Accumulator {
  const inner = createPlainAccumulator(spec, argIsString);
  return spec.distinct ? new DistinctAccumulator(inner, argIsString) : inner;
}

function createPlainAccumulator(spec: AggregateSpec, argIsString: boolean): Accumulator {
  switch (spec.name) {
    case 'count':
      return new CountAccumulator(false);
    case 'count_star':
      return new CountAccumulator(true);
    case 'sum':
      return spec.type.id === 'double' ? new DoubleSumAccumulator() : new NumericAccumulator('sum', spec.type);
    case 'avg':
      return new AverageAccumulator(spec.type);
    case 'bool_and':
      return new NumericAccumulator('and', BOOLEAN);
    case 'bool_or':
      return new NumericAccumulator('or', BOOLEAN);
    case 'var_samp':
    case 'var_pop':
    case 'stddev_samp':
    case 'stddev_pop':
      return new VarianceAccumulator(spec.name);
    case 'covar_samp':
    case 'covar_pop':
    case 'corr':
    case 'regr_slope':
    case 'regr_intercept':
      return new CovarianceAccumulator(spec.name);
    case 'approx_percentile':
      return new PercentileAccumulator(spec.type);
    case 'listagg':
      return new ListaggAccumulator(spec.type);
    case 'max_by':
    case 'min_by':
      return new ByAccumulator(spec.name === 'max_by', spec.type, spec.keyType ?? UNKNOWN);
    case 'min':
    case 'max':
    case 'arbitrary': {
      if (spec.name === 'arbitrary' && argIsString) return new FirstBytesAccumulator(spec.type);
      const fold = spec.name === 'arbitrary' ? 'first' : spec.name;
      return argIsString ? new StringAccumulator(fold, spec.type) : new NumericAccumulator(fold, spec.type);
    }
  }
}

/** FILTER (WHERE ...) column as a 0/1 mask (NULL counts as false). */
export function filterMask(col: Column): Uint8Array {
  const out = new Uint8Array(col.length);
  for (let i = 0; i < col.length; i++) {
    const valid = col.validity === null || ((col.validity[i >> 3] >> (i & 7)) & 1) === 1;
    out[i] = valid && readBit(col.kind === 'fixed' ? (col.values as Uint8Array) : new Uint8Array(0), i) ? 1 : 0;
  }
  return out;
}

export { isStringColumn };

/** One intermediate state per raw row (the passthrough form of a partial aggregation). */
export function rowStates(spec: AggregateSpec, args: readonly Column[], mask: Uint8Array | null, n: number): Column[] {
  const arg = args[0];
  const nulls = arg ? nullFlags(arg) : null;
  const present = (i: number): boolean => (mask === null || mask[i] === 1) && (nulls === null || nulls[i] === 0);
  const ones = (): Float64Array => {
    const out = new Float64Array(n);
    for (let i = 0; i < n; i++) out[i] = present(i) ? 1 : 0;
    return out;
  };
  const absent = (): Uint8Array => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = present(i) ? 0 : 1;
    return out;
  };
  switch (spec.name) {
    case 'count':
      return [columnFromNumbers(BIGINT, ones(), null, n)];
    case 'count_star': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) out[i] = mask === null || mask[i] === 1 ? 1 : 0;
      return [columnFromNumbers(BIGINT, out, null, n)];
    }
    case 'sum':
    case 'bool_and':
    case 'bool_or':
      return [columnFromNumbers(spec.type, numericValues(arg), absent(), n)];
    case 'avg': {
      const v = numericValues(arg);
      const sums = new Float64Array(n);
      for (let i = 0; i < n; i++) sums[i] = present(i) ? v[i] : 0;
      const sumType = spec.type.id === 'decimal' ? decimal(MAX_DECIMAL_PRECISION, spec.type.scale ?? 0) : DOUBLE;
      return [columnFromNumbers(sumType, sums, null, n), columnFromNumbers(BIGINT, ones(), null, n)];
    }
    case 'min':
    case 'max':
    case 'arbitrary':
      if (isStringColumn(arg)) {
        const strings = stringValues(arg);
        return [columnFromStrings(spec.type, strings.map((s, i) => (present(i) ? s : null)), n)];
      }
      return [columnFromNumbers(spec.type, numericValues(arg), absent(), n)];
    case 'var_samp':
    case 'var_pop':
    case 'stddev_samp':
    case 'stddev_pop': {
      const v = numericValues(arg);
      const scale = arg.type.id === 'decimal' ? 10 ** (arg.type.scale ?? 0) : 1;
      const means = new Float64Array(n);
      for (let i = 0; i < n; i++) means[i] = present(i) ? v[i] / scale : 0;
      return [columnFromNumbers(BIGINT, ones(), null, n), columnFromNumbers(DOUBLE, means, null, n), columnFromNumbers(DOUBLE, new Float64Array(n), null, n)];
    }
    case 'approx_percentile':
    case 'listagg':
      throw new Error(`${spec.name} runs in a single step`);
    case 'covar_samp':
    case 'covar_pop':
    case 'corr':
    case 'regr_slope':
    case 'regr_intercept': {
      // A row is a count of 1 at (y, x) with no spread; a row with a NULL side counts 0.
      const yv = plainValues(args[0]);
      const xv = plainValues(args[1]);
      const xNulls = nullFlags(args[1]);
      const counts = new Float64Array(n);
      const ys = new Float64Array(n);
      const xs = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        if (!present(i) || (xNulls !== null && xNulls[i] === 1)) continue;
        counts[i] = 1;
        ys[i] = yv[i];
        xs[i] = xv[i];
      }
      const zeros = (): Column => columnFromNumbers(DOUBLE, new Float64Array(n), null, n);
      return [columnFromNumbers(BIGINT, counts, null, n), columnFromNumbers(DOUBLE, ys, null, n), columnFromNumbers(DOUBLE, xs, null, n), zeros(), zeros(), zeros()];
    }
    case 'max_by':
    case 'min_by': {
      // The row itself is its state; a row a FILTER drops has no key.
      const key = args[1];
      if (mask === null) return [arg, key];
      const keyType = spec.keyType ?? UNKNOWN;
      const kept = (i: number): boolean => mask[i] === 1;
      if (isStringColumn(key)) {
        const strings = stringValues(key);
        return [arg, columnFromStrings(keyType, strings.map((s, i) => (kept(i) ? s : null)), n)];
      }
      const keyNulls = nullFlags(key);
      const dropped = new Uint8Array(n);
      for (let i = 0; i < n; i++) dropped[i] = !kept(i) || (keyNulls !== null && keyNulls[i] === 1) ? 1 : 0;
      return [arg, columnFromNumbers(keyType, numericValues(key), dropped, n)];
    }
  }
}
