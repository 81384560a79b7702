// Rebuilding a plan with every expression rewritten (for expression-level rules).

import type { Expr } from '../ir.js';
import { planText, type PlanNode } from '../plan.js';

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

/**
 * Rebuilds a plan bottom-up through `f`: each node with its inputs already rebuilt. A node whose
 * inputs all came back unchanged is passed to `f` as itself (so `f` may recognise nodes by identity).
 */
export function mapPlanNodes(node: PlanNode, f: (node: PlanNode) => PlanNode): PlanNode {
  switch (node.kind) {
    case 'scan':
    case 'values':
      return f(node);
    case 'join': {
      const left = mapPlanNodes(node.left, f);
      const right = mapPlanNodes(node.right, f);
      return f(left === node.left && right === node.right ? node : { ...node, left, right });
    }
    case 'union': {
      const inputs = node.inputs.map((i) => mapPlanNodes(i, f));
      return f(inputs.every((i, k) => i === node.inputs[k]) ? node : { ...node, inputs });
    }
    default: {
      const input = mapPlanNodes(node.input, f);
      return f(input === node.input ? node : ({ ...node, input } as PlanNode));
    }
  }
}

/** Every node of one kind in a plan, inputs before the nodes reading them. */
export function nodesOfKind<K extends PlanNode['kind']>(plan: PlanNode, kind: K): (PlanNode & { kind: K })[] {
  const out: (PlanNode & { kind: K })[] = [];
  mapPlanNodes(plan, (node) => {
    if (node.kind === kind) out.push(node as PlanNode & { kind: K });
    return node;
  });
  return out;
}

/**
 * Applies `rewrites` (node → its replacement) where the replacement reads a subtree that the plan
 * computes elsewhere already (`sharedOf`): kept only while that subtree still occurs, as the same
 * text, at least twice in the result, so that the fragmenter plans it once (a rewrite inside
 * that subtree's own rows would change it, and it would be computed twice).
 */
export function rewriteSharing(plan: PlanNode, rewrites: Map<PlanNode, PlanNode>, sharedOf: (replacement: PlanNode) => PlanNode): PlanNode {
  while (rewrites.size > 0) {
    const result = mapPlanNodes(plan, (node) => rewrites.get(node) ?? node);
    const texts = new Map<string, number>();
    mapPlanNodes(result, (node) => {
      const text = planText(node);
      if (text !== undefined) texts.set(text, (texts.get(text) ?? 0) + 1);
      return node;
    });
    const broken = [...rewrites].filter(([, replacement]) => (texts.get(planText(sharedOf(replacement)) ?? '') ?? 0) < 2);
    if (broken.length === 0) return result;
    for (const [node] of broken) rewrites.delete(node);
  }
  return plan;
}
