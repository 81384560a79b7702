// The optimizer driver: named rules run in order; a caller can switch rules off by name (the
// `disabled_rules` session property, analyzeQuery's `disabledRules`) to compare plans.

import type { PlanNode } from '../plan.js';
import { pruneEmptyRelations } from './empty-relations.js';
import { distinctToGroupBy } from './distinct-to-group-by.js';
import { foldConstants } from './fold-constants.js';
import { limitExistenceChecks } from './limit-existence-checks.js';
import { mergeProjectWithValues } from './merge-project-with-values.js';
import { mergeUnionValues } from './merge-union-values.js';
import { reduceGroupKeys } from './group-key-dependencies.js';
import { pruneColumns } from './prune-columns.js';
import { rollUpAggregations } from './roll-up-aggregations.js';
import { semiJoinsFromJoins } from './semi-joins-from-joins.js';

export const RULES: readonly { readonly name: string; readonly apply: (plan: PlanNode) => PlanNode }[] = [
  { name: 'fold_constants', apply: foldConstants },
  // After folding: a predicate folded to false or NULL empties its relation.
  { name: 'prune_empty_relations', apply: pruneEmptyRelations },
  // After folding: the projections it turned into literals merge into their VALUES rows.
  { name: 'merge_project_with_values', apply: mergeProjectWithValues },
  { name: 'merge_union_values', apply: mergeUnionValues },
  // Before reduce_group_keys: the GROUP BY it adds may then be reduced too.
  { name: 'distinct_to_group_by', apply: distinctToGroupBy },
  { name: 'reduce_group_keys', apply: reduceGroupKeys },
  // Before pruning: the grouped aggregation it reuses is then pruned alike where it occurs twice.
  { name: 'roll_up_aggregations', apply: rollUpAggregations },
  { name: 'prune_columns', apply: pruneColumns },
  // After pruning: the join a semi join reuses must read every column either needs.
  { name: 'semi_joins_from_joins', apply: semiJoinsFromJoins },
  { name: 'limit_existence_checks', apply: limitExistenceChecks },
];

/** Every rule a session may switch off (`disabled_rules`): the optimizer's and the analyzer's own. */
export const RULE_NAMES: readonly string[] = [...RULES.map((r) => r.name), 'eager_aggregation'];

export function optimize(plan: PlanNode, disabled: ReadonlySet<string> = new Set()): PlanNode {
  return RULES.reduce((p, rule) => (disabled.has(rule.name) ? p : rule.apply(p)), plan);
}
