// Expression binding: AST expressions to typed IR against a scope, with Trino's implicit coercions
// made explicit as casts. Aggregate calls and scalar subqueries are handed to collectors, which
// return placeholder column references the caller maps once it has planned them.

import { AGGREGATE_NAMES } from './aggregate-names.js';
import {
  BIGINT,
  BOOLEAN,
  DATE,
  DOUBLE,
  INTEGER,
  INTERVAL_DAY_TIME,
  INTERVAL_YEAR_MONTH,
  REAL,
  SMALLINT,
  TIMESTAMP,
  TINYINT,
  UNKNOWN,
  VARCHAR,
  decimal,
  isNumeric,
  isOrderable,
  typeDisplayName,
  typeEquals,
  varchar,
  MAX_DECIMAL_PRECISION,
  type SqlType,
} from '../data/types.js';
import { EngineError, type SourceLocation } from '../util/engine-error.js';
import type { AstNode } from './ast.js';
import { FunctionResolutionError, isKnownFunction, resolveFunction } from './functions.js';
import type { Expr } from './ir.js';
import { castConstant, parseDateLiteral, parseTimestampLiteral } from './literals.js';
import { locateName } from './parse.js';
import { COVARIANCE_NAMES, type AggregateName, type CovarianceName } from './plan.js';
import type { Scope } from './scope.js';
import { commonSuperType } from './types-coercion.js';

export interface AnalysisContext {
  readonly catalogs: import('../connectors/catalog.js').CatalogRegistry;
  readonly catalog: string | undefined;
  readonly schema: string | undefined;
  readonly sql: string;
  /** Query start (ms since epoch), the value of current_date / now(). */
  readonly now: number;
  /** The session's user and time zone: current_user, current_timezone(). */
  readonly user?: string;
  readonly timeZone?: string;
  /** WITH queries in scope, by lower-case name. */
  readonly ctes?: ReadonlyMap<string, { readonly ast: AstNode; readonly columns: readonly string[] | null }>;
  /** Planning rules switched off by name (for comparing plans). */
  readonly disabledRules?: ReadonlySet<string>;
  /** Filled in while planning: what the plan depends on besides the statement (see PlanCache). */
  readonly observed?: PlanDependencies;
  /** How many views deep this query is (analyze.ts analyzeView). */
  readonly viewDepth?: number;
  /** Throws PERMISSION_DENIED unless the session may read the table or view (access control). */
  readonly checkTableAccess?: (table: { readonly catalog: string; readonly schema: string; readonly name: string }, location?: SourceLocation) => void;
}

export interface PlanDependencies {
  /** current_date / now() were folded into the plan. */
  timeDependent: boolean;
  /** Where every table and view the statement resolved lives (the plan holds their metadata). */
  readonly tables: { readonly catalog: string; readonly schema: string }[];
}

export interface AggregateCollector {
  readonly calls: { name: AggregateName; args: Expr[]; distinct: boolean; filter: Expr | null; type: SqlType; key: string }[];
}

/** Receives scalar subqueries met while binding; returns the placeholder that stands for the value. */
export interface SubqueryCollector {
  scalar(node: AstNode, scope: Scope): Expr;
  /** `value IN (subquery)` as a value (outside a WHERE conjunct, which is a semi join instead). */
  inSubquery?(value: Expr, node: AstNode, scope: Scope): Expr;
}

/** Receives window function calls; returns the placeholder that stands for the result. */
export interface WindowCollector {
  window(node: AstNode, bc: BindContext): Expr;
}

export interface BindContext {
  readonly scope: Scope;
  readonly ctx: AnalysisContext;
  readonly aggregates: AggregateCollector | null;
  readonly subqueries: SubqueryCollector | null;
  /**
   * Where subqueries inside aggregate arguments go: computed before the aggregation (its input
   * columns), where those elsewhere in an aggregation's select list are computed after it.
   */
  readonly argumentSubqueries?: SubqueryCollector | null;
  readonly windows?: WindowCollector | null;
}

/** Placeholder column indices at and above this (below AGGREGATE_BASE) stand for window results. */
export const WINDOW_BASE = 1 << 27;

function windowCall(node: AstNode, bc: BindContext): Expr {
  if (!bc.windows) throw new EngineError('NOT_SUPPORTED', 'Window functions are not allowed here (only in SELECT and ORDER BY)', loc(node) ?? locateName(bc.ctx.sql, ['over']));
  return bc.windows.window(node, bc);
}

/** Placeholder column indices at and above this stand for aggregate results (see analyze.ts). */
export const AGGREGATE_BASE = 1 << 28;
/** Placeholder column indices at and above this stand for scalar subquery values. */
export const SUBQUERY_BASE = 1 << 29;

export function loc(node: AstNode | null | undefined): SourceLocation | undefined {
  const s = node?.loc?.start;
  return s ? { lineNumber: s.line, columnNumber: s.column } : undefined;
}

export function identifierValue(x: unknown): string {
  if (typeof x === 'string') return x;
  const node = x as AstNode;
  if (node?.expr) return identifierValue(node.expr);
  if (node && typeof node.value === 'string') return node.value;
  throw new EngineError('GENERIC_INTERNAL_ERROR', 'Unrecognised identifier');
}

export function columnParts(e: AstNode): string[] {
  const name = identifierValue(e.column);
  const table = e.table ? identifierValue(e.table) : undefined;
  const schema = e.schema ? identifierValue(e.schema) : undefined;
  return [schema, table, name].filter((p): p is string => p !== undefined);
}

