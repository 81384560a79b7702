// Parsing: a few Trino statements are recognised here (SHOW, DESCRIBE, USE, EXPLAIN), write
// statements in ddl.ts, queries by the query parser (syntax/). Parsed ASTs are cached by statement
// text.

import { EngineError, type SourceLocation } from '../util/engine-error.js';
import type { AstNode } from './ast.js';
import { parseQueryText } from './syntax/parser.js';
import { IDENT, identifierText, locationAt, maskQuoted, skipQuoted, splitQualified, splitTopLevel } from './lexical.js';

export { locationAt };
import { parseWriteStatement, type WriteStatement } from './ddl.js';

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
  if (!/^(SELECT|WITH|VALUES|TABLE|\()/iu.test(trimmed)) {
    const write = /^(CREATE|INSERT|DELETE|DROP|TRUNCATE|ALTER)\b/iu.test(trimmed) ? parseWriteStatement(sql, blankComments(sql), { parseQuery }) : undefined;
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

/** A query's text parsed to its SELECT tree (views are stored as text and parsed where referenced). */
export function parseQuery(sql: string): AstNode {
  return parseQueryText(sql) as unknown as AstNode;
}

function firstWords(s: string): string {
  return s.split(/\s+/u).slice(0, 2).join(' ');
}


/**
 * Finds where an identifier (optionally qualified, e.g. `l.orderkey` or `tpch.tiny.x`) is written,
 * skipping string literals and comments (for nodes the parser gives no location).
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
