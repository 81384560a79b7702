// Planning a group of inner-joined relations (FROM a, b, c WHERE ... / JOIN ... ON): predicates on
// one relation are pushed down to it, equalities between two relations become hash-join keys, the
// rest are applied as soon as every relation they read is joined. Equalities between columns are
// closed transitively (a = b, b = c gives a = c too), and a join uses one key per class of equal
// columns. The join order is chosen by estimated size, not by text order: the largest relation is
// the probe (streamed) side, and each step hashes the connected relation that is a key (FK→PK)
// join if possible, else the smallest.

import { BOOLEAN } from '../data/types.js';
import { andAll, conjuncts, exprKey, referencedColumns, remapColumns, type Expr } from './ir.js';
import { emptyRelation, neverHolds } from './optimize/empty-relations.js';
import { foldExpr } from './optimize/fold-constants.js';
import { estimateRows, knownSelectivity, type Field, type PlanNode } from './plan.js';

/** A relation this large is streamed rather than hashed when the rows joined so far are under half of it. */
const SWAP_MIN_BUILD_ROWS = 1_000_000;

export interface Relation {
  readonly plan: PlanNode;
  /** Position of the relation's first field in the group's logical (FROM-order) layout. */
  readonly offset: number;
  readonly width: number;
  /** Local column indices forming a unique key, when known. */
  readonly primaryKey?: readonly number[];
}

interface Edge {
  readonly a: number;
  readonly b: number;
  /** Key expressions local to relation a and b. */
  readonly exprA: Expr;
  readonly exprB: Expr;
}

/**
 * Adds the equalities column equalities imply: `c_nationkey = s_nationkey AND s_nationkey =
 * n_nationkey` also joins customer with nation, so the planner may put nation (and region, with
 * its filter) under customer before customer meets orders (Q5). Returns each (relation, column)'s
 * class of equal columns (undefined: in none). Only columns of one type are put in one class.
 */
function addImpliedEdges(edges: Edge[]): (relation: number, column: number) => number | undefined {
  // The columns equalities name (by "relation:column"), unioned into classes.
  const indexOf = new Map<string, number>();
  const columns: { relation: number; expr: Expr }[] = [];
  const parent: number[] = [];
  const columnOf = (relation: number, expr: Extract<Expr, { kind: 'column' }>): number => {
    const key = `${relation}:${expr.index}`;
    let i = indexOf.get(key);
    if (i === undefined) {
      i = columns.push({ relation, expr }) - 1;
      indexOf.set(key, i);
      parent.push(i);
    }
    return i;
  };
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]];
    return i;
  };
  const linked = new Set<number>();
  const pair = (x: number, y: number): number => Math.min(x, y) * 65536 + Math.max(x, y);
  for (const e of edges) {
    if (!isPlainColumn(e.exprA) || !isPlainColumn(e.exprB) || e.exprA.type.id !== e.exprB.type.id) continue;
    const a = columnOf(e.a, e.exprA);
    const b = columnOf(e.b, e.exprB);
    linked.add(pair(a, b));
    parent[find(a)] = find(b);
  }
  // Every two columns of one class, in different relations and not equated yet, get an edge.
  for (let x = 0; x < columns.length; x++) {
    for (let y = x + 1; y < columns.length; y++) {
      if (find(x) !== find(y) || columns[x].relation === columns[y].relation || linked.has(pair(x, y))) continue;
      edges.push({ a: columns[x].relation, b: columns[y].relation, exprA: columns[x].expr, exprB: columns[y].expr });
    }
  }
  return (relation, column) => {
    const i = indexOf.get(`${relation}:${column}`);
    return i === undefined ? undefined : find(i);
  };
}

/**
 * The equalities a class implies between columns of one relation (`a.x = b.y AND a.z = b.y` gives
 * a.x = a.z), as filters local to that relation: a join keys one column per class, which holds
 * only when each side's columns of the class already agree.
 */
function sameRelationEqualities(edges: readonly Edge[], classOf: (relation: number, column: number) => number | undefined): { relation: number; expr: Expr }[] {
  const first = new Map<string, Extract<Expr, { kind: 'column' }>>();
  const seen = new Set<string>();
  const out: { relation: number; expr: Expr }[] = [];
  for (const e of edges) {
    for (const [relation, expr] of [[e.a, e.exprA], [e.b, e.exprB]] as const) {
      if (!isPlainColumn(expr) || seen.has(`${relation}:${expr.index}`)) continue;
      seen.add(`${relation}:${expr.index}`);
      const cls = classOf(relation, expr.index);
      if (cls === undefined) continue;
      const head = first.get(`${relation}:${cls}`);
      if (head === undefined) first.set(`${relation}:${cls}`, expr);
      else out.push({ relation, expr: { kind: 'call', name: '$eq', args: [head, expr], type: BOOLEAN } });
    }
  }
  return out;
}