export function locateFirst(node: AstNode, ctx: AnalysisContext): SourceLocation | undefined {
  if (node.type === 'column_ref' && typeof node.column !== 'string') return locateName(ctx.sql, columnParts(node));
  return undefined;
}

export function requireBoolean(e: Expr, clause: string, node: AstNode, ctx: AnalysisContext): void {
  if (e.type.id !== 'boolean' && e.type.id !== 'unknown') {
    throw new EngineError('TYPE_MISMATCH', `${clause} must evaluate to a boolean: actual type ${typeDisplayName(e.type)}`, loc(node) ?? locateFirst(node, ctx));
  }
}

/** The query of a subquery node (in any expression position). */
export function subqueryAst(node: AstNode | null | undefined): AstNode | undefined {
  if (!node || typeof node !== 'object') return undefined;
  if (node.ast && typeof node.ast === 'object') return node.ast as AstNode;
  if (node.type === 'select') return node;
  return undefined;
}

export function coerce(e: Expr, to: SqlType): Expr {
  if (typeEquals(e.type, to)) return e;
  if (e.type.id === 'varchar' && to.id === 'varchar') return e;
  if (e.kind === 'literal') return { kind: 'literal', value: castConstant(e.value, e.type, to, false), type: to };
  return { kind: 'cast', arg: e, type: to, safe: false, implicit: true };
}

export function call(name: string, args: Expr[], node: AstNode, ctx: AnalysisContext): Expr {
  let resolution;
  try {
    resolution = resolveFunction(name, args.map((a) => a.type));
  } catch (e) {
    if (e instanceof FunctionResolutionError) {
      throw new EngineError(e.kind === 'unknown' ? 'FUNCTION_NOT_FOUND' : 'TYPE_MISMATCH', e.message, loc(node) ?? locateName(ctx.sql, [name.replace(/^\$/u, '')]));
    }
    throw e;
  }
  const coerced = args.map((a, i) => coerce(a, resolution.argTypes[i]));
  const e: Expr = { kind: 'call', name, args: coerced, type: resolution.type };
  // NULLIF's value is its first argument's, in that argument's type (the cast back is exact: a widening undone).
  if (name !== 'nullif' || args[0].type.id === 'unknown') return e;
  return e.type.id === 'varchar' ? { ...e, type: args[0].type } : coerce(e, args[0].type);
}

const BINARY_OPERATORS: Record<string, string> = {
  '+': '$add',
  '-': '$subtract',
  '*': '$multiply',
  '/': '$divide',
  '%': '$modulus',
  '=': '$eq',
  '<>': '$ne',
  '!=': '$ne',
  '<': '$lt',
  '<=': '$le',
  '>': '$gt',
  '>=': '$ge',
  '||': '$concat',
};

export function bindExpr(node: AstNode, bc: BindContext): Expr {
  const { scope, ctx } = bc;
  const bind = (n: AstNode): Expr => bindExpr(n, bc);
  switch (node.type) {
    case 'column_ref': {
      if (node.column === '*') throw new EngineError('SYNTAX_ERROR', `mismatched input '*'`, loc(node));
      const parts = columnParts(node);
      const r = scope.resolve(parts, ctx.sql);
      if (!r) {
        // Keywords written without parentheses reach here as names no column has.
        if (parts.length === 1 && /^(current_date|current_timestamp|localtimestamp)$/iu.test(parts[0])) {
          return currentTime(parts[0].toLowerCase() === 'current_date' ? 'current_date' : 'current_timestamp', ctx);
        }
        throw new EngineError('COLUMN_NOT_FOUND', `Column '${parts.join('.')}' cannot be resolved`, locateName(ctx.sql, parts));
      }
      return { kind: r.outer ? 'outerRef' : 'column', index: r.index, type: r.type };
    }
    case 'number':
      return numberLiteral(node.value, node, ctx);
    case 'bigint':
      return numberLiteral(String(node.value), node, ctx);
    case 'single_quote_string':
    case 'string':
    case 'natural_string':
    case 'escape_string': {
      const s = String(node.value);
      return { kind: 'literal', value: s, type: varchar([...s].length) };
    }
    case 'bool':
      return { kind: 'literal', value: Boolean(node.value), type: BOOLEAN };
    case 'null':
      return { kind: 'literal', value: null, type: UNKNOWN };
    case 'date': {
      const days = parseDateLiteral(String(node.value));
      if (days === undefined) throw new EngineError('INVALID_LITERAL', `'${node.value}' is not a valid DATE literal`, loc(node) ?? locateName(ctx.sql, ['date']));
      return { kind: 'literal', value: days, type: DATE };
    }
    case 'timestamp': {
      const ms = parseTimestampLiteral(String(node.value));
      if (ms === undefined) throw new EngineError('INVALID_LITERAL', `'${node.value}' is not a valid TIMESTAMP literal`, loc(node) ?? locateName(ctx.sql, ['timestamp']));
      return { kind: 'literal', value: ms, type: TIMESTAMP };
    }
    case 'interval':
      return intervalLiteral(node, ctx);
    case 'unary_expr': {
      const op = String(node.operator).toUpperCase();
      if (op === 'NOT EXISTS') return notOf(existsAsCount(node, [node.expr], bc), node, ctx);
      const arg = bind(node.expr);
      if (op === 'NOT') return notOf(arg, node, ctx);
      if (op === '-') {
        if (arg.kind === 'literal' && typeof arg.value === 'number') return { ...arg, value: -arg.value };
        return call('$negate', [arg], node, ctx);
      }
      if (op === '+') return arg;
      throw new EngineError('NOT_SUPPORTED', `Operator ${op} is not supported`, loc(node));
    }
    case 'binary_expr':
      return bindBinary(node, bc);
    case 'case':
      return bindCase(node, bc);
    case 'cast':
      return bindCast(node, bc);
    case 'extract': {
      const field = String(node.args?.field ?? '').toLowerCase();
      const fn = { year: 'year', quarter: 'quarter', month: 'month', week: 'week', day: 'day', dow: 'day_of_week', day_of_week: 'day_of_week', doy: 'day_of_year', day_of_year: 'day_of_year', hour: 'hour', minute: 'minute', second: 'second' }[field];
      if (!fn) throw new EngineError('NOT_SUPPORTED', `EXTRACT(${field.toUpperCase()}) is not supported`, loc(node));
      // `EXTRACT(YEAR FROM DATE '...')` arrives as a string source with the literal's type apart.
      const castType = node.args.cast_type ? String(node.args.cast_type).toLowerCase() : undefined;
      const source = castType ? { type: castType, value: node.args.source?.value } : node.args.source;
      return call(fn, [bind(source)], node, ctx);
    }
    case 'window_func':
      return windowCall(node, bc);
    case 'function':
      if (node.over) return windowCall(node, bc);
      return bindFunction(node, bc);
    case 'aggr_func':
      if (node.over) return windowCall(node, bc);
      return bindAggregate(node, bc);
    case 'expr_list':
      if (Array.isArray(node.value) && node.value.length === 1) return bind(node.value[0]);
      throw new EngineError('NOT_SUPPORTED', 'Row constructors are not supported', loc(node));
    case 'select':
      return scalarSubquery(node, bc);
    default:
      if (node.ast) return scalarSubquery(node, bc);
      throw new EngineError('NOT_SUPPORTED', `Expression of kind '${String(node.type)}' is not supported`, loc(node));
  }
}

