// Physical plan data: what a task runs. Plain data only, so a fragment travels to worker threads by
// structured clone, is accepted as JSON by POST /v1/task/{taskId}, and keys the kernel caches.

import type { SqlType } from '../data/types.js';
import type { Expr } from '../sql/ir.js';
import type { AggregateName, SortKey } from '../sql/plan.js';

export interface AggregateSpec {
  readonly name: AggregateName;
  /** Input columns of the arguments (raw step) — ignored in the final step, which reads states. */
  readonly args: readonly number[];
  readonly argType: SqlType | null;
  /** max_by/min_by: the type of the second argument, the one compared (its state travels too). */
  readonly keyType?: SqlType;
  readonly filter: number | null;
  /** count(DISTINCT x) and the like: only the first occurrence of a value per group counts. */
  readonly distinct: boolean;
  /** The final result type. */
  readonly type: SqlType;
}

/**
 * Whether an aggregate needs every row of a group in one place (no partial and final steps):
 * DISTINCT ones, and approx_percentile and listagg, which keep their groups' values.
 */
export function needsAllRows(a: Pick<AggregateSpec, 'name' | 'distinct'>): boolean {
  return a.distinct || a.name === 'approx_percentile' || a.name === 'listagg';
}

/** A frame bound: UNBOUNDED PRECEDING/FOLLOWING, CURRENT ROW, or an offset in rows. */
export interface FrameBound {
  readonly kind: 'unboundedPreceding' | 'preceding' | 'currentRow' | 'following' | 'unboundedFollowing';
  readonly offset: number;
}

export interface WindowFunctionSpec {
  readonly name: string;
  /** Input columns of the arguments. */
  readonly args: readonly number[];
  readonly argType: SqlType | null;
  readonly partitionBy: readonly number[];
  readonly orderBy: readonly SortKey[];
  /** ROWS frames count rows; RANGE frames (CURRENT ROW bounds only) include peers. */
  readonly frame: { readonly unit: 'rows' | 'range'; readonly start: FrameBound; readonly end: FrameBound };
  /** Constant parameters: lag/lead offset and default, ntile buckets, nth_value position. */
  readonly params: readonly (number | string | boolean | null)[];
  readonly type: SqlType;
}

export type OperatorSpec =
  | { readonly op: 'filterProject'; readonly filter: Expr | null; readonly projections: readonly Expr[] }
  | {
      readonly op: 'aggregate';
      /**
       * partial: raw rows → states; final: states → results; single: raw rows → results;
       * passthrough: raw rows → one state per row, no hashing (a partial step that would not reduce).
       */
      readonly step: 'partial' | 'final' | 'single' | 'passthrough';
      readonly groupBy: readonly number[];
      readonly aggregates: readonly AggregateSpec[];
      /** The plan's globalGroupIds: rows the final (or single) step gives for an empty input. */
      readonly globalGroupIds?: readonly number[];
    }
  | { readonly op: 'orderBy'; readonly keys: readonly SortKey[]; readonly limit: number | null }
  | { readonly op: 'limit'; readonly count: number | null; readonly offset: number }
  /** Keeps the rows whose `keys` hash to partition `index` of `count` (one driver of a partitioned stage). */
  | { readonly op: 'hashPartition'; readonly keys: readonly number[]; readonly count: number; readonly index: number }
  /** Replicates each row once per grouping set, NULLing the group columns outside the set, and appends the set's id. */
  | { readonly op: 'groupId'; readonly groupCount: number; readonly sets: readonly (readonly number[])[] }
  /** Appends one column per window function; sees all its input first. */
  | { readonly op: 'window'; readonly functions: readonly WindowFunctionSpec[] }
  | {
      readonly op: 'hashJoin';
      /** Which build (JoinTable) of the stage this probes. */
      readonly joinId: number;
      /** mark: record which build rows found a partner (in the table's `matched` flags); emit nothing. */
      readonly joinType: 'inner' | 'left' | 'full' | 'semi' | 'anti' | 'mark';
      readonly probeKeys: readonly number[];
      readonly buildTypes: readonly SqlType[];
      /** Residual condition over probe columns ++ build columns. */
      readonly filter: Expr | null;
      readonly nullAware: boolean;
      readonly singleMatch: boolean;
      /** Inner/left joins: which of (probe columns ++ build columns) to emit; all when absent. */
      readonly output?: readonly number[];
    };

export type SourceSpec =
  /** Reads the splits it is given (a table scan). */
  | { readonly kind: 'scan'; readonly table: string; readonly columns: readonly number[] }
  /** Reads pages from the tasks of other stages. */
  | { readonly kind: 'exchange'; readonly stages: readonly number[] };

export interface FragmentSpec {
  readonly stageId: number;
  readonly source: SourceSpec;
  readonly inputTypes: readonly SqlType[];
  readonly operators: readonly OperatorSpec[];
  readonly outputTypes: readonly SqlType[];
  /** source = one driver per split, spread over the pool; single = one task gathers everything. */
  readonly partitioning: 'source' | 'single';
}

/** The Trino operator type name an operator reports in task statistics. */
export function operatorTypeName(spec: OperatorSpec): string {
  switch (spec.op) {
    case 'filterProject':
      return 'FilterAndProjectOperator';
    case 'aggregate':
      return spec.groupBy.length === 0 ? 'AggregationOperator' : 'HashAggregationOperator';
    case 'orderBy':
      return spec.limit === null ? 'OrderByOperator' : 'TopNOperator';
    case 'limit':
      return 'LimitOperator';
    case 'hashJoin':
      return 'LookupJoinOperator';
    case 'window':
      return 'WindowOperator';
    case 'groupId':
      return 'GroupIdOperator';
    case 'hashPartition':
      return 'HashPartitionOperator';
  }
}

/** True when the operator must see all its input before producing output. */
export function isBlocking(spec: OperatorSpec): boolean {
  return spec.op === 'aggregate' || spec.op === 'orderBy' || spec.op === 'window';
}