/** Splits `(x AND p) OR (x AND q)` into `x AND (p OR q)`, so shared join conditions become keys. */
export function factorDisjunction(e: Expr): Expr[] {
  if (e.kind !== 'or') return [e];
  const branches = e.args.map(conjuncts);
  const common = branches[0].filter((c) => branches.every((b) => b.some((x) => exprKey(x) === exprKey(c))));
  if (common.length === 0) return [e];
  const keys = new Set(common.map(exprKey));
  const rest = branches.map((b) => andAll(b.filter((x) => !keys.has(exprKey(x)))));
  if (rest.some((r) => r === null)) return common; // one branch is just the common part: the OR is true
  return [...common, { kind: 'or', args: rest as Expr[], type: BOOLEAN }];
}

/** Estimated fraction of a relation's rows a filter conjunct keeps (distinct-value counts when known). */
function selectivity(e: Expr, input: PlanNode): number {
  const known = knownSelectivity(e, input);
  if (known !== undefined) return known;
  if (e.kind === 'call' && e.name === '$eq') return 0.1;
  if (e.kind === 'like' || e.kind === 'in') return 0.25;
  if (e.kind === 'or') return Math.min(1, e.args.reduce((s, a) => s + selectivity(a, input), 0));
  return 0.33;
}

function isPlainColumn(e: Expr): e is Extract<Expr, { kind: 'column' }> {
  return e.kind === 'column';
}

/** Appends computed key columns to a plan when a key is an expression; returns key column indices. */
function keyColumns(plan: PlanNode, keys: readonly Expr[]): { plan: PlanNode; indices: number[] } {
  if (keys.every(isPlainColumn)) return { plan, indices: keys.map((k) => (k as { index: number }).index) };
  const exprs: Expr[] = plan.fields.map((f, i) => ({ kind: 'column', index: i, type: f.type }));
  const indices = keys.map((k) => {
    if (isPlainColumn(k)) return k.index;
    exprs.push(k);
    return exprs.length - 1;
  });
  const fields: Field[] = exprs.map((e, i) => ({ name: i < plan.fields.length ? plan.fields[i].name : `$key${i}`, type: e.type }));
  return { plan: { kind: 'project', input: plan, exprs, fields }, indices };
}

export function joinPlans(
  left: PlanNode,
  right: PlanNode,
  leftKeyExprs: readonly Expr[],
  rightKeyExprs: readonly Expr[],
  filter: Expr | null,
  joinType: 'inner' | 'left' | 'full' | 'semi' | 'anti',
  options: { nullAware?: boolean; singleMatch?: boolean; markLeft?: boolean } = {},
): PlanNode {
  const l = keyColumns(left, leftKeyExprs);
  const r = keyColumns(right, rightKeyExprs);
  // A residual filter indexes left fields ++ right fields; computed key columns shift the right side.
  const shift = l.plan.fields.length - left.fields.length;
  const residual = filter && shift > 0 ? remapColumns(filter, (i) => (i >= left.fields.length ? i + shift : i)) : filter;
  const fields = joinType === 'semi' || joinType === 'anti' ? l.plan.fields : [...l.plan.fields, ...r.plan.fields];
  const join: PlanNode = {
    kind: 'join',
    joinType,
    left: l.plan,
    right: r.plan,
    leftKeys: l.indices,
    rightKeys: r.indices,
    filter: residual,
    nullAware: options.nullAware ?? false,
    singleMatch: options.singleMatch ?? false,
    markLeft: options.markLeft ?? false,
    fields,
  };
  // Drop computed key columns again so callers see left fields (++ right fields).
  const keep: number[] = [];
  for (let i = 0; i < left.fields.length; i++) keep.push(i);
  if (joinType !== 'semi' && joinType !== 'anti') for (let i = 0; i < right.fields.length; i++) keep.push(l.plan.fields.length + i);
  if (keep.length === fields.length) return join;
  const exprs: Expr[] = keep.map((i) => ({ kind: 'column', index: i, type: fields[i].type }));
  return { kind: 'project', input: join, exprs, fields: keep.map((i) => fields[i]) };
}

/**
 * Joins the relations with the given predicates (over the group's logical layout) and returns a
 * plan whose fields are in logical order.
 */
