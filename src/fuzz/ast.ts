// The fuzzer's query tree: generated once, rendered for each engine (the dialect translation is in
// the expression nodes' render functions, see translate.ts), and shrunk by rewriting the tree.

export type Ty = 'int' | 'dbl' | 'dec' | 'str' | 'date' | 'bool';
export type Dialect = 'trino' | 'duck';

/**
 * Constructs known to give wrong answers or to hang today; the generator leaves out the ones a run
 * excludes (the in-suite run excludes all of them, `npm run fuzz` none unless --exclude says so).
 */
export const FEATURES = [
  'multi-cond-same-pair', // several ON conditions between the same two relations
  'setop-order-limit', // ORDER BY / LIMIT after a set operation
  'grouping-sets', // GROUPING SETS / ROLLUP / CUBE
  'count-if-subquery', // count_if inside a correlated scalar subquery
  'nullif-mixed', // NULLIF with arguments of different types
  'cast-double-key', // CAST(k AS DOUBLE) next to k as grouping keys
  'cross-product-false', // a constant-false WHERE over a cross product
  'window-whole-max', // max/min(x) OVER () over a big input
  'exists-aggregate', // [NOT] EXISTS over a subquery with aggregation or HAVING
  'in-aggregate-correlated', // x IN (a correlated subquery with aggregation)
] as const;
export type Feature = (typeof FEATURES)[number];

export interface Expr {
  readonly t: Ty;
  readonly kids: readonly Expr[];
  /** A subquery this node wraps (scalar, EXISTS, IN); rendered and passed as `sub`. */
  readonly sub?: Query;
  readonly render: (kids: readonly string[], d: Dialect, sub: string) => string;
  /** An aggregate call (its kids are row expressions). */
  readonly agg?: boolean;
  /** A window function call. */
  readonly win?: boolean;
  /** A window function whose result depends on a total row order (row_number, lag, ROWS frames): its keys stay. */
  readonly totalOrder?: boolean;
  /** A column reference or literal: nothing to simplify. */
  readonly leaf?: boolean;
  readonly features?: readonly Feature[];
}

export interface Item {
  readonly e: Expr;
  /** Output name; c<i> when absent. */
  readonly alias?: string;
}

