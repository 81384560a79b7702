// A blocking exchange stage that starts with a grouped aggregation (the final step, or a single
// step such as count(DISTINCT)) need not run as one driver: each of the pool's threads reads all
// the stage's input but aggregates only the groups whose keys hash to its partition. The groups of
// different partitions are disjoint, so the partitions' results together are the aggregation's.
// The projections that follow run in the same drivers; what needs every group at once (ORDER BY,
// LIMIT, a window, a join) runs after, as one driver over the partitions' output.

import { operatorOutputTypes, type DriverResult } from '../exec/pipeline.js';
import { mergeOperatorStats, type OperatorStats } from '../exec/metrics.js';
import type { SqlType } from '../data/types.js';
import { needsAllRows, type AggregateSpec, type FragmentSpec } from '../exec/specs.js';

/** Below this many input rows one driver is quicker than several each reading every row. */
export const PARTITION_MIN_ROWS = 32 * 1024;

export interface PartitionedStage {
  /** One fragment per partition: its hash filter, the aggregation and the projections after it. */
  readonly parts: readonly FragmentSpec[];
  /** The rest of the stage's operators, over the partitions' output; null when nothing is left. */
  readonly tail: FragmentSpec | null;
  /** How many of the stage's operators the partitions run. */
  readonly cut: number;
}

/**
 * Whether grouping a row costs more than hashing it for a partition (~4 ns a key): a DISTINCT
 * aggregate (a second hash set), several keys or a string key (~60–190 ns a row in the multi-key
 * table). One numeric key is looked up directly or in one probe (~5 ns): partitions would only
 * add their hashing, a gather and a pool round trip (Q13's and Q15's final steps).
 */
function costlyPerRow(groupBy: readonly number[], aggregates: readonly AggregateSpec[], types: readonly SqlType[]): boolean {
  return groupBy.length > 1 || aggregates.some(needsAllRows) || types[groupBy[0]].id === 'varchar';
}

/** How a blocking stage over `rows` input rows runs partitioned on `threads` threads; null when it does not. */
export function partitionStage(fragment: FragmentSpec, rows: number, threads: number): PartitionedStage | null {
  const ops = fragment.operators;
  const first = ops[0];
  if (threads < 2 || rows < PARTITION_MIN_ROWS) return null;
  if (first === undefined || first.op !== 'aggregate' || first.groupBy.length === 0 || (first.step !== 'final' && first.step !== 'single')) return null;
  if (!costlyPerRow(first.groupBy, first.aggregates, fragment.inputTypes)) return null;
  let cut = 1;
  while (cut < ops.length && ops[cut].op === 'filterProject') cut++;
  const types = ops.slice(0, cut).reduce((t, op) => operatorOutputTypes(op, t), [...fragment.inputTypes]);
  // The stage has rows, so every empty grouping set has its group in some partition: no partition
  // without rows may add one of its own.
  const aggregation = first.globalGroupIds ? { ...first, globalGroupIds: undefined } : first;
  const parts = Array.from({ length: threads }, (_, index): FragmentSpec => ({
    ...fragment,
    operators: [{ op: 'hashPartition', keys: first.groupBy, count: threads, index }, aggregation, ...ops.slice(1, cut)],
    outputTypes: types,
  }));
  const tail = cut < ops.length ? { ...fragment, inputTypes: types, operators: ops.slice(cut) } : null;
  return { parts, tail, cut };
}

/**
 * The partitions' and the tail's drivers as the one driver of the whole fragment: its output, its
 * operators' statistics in the fragment's order (the input counted once, the hash filters' time
 * in the aggregation's), and the time of all drivers.
 */
export function combinePartitioned(stage: PartitionedStage, parts: readonly DriverResult[], tail: DriverResult | null): DriverResult {
  const copy = (s: OperatorStats, operatorId: number): OperatorStats => ({ ...s, operatorId });
  const merged = parts[0].stats.map((s) => ({ ...s }));
  for (const part of parts.slice(1)) part.stats.forEach((s, i) => mergeOperatorStats(merged[i], s));
  const ops = merged.slice(2, 2 + stage.cut).map((s, k) => copy(s, k + 1));
  ops[0].addInputNanos += merged[1].addInputNanos;
  const n = stage.cut + (stage.tail?.operators.length ?? 0);
  const rest = tail ? tail.stats.slice(1, -1).map((s, k) => copy(s, stage.cut + 1 + k)) : [];
  const output = copy(tail ? tail.stats[tail.stats.length - 1] : merged[merged.length - 1], n + 1);
  const drivers = tail ? [...parts, tail] : parts;
  return {
    pages: tail ? tail.pages : parts.flatMap((p) => p.pages),
    stats: [copy(parts[0].stats[0], 0), ...ops, ...rest, output],
    wallNanos: drivers.reduce((t, d) => t + d.wallNanos, 0),
    cpuNanos: drivers.reduce((t, d) => t + d.cpuNanos, 0),
  };
}
