// Trino syntax that the postgresql dialect of node-sql-parser reads differently or not at all,
// rewritten before parsing and put right in the parsed tree after. Every rewrite keeps the text's
// length and the place of what follows it (error locations still hold), except the VALUES,
// listagg and current_user rewrites, which add text and run first.
//
// - String literals: a backslash is an ordinary character (the dialect reads `\n` as an escape
//   and `'\'` as unterminated), and `''` is one quote (the dialect keeps both).
// - `sum(DISTINCT x)`: the dialect takes DISTINCT only in count(); the keyword is blanked and the
//   parsed call at the same offset marked DISTINCT.
// - `x IS [NOT] DISTINCT FROM y`: the dialect takes only a column on the right; the operator
//   travels as ILIKE (same precedence; Trino has no ILIKE, which is refused before).
// - `OFFSET n [ROWS] LIMIT m` (the dialect drops the LIMIT), `FETCH FIRST n ROWS ONLY`,
//   `x = ANY (subquery)` / `x <> ALL (subquery)` (as IN / NOT IN), `listagg(…) WITHIN GROUP (ORDER BY …)`,
//   `RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW | UNBOUNDED FOLLOWING` (the default frame,
//   the ROWS form), `VALUES 1, 2` (rows of one value without parentheses), `WITH t AS (VALUES ...)`, `current_user`
//   (the dialect parses it only as a call), `FILTER (WHERE …)` after the aggregates the dialect
//   parses as plain calls (stddev, max_by, listagg, corr, …).

import { EngineError } from '../util/engine-error.js';
import { AGGREGATE_NAMES } from './aggregate-names.js';
import type { AstNode } from './ast.js';
import { locationAt, maskQuoted, stringLiteralRanges, topLevelRanges } from './lexical.js';

/** Stands for a backslash inside string literals while the dialect parses them. */
const BACKSLASH = '\uE000';

const STRING_NODE_TYPES = new Set(['single_quote_string', 'string', 'natural_string', 'date', 'time', 'timestamp']);

export interface TrinoRewrite {
  readonly sql: string;
  /** Offsets of aggregate calls whose DISTINCT was blanked. */
  readonly distinctCalls: ReadonlySet<number>;
  /** Whether string literals had backslashes replaced (restored after parsing). */
  readonly backslashes: boolean;
}

/** Splices same-length replacements into a text. */
class Edits {
  private readonly parts: { at: number; length: number; text: string }[] = [];
  replace(at: number, length: number, text: string): void {
    this.parts.push({ at, length, text });
  }
  apply(sql: string): string {
    if (this.parts.length === 0) return sql;
    this.parts.sort((a, b) => a.at - b.at);
    let out = '';
    let copied = 0;
    for (const p of this.parts) {
      out += sql.slice(copied, p.at) + p.text;
      copied = p.at + p.length;
    }
    return out + sql.slice(copied);
  }
}

const pad = (text: string, length: number): string => text + ' '.repeat(Math.max(0, length - text.length));

