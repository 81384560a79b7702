// Bound expressions: the analyzer's output and the expression compiler's input. Plain data, so a
// plan crosses to worker threads by structured clone and its JSON is the kernel cache key.

import type { SqlType } from '../data/types.js';

/** A constant: numbers (decimals scaled by 10^scale, dates as days, intervals as ms or months), strings, booleans, NULL. */
export type LiteralValue = number | string | boolean | null;

export type Expr =
  | { readonly kind: 'column'; readonly index: number; readonly type: SqlType }
  /** A correlated reference to a field of the enclosing query's scope (analysis only; decorrelation removes it). */
  | { readonly kind: 'outerRef'; readonly index: number; readonly type: SqlType }
  | { readonly kind: 'literal'; readonly value: LiteralValue; readonly type: SqlType }
  /** Scalar functions and operators, by their registry name (see sql/functions.ts). */
  | { readonly kind: 'call'; readonly name: string; readonly args: readonly Expr[]; readonly type: SqlType }
  /** implicit: a coercion the binder inserted, which is not the same expression as a written CAST (GROUP BY CAST(k AS double) is no key for `k + 0.5e0`). */
  | { readonly kind: 'cast'; readonly arg: Expr; readonly type: SqlType; readonly safe: boolean; readonly implicit?: true }
  | { readonly kind: 'and' | 'or'; readonly args: readonly Expr[]; readonly type: SqlType }
  | { readonly kind: 'not'; readonly arg: Expr; readonly type: SqlType }
  | { readonly kind: 'isNull'; readonly arg: Expr; readonly negated: boolean; readonly type: SqlType }
  | { readonly kind: 'in'; readonly arg: Expr; readonly list: readonly Expr[]; readonly negated: boolean; readonly type: SqlType }
  | { readonly kind: 'case'; readonly whens: readonly { readonly when: Expr; readonly then: Expr }[]; readonly otherwise: Expr | null; readonly type: SqlType }
  | { readonly kind: 'coalesce'; readonly args: readonly Expr[]; readonly type: SqlType }
  | { readonly kind: 'like'; readonly arg: Expr; readonly pattern: Expr; readonly escape: Expr | null; readonly negated: boolean; readonly type: SqlType };

export type ExprKind = Expr['kind'];

export function columnRef(index: number, type: SqlType): Expr {
  return { kind: 'column', index, type };
}

export function literal(value: LiteralValue, type: SqlType): Expr {
  return { kind: 'literal', value, type };
}

/** Child expressions, in evaluation order. */
export function children(e: Expr): readonly Expr[] {
  switch (e.kind) {
    case 'column':
    case 'outerRef':
    case 'literal':
      return [];
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
      return e.args;
    case 'cast':
    case 'not':
    case 'isNull':
      return [e.arg];
    case 'in':
      return [e.arg, ...e.list];
    case 'case': {
      const out: Expr[] = [];
      for (const w of e.whens) out.push(w.when, w.then);
      if (e.otherwise) out.push(e.otherwise);
      return out;
    }
    case 'like':
      return e.escape ? [e.arg, e.pattern, e.escape] : [e.arg, e.pattern];
  }
}

/**
 * Whether expressions serialized with JSON.stringify call a function whose every evaluation may
 * differ (random()): such a value is neither computed once for two uses nor shared between plans.
 */
export function mentionsNondeterministic(json: string): boolean {
  return NONDETERMINISTIC_CALLS_JSON.some((call) => json.includes(call));
}

/** Functions whose every evaluation may differ: never constant, never computed once for several uses. */
const NONDETERMINISTIC_FUNCTIONS: ReadonlySet<string> = new Set(['random', 'rand']);
/** How a call of each appears in an expression's JSON (mentionsNondeterministic). */
const NONDETERMINISTIC_CALLS_JSON = [...NONDETERMINISTIC_FUNCTIONS].map((name) => `"name":"${name}"`);

/** Every input column an expression reads. */
export function referencedColumns(e: Expr, into = new Set<number>()): Set<number> {
  if (e.kind === 'column') into.add(e.index);
  for (const c of children(e)) referencedColumns(c, into);
  return into;
}

/** Rewrites column references (e.g. after projection push-down renumbers inputs). */
export function remapColumns(e: Expr, map: (index: number) => number): Expr {
  if (e.kind === 'column') return { ...e, index: map(e.index) };
  return mapChildren(e, (c) => remapColumns(c, map));
}

/**
 * Whether an expression has one value whatever the row: no column, no outer reference and no
 * function such as random() (folding `SELECT random()` at planning gave every run of the cached
 * plan, and every row, one value).
 */
export function isConstant(e: Expr): boolean {
  if (e.kind === 'column' || e.kind === 'outerRef') return false;
  if (e.kind === 'call' && NONDETERMINISTIC_FUNCTIONS.has(e.name)) return false;
  return children(e).every(isConstant);
}

/** Applies `f` to every direct child, rebuilding the node. */
export function mapChildren(e: Expr, f: (c: Expr) => Expr): Expr {
  switch (e.kind) {
    case 'column':
    case 'outerRef':
    case 'literal':
      return e;
    case 'call':
    case 'and':
    case 'or':
    case 'coalesce':
      return { ...e, args: e.args.map(f) };
    case 'cast':
    case 'not':
    case 'isNull':
      return { ...e, arg: f(e.arg) };
    case 'in':
      return { ...e, arg: f(e.arg), list: e.list.map(f) };
    case 'case':
      return { ...e, whens: e.whens.map((w) => ({ when: f(w.when), then: f(w.then) })), otherwise: e.otherwise ? f(e.otherwise) : null };
    case 'like':
      return { ...e, arg: f(e.arg), pattern: f(e.pattern), escape: e.escape ? f(e.escape) : null };
  }
}

/** True when the expression reads a correlated outer field. */
export function hasOuterRef(e: Expr): boolean {
  return e.kind === 'outerRef' || children(e).some(hasOuterRef);
}

/** The conjuncts of an AND tree. */
export function conjuncts(e: Expr): Expr[] {
  return e.kind === 'and' ? e.args.flatMap(conjuncts) : [e];
}

export function andAll(list: readonly Expr[]): Expr | null {
  if (list.length === 0) return null;
  if (list.length === 1) return list[0];
  return { kind: 'and', args: list.flatMap(conjuncts), type: { id: 'boolean' } };
}

export function exprKey(e: Expr): string {
  return JSON.stringify(e);
}
