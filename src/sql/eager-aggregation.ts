// Eager aggregation: an aggregation over a join group whose aggregates read only some of the
// relations ("facts") is computed before the others ("dimensions") are joined, when each dimension
// is joined through its own primary key, is not filtered, and its key is a group key. Every fact
// row then meets at most one dimension row, so grouping the facts by their group keys plus the
// foreign keys gives the same groups; the dimensions' wide columns (names, addresses, comments)
// are joined to one row per group instead of being carried through the joins of every fact row.
// Q10: lineitem ⋈ orders is summed per customer first, then 38k groups meet customer and nation.

import { BOOLEAN } from '../data/types.js';
import { conjuncts, hasOuterRef, referencedColumns, remapColumns, type Expr } from './ir.js';
import { planJoinGroup, type Relation } from './join-planner.js';
import type { AggregateCall, AggregateName, PlanNode } from './plan.js';

export interface EagerAggregationInput {
  /** The join group's relations as the planner would join them (semi joins already pushed). */
  readonly relations: readonly Relation[];
  /** The relations' plans before any semi join was pushed into them. */
  readonly unnarrowed: readonly PlanNode[];
  /** WHERE/ON conjuncts over the group's logical layout. */
  readonly predicates: readonly Expr[];
  readonly groupExprs: readonly Expr[];
  readonly calls: readonly { readonly name: AggregateName; readonly args: readonly Expr[]; readonly distinct: boolean; readonly filter: Expr | null; readonly type: AggregateCall['type'] }[];
}

interface Edge {
  readonly a: number;
  readonly b: number;
  /** Logical column on a's and b's side. */
  readonly colA: number;
  readonly colB: number;
}

/**
 * The aggregation computed eagerly, as a plan whose fields are the group expressions then the
 * aggregates (the layout of the aggregate node it replaces), or undefined when it does not apply.
 */
