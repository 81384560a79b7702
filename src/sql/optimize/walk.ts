// Rebuilding a plan with every expression rewritten (for expression-level rules).

import type { Expr } from '../ir.js';
import type { PlanNode } from '../plan.js';

export function mapPlanExpressions(node: PlanNode, f: (e: Expr) => Expr): PlanNode {
  switch (node.kind) {
    case 'scan':
    case 'values':
      return node;
    case 'filter':
      return { ...node, input: mapPlanExpressions(node.input, f), predicate: f(node.predicate) };
    case 'project':
      return { ...node, input: mapPlanExpressions(node.input, f), exprs: node.exprs.map(f) };
    case 'join':
      return { ...node, left: mapPlanExpressions(node.left, f), right: mapPlanExpressions(node.right, f), filter: node.filter ? f(node.filter) : null };
    case 'union':
      return { ...node, inputs: node.inputs.map((i) => mapPlanExpressions(i, f)) };
    default:
      return { ...node, input: mapPlanExpressions(node.input, f) } as PlanNode;
  }
}
