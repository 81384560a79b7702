// fold_constants: constant sub-expressions (e.g. `date '1994-01-01' + interval '1' year`) are
// evaluated once at planning instead of once per row. An expression that fails (1/0) is left for
// run time, where it fails only if a row actually evaluates it (CASE WHEN false THEN 1/0 END).

import { evaluateConstant } from '../../exec/compile/constant.js';
import { isConstant, mapChildren, type Expr } from '../ir.js';
import { mapPlanExpressions } from './walk.js';
import type { PlanNode } from '../plan.js';

export function foldExpr(e: Expr): Expr {
  if (e.kind === 'literal' || e.kind === 'column' || e.kind === 'outerRef') return e;
  if (isConstant(e)) {
    try {
      return { kind: 'literal', value: evaluateConstant(e), type: e.type };
    } catch {
      return mapChildren(e, foldExpr);
    }
  }
  return mapChildren(e, foldExpr);
}

export function foldConstants(plan: PlanNode): PlanNode {
  return mapPlanExpressions(plan, foldExpr);
}