/**
 * EXISTS outside a WHERE conjunct (a select item, a CASE): `(SELECT count(*) FROM … WHERE …) > 0`,
 * a scalar subquery (correlated on equalities, decorrelated into a join like any other; a missing
 * group counts 0). WHERE conjuncts become semi joins instead (analyze.ts). Only over a plain
 * SELECT … FROM … WHERE: with GROUP BY, HAVING, DISTINCT, LIMIT or set operations the count would
 * not be the number of rows.
 */
function existsAsCount(node: AstNode, argNodes: readonly AstNode[], bc: BindContext): Expr {
  const sub = subqueryAst(argNodes[0]);
  const where = loc(node) ?? locateName(bc.ctx.sql, ['exists']);
  if (sub === undefined || !plainSelect(sub)) throw new EngineError('NOT_SUPPORTED', 'EXISTS outside a WHERE conjunct is supported over a plain SELECT ... FROM ... WHERE only', where);
  const counting: AstNode = { ...sub, columns: [{ type: 'expr', expr: { type: 'aggr_func', name: 'COUNT', args: { expr: { type: 'star', value: '*' } }, over: null }, as: null }], orderby: null };
  const count = scalarSubquery({ ast: counting }, bc);
  return call('$gt', [count, { kind: 'literal', value: 0, type: BIGINT }], node, bc.ctx);
}

/** A SELECT … FROM … WHERE with nothing that changes its row count: no GROUP BY, HAVING, DISTINCT, LIMIT, WITH or set operation. */
export function plainSelect(ast: AstNode): boolean {
  return ast.type === 'select' && !ast._next && !ast.set_op && !ast.groupby && !ast.having && !ast.limit?.value?.length && ast.distinct?.type == null && !ast.with;
}

function scalarSubquery(node: AstNode, bc: BindContext): Expr {
  if (!bc.subqueries) throw new EngineError('NOT_SUPPORTED', 'Subqueries are not supported in this position', loc(node) ?? locateName(bc.ctx.sql, ['select']));
  return bc.subqueries.scalar(node, bc.scope);
}

function currentTime(name: string, ctx: AnalysisContext): Expr {
  if (ctx.observed) ctx.observed.timeDependent = true;
  if (name.toLowerCase() === 'current_date') return { kind: 'literal', value: Math.floor(ctx.now / 86_400_000), type: DATE };
  return { kind: 'literal', value: ctx.now, type: TIMESTAMP };
}

function numberLiteral(raw: unknown, node: AstNode, ctx: AnalysisContext): Expr {
  const text = String(raw);
  if (/e/iu.test(text)) return { kind: 'literal', value: Number(text), type: DOUBLE };
  if (text.includes('.')) {
    const negative = text.startsWith('-');
    const digits = text.replace(/^[-+]/u, '');
    const [intPart, frac] = digits.split('.');
    const scale = frac.length;
    const precision = Math.max(1, (intPart.replace(/^0+/u, '') + frac).length, scale);
    if (precision > MAX_DECIMAL_PRECISION) throw new EngineError('INVALID_LITERAL', `Decimal literal ${text} is too large`, loc(node));
    const scaled = Number(intPart + frac) * (negative ? -1 : 1);
    // Decimals are scaled integers in doubles: refuse what would not be exact rather than round it.
    if (!Number.isSafeInteger(scaled)) throw new EngineError('NOT_SUPPORTED', `Decimal literal ${text} has more digits than this engine holds exactly (15)`, loc(node));
    return { kind: 'literal', value: scaled, type: decimal(precision, scale) };
  }
  const n = Number(text);
  if (!Number.isFinite(n)) throw new EngineError('INVALID_LITERAL', `Invalid numeric literal: ${text}`, loc(node));
  if (!Number.isSafeInteger(n)) {
    // 2^63 - 1 itself rounds to 2^63 as a double.
    if (Math.abs(n) <= 2 ** 63) throw new EngineError('NOT_SUPPORTED', `Integer literal ${text} is beyond the exact range (2^53) of this engine`, loc(node) ?? locateNumberText(ctx.sql, text));
    throw new EngineError('INVALID_LITERAL', `Invalid numeric literal: ${text}`, loc(node) ?? locateNumberText(ctx.sql, text));
  }
  return { kind: 'literal', value: n, type: n >= -2147483648 && n <= 2147483647 ? INTEGER : BIGINT };
}

