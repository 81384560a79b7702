// Parsing: a few Trino statements are recognised here (SHOW, DESCRIBE, USE, EXPLAIN), queries go to
// node-sql-parser's postgresql dialect. Parsed ASTs are cached by statement text: parsing costs
// ~0.2 ms for `SELECT 1` and ~2 ms for a TPC-H query, more than planning the small ones.

import sqlParser from 'node-sql-parser';
import { EngineError, type SourceLocation } from '../util/engine-error.js';
import type { AstNode } from './ast.js';
import { restoreTrinoSyntax, rewriteTrinoSyntax } from './trino-syntax.js';
import { IDENT, identifierText, locationAt, maskQuoted, skipQuoted, splitQualified, splitTopLevel } from './lexical.js';

export { locationAt };
import { parseWriteStatement, type WriteStatement } from './ddl.js';

const parser = new sqlParser.Parser();
// Untrimmed: AST locations are offsets into the text as given (leading blank lines included).
const PARSE_OPTIONS = { database: 'postgresql', trimQuery: false, parseOptions: { includeLocations: true } };

export type Statement =
  | { kind: 'query'; ast: AstNode; sql: string }
  | { kind: 'explain'; analyze: boolean; type: 'LOGICAL' | 'DISTRIBUTED'; statement: Statement; sql: string }
  | { kind: 'showCatalogs'; like?: string }
  | { kind: 'showSchemas'; catalog?: string; like?: string }
  | { kind: 'showTables'; qualifier?: string[]; like?: string }
  | { kind: 'showColumns'; table: string[] }
  | { kind: 'showCreateTable'; table: string[] }
  | { kind: 'showCreateView'; view: string[] }
  | { kind: 'showSession' }
  | { kind: 'showFunctions'; like?: string }
  | { kind: 'setSession'; name: string; value: string }
  | { kind: 'resetSession'; name: string }
  | { kind: 'prepare'; name: string; statement: string }
  | { kind: 'execute'; name: string; parameters: string[] }
  | { kind: 'deallocate'; name: string }
  | { kind: 'use'; catalog?: string; schema: string }
  | WriteStatement;

const CACHE_LIMIT = 1000;
const cache = new Map<string, Statement>();

