// merge_project_with_values (Trino's MergeProjectWithValues): a projection of constants over
// VALUES rows (`SELECT 1`, `SELECT 'a' || 'b', 2 + 3` once fold_constants has run, or
// `VALUES (1, 'x')` read back column by column) becomes the VALUES rows it computes. The plan is
// then one stage that only emits its rows: no projection operator and no compiled kernel per
// statement, which for a trivial statement were a good part of its execution.

import type { Expr } from '../ir.js';
import type { PlanNode } from '../plan.js';
import { mapPlanNodes } from './walk.js';

export function mergeProjectWithValues(plan: PlanNode): PlanNode {
  return mapPlanNodes(plan, (node) => {
    if (node.kind !== 'project' || node.input.kind !== 'values') return node;
    const rows: Expr[][] = [];
    for (const row of node.input.rows) {
      const out: Expr[] = [];
      for (const e of node.exprs) {
        const value = e.kind === 'literal' ? e : e.kind === 'column' ? row[e.index] : undefined;
        if (value === undefined || value.kind !== 'literal') return node;
        out.push(value.type === e.type ? value : { ...value, type: e.type });
      }
      rows.push(out);
    }
    return { kind: 'values', rows, fields: node.fields };
  });
}