function locateNumberText(sql: string, text: string): SourceLocation | undefined {
  const i = sql.indexOf(text);
  if (i < 0) return undefined;
  const before = sql.slice(0, i).split('\n');
  return { lineNumber: before.length, columnNumber: before[before.length - 1].length + 1 };
}

const DAY_TIME_UNITS: Record<string, number> = { day: 86_400_000, hour: 3_600_000, minute: 60_000, second: 1000 };
const YEAR_MONTH_UNITS: Record<string, number> = { year: 12, month: 1 };

function intervalLiteral(node: AstNode, ctx: AnalysisContext): Expr {
  const unit = String(node.unit ?? '').toLowerCase().replace(/s$/u, '');
  const raw = node.expr?.value;
  const n = Number(raw);
  if (raw === undefined || !Number.isFinite(n)) throw new EngineError('INVALID_LITERAL', `'${String(raw)}' is not a valid interval literal`, loc(node) ?? locateName(ctx.sql, ['interval']));
  if (unit in DAY_TIME_UNITS) return { kind: 'literal', value: n * DAY_TIME_UNITS[unit], type: INTERVAL_DAY_TIME };
  if (unit in YEAR_MONTH_UNITS) return { kind: 'literal', value: n * YEAR_MONTH_UNITS[unit], type: INTERVAL_YEAR_MONTH };
  throw new EngineError('NOT_SUPPORTED', `Interval unit ${unit.toUpperCase()} is not supported`, loc(node) ?? locateName(ctx.sql, ['interval']));
}

function notOf(arg: Expr, node: AstNode, ctx: AnalysisContext): Expr {
  if (arg.type.id !== 'boolean' && arg.type.id !== 'unknown') {
    throw new EngineError('TYPE_MISMATCH', `Value of logical NOT expression must evaluate to a boolean (actual: ${typeDisplayName(arg.type)})`, loc(node) ?? locateFirst(node.expr, ctx));
  }
  return { kind: 'not', arg: coerce(arg, BOOLEAN), type: BOOLEAN };
}

function logical(kind: 'and' | 'or', left: Expr, right: Expr, node: AstNode, ctx: AnalysisContext): Expr {
  for (const side of [left, right]) {
    if (side.type.id !== 'boolean' && side.type.id !== 'unknown') {
      throw new EngineError('TYPE_MISMATCH', `${kind.toUpperCase()} operands must evaluate to a boolean: actual type ${typeDisplayName(side.type)}`, loc(node));
    }
  }
  const flat = (e: Expr): readonly Expr[] => (e.kind === kind ? e.args : [coerce(e, BOOLEAN)]);
  return { kind, args: [...flat(left), ...flat(right)], type: BOOLEAN };
}