export function rewriteTrinoSyntax(input: string): TrinoRewrite {
  // First: these move what follows, and the offsets recorded below are into their result.
  let sql = aggregateFilters(listaggOrder(parenthesizeValueRows(selectFromValuesInWith(callCurrentUser(input)))));
  const backslashes = sql.includes('\\') && !sql.includes(BACKSLASH);
  if (backslashes) {
    const edits = new Edits();
    for (const [from, to] of stringLiteralRanges(sql)) {
      for (let i = sql.indexOf('\\', from); i >= 0 && i < to; i = sql.indexOf('\\', i + 1)) edits.replace(i, 1, BACKSLASH);
    }
    sql = edits.apply(sql);
  }
  let masked = maskQuoted(sql);
  const edits = new Edits();
  const distinctCalls = new Set<number>();

  const ilike = /\bILIKE\b/iu.exec(masked);
  if (ilike) throw new EngineError('SYNTAX_ERROR', `mismatched input '${sql.slice(ilike.index, ilike.index + 5)}'`, locationAt(input, ilike.index));
  for (const m of masked.matchAll(/\bIS(\s+NOT)?\s+DISTINCT\s+FROM\b/giu)) {
    edits.replace(m.index, m[0].length, pad(m[1] ? 'NOT ILIKE' : 'ILIKE', m[0].length));
  }
  // Not before `)`: `sum(DISTINCT)` stays a syntax error at its `)`.
  for (const m of masked.matchAll(/\b([A-Za-z_][A-Za-z0-9_]*)(\s*\(\s*)DISTINCT\b(?!\s*\))/giu)) {
    const name = m[1].toLowerCase();
    if (name === 'count' || !AGGREGATE_NAMES.has(name) || /[A-Za-z0-9_$.]/u.test(masked[m.index - 1] ?? '')) continue;
    edits.replace(m.index + m[1].length + m[2].length, 'DISTINCT'.length, ' '.repeat('DISTINCT'.length));
    distinctCalls.add(m.index);
  }
  // RANGE frames the dialect cannot parse, where a form it can says the same: up to the current
  // row (and its peers) is the default frame; the whole partition is the same in ROWS.
  for (const m of masked.matchAll(/\bRANGE\s+(?:BETWEEN\s+UNBOUNDED\s+PRECEDING\s+AND\s+CURRENT\s+ROW|UNBOUNDED\s+PRECEDING)\b/giu)) {
    edits.replace(m.index, m[0].length, ' '.repeat(m[0].length));
  }
  for (const m of masked.matchAll(/\bRANGE(\s+BETWEEN\s+UNBOUNDED\s+PRECEDING\s+AND\s+UNBOUNDED\s+FOLLOWING)\b/giu)) {
    edits.replace(m.index, m[0].length, pad(`ROWS${m[1]}`, m[0].length));
  }
  // `OFFSET n ROWS`: ROWS is noise.
  for (const m of masked.matchAll(/\bOFFSET\s+\d+\s+(ROWS?)\b/giu)) {
    const at = m.index + m[0].length - m[1].length;
    edits.replace(at, m[1].length, ' '.repeat(m[1].length));
  }
  for (const m of masked.matchAll(/\bFETCH\s+(?:FIRST|NEXT)\s+(?:(\d+)\s+)?ROWS?\s+(ONLY|WITH\s+TIES)\b/giu)) {
    if (!/^ONLY$/iu.test(m[2])) throw new EngineError('NOT_SUPPORTED', 'FETCH FIRST ... WITH TIES is not supported yet', locationAt(input, m.index));
    edits.replace(m.index, m[0].length, pad(`LIMIT ${m[1] ?? '1'}`, m[0].length));
  }
  sql = edits.apply(sql);
  masked = maskQuoted(sql);
  const order = new Edits();
  // `OFFSET n LIMIT m` → `LIMIT m OFFSET n` (the same characters in another order).
  for (const m of masked.matchAll(/\bOFFSET(\s+)(\d+)(\s+)(LIMIT\s+(?:\d+|ALL))\b/giu)) {
    order.replace(m.index, m[0].length, `${m[4]}${m[3]}OFFSET${m[1]}${m[2]}`);
  }
  return { sql: order.apply(sql), distinctCalls, backslashes };
}

/**
 * `listagg(x, sep) WITHIN GROUP (ORDER BY k1 [DESC] [NULLS FIRST], ...)` → `listagg(x, sep, 'AlDf', k1, ...)`:
 * the dialect has no WITHIN GROUP; each key's direction (A/D) and NULL place (l/f) travel as text.
 */