export function planJoinGroup(relations: readonly Relation[], predicates: readonly Expr[]): PlanNode {
  const relationOf = (column: number): number => relations.findIndex((r) => column >= r.offset && column < r.offset + r.width);
  const local = (e: Expr, r: number): Expr => remapColumns(e, (i) => i - relations[r].offset);
  const filters: Expr[][] = relations.map(() => []);
  const edges: Edge[] = [];
  const residuals: { rels: Set<number>; expr: Expr }[] = [];
  const constant: Expr[] = [];

  for (const p of predicates.flatMap((x) => conjuncts(x)).flatMap(factorDisjunction)) {
    const rels = new Set([...referencedColumns(p)].map(relationOf));
    if (rels.size === 0) constant.push(p);
    else if (rels.size === 1) {
      const r = [...rels][0];
      filters[r].push(local(p, r));
    } else {
      // An OR over relations implies, for each relation every branch restricts, the OR of those
      // restrictions: `(n1 = 'A' AND n2 = 'B') OR (n1 = 'B' AND n2 = 'A')` filters n1 to A or B.
      if (p.kind === 'or') {
        for (const r of rels) {
          const parts = p.args.map((branch) => andAll(conjuncts(branch).filter((c) => [...referencedColumns(c)].every((col) => relationOf(col) === r))));
          if (parts.every((x) => x !== null)) filters[r].push(local({ kind: 'or', args: parts as Expr[], type: BOOLEAN }, r));
        }
      }
      if (p.kind === 'call' && p.name === '$eq') {
        const ra = new Set([...referencedColumns(p.args[0])].map(relationOf));
        const rb = new Set([...referencedColumns(p.args[1])].map(relationOf));
        if (ra.size === 1 && rb.size === 1) {
          const a = [...ra][0];
          const b = [...rb][0];
          if (a !== b) {
            edges.push({ a, b, exprA: local(p.args[0], a), exprB: local(p.args[1], b) });
            continue;
          }
        }
      }
      residuals.push({ rels, expr: p });
    }
  }
  // A constant conjunct that folds to false or NULL: no row survives, so nothing is joined.
  if (constant.some((c) => neverHolds(foldExpr(c)))) return emptyRelation(relations.flatMap((r) => r.plan.fields));

  const classOf = addImpliedEdges(edges);
  for (const { relation, expr } of sameRelationEqualities(edges, classOf)) filters[relation].push(expr);

  const plans = relations.map((r, i) => {
    const f = andAll(filters[i]);
    return f ? ({ kind: 'filter', input: r.plan, predicate: f, fields: r.plan.fields } as PlanNode) : r.plan;
  });
  const reduction = relations.map((r, i) => filters[i].reduce((s, f) => s * selectivity(f, r.plan), 1));
  const estimates = relations.map((r, i) => Math.max(1, estimateRows(r.plan) * reduction[i]));

  /** Edges between relation c and a set of relations, with c's side first. */
  const edgesBetween = (c: number, set: ReadonlySet<number>): { mine: Expr; theirs: Expr; other: number }[] => {
    const out: { mine: Expr; theirs: Expr; other: number }[] = [];
    for (const e of edges) {
      if (e.a === c && set.has(e.b)) out.push({ mine: e.exprA, theirs: e.exprB, other: e.b });
      else if (e.b === c && set.has(e.a)) out.push({ mine: e.exprB, theirs: e.exprA, other: e.a });
    }
    return out;
  };
  /** Whether joining c to `set` matches at most one c row per row (c's primary key is covered). */
  const isKeyJoin = (c: number, set: ReadonlySet<number>): boolean => {
    const pk = relations[c].primaryKey;
    if (!pk || pk.length === 0) return false;
    const cols = new Set(edgesBetween(c, set).flatMap((e) => (isPlainColumn(e.mine) ? [e.mine.index] : [])));
    return pk.every((k) => cols.has(k));
  };

  // Greedy left-deep order over "units": a relation plus the dimension chain hanging off it
  // (relations reachable only through key joins), which is joined first as one build side.
  let current = estimates.indexOf(Math.max(...estimates));
  let plan = plans[current];
  /** logical column → physical position in `plan` */
  let layout: number[] = Array.from({ length: relations[current].width }, (_, i) => relations[current].offset + i);
  const joined = new Set([current]);
  const applied = new Set<number>();
  const closureOf = (start: number): number[] => {
    const members = [start];
    const inUnit = new Set(members);
    for (let grew = true; grew; ) {
      grew = false;
      for (let r = 0; r < relations.length; r++) {
        if (joined.has(r) || inUnit.has(r)) continue;
        if (edgesBetween(r, joined).length > 0) continue;
        if (edgesBetween(r, inUnit).length > 0 && isKeyJoin(r, inUnit)) {
          members.push(r);
          inUnit.add(r);
          grew = true;
        }
      }
    }
    return members;
  };
  while (joined.size < relations.length) {
    const candidates = relations.map((_, i) => i).filter((i) => !joined.has(i));
    const connected = candidates.filter((c) => edgesBetween(c, joined).length > 0);
    const pool = connected.length > 0 ? connected : candidates;
    const units = pool.map((c) => {
      const members = closureOf(c);
      const red = members.reduce((r, m) => r * reduction[m], 1);
      return { c, members, key: isKeyJoin(c, joined), reduction: red, estimate: estimates[c] * members.slice(1).reduce((r, m) => r * reduction[m], 1) };
    });
    units.sort((x, y) => Number(y.key) - Number(x.key) || x.reduction - y.reduction || x.estimate - y.estimate);
    const unit = units[0];
    // The build side: the unit's relations joined among themselves (a sub-group).
    let buildPlan: PlanNode;
    const unitLayout: number[] = [];
    if (unit.members.length === 1) {
      buildPlan = plans[unit.c];
      for (let i = 0; i < relations[unit.c].width; i++) unitLayout.push(relations[unit.c].offset + i);
    } else {
      const sub: Relation[] = [];
      let offset = 0;
      const subOffset = new Map<number, number>();
      for (const m of unit.members) {
        sub.push({ plan: plans[m], offset, width: relations[m].width, primaryKey: relations[m].primaryKey });
        subOffset.set(m, offset);
        offset += relations[m].width;
        for (let i = 0; i < relations[m].width; i++) unitLayout.push(relations[m].offset + i);
      }
      const inUnit = new Set(unit.members);
      const subPredicates: Expr[] = [];
      for (const e of edges) {
        if (inUnit.has(e.a) && inUnit.has(e.b)) {
          const a = remapColumns(e.exprA, (i) => i + (subOffset.get(e.a) as number));
          const b = remapColumns(e.exprB, (i) => i + (subOffset.get(e.b) as number));
          subPredicates.push({ kind: 'call', name: '$eq', args: [a, b], type: BOOLEAN });
        }
      }
      residuals.forEach((r, i) => {
        if (!applied.has(i) && [...r.rels].every((x) => inUnit.has(x))) {
          applied.add(i);
          subPredicates.push(remapColumns(r.expr, (c) => unitLayout.indexOf(c)));
        }
      });
      buildPlan = planJoinGroup(sub, subPredicates);
    }
    const leftKeys: Expr[] = [];
    const rightKeys: Expr[] = [];
    // One key per class of equal columns: the joined rows already agree within a class.
    const keyedClasses = new Set<number>();
    for (const m of unit.members) {
      for (const e of edgesBetween(m, joined)) {
        // Only an equality between two columns of one class is implied by another of that class.
        const cls = isPlainColumn(e.mine) && isPlainColumn(e.theirs) ? classOf(m, e.mine.index) : undefined;
        if (cls !== undefined && classOf(e.other, (e.theirs as { index: number }).index) === cls) {
          if (keyedClasses.has(cls)) continue;
          keyedClasses.add(cls);
        }
        leftKeys.push(remapColumns(e.theirs, (i) => layout.indexOf(relations[e.other].offset + i)));
        rightKeys.push(remapColumns(e.mine, (i) => unitLayout.indexOf(relations[m].offset + i)));
      }
    }
    for (const m of unit.members) joined.add(m);
    // Hash the rows joined so far instead of a large table when they are far fewer: Q9's 320k
    // lineitem rows of green parts meet 1.5M orders, which then stream through them.
    const buildRows = unit.members.length === 1 ? estimateRows(buildPlan) : 0;
    const swap = buildRows >= SWAP_MIN_BUILD_ROWS && 2 * estimateRows(plan) < buildRows;
    const nextLayout = swap ? [...unitLayout, ...layout] : [...layout, ...unitLayout];
    const ready = residuals.map((r, i) => ({ r, i })).filter(({ r, i }) => !applied.has(i) && [...r.rels].every((x) => joined.has(x)));
    for (const { i } of ready) applied.add(i);
    const filter = andAll(ready.map(({ r }) => remapColumns(r.expr, (c) => nextLayout.indexOf(c))));
    plan = swap ? joinPlans(buildPlan, plan, rightKeys, leftKeys, filter, 'inner') : joinPlans(plan, buildPlan, leftKeys, rightKeys, filter, 'inner');
    layout = nextLayout;
    current = unit.c;
  }

  // Back to logical order.
  const width = relations.reduce((n, r) => n + r.width, 0);
  const identity = layout.every((l, i) => l === i) && layout.length === width;
  if (!identity) {
    const exprs: Expr[] = Array.from({ length: width }, (_, i) => ({ kind: 'column', index: layout.indexOf(i), type: plan.fields[layout.indexOf(i)].type }));
    plan = { kind: 'project', input: plan, exprs, fields: exprs.map((e, i) => ({ name: plan.fields[layout.indexOf(i)].name, type: e.type })) };
  }
  const rest = andAll([...constant, ...residuals.filter((_, i) => !applied.has(i)).map((r) => r.expr)]);
  return rest ? { kind: 'filter', input: plan, predicate: rest, fields: plan.fields } : plan;
}