function bindBinary(node: AstNode, bc: BindContext): Expr {
  const { ctx } = bc;
  const bind = (n: AstNode): Expr => bindExpr(n, bc);
  const op = String(node.operator).toUpperCase();
  switch (op) {
    case 'AND':
    case 'OR':
      return logical(op === 'AND' ? 'and' : 'or', bind(node.left), bind(node.right), node, ctx);
    case 'IS':
    case 'IS NOT': {
      const arg = bind(node.left);
      const r = node.right as AstNode;
      if (r.type === 'null') return { kind: 'isNull', arg, negated: op === 'IS NOT', type: BOOLEAN };
      if (r.type === 'bool') {
        // x IS TRUE  ==  coalesce(x = true, false)
        const eq = call('$eq', [arg, { kind: 'literal', value: Boolean(r.value), type: BOOLEAN }], node, ctx);
        const isTrue: Expr = { kind: 'coalesce', args: [eq, { kind: 'literal', value: false, type: BOOLEAN }], type: BOOLEAN };
        return op === 'IS' ? isTrue : { kind: 'not', arg: isTrue, type: BOOLEAN };
      }
      throw new EngineError('NOT_SUPPORTED', `IS ${String(r.type).toUpperCase()} is not supported`, loc(node));
    }
    case 'IS DISTINCT FROM':
    case 'IS NOT DISTINCT FROM': {
      const e = call('$distinct', [bind(node.left), bind(node.right)], node, ctx);
      return op === 'IS DISTINCT FROM' ? e : { kind: 'not', arg: e, type: BOOLEAN };
    }
    case 'BETWEEN':
    case 'NOT BETWEEN': {
      const [lo, hi] = (node.right.value as AstNode[]).map(bind);
      const arg = bind(node.left);
      const e = logical('and', call('$ge', [arg, lo], node, ctx), call('$le', [arg, hi], node, ctx), node, ctx);
      return op === 'BETWEEN' ? e : { kind: 'not', arg: e, type: BOOLEAN };
    }
    case 'IN':
    case 'NOT IN': {
      if (node.right?.type !== 'expr_list' || node.right.value?.some?.((v: AstNode) => v.ast || v.type === 'select')) {
        const values = (node.right?.value ?? []) as AstNode[];
        if (values.length === 1 && subqueryAst(values[0]) && bc.subqueries?.inSubquery) {
          const e = bc.subqueries.inSubquery(bind(node.left), values[0], bc.scope);
          return op === 'IN' ? e : { kind: 'not', arg: e, type: BOOLEAN };
        }
        throw new EngineError('NOT_SUPPORTED', 'IN with a subquery is supported only as a WHERE conjunct', loc(node) ?? locateName(ctx.sql, ['in']));
      }
      const arg = bind(node.left);
      const list = (node.right.value as AstNode[]).map(bind);
      let t: SqlType | undefined = arg.type;
      for (const item of list) t = t && commonSuperType(t, item.type);
      if (!t) {
        const bad = list.find((i) => !commonSuperType(arg.type, i.type)) ?? list[0];
        throw new EngineError('TYPE_MISMATCH', `IN value and list items must be the same type: ${typeDisplayName(arg.type)} vs ${typeDisplayName(bad.type)}`, loc(node));
      }
      const target = t;
      return { kind: 'in', arg: coerce(arg, target), list: list.map((i) => coerce(i, target)), negated: op === 'NOT IN', type: BOOLEAN };
    }
    case 'LIKE':
    case 'NOT LIKE': {
      const arg = bind(node.left);
      const right = node.right as AstNode;
      const pattern = bind({ ...right, escape: undefined });
      const escape = right.escape ? bind(right.escape.value) : null;
      for (const [what, e] of [['value', arg], ['pattern', pattern], ['escape', escape]] as const) {
        if (e && e.type.id !== 'varchar' && e.type.id !== 'unknown') {
          throw new EngineError('TYPE_MISMATCH', `Cannot apply LIKE to a ${what} of type ${typeDisplayName(e.type)}`, loc(node));
        }
      }
      return { kind: 'like', arg: coerce(arg, VARCHAR), pattern: coerce(pattern, VARCHAR), escape: escape ? coerce(escape, VARCHAR) : null, negated: op === 'NOT LIKE', type: BOOLEAN };
    }
    default: {
      const name = BINARY_OPERATORS[op];
      if (!name) throw new EngineError('NOT_SUPPORTED', `Operator ${op} is not supported`, loc(node));
      return call(name, [bind(node.left), bind(node.right)], node, ctx);
    }
  }
}

function bindCase(node: AstNode, bc: BindContext): Expr {
  const { ctx } = bc;
  const bind = (n: AstNode): Expr => bindExpr(n, bc);
  const operand = node.expr ? bind(node.expr) : null;
  const whens: { when: Expr; then: Expr }[] = [];
  let otherwise: Expr | null = null;
  for (const arm of node.args as AstNode[]) {
    if (arm.type === 'when') {
      const cond = bind(arm.cond);
      const when = operand ? call('$eq', [operand, cond], arm.cond, ctx) : cond;
      if (!operand && when.type.id !== 'boolean' && when.type.id !== 'unknown') {
        throw new EngineError('TYPE_MISMATCH', `CASE WHEN clause must evaluate to a boolean: actual type ${typeDisplayName(when.type)}`, loc(arm.cond) ?? loc(node));
      }
      whens.push({ when: coerce(when, BOOLEAN), then: bind(arm.result) });
    } else otherwise = bind(arm.result);
  }
  let t: SqlType | undefined = whens[0]?.then.type ?? UNKNOWN;
  for (const r of [...whens.map((w) => w.then), ...(otherwise ? [otherwise] : [])]) {
    const next: SqlType | undefined = t && commonSuperType(t, r.type);
    if (!next) throw new EngineError('TYPE_MISMATCH', `All CASE results must be the same type or coercible to a common type. Cannot find common type between ${typeDisplayName(t ?? UNKNOWN)} and ${typeDisplayName(r.type)}`, loc(node));
    t = next;
  }
  const type = t ?? UNKNOWN;
  return { kind: 'case', whens: whens.map((w) => ({ when: w.when, then: coerce(w.then, type) })), otherwise: otherwise ? coerce(otherwise, type) : null, type };
}

/** Parses a SQL type name as written in CAST. */
export function parseTypeName(dataType: string, length?: number, scale?: number): SqlType | undefined {
  const t = dataType.toLowerCase().replace(/\s+/gu, ' ');
  switch (t) {
    case 'boolean':
    case 'bool':
      return BOOLEAN;
    case 'tinyint':
      return TINYINT;
    case 'smallint':
      return SMALLINT;
    case 'int':
    case 'integer':
      return INTEGER;
    case 'bigint':
      return BIGINT;
    case 'real':
    case 'float4':
      return REAL;
    case 'double':
    case 'double precision':
    case 'float':
    case 'float8':
      return DOUBLE;
    case 'decimal':
    case 'numeric':
      return decimal(length ?? MAX_DECIMAL_PRECISION, scale ?? 0);
    case 'varchar':
    case 'character varying':
    case 'char':
    case 'character':
    case 'text':
    case 'string':
      return length === undefined ? VARCHAR : varchar(length);
    case 'date':
      return DATE;
    case 'timestamp':
      return TIMESTAMP;
    default:
      return undefined;
  }
}