function listaggOrder(sql: string): string {
  if (!/\blistagg\b/iu.test(sql)) return sql;
  let masked = maskQuoted(sql);
  const re = /\blistagg\s*\(/giu;
  for (let m = re.exec(masked); m; m = re.exec(masked)) {
    const open = m.index + m[0].length - 1;
    const close = matchingParen(masked, open);
    if (close < 0) break;
    const within = /^\s*WITHIN\s+GROUP\s*\(\s*ORDER\s+BY\s/iu.exec(masked.slice(close + 1));
    if (!within) continue;
    const orderOpen = masked.indexOf('(', close + 1);
    const orderClose = matchingParen(masked, orderOpen);
    if (orderClose < 0) break;
    const keysText = sql.slice(close + 1 + within[0].length, orderClose);
    const keysMasked = masked.slice(close + 1 + within[0].length, orderClose);
    const keys: string[] = [];
    let dirs = '';
    for (const [start, end] of topLevelRanges(keysMasked)) {
      const tail = /(?:\s+(ASC|DESC))?(?:\s+NULLS\s+(FIRST|LAST))?\s*$/iu.exec(keysMasked.slice(start, end)) as RegExpExecArray;
      dirs += (tail[1]?.toUpperCase() === 'DESC' ? 'D' : 'A') + (tail[2]?.toUpperCase() === 'FIRST' ? 'f' : 'l');
      keys.push(keysText.slice(start, end - tail[0].length));
    }
    sql = `${sql.slice(0, close)}, '${dirs}', ${keys.join(', ')}${sql.slice(close, close + 1)}${sql.slice(orderClose + 1)}`;
    masked = maskQuoted(sql);
    re.lastIndex = open;
  }
  return sql;
}

/** The aggregates the dialect parses with a FILTER clause itself; it parses the others as plain calls. */
const DIALECT_FILTERED_AGGREGATES = new Set(['count', 'sum', 'min', 'max', 'avg']);

/** The marker call an aggregate's FILTER condition travels in (bind.ts takes it back out). */
export const FILTER_MARKER = 'filter_where__';

/**
 * `stddev(x) FILTER (WHERE c)` → `stddev(x, filter_where__(c))` for the aggregates the dialect
 * parses as plain calls (it refuses FILTER after them). Adds one character per rewrite.
 */
function aggregateFilters(sql: string): string {
  if (!/\bFILTER\b/iu.test(sql)) return sql;
  let masked = maskQuoted(sql);
  const re = /\b([A-Za-z_][A-Za-z0-9_]*)\s*\(/gu;
  for (let m = re.exec(masked); m; m = re.exec(masked)) {
    const name = (m[1] as string).toLowerCase();
    if (!AGGREGATE_NAMES.has(name) || DIALECT_FILTERED_AGGREGATES.has(name) || /[A-Za-z0-9_$."]/u.test(masked[m.index - 1] ?? '')) continue;
    const open = m.index + m[0].length - 1;
    const close = matchingParen(masked, open);
    if (close < 0) break;
    const filter = /^\s*FILTER\s*\(\s*WHERE\s/iu.exec(masked.slice(close + 1));
    if (!filter) continue;
    const filterOpen = masked.indexOf('(', close + 1);
    const filterClose = matchingParen(masked, filterOpen);
    if (filterClose < 0) break;
    const condition = sql.slice(close + 1 + filter[0].length, filterClose);
    sql = `${sql.slice(0, close)}, ${FILTER_MARKER}(${condition}))${sql.slice(filterClose + 1)}`;
    masked = maskQuoted(sql);
    re.lastIndex = open + 1;
  }
  return sql;
}

/** `current_user` → `current_user()`: the dialect parses it only as a call. */
function callCurrentUser(sql: string): string {
  if (!/\bcurrent_user\b/iu.test(sql)) return sql;
  const masked = maskQuoted(sql);
  let out = '';
  let copied = 0;
  for (const m of masked.matchAll(/\bcurrent_user\b(?!\s*\()/giu)) {
    if (/[A-Za-z0-9_$."]/u.test(masked[m.index - 1] ?? '')) continue;
    out += `${sql.slice(copied, m.index + m[0].length)}()`;
    copied = m.index + m[0].length;
  }
  return copied === 0 ? sql : out + sql.slice(copied);
}

/** `WITH t AS (VALUES ...)` → `WITH t AS (SELECT * FROM (VALUES ...) AS "$values")`: the dialect takes only a query there. */
function selectFromValuesInWith(sql: string): string {
  const masked = maskQuoted(sql);
  if (!/\bWITH\b/iu.test(masked)) return sql;
  let out = '';
  let copied = 0;
  for (const m of masked.matchAll(/\bAS\s*\(\s*VALUES\b/giu)) {
    const open = masked.indexOf('(', m.index);
    const close = matchingParen(masked, open);
    if (close < 0) continue;
    out += `${sql.slice(copied, open + 1)}SELECT * FROM (${sql.slice(open + 1, close)}) AS "$values"`;
    copied = close;
  }
  return copied === 0 ? sql : out + sql.slice(copied);
}

/** The index of the `)` closing the `(` at `open` in masked text, or -1. */
function matchingParen(masked: string, open: number): number {
  let depth = 0;
  for (let i = open; i < masked.length; i++) {
    if (masked[i] === '(') depth++;
    else if (masked[i] === ')' && --depth === 0) return i;
  }
  return -1;
}

/** `VALUES 1, 2` → `VALUES (1), (2)`: each value list item not already a parenthesized row. */
function parenthesizeValueRows(sql: string): string {
  const masked = maskQuoted(sql);
  const re = /\bVALUES\b/giu;
  let out = '';
  let copied = 0;
  for (let m = re.exec(masked); m; m = re.exec(masked)) {
    const items = valueItems(masked, m.index + m[0].length);
    for (const [from, to] of items) {
      if (isParenthesized(masked, from, to)) continue;
      out += `${sql.slice(copied, from)}(${sql.slice(from, to)})`;
      copied = to;
    }
  }
  return copied === 0 ? sql : out + sql.slice(copied);
}

const LIST_END = /^(ORDER|LIMIT|OFFSET|FETCH|UNION|EXCEPT|INTERSECT|AS|WHERE|GROUP|HAVING|WINDOW)\b/iu;

/** The [from, to) of each top-level item of a VALUES list starting at `start` (trimmed). */
function valueItems(masked: string, start: number): [number, number][] {
  const items: [number, number][] = [];
  let depth = 0;
  let itemStart = start;
  const push = (end: number): void => {
    const text = masked.slice(itemStart, end);
    const lead = text.length - text.trimStart().length;
    const trail = text.length - text.trimEnd().length;
    if (text.trim() !== '') items.push([itemStart + lead, end - trail]);
  };
  // Quoted contents are blank in masked text: no comma, parenthesis or keyword inside them counts.
  for (let i = start; i < masked.length; i++) {
    const c = masked[i];
    if (c === '(') depth++;
    else if (c === ')') {
      if (depth === 0) {
        push(i);
        return items;
      }
      depth--;
    } else if (depth === 0 && c === ',') {
      push(i);
      itemStart = i + 1;
    } else if (depth === 0 && c === ';') {
      push(i);
      return items;
    } else if (depth === 0 && /[A-Za-z]/u.test(c) && !/[A-Za-z0-9_$.]/u.test(masked[i - 1] ?? '') && LIST_END.test(masked.slice(i, i + 10))) {
      push(i);
      return items;
    }
  }
  push(masked.length);
  return items;
}

/** Whether [from, to) is one parenthesized group (a row). */
function isParenthesized(masked: string, from: number, to: number): boolean {
  return masked[from] === '(' && matchingParen(masked, from) === to - 1;
}

/** Puts what rewriteTrinoSyntax moved out of the dialect's way back into the parsed tree. */
export function restoreTrinoSyntax(ast: unknown, rewrite: TrinoRewrite): void {
  if (ast === null || typeof ast !== 'object') return;
  if (Array.isArray(ast)) {
    for (const item of ast) restoreTrinoSyntax(item, rewrite);
    return;
  }
  const node = ast as AstNode;
  if (typeof node.value === 'string' && node.type !== undefined && STRING_NODE_TYPES.has(node.type)) {
    let value = node.value.replace(/''/gu, "'");
    if (rewrite.backslashes) value = value.replaceAll(BACKSLASH, '\\');
    node.value = value;
  }
  if (node.type === 'binary_expr' && (node.operator === 'ILIKE' || node.operator === 'NOT ILIKE')) {
    node.operator = node.operator === 'ILIKE' ? 'IS DISTINCT FROM' : 'IS NOT DISTINCT FROM';
  }
  // `x = ANY (subquery)` (or SOME) is `x IN (subquery)`, `x <> ALL (subquery)` is `x NOT IN (subquery)`.
  if (node.type === 'binary_expr' && node.right?.type === 'function' && node.right.args?.value?.length === 1 && node.right.args.value[0]?.ast) {
    const quantifier = String(node.right.name?.name?.[0]?.value ?? '').toLowerCase();
    if ((node.operator === '=' && (quantifier === 'any' || quantifier === 'some')) || ((node.operator === '<>' || node.operator === '!=') && quantifier === 'all')) {
      node.operator = node.operator === '=' ? 'IN' : 'NOT IN';
      node.right = { type: 'expr_list', value: node.right.args.value };
    }
  }
  const start = node.loc?.start?.offset;
  if ((node.type === 'aggr_func' || node.type === 'function') && typeof start === 'number' && rewrite.distinctCalls.has(start) && node.args) {
    node.args.distinct = 'DISTINCT';
  }
  for (const [key, value] of Object.entries(node)) if (key !== 'loc') restoreTrinoSyntax(value, rewrite);
}