export interface Order {
  /** 1-based output column. */
  readonly pos: number;
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

export type JoinType = 'INNER' | 'LEFT' | 'RIGHT' | 'FULL' | 'CROSS';

export type From =
  | { readonly kind: 'table'; readonly name: string; readonly alias: string }
  | { readonly kind: 'derived'; readonly q: Query; readonly alias: string }
  | { readonly kind: 'join'; readonly type: JoinType; readonly left: From; readonly right: From; readonly on: readonly Expr[] };

export interface Group {
  readonly kind: 'plain' | 'rollup' | 'cube' | 'sets';
  readonly keys: readonly Expr[];
  /** For 'sets': each grouping set as indexes into keys. */
  readonly sets?: readonly (readonly number[])[];
}

export interface Cte {
  readonly name: string;
  readonly q: Query;
}

export interface Select {
  readonly kind: 'select';
  readonly with: readonly Cte[];
  readonly distinct: boolean;
  readonly items: readonly Item[];
  /** Comma-separated FROM items; empty for a FROM-less SELECT. */
  readonly from: readonly From[];
  readonly where: readonly Expr[];
  readonly group?: Group;
  readonly having: readonly Expr[];
  readonly order: readonly Order[];
  readonly limit?: number;
}

export interface SetOp {
  readonly kind: 'setop';
  readonly with: readonly Cte[];
  readonly op: 'UNION' | 'INTERSECT' | 'EXCEPT';
  readonly all: boolean;
  readonly left: Query;
  readonly right: Query;
  readonly order: readonly Order[];
  readonly limit?: number;
}

export type Query = Select | SetOp;

/** How table names are written: as the fuzz session sees them, or inside an .slt file with `require memory`. */
let sltNames = false;
const MEMORY_PREFIX = 'memory.fz.';
const TPCH_TABLES = new Set(['region', 'nation', 'supplier', 'customer', 'part', 'partsupp', 'orders', 'lineitem']);

function tableName(name: string): string {
  if (!sltNames) return name;
  if (name.startsWith(MEMORY_PREFIX)) return name.slice(MEMORY_PREFIX.length);
  return TPCH_TABLES.has(name) ? `tpch.tiny.${name}` : name;
}

/** The query as an .slt file with `require memory` runs it: memory tables unqualified, tpch ones qualified. */
export function renderForSlt(q: Query, d: Dialect): string {
  sltNames = true;
  try {
    return renderQuery(q, d);
  } finally {
    sltNames = false;
  }
}

export function renderExpr(e: Expr, d: Dialect): string {
  return e.render(e.kids.map((k) => renderExpr(k, d)), d, e.sub ? renderQuery(e.sub, d) : '');
}

function renderFrom(f: From, d: Dialect): string {
  if (f.kind === 'table') return `${tableName(f.name)} ${f.alias}`;
  if (f.kind === 'derived') return `(${renderQuery(f.q, d)}) ${f.alias}`;
  const left = renderFrom(f.left, d);
  const right = f.right.kind === 'join' ? `(${renderFrom(f.right, d)})` : renderFrom(f.right, d);
  if (f.type === 'CROSS') return `${left} CROSS JOIN ${right}`;
  const on = f.on.length === 0 ? 'true' : f.on.map((c) => renderExpr(c, d)).join(' AND ');
  return `${left} ${f.type} JOIN ${right} ON ${on}`;
}

function renderOrder(order: readonly Order[], limit: number | undefined): string {
  let s = '';
  // Explicit NULLS FIRST/LAST: the two engines' defaults are not something to rely on.
  if (order.length) s += ` ORDER BY ${order.map((o) => `${o.pos} ${o.desc ? 'DESC' : 'ASC'} NULLS ${o.nullsFirst ? 'FIRST' : 'LAST'}`).join(', ')}`;
  if (limit !== undefined) s += ` LIMIT ${limit}`;
  return s;
}

function renderWith(ctes: readonly Cte[], d: Dialect): string {
  return ctes.length ? `WITH ${ctes.map((c) => `${c.name} AS (${renderQuery(c.q, d)})`).join(', ')} ` : '';
}

function renderGroup(g: Group, d: Dialect): string {
  const keys = g.keys.map((k) => renderExpr(k, d));
  switch (g.kind) {
    case 'plain':
      return keys.join(', ');
    case 'rollup':
      return `ROLLUP (${keys.join(', ')})`;
    case 'cube':
      return `CUBE (${keys.join(', ')})`;
    case 'sets':
      return `GROUPING SETS (${(g.sets ?? []).map((s) => `(${s.map((i) => keys[i]).join(', ')})`).join(', ')})`;
  }
}

/** A set operation's operand: parenthesized only when it has clauses of its own that would bind to the whole. */
function renderOperand(q: Query, d: Dialect): string {
  const own = q.with.length > 0 || q.order.length > 0 || q.limit !== undefined || q.kind === 'setop';
  return own ? `(${renderQuery(q, d)})` : renderQuery(q, d);
}

export function renderQuery(q: Query, d: Dialect): string {
  if (q.kind === 'setop') {
    return `${renderWith(q.with, d)}${renderOperand(q.left, d)} ${q.op}${q.all ? ' ALL' : ''} ${renderOperand(q.right, d)}${renderOrder(q.order, q.limit)}`;
  }
  let s = `${renderWith(q.with, d)}SELECT ${q.distinct ? 'DISTINCT ' : ''}${q.items.map((it, i) => `${renderExpr(it.e, d)} AS ${it.alias ?? `c${i}`}`).join(', ')}`;
  if (q.from.length) s += ` FROM ${q.from.map((f) => renderFrom(f, d)).join(', ')}`;
  if (q.where.length) s += ` WHERE ${q.where.map((c) => renderExpr(c, d)).join(' AND ')}`;
  if (q.group) s += ` GROUP BY ${renderGroup(q.group, d)}`;
  if (q.having.length) s += ` HAVING ${q.having.map((c) => renderExpr(c, d)).join(' AND ')}`;
  return s + renderOrder(q.order, q.limit);
}

/** The output width of a query. */
export function width(q: Query): number {
  return q.kind === 'select' ? q.items.length : width(q.left);
}

/** A top-level ORDER BY over every output column fixes the row order (ties are equal rows). */
export function fullyOrdered(q: Query): boolean {
  const w = width(q);
  const seen = new Set(q.order.map((o) => o.pos));
  for (let i = 1; i <= w; i++) if (!seen.has(i)) return false;
  return true;
}

/** Every feature tag in the tree (for reports and the exclusion check). */
export function featuresOf(q: Query, out = new Set<Feature>()): Set<Feature> {
  const expr = (e: Expr): void => {
    for (const f of e.features ?? []) out.add(f);
    e.kids.forEach(expr);
    if (e.sub) featuresOf(e.sub, out);
  };
  const from = (f: From): void => {
    if (f.kind === 'derived') featuresOf(f.q, out);
    else if (f.kind === 'join') {
      from(f.left);
      from(f.right);
      f.on.forEach(expr);
    }
  };
  q.with.forEach((c) => featuresOf(c.q, out));
  if (q.kind === 'setop') {
    featuresOf(q.left, out);
    featuresOf(q.right, out);
    if (q.order.length || q.limit !== undefined) out.add('setop-order-limit');
    return out;
  }
  q.items.forEach((i) => expr(i.e));
  q.from.forEach(from);
  q.where.forEach(expr);
  q.having.forEach(expr);
  q.group?.keys.forEach(expr);
  if (q.group && q.group.kind !== 'plain') out.add('grouping-sets');
  return out;
}

/** Every LIMIT sits under an ORDER BY over all output columns (shrinking can break that). */
export function deterministic(q: Query): boolean {
  if (q.limit !== undefined && !fullyOrdered(q)) return false;
  const subs: Query[] = [...q.with.map((c) => c.q)];
  const expr = (e: Expr): void => {
    if (e.sub) subs.push(e.sub);
    e.kids.forEach(expr);
  };
  const from = (f: From): void => {
    if (f.kind === 'derived') subs.push(f.q);
    else if (f.kind === 'join') {
      from(f.left);
      from(f.right);
      f.on.forEach(expr);
    }
  };
  if (q.kind === 'setop') subs.push(q.left, q.right);
  else {
    q.items.forEach((i) => expr(i.e));
    q.from.forEach(from);
    q.where.forEach(expr);
    q.having.forEach(expr);
  }
  return subs.every(deterministic);
}

/** A SELECT that aggregates (GROUP BY, HAVING, or an aggregate in its select list). */
export function aggregates(q: Query): boolean {
  if (q.kind !== 'select') return false;
  const agg = (e: Expr): boolean => Boolean(e.agg) || e.kids.some(agg);
  return q.group !== undefined || q.having.length > 0 || q.items.some((i) => agg(i.e));
}