function bindCast(node: AstNode, bc: BindContext, safe = false): Expr {
  const { ctx } = bc;
  const arg = bindExpr(node.expr, bc);
  const target = (node.target as AstNode[])?.[0];
  const type = target ? parseTypeName(String(target.dataType), target.length, target.scale) : undefined;
  if (!type) throw new EngineError('TYPE_MISMATCH', `Unknown type: ${String(target?.dataType ?? '').toLowerCase()}`, loc(node) ?? locateName(ctx.sql, [String(target?.dataType ?? 'cast').toLowerCase()]));
  if (!castSupported(arg.type, type)) throw new EngineError('TYPE_MISMATCH', `Cannot cast ${typeDisplayName(arg.type)} to ${typeDisplayName(type)}`, loc(node) ?? locateName(ctx.sql, ['cast']));
  if (arg.kind === 'literal') {
    try {
      return { kind: 'literal', value: castConstant(arg.value, arg.type, type, safe), type };
    } catch (e) {
      // Failing on every row, so where it runs: an enclosing TRY(...) may absorb it.
      if (!(e instanceof EngineError) || e.errorName !== 'INVALID_CAST_ARGUMENT') throw e;
    }
  }
  return { kind: 'cast', arg, type, safe };
}

function castSupported(from: SqlType, to: SqlType): boolean {
  if (from.id === 'unknown' || from.id === to.id) return true;
  const scalar = (t: SqlType): boolean => isNumeric(t) || t.id === 'boolean' || t.id === 'varchar';
  if (scalar(from) && scalar(to)) return true;
  if (from.id === 'varchar' && (to.id === 'date' || to.id === 'timestamp')) return true;
  if (to.id === 'varchar' && (from.id === 'date' || from.id === 'timestamp' || from.id.startsWith('interval'))) return true;
  if ((from.id === 'date' && to.id === 'timestamp') || (from.id === 'timestamp' && to.id === 'date')) return true;
  return false;
}

function functionName(node: AstNode): string {
  const parts = node.name?.name as AstNode[] | undefined;
  if (Array.isArray(parts)) return parts.map((p) => String(p.value)).join('.').toLowerCase();
  return String(node.name).toLowerCase();
}

function bindFunction(node: AstNode, bc: BindContext): Expr {
  const { ctx } = bc;
  const name = functionName(node);
  const argNodes: AstNode[] = node.args?.value ?? (node.args?.expr ? [node.args.expr] : []);
  if (name === 'try_cast__' && argNodes.length === 1 && argNodes[0].type === 'cast') return bindCast(argNodes[0], bc, true);
  if (AGGREGATE_NAMES.has(name)) {
    // Aggregates other than count/sum/avg/min/max arrive as calls, with DISTINCT in args.distinct
    // and FILTER (WHERE …) in filter.
    const args = { expr: argNodes[0] ?? { type: 'star' }, more: argNodes.slice(1), distinct: node.args?.distinct ?? null };
    const filter = node.filter;
    return bindAggregate({ ...node, type: 'aggr_func', name, args, filter }, bc);
  }
  if (name === 'exists') return existsAsCount(node, argNodes, bc);
  // date(x) is CAST(x AS date).
  if (name === 'date' && argNodes.length === 1) return bindCast({ type: 'cast', expr: argNodes[0], target: [{ dataType: 'DATE' }] }, bc);
  if ((name === 'any' || name === 'all' || name === 'some') && argNodes.length === 1 && subqueryAst(argNodes[0])) {
    throw new EngineError('NOT_SUPPORTED', `Quantified comparisons are supported as = ANY / = SOME and <> ALL only`, loc(node) ?? locateName(ctx.sql, [name]));
  }
  if ((name === 'current_user' || name === 'current_timezone') && argNodes.length === 0) {
    // Per session: a plan holding it is not reused for another (PlanCache skips time-dependent plans).
    if (ctx.observed) ctx.observed.timeDependent = true;
    const value = name === 'current_user' ? (ctx.user ?? 'anonymous') : (ctx.timeZone ?? 'UTC');
    return { kind: 'literal', value, type: varchar([...value].length) };
  }
  if ((name === 'current_date' || name === 'current_timestamp' || name === 'now' || name === 'localtimestamp') && argNodes.length === 0) {
    return currentTime(name === 'current_date' ? 'current_date' : 'current_timestamp', ctx);
  }
  // position(substring IN string) arrives as three arguments, the middle one the keyword.
  if (name === 'position' && argNodes.length === 3 && argNodes[1].type === 'origin' && String(argNodes[1].value).toLowerCase() === 'in') {
    return call('strpos', [bindExpr(argNodes[2], bc), bindExpr(argNodes[0], bc)], node, ctx);
  }
  const args = argNodes.map((a) => bindExpr(a, bc));
  if (name === 'grouping') {
    if (!bc.aggregates) throw new EngineError('GENERIC_USER_ERROR', 'grouping() may be used only in an aggregation query (SELECT, HAVING, ORDER BY)', loc(node) ?? locateName(ctx.sql, ['grouping']));
    if (args.length === 0 || args.length > 62) throw new EngineError('FUNCTION_NOT_FOUND', 'grouping() takes 1 to 62 arguments', loc(node));
    // Resolved after planning the grouping sets (analyze.ts); never reaches the compiler.
    return { kind: 'call', name: '$grouping', args, type: BIGINT };
  }
  if (name === 'typeof' && args.length === 1) {
    const text = typeDisplayName(args[0].type);
    return { kind: 'literal', value: text, type: varchar(text.length) };
  }
  switch (name) {
    case 'not':
      // `NOT (a OR b)` reaches us as a call of a function named not.
      if (args.length === 1) return notOf(args[0], node, ctx);
      break;
    case 'coalesce': {
      let t: SqlType | undefined = args[0]?.type;
      for (const a of args.slice(1)) t = t && commonSuperType(t, a.type);
      if (!t || args.length === 0) throw new EngineError('TYPE_MISMATCH', `All COALESCE operands must be the same type: ${args.map((a) => typeDisplayName(a.type)).join(', ')}`, loc(node));
      const target = t;
      return { kind: 'coalesce', args: args.map((a) => coerce(a, target)), type: target };
    }
    case 'if': {
      if (args.length < 2 || args.length > 3) throw new EngineError('FUNCTION_NOT_FOUND', `Function 'if' expects 2 or 3 arguments, got ${args.length}`, loc(node));
      if (args[0].type.id !== 'boolean' && args[0].type.id !== 'unknown') throw new EngineError('TYPE_MISMATCH', `IF condition must evaluate to a boolean: actual type ${typeDisplayName(args[0].type)}`, loc(node));
      const t = args.length === 3 ? commonSuperType(args[1].type, args[2].type) : args[1].type;
      if (!t) throw new EngineError('TYPE_MISMATCH', `IF results must be coercible to a common type: ${typeDisplayName(args[1].type)} and ${typeDisplayName(args[2].type)}`, loc(node));
      return { kind: 'case', whens: [{ when: coerce(args[0], BOOLEAN), then: coerce(args[1], t) }], otherwise: args.length === 3 ? coerce(args[2], t) : null, type: t };
    }
    case 'try_cast':
    case 'position':
      break;
    default:
      break;
  }
  const canonical = name === 'position' ? 'strpos' : name;
  if (!isKnownFunction(canonical)) throw new EngineError('FUNCTION_NOT_FOUND', `Function '${name}' not registered`, loc(node) ?? locateName(ctx.sql, [name]));
  return call(canonical, args, node, ctx);
}

