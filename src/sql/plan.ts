// The logical plan: relational operators over bound expressions. Every node lists its output
// fields; column references in a node's expressions index its input's fields.

import type { SqlType } from '../data/types.js';
import type { TableMetadata } from '../connectors/catalog.js';
import type { Expr } from './ir.js';

export interface Field {
  readonly name: string;
  readonly type: SqlType;
}

export type AggregateName = 'count' | 'count_star' | 'sum' | 'avg' | 'min' | 'max' | 'bool_and' | 'bool_or' | 'arbitrary';

export interface AggregateCall {
  readonly name: AggregateName;
  /** Input column indices of the arguments (none for count(*)). */
  readonly args: readonly number[];
  readonly argType: SqlType | null;
  readonly distinct: boolean;
  /** Input column (boolean) of a FILTER (WHERE ...) clause, if any. */
  readonly filter: number | null;
  readonly type: SqlType;
}

export interface SortKey {
  readonly index: number;
  readonly ascending: boolean;
  readonly nullsFirst: boolean;
}

export type PlanNode =
  | { readonly kind: 'scan'; readonly table: TableMetadata; readonly columns: readonly number[]; readonly fields: readonly Field[] }
  | { readonly kind: 'values'; readonly rows: readonly (readonly Expr[])[]; readonly fields: readonly Field[] }
  | { readonly kind: 'filter'; readonly input: PlanNode; readonly predicate: Expr; readonly fields: readonly Field[] }
  | { readonly kind: 'project'; readonly input: PlanNode; readonly exprs: readonly Expr[]; readonly fields: readonly Field[] }
  | {
      readonly kind: 'aggregate';
      readonly input: PlanNode;
      readonly groupBy: readonly number[];
      readonly aggregates: readonly AggregateCall[];
      readonly fields: readonly Field[];
    }
  | { readonly kind: 'sort'; readonly input: PlanNode; readonly keys: readonly SortKey[]; readonly fields: readonly Field[] }
  | { readonly kind: 'limit'; readonly input: PlanNode; readonly count: number | null; readonly offset: number; readonly fields: readonly Field[] }
  | { readonly kind: 'output'; readonly input: PlanNode; readonly names: readonly string[]; readonly fields: readonly Field[] };

export type PlanKind = PlanNode['kind'];

export function inputsOf(node: PlanNode): PlanNode[] {
  return 'input' in node ? [node.input] : [];
}
