// The query parser this engine used before its own (src/sql/syntax/): node-sql-parser's postgresql
// dialect behind text rewrites. Kept only as the oracle of test/sql-parser.test.ts's differential check.

import sqlParser from 'node-sql-parser';
import { EngineError } from '../../src/util/engine-error.js';
import { AGGREGATE_NAMES } from '../../src/sql/aggregate-names.js';
import type { AstNode } from '../../src/sql/ast.js';
import { locationAt, maskQuoted, stringLiteralRanges, topLevelRanges } from './legacy-lexical.js';

const parser = new sqlParser.Parser();
const PARSE_OPTIONS = { database: 'postgresql', trimQuery: false, parseOptions: { includeLocations: true } };

function blankComments(sql: string): string {
  return sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//gu, (c) => c.replace(/[^\n]/gu, ' '));
}

/** `GROUPING SETS ((a, b), a, ())` → `grouping_sets(__gs(a, b), __gs(a), __gs())`, which the dialect parses. */
function rewriteGroupingSets(sql: string): string {
  const re = /\bGROUPING\s+SETS\s*\(/giu;
  let out = '';
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(sql))) {
    const open = m.index + m[0].length - 1;
    let depth = 0;
    let close = -1;
    for (let i = open; i < sql.length; i++) {
      if (sql[i] === '(') depth++;
      else if (sql[i] === ')' && --depth === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    const items: string[] = [];
    let itemDepth = 0;
    let start = open + 1;
    for (let i = open + 1; i <= close; i++) {
      const c = sql[i];
      if (c === '(') itemDepth++;
      else if (c === ')') itemDepth--;
      if ((c === ',' && itemDepth === 0) || i === close) {
        const item = sql.slice(start, i).trim();
        start = i + 1;
        if (item === '' && i === close && items.length === 0) continue;
        items.push(item.startsWith('(') && item.endsWith(')') ? `__gs${item}` : `__gs(${item})`);
      }
    }
    out += `${sql.slice(last, m.index)}grouping_sets(${items.join(', ')})`;
    last = close + 1;
    re.lastIndex = close + 1;
  }
  return out + sql.slice(last);
}

/** `try_cast(x AS t)` → `try_cast__(cast(x AS t))`: the dialect only knows CAST. */
function rewriteTryCast(sql: string): string {
  const re = /\btry_cast\s*\(/giu;
  let m: RegExpExecArray | null;
  let out = sql;
  while ((m = re.exec(out))) {
    const open = m.index + m[0].length - 1;
    let depth = 0;
    let close = -1;
    for (let i = open; i < out.length; i++) {
      if (out[i] === '(') depth++;
      else if (out[i] === ')' && --depth === 0) {
        close = i;
        break;
      }
    }
    if (close < 0) break;
    out = `${out.slice(0, m.index)}try_cast__(cast${out.slice(open, close + 1)})${out.slice(close + 1)}`;
    re.lastIndex = m.index + 'try_cast__(cast('.length;
  }
  return out;
}

/** Rewrites Trino syntax that the postgresql dialect lacks, keeping every character's position. */
function rewriteForDialect(sql: string): string {
  if (/\btry_cast\s*\(/iu.test(sql)) sql = rewriteTryCast(sql);
  // The dialect accepts OVER only after its own window functions: percent_rank() and cume_dist()
  // travel as ntile with a sentinel bucket count (see PERCENT_RANK_SENTINEL in analyze.ts).
  sql = sql.replace(/\bpercent_rank\s*\(\s*\)/giu, 'ntile(-101)').replace(/\bcume_dist\s*\(\s*\)/giu, 'ntile(-102)');
  if (/\bGROUPING\s+SETS\b/iu.test(sql)) sql = rewriteGroupingSets(sql);
  // substring(x FROM a FOR b) -> substring(x ,    a ,   b): same length, so locations still hold.
  return sql.replace(/\bsubstring\s*\(([^()]*?)\bFROM\b([^()]*?)(?:\bFOR\b([^()]*?))?\)/giu, (all, x: string, a: string, b?: string) => {
    const out = all.replace(/\bFROM\b/iu, ',   ').replace(/\bFOR\b/iu, ',  ');
    void x;
    void a;
    void b;
    return out;
  });
}

const VALUES_PREFIX = 'SELECT * FROM (';

/** A query's text parsed to its SELECT tree (views are stored as text and parsed where referenced). */
export function legacyParseQuery(sql: string): AstNode {
  let ast: unknown;
  // A bare VALUES statement is a table: parse it as a derived table (errors map back to the text).
  const bareValues = /^\s*VALUES\b/iu.test(blankComments(sql));
  const text = bareValues ? `${VALUES_PREFIX}${sql}) AS "$values"` : sql;
  const rewrite = rewriteTrinoSyntax(rewriteForDialect(text));
  try {
    ast = parser.astify(rewrite.sql, PARSE_OPTIONS);
    restoreTrinoSyntax(ast, rewrite);
  } catch (e) {
    const err = e as PeggyError;
    if (bareValues && err.location?.start) {
      const start = err.location.start;
      err.location = { start: { ...start, offset: Math.max(0, start.offset - VALUES_PREFIX.length), column: start.line === 1 ? Math.max(1, start.column - VALUES_PREFIX.length) : start.column } };
    }
    throw syntaxError(sql, e);
  }
  const list = Array.isArray(ast) ? ast : [ast];
  if (list.length !== 1) {
    throw new EngineError('SYNTAX_ERROR', `mismatched input ';'. Expecting: <EOF>`, { lineNumber: 1, columnNumber: 1 });
  }
  const node = list[0] as AstNode;
  if (node.type !== 'select') {
    throw new EngineError('NOT_SUPPORTED', `${String(node.type).toUpperCase()} statements are not supported yet`, { lineNumber: 1, columnNumber: 1 });
  }
  return node;
}

interface PeggyError {
  message?: string;
  found?: string | null;
  expected?: { type: string; text?: string; description?: string }[];
  location?: { start: { line: number; column: number; offset: number } };
}

function syntaxError(sql: string, e: unknown): EngineError {
  const err = e as PeggyError;
  const start = err.location?.start;
  const location = start ? { lineNumber: start.line, columnNumber: start.column } : { lineNumber: 1, columnNumber: 1 };
  const found = err.found === null || err.found === undefined ? '<EOF>' : tokenAt(sql, start?.offset ?? 0) || err.found;
  const expected = [
    ...new Set(
      (err.expected ?? [])
        .filter((x) => x.type === 'literal' && x.text && /^[A-Za-z(),*=<>+-]/u.test(x.text))
        .map((x) => `'${(x.text ?? '').toUpperCase()}'`),
    ),
  ].slice(0, 12);
  const suffix = expected.length ? `. Expecting: ${expected.join(', ')}` : '';
  return new EngineError('SYNTAX_ERROR', `mismatched input '${found}'${suffix}`, location);
}

function tokenAt(sql: string, offset: number): string {
  const m = sql.slice(offset).match(/^(?:[A-Za-z_][A-Za-z0-9_]*|\d+(?:\.\d+)?|'(?:[^']|'')*'|"(?:[^"]|"")*"|\S)/u);
  return m ? m[0] : '';
}

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