/** Parses one statement; results are shared (callers must not mutate them). */
export function parseStatement(sqlText: string): Statement {
  const sql = stripTrailingSemicolon(sqlText);
  const hit = cache.get(sql);
  if (hit) {
    // Refresh its place in the LRU order.
    cache.delete(sql);
    cache.set(sql, hit);
    return hit;
  }
  const statement = parseUncached(sql);
  cache.set(sql, statement);
  if (cache.size > CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
  return statement;
}

function stripTrailingSemicolon(sql: string): string {
  return sql.replace(/[\s;]+$/u, '');
}

const QNAME = String.raw`${IDENT}(?:\s*\.\s*${IDENT})*`;
const LIKE = String.raw`(?:\s+LIKE\s+'((?:[^']|'')*)')?`;

/** Comments blanked out (same length, so positions hold) for classifying the statement. */
function blankComments(sql: string): string {
  return sql.replace(/--[^\n]*|\/\*[\s\S]*?\*\//gu, (c) => c.replace(/[^\n]/gu, ' '));
}

function parseUncached(sql: string): Statement {
  const trimmed = blankComments(sql).trim();
  let m: RegExpMatchArray | null;
  if (/^EXPLAIN\b/iu.test(trimmed)) return parseExplain(trimmed);
  if ((m = trimmed.match(new RegExp(String.raw`^SHOW\s+CATALOGS${LIKE}$`, 'iu')))) {
    return { kind: 'showCatalogs', like: unquoteString(m[1]) };
  }
  if ((m = trimmed.match(new RegExp(String.raw`^SHOW\s+SCHEMAS(?:\s+(?:FROM|IN)\s+(${IDENT}))?${LIKE}$`, 'iu')))) {
    return { kind: 'showSchemas', catalog: m[1] ? identifierText(m[1]) : undefined, like: unquoteString(m[2]) };
  }
  if ((m = trimmed.match(new RegExp(String.raw`^SHOW\s+TABLES(?:\s+(?:FROM|IN)\s+(${QNAME}))?${LIKE}$`, 'iu')))) {
    return { kind: 'showTables', qualifier: m[1] ? splitQualified(m[1]) : undefined, like: unquoteString(m[2]) };
  }
  if ((m = trimmed.match(new RegExp(String.raw`^(?:SHOW\s+COLUMNS\s+(?:FROM|IN)|DESCRIBE|DESC)\s+(${QNAME})$`, 'iu')))) {
    return { kind: 'showColumns', table: splitQualified(m[1]) };
  }
  if (/^SHOW\s+SESSION$/iu.test(trimmed)) return { kind: 'showSession' };
  if ((m = trimmed.match(new RegExp(String.raw`^SHOW\s+CREATE\s+TABLE\s+(${QNAME})$`, 'iu')))) return { kind: 'showCreateTable', table: splitQualified(m[1]) };
  if ((m = trimmed.match(new RegExp(String.raw`^SHOW\s+CREATE\s+VIEW\s+(${QNAME})$`, 'iu')))) return { kind: 'showCreateView', view: splitQualified(m[1]) };
  if ((m = trimmed.match(new RegExp(String.raw`^SHOW\s+FUNCTIONS${LIKE}$`, 'iu')))) return { kind: 'showFunctions', like: unquoteString(m[1]) };
  if ((m = trimmed.match(new RegExp(String.raw`^SET\s+SESSION\s+(${QNAME})\s*=\s*(.*)$`, 'isu')))) {
    return { kind: 'setSession', name: splitQualified(m[1]).join('.'), value: sessionValue(m[2], sql) };
  }
  if ((m = trimmed.match(new RegExp(String.raw`^RESET\s+SESSION\s+(${QNAME})$`, 'iu')))) return { kind: 'resetSession', name: splitQualified(m[1]).join('.') };
  if ((m = trimmed.match(new RegExp(String.raw`^PREPARE\s+(${IDENT})\s+FROM\s`, 'iu')))) {
    // The statement as sent (comments kept), after FROM.
    const blanked = blankComments(sql);
    const start = blanked.length - blanked.trimStart().length + m[0].length;
    return { kind: 'prepare', name: identifierText(m[1]), statement: sql.slice(start).trim() };
  }
  if ((m = trimmed.match(new RegExp(String.raw`^EXECUTE\s+(${IDENT})(?:\s+USING\s+([\s\S]+))?$`, 'iu')))) {
    return { kind: 'execute', name: identifierText(m[1]), parameters: m[2] === undefined ? [] : splitTopLevel(m[2]).map((p) => p.trim()) };
  }
  if ((m = trimmed.match(new RegExp(String.raw`^DEALLOCATE\s+PREPARE\s+(${IDENT})$`, 'iu')))) return { kind: 'deallocate', name: identifierText(m[1]) };
  if ((m = trimmed.match(new RegExp(String.raw`^USE\s+(${QNAME})$`, 'iu')))) {
    const parts = splitQualified(m[1]);
    if (parts.length === 1) return { kind: 'use', schema: parts[0] };
    if (parts.length === 2) return { kind: 'use', catalog: parts[0], schema: parts[1] };
    throw new EngineError('SYNTAX_ERROR', `mismatched input '.'. Expecting: <EOF>`, locationAt(sql, 4 + m[1].lastIndexOf('.')));
  }
  if (/^(SHOW|USE|DESCRIBE|DESC)\b/iu.test(trimmed)) {
    throw new EngineError('SYNTAX_ERROR', `mismatched input '${firstWords(trimmed)}'`, { lineNumber: 1, columnNumber: 1 });
  }
  if (!/^(SELECT|WITH|VALUES|\()/iu.test(trimmed)) {
    const write = /^(CREATE|INSERT|DELETE|DROP|TRUNCATE|ALTER)\b/iu.test(trimmed) ? parseWriteStatement(sql, blankComments(sql), { parseQuery, syntaxError }) : undefined;
    if (write) return write;
    const word = trimmed.split(/\s+/u)[0] ?? '';
    if (/^(CREATE|INSERT|DELETE|DROP|UPDATE|ALTER|SET|RESET|START|COMMIT|ROLLBACK|PREPARE|EXECUTE|DEALLOCATE|GRANT|REVOKE|CALL|MERGE|TRUNCATE|COMMENT|ANALYZE)$/iu.test(word)) {
      throw new EngineError('NOT_SUPPORTED', `${word.toUpperCase()} statements are not supported yet`, { lineNumber: 1, columnNumber: 1 });
    }
    throw new EngineError('SYNTAX_ERROR', `mismatched input '${word}'. Expecting: 'SELECT', 'WITH', 'VALUES', 'SHOW', 'DESCRIBE', 'USE', 'EXPLAIN'`, { lineNumber: 1, columnNumber: 1 });
  }
  return { kind: 'query', ast: parseQuery(sql), sql };
}

/** Where a statement's `?` parameters are (outside quotes and comments). */
function parameterPositions(statement: string): number[] {
  const masked = maskQuoted(statement);
  const positions: number[] = [];
  for (let i = 0; i < masked.length; i++) if (masked[i] === '?') positions.push(i);
  return positions;
}

/**
 * A prepared statement with its `?` parameters replaced by the EXECUTE ... USING expressions,
 * each parenthesized.
 */
export function bindParameters(statement: string, parameters: readonly string[]): string {
  const positions = parameterPositions(statement);
  if (positions.length !== parameters.length) {
    throw new EngineError('INVALID_PARAMETER_USAGE', `Incorrect number of parameters: expected ${positions.length} but found ${parameters.length}`);
  }
  let out = '';
  let copied = 0;
  positions.forEach((at, k) => {
    out += `${statement.slice(copied, at)}(${parameters[k]})`;
    copied = at + 1;
  });
  return out + statement.slice(copied);
}

/** The statement with every `?` parameter NULL: what PREPARE checks parses. */
export function withNullParameters(statement: string): string {
  return bindParameters(statement, parameterPositions(statement).map(() => 'NULL'));
}

/** A SET SESSION value: a string literal, a number or a boolean (Trino takes any constant expression). */
function sessionValue(text: string, sql: string): string {
  const t = text.trim();
  const quoted = /^'((?:[^']|'')*)'$/su.exec(t);
  if (quoted) return quoted[1].replace(/''/gu, "'");
  if (/^[-+]?\d+(\.\d+)?$/u.test(t) || /^(true|false)$/iu.test(t)) return t.toLowerCase();
  throw new EngineError('NOT_SUPPORTED', `SET SESSION takes a literal value: ${t === '' ? '<nothing>' : t}`, locationAt(sql, Math.max(0, sql.length - text.length)));
}