export function eagerAggregation(input: EagerAggregationInput): PlanNode | undefined {
  const { relations, predicates, groupExprs, calls } = input;
  if (relations.length < 2) return undefined;
  const aggregateExprs = calls.flatMap((c) => [...c.args, ...(c.filter ? [c.filter] : [])]);
  if ([...groupExprs, ...aggregateExprs].some(hasOuterRef)) return undefined;
  const relationOf = (column: number): number => relations.findIndex((r) => column >= r.offset && column < r.offset + r.width);
  const relationsOf = (e: Expr): Set<number> => new Set([...referencedColumns(e)].map(relationOf));
  const typeOf = (i: number): Expr['type'] => {
    const r = relations[relationOf(i)];
    return r.plan.fields[i - r.offset].type;
  };
  const column = (i: number): Expr => ({ kind: 'column', index: i, type: typeOf(i) });
  const pkColumn = (r: number): number | undefined => {
    const pk = relations[r].primaryKey;
    return pk && pk.length === 1 ? relations[r].offset + pk[0] : undefined;
  };

  // Which relations could be dimensions: plain unfiltered scans with a one-column key, not read
  // by any aggregate, nor by a predicate other than a column equality, nor by a group expression
  // that also reads another relation.
  const candidate = relations.map((r, i) => r.plan.kind === 'scan' && r.plan === input.unnarrowed[i] && pkColumn(i) !== undefined);
  const edges: Edge[] = [];
  for (const p of predicates.flatMap((x) => conjuncts(x))) {
    const rels = relationsOf(p);
    const [x, y] = p.kind === 'call' && p.name === '$eq' ? p.args : [];
    if (rels.size === 2 && x?.kind === 'column' && y?.kind === 'column') {
      edges.push({ a: relationOf(x.index), b: relationOf(y.index), colA: x.index, colB: y.index });
      continue;
    }
    for (const r of rels) candidate[r] = false;
  }
  for (const e of aggregateExprs) for (const r of relationsOf(e)) candidate[r] = false;
  for (const e of groupExprs) {
    const rels = relationsOf(e);
    if (rels.size > 1) for (const r of rels) candidate[r] = false;
  }

  // Dimensions form trees hanging off the facts: each has exactly one parent edge (its key equals
  // a parent's column) and its other edges lead to its own children's keys. A tree's root key must
  // be grouped on. Violators become facts until nothing changes.
  const dims = new Set(relations.map((_, i) => i).filter((i) => candidate[i]));
  const groupColumns = new Set(groupExprs.flatMap((e) => (e.kind === 'column' ? [e.index] : [])));
  const parentEdge = (d: number): { parent: number; parentColumn: number } | undefined => {
    const pk = pkColumn(d);
    let found: { parent: number; parentColumn: number } | undefined;
    for (const e of edges) {
      const [mine, other, otherColumn] = e.a === d ? [e.colA, e.b, e.colB] : e.b === d ? [e.colB, e.a, e.colA] : [-1, -1, -1];
      if (other < 0) continue;
      const childIsOther = dims.has(other) && otherColumn === pkColumn(other) && mine !== pk;
      if (childIsOther) continue;
      if (mine !== pk || found) return undefined;
      found = { parent: other, parentColumn: otherColumn };
    }
    return found;
  };
  for (let changed = true; changed; ) {
    changed = false;
    for (const d of [...dims]) {
      const edge = parentEdge(d);
      let ok = edge !== undefined;
      if (edge) {
        // Walk up to the facts (no cycles); a root needs its key among the group keys.
        const seen = new Set([d]);
        let at = d;
        let up = edge;
        while (ok && dims.has(up.parent)) {
          if (seen.has(up.parent)) ok = false;
          else {
            seen.add(up.parent);
            at = up.parent;
            const next = parentEdge(at);
            if (!next) ok = false;
            else up = next;
          }
        }
        if (ok && at === d && !groupColumns.has(pkColumn(d) as number) && !groupColumns.has(edge.parentColumn)) ok = false;
      }
      if (!ok) {
        dims.delete(d);
        changed = true;
      }
    }
  }
  const facts = relations.map((_, i) => i).filter((i) => !dims.has(i));
  if (dims.size === 0 || facts.length === 0) return undefined;
  const roots = [...dims].map((d) => ({ d, edge: parentEdge(d) as { parent: number; parentColumn: number } })).filter(({ edge }) => !dims.has(edge.parent));

  // The facts joined among themselves, then aggregated by their group keys and the roots' foreign keys.
  const factOffset = new Map<number, number>();
  const factRelations: Relation[] = [];
  let width = 0;
  for (const f of facts) {
    factOffset.set(f, width);
    factRelations.push({ ...relations[f], offset: width });
    width += relations[f].width;
  }
  const toFacts = (e: Expr): Expr =>
    remapColumns(e, (i) => {
      const r = relationOf(i);
      return (factOffset.get(r) as number) + (i - relations[r].offset);
    });
  const inFacts = (e: Expr): boolean => [...relationsOf(e)].every((r) => !dims.has(r));
  const factPredicates = predicates.flatMap((x) => conjuncts(x)).filter(inFacts).map(toFacts);
  const factPlan = planJoinGroup(factRelations, factPredicates);

  const factGroups = groupExprs.map((e, i) => ({ e, i })).filter(({ e }) => inFacts(e));
  const preExprs: Expr[] = [...factGroups.map(({ e }) => toFacts(e)), ...roots.map(({ edge }) => toFacts(column(edge.parentColumn)))];
  const keyCount = preExprs.length;
  const slot = (e: Expr): number => {
    preExprs.push(toFacts(e));
    return preExprs.length - 1;
  };
  const aggregateCalls: AggregateCall[] = calls.map((c) => ({
    name: c.name,
    args: c.args.map(slot),
    argType: c.args[0]?.type ?? null,
    ...(c.args.length > 1 ? { keyType: c.args[1].type } : {}),
    distinct: c.distinct,
    filter: c.filter ? slot(c.filter) : null,
    type: c.type,
  }));
  const pre: PlanNode = { kind: 'project', input: factPlan, exprs: preExprs, fields: preExprs.map((e, i) => ({ name: `$eager${i}`, type: e.type })) };
  const aggregate: PlanNode = {
    kind: 'aggregate',
    input: pre,
    groupBy: preExprs.slice(0, keyCount).map((_, i) => i),
    aggregates: aggregateCalls,
    fields: [...pre.fields.slice(0, keyCount), ...aggregateCalls.map((c, i) => ({ name: `$eagerAgg${i}`, type: c.type }))],
  };

  // The groups joined to their dimensions.
  const aggWidth = aggregate.fields.length;
  const dimOffset = new Map<number, number>();
  const joinRelations: Relation[] = [{ plan: aggregate, offset: 0, width: aggWidth }];
  let offset = aggWidth;
  for (const d of dims) {
    dimOffset.set(d, offset);
    joinRelations.push({ ...relations[d], offset });
    offset += relations[d].width;
  }
  const toJoined = (e: Expr): Expr =>
    remapColumns(e, (i) => {
      const r = relationOf(i);
      return (dimOffset.get(r) as number) + (i - relations[r].offset);
    });
  const joinPredicates: Expr[] = roots.map(({ d, edge }, k) => {
    const fk: Expr = { kind: 'column', index: factGroups.length + k, type: typeOf(edge.parentColumn) };
    return { kind: 'call', name: '$eq', args: [fk, toJoined(column(pkColumn(d) as number))], type: BOOLEAN };
  });
  for (const e of edges) if (dims.has(e.a) && dims.has(e.b)) joinPredicates.push(toJoined({ kind: 'call', name: '$eq', args: [column(e.colA), column(e.colB)], type: BOOLEAN }));
  const joined = planJoinGroup(joinRelations, joinPredicates);

  const exprs: Expr[] = [
    ...groupExprs.map((e, i) => {
      const k = factGroups.findIndex((g) => g.i === i);
      return k >= 0 ? ({ kind: 'column', index: k, type: e.type } as Expr) : toJoined(e);
    }),
    ...aggregateCalls.map((c, j) => ({ kind: 'column', index: keyCount + j, type: c.type }) as Expr),
  ];
  return { kind: 'project', input: joined, exprs, fields: exprs.map((e, i) => ({ name: `$eager${i}`, type: e.type })) };
}