function bindAggregate(node: AstNode, bc: BindContext): Expr {
  const { ctx, aggregates } = bc;
  const name = (typeof node.name === 'string' ? node.name : functionName(node)).toLowerCase();
  if (!aggregates) throw new EngineError('EXPRESSION_NOT_AGGREGATE', `Aggregate functions are not allowed here: ${name}(...)`, loc(node) ?? locateName(ctx.sql, [name]));
  const argNode = node.args?.expr as AstNode | undefined;
  // Arguments after the first (max_by, approx_percentile, listagg): bindFunction passes them on.
  const more = (node.args?.more ?? []) as AstNode[];
  // approx_distinct is answered exactly (a zero-error estimate).
  const distinct = String(node.args?.distinct ?? '').toUpperCase() === 'DISTINCT' || name === 'approx_distinct';
  const inner = (n: AstNode): Expr => bindExpr(n, { ...bc, aggregates: null, subqueries: bc.argumentSubqueries === undefined ? bc.subqueries : bc.argumentSubqueries });
  let filter: Expr | null = null;
  if (node.filter?.where) {
    filter = inner(node.filter.where);
    requireBoolean(filter, 'FILTER clause', node.filter.where, ctx);
  }
  let call: { name: AggregateName; args: Expr[]; type: SqlType };
  if (name === 'count_if') {
    // count_if(x) = count(*) FILTER (WHERE x)
    if (!argNode || argNode.type === 'star') throw new EngineError('FUNCTION_NOT_FOUND', 'count_if(boolean) takes one argument', loc(node));
    const cond = inner(argNode);
    requireBoolean(cond, 'count_if argument', argNode, ctx);
    filter = filter ? { kind: 'and', args: [filter, cond], type: BOOLEAN } : cond;
    call = { name: 'count_star', args: [], type: BIGINT };
  } else if (name === 'listagg') {
    // listagg(x, separator[, 'AD…', order keys…]): the parser (syntax/expressions.ts) turns WITHIN GROUP
    // (ORDER BY …) into the directions and keys; separator and directions travel as constants.
    if (!argNode || argNode.type === 'star' || more.length < 1 || more.length === 2) throw new EngineError('FUNCTION_NOT_FOUND', 'listagg(x, separator) WITHIN GROUP (ORDER BY ...) takes two arguments', loc(node) ?? locateName(ctx.sql, [name]));
    const value = inner(argNode);
    if (value.type.id !== 'varchar' && value.type.id !== 'unknown') throw new EngineError('TYPE_MISMATCH', `Unexpected parameters (${typeDisplayName(value.type)}) for function listagg`, loc(node) ?? locateName(ctx.sql, [name]));
    const separator = inner(more[0]);
    if (separator.kind !== 'literal' || typeof separator.value !== 'string') throw new EngineError('INVALID_FUNCTION_ARGUMENT', 'listagg separator must be a constant string', loc(more[0]) ?? loc(node));
    const directions = more.length > 1 ? inner(more[1]) : { kind: 'literal' as const, value: '', type: VARCHAR };
    const keys = more.slice(2).map(inner);
    for (const k of keys) if (!isOrderable(k.type) && k.type.id !== 'unknown') throw new EngineError('TYPE_MISMATCH', `Type ${typeDisplayName(k.type)} is not orderable`, loc(node));
    call = { name, args: [value, separator, directions, ...keys], type: VARCHAR };
  } else if (name === 'approx_percentile') {
    // Answered exactly: the value at rank ceil(p * n) of the group's sorted values (as DuckDB's
    // quantile_disc). The percentage travels as a constant second argument.
    if (!argNode || argNode.type === 'star' || more.length !== 1) throw new EngineError('FUNCTION_NOT_FOUND', 'approx_percentile(x, percentage) takes two arguments', loc(node) ?? locateName(ctx.sql, [name]));
    const value = inner(argNode);
    const percentage = inner(more[0]);
    if (!isNumeric(value.type) && value.type.id !== 'unknown') throw new EngineError('TYPE_MISMATCH', `Unexpected parameters (${typeDisplayName(value.type)}, ${typeDisplayName(percentage.type)}) for function ${name}`, loc(node) ?? locateName(ctx.sql, [name]));
    // Decimal literals hold scaled integers.
    const p = percentage.kind !== 'literal' ? NaN : Number(percentage.value) / (percentage.type.id === 'decimal' ? 10 ** (percentage.type.scale ?? 0) : 1);
    if (!(p >= 0 && p <= 1)) throw new EngineError('INVALID_FUNCTION_ARGUMENT', 'Percentile must be a constant between 0 and 1', loc(more[0]) ?? loc(node));
    call = { name, args: [value, { kind: 'literal', value: p, type: DOUBLE }], type: value.type.id === 'unknown' ? DOUBLE : value.type };
  } else if ((COVARIANCE_NAMES as readonly string[]).includes(name)) {
    // corr(y, x), covar_samp(y, x), regr_slope(y, x), …: rows where either is NULL are skipped.
    if (!argNode || argNode.type === 'star' || more.length !== 1) throw new EngineError('FUNCTION_NOT_FOUND', `${name}(y, x) takes two arguments`, loc(node) ?? locateName(ctx.sql, [name]));
    const y = inner(argNode);
    const x = inner(more[0]);
    for (const a of [y, x]) if (!isNumeric(a.type) && a.type.id !== 'unknown') throw new EngineError('TYPE_MISMATCH', `Unexpected parameters (${typeDisplayName(y.type)}, ${typeDisplayName(x.type)}) for function ${name}`, loc(node) ?? locateName(ctx.sql, [name]));
    call = { name: name as CovarianceName, args: [y, x], type: DOUBLE };
  } else if (name === 'max_by' || name === 'min_by') {
    if (!argNode || argNode.type === 'star' || more.length !== 1) throw new EngineError('FUNCTION_NOT_FOUND', `${name}(x, y) takes two arguments`, loc(node) ?? locateName(ctx.sql, [name]));
    const value = inner(argNode);
    const by = inner(more[0]);
    if (!isOrderable(by.type) && by.type.id !== 'unknown') throw new EngineError('TYPE_MISMATCH', `Unexpected parameters (${typeDisplayName(value.type)}, ${typeDisplayName(by.type)}) for function ${name}`, loc(node) ?? locateName(ctx.sql, [name]));
    call = { name, args: [value, by], type: value.type };
  } else if (!argNode || argNode.type === 'star') {
    if (name !== 'count') throw new EngineError('FUNCTION_NOT_FOUND', `${name}(*) is not a valid aggregate call`, loc(node));
    call = { name: 'count_star', args: [], type: BIGINT };
  } else {
    const arg = inner(argNode);
    call = { ...aggregateSignature(name, arg, node, ctx), args: [arg] };
  }
  const key = JSON.stringify([call.name, call.args, distinct, filter]);
  let k = aggregates.calls.findIndex((c) => c.key === key);
  if (k < 0) {
    k = aggregates.calls.length;
    aggregates.calls.push({ ...call, distinct, filter, key });
  }
  return { kind: 'column', index: AGGREGATE_BASE + k, type: call.type };
}

