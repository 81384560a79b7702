// The optimizer driver: named rules run in order; each can be switched off (session property
// `disabled_rules`, comma-separated) so tests can compare optimized and unoptimized results.

import type { PlanNode } from '../plan.js';
import { foldConstants } from './fold-constants.js';
import { pruneColumns } from './prune-columns.js';

export const RULES: readonly { readonly name: string; readonly apply: (plan: PlanNode) => PlanNode }[] = [
  { name: 'fold_constants', apply: foldConstants },
  { name: 'prune_columns', apply: pruneColumns },
];

export function optimize(plan: PlanNode, disabled: ReadonlySet<string> = new Set()): PlanNode {
  return RULES.reduce((p, rule) => (disabled.has(rule.name) ? p : rule.apply(p)), plan);
}