function parseExplain(sql: string): Statement {
  const m = sql.match(/^EXPLAIN(\s+ANALYZE)?(?:\s*\(([^)]*)\))?\s+/iu);
  if (!m) throw new EngineError('SYNTAX_ERROR', `mismatched input '<EOF>'. Expecting: <query>`, locationAt(sql, sql.length));
  let type: 'LOGICAL' | 'DISTRIBUTED' = 'LOGICAL';
  for (const option of (m[2] ?? '').split(',').map((o) => o.trim()).filter(Boolean)) {
    const om = option.match(/^(TYPE|FORMAT)\s+(\w+)$/iu);
    if (!om) throw new EngineError('SYNTAX_ERROR', `mismatched input '${option}'. Expecting: 'FORMAT', 'TYPE'`, locationAt(sql, sql.indexOf(option)));
    if (om[1].toUpperCase() === 'TYPE') {
      const t = om[2].toUpperCase();
      if (t !== 'LOGICAL' && t !== 'DISTRIBUTED') throw new EngineError('NOT_SUPPORTED', `EXPLAIN type ${t} is not supported`, locationAt(sql, sql.indexOf(option)));
      type = t;
    } else if (om[2].toUpperCase() !== 'TEXT') {
      throw new EngineError('NOT_SUPPORTED', `EXPLAIN format ${om[2].toUpperCase()} is not supported`, locationAt(sql, sql.indexOf(option)));
    }
  }
  const inner = parseUncached(sql.slice(m[0].length));
  return { kind: 'explain', analyze: Boolean(m[1]), type, statement: inner, sql };
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
export function parseQuery(sql: string): AstNode {
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

function firstWords(s: string): string {
  return s.split(/\s+/u).slice(0, 2).join(' ');
}


/**
 * Finds where an identifier (optionally qualified, e.g. `l.orderkey` or `tpch.tiny.x`) is written,
 * skipping string literals and comments; node-sql-parser gives no positions for bare names.
 */
export function locateName(sql: string, parts: readonly string[], from = 0): SourceLocation | undefined {
  const wanted = parts.map((p) => p.toLowerCase());
  const tokens = identifierTokens(sql);
  for (let t = 0; t < tokens.length; t++) {
    if (tokens[t].offset < from) continue;
    let ok = true;
    for (let k = 0; k < wanted.length && ok; k++) {
      const tok = tokens[t + k];
      ok = tok !== undefined && tok.text === wanted[k] && (k === 0 || tok.dotted);
    }
    if (ok) return locationAt(sql, tokens[t].offset);
  }
  return undefined;
}

interface IdentToken {
  text: string;
  offset: number;
  /** preceded by a `.` */
  dotted: boolean;
}

function identifierTokens(sql: string): IdentToken[] {
  const out: IdentToken[] = [];
  let i = 0;
  let lastWasDot = false;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'") {
      i = skipQuoted(sql, i, "'");
      lastWasDot = false;
    } else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (c === '"') {
      const end = skipQuoted(sql, i, '"');
      out.push({ text: sql.slice(i + 1, end - 1).replace(/""/gu, '"').toLowerCase(), offset: i, dotted: lastWasDot });
      i = end;
      lastWasDot = false;
    } else if (/[A-Za-z_]/u.test(c)) {
      let j = i + 1;
      while (j < sql.length && /[A-Za-z0-9_$]/u.test(sql[j])) j++;
      out.push({ text: sql.slice(i, j).toLowerCase(), offset: i, dotted: lastWasDot });
      i = j;
      lastWasDot = false;
    } else if (c === '.') {
      lastWasDot = true;
      i++;
    } else {
      if (!/\s/u.test(c)) lastWasDot = false;
      i++;
    }
  }
  return out;
}




function unquoteString(raw: string | undefined): string | undefined {
  return raw === undefined ? undefined : raw.replace(/''/gu, "'");
}