export function aggregateSignature(name: string, arg: Expr, node: AstNode, ctx: AnalysisContext): { name: AggregateName; type: SqlType } {
  const t = arg.type;
  const mismatch = (): never => {
    throw new EngineError('TYPE_MISMATCH', `Unexpected parameters (${typeDisplayName(t)}) for function ${name}`, loc(node) ?? locateName(ctx.sql, [name]));
  };
  switch (name) {
    case 'count':
      return { name: 'count', type: BIGINT };
    case 'sum':
      if (t.id === 'decimal') return { name: 'sum', type: decimal(MAX_DECIMAL_PRECISION, t.scale ?? 0) };
      if (t.id === 'double' || t.id === 'real') return { name: 'sum', type: t };
      if (t.id === 'unknown') return { name: 'sum', type: DOUBLE };
      if (t.id.startsWith('interval')) return { name: 'sum', type: t };
      if (isNumeric(t)) return { name: 'sum', type: BIGINT };
      return mismatch();
    case 'avg':
      if (t.id === 'decimal') return { name: 'avg', type: t };
      if (t.id === 'real') return { name: 'avg', type: REAL };
      if (isNumeric(t) || t.id === 'unknown') return { name: 'avg', type: DOUBLE };
      return mismatch();
    case 'min':
    case 'max':
      if (!isOrderable(t)) return mismatch();
      return { name, type: t };
    case 'bool_and':
    case 'every':
    case 'bool_or':
      if (t.id !== 'boolean' && t.id !== 'unknown') return mismatch();
      return { name: name === 'bool_or' ? 'bool_or' : 'bool_and', type: BOOLEAN };
    case 'arbitrary':
    case 'any_value':
      return { name: 'arbitrary', type: t };
    case 'approx_distinct':
      return { name: 'count', type: BIGINT };
    case 'stddev':
    case 'stddev_samp':
    case 'stddev_pop':
    case 'variance':
    case 'var_samp':
    case 'var_pop':
      if (!isNumeric(t) && t.id !== 'unknown') return mismatch();
      return { name: ({ stddev: 'stddev_samp', variance: 'var_samp' } as Record<string, AggregateName>)[name] ?? (name as AggregateName), type: DOUBLE };
    default:
      throw new EngineError('FUNCTION_NOT_FOUND', `Function '${name}' not registered`, loc(node));
  }
}

