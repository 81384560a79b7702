// sqllogictest files (test/sql/**/*.slt): parsing, value formatting, result comparison, and
// rewriting a file with completed expectations. The runner is test/slt-runner.test.ts; the
// formatting and comparison rules are described in test/sql/README.md.

import { readFileSync } from 'node:fs';

export type SortMode = 'nosort' | 'rowsort' | 'valuesort';

export interface QueryRecord {
  readonly kind: 'query';
  /** One letter per column: I integer, R floating point, D exact decimal, T text/other, B boolean. */
  types: string;
  sort: SortMode | undefined;
  readonly sql: string;
  /** Expected lines after `----` (undefined when the block has no `----` yet). */
  expected: string[] | undefined;
  /** `# skip duckdb`: Trino semantics DuckDB does not share; neither completed nor compared with DuckDB. */
  readonly skipDuckDb: boolean;
  /** `# unsupported: <regex>`: our engine may fail with an error matching this (a construct not built yet). */
  readonly unsupported: RegExp | undefined;
  readonly line: number;
  /** Line range [start, end) of the whole record in the file, for rewriting. */
  readonly start: number;
  end: number;
}

export interface StatementRecord {
  readonly kind: 'statement';
  /** undefined: must succeed; otherwise the error (`errorName: message`) must match. */
  readonly error: RegExp | undefined;
  readonly sql: string;
  readonly skipDuckDb: boolean;
  readonly line: number;
}

export interface QueryErrorRecord {
  readonly kind: 'query-error';
  readonly error: RegExp;
  readonly sql: string;
  readonly line: number;
}

export type SltRecord = QueryRecord | StatementRecord | QueryErrorRecord;

export interface SltFile {
  readonly path: string;
  readonly name: string;
  readonly description: string;
  /** `require memory`: the file runs in its own schema of the memory catalog. */
  readonly requires: string[];
  readonly records: SltRecord[];
  readonly lines: string[];
}

const SORT_MODES = new Set(['nosort', 'rowsort', 'valuesort']);

function regex(text: string, where: string): RegExp {
  if (text.trim() === '') throw new Error(`${where}: an error directive needs a regex`);
  return new RegExp(text.trim(), 'su');
}

export function parseSlt(path: string, text = readFileSync(path, 'utf8')): SltFile {
  const lines = text.split('\n');
  const records: SltRecord[] = [];
  const requires: string[] = [];
  let name = '';
  let description = '';
  let skipDuckDb = false;
  let unsupported: RegExp | undefined;
  let markerStart = -1;
  let i = 0;
  const where = (n: number): string => `${path}:${n + 1}`;
  /** Lines up to a blank line or `----` (exclusive), joined. */
  const readSql = (from: number): { sql: string; next: number } => {
    let j = from;
    const out: string[] = [];
    while (j < lines.length && lines[j].trim() !== '' && lines[j].trim() !== '----') out.push(lines[j++]);
    if (out.length === 0) throw new Error(`${where(from)}: missing SQL`);
    return { sql: out.join('\n'), next: j };
  };
  while (i < lines.length) {
    const raw = lines[i];
    const line = raw.trim();
    if (line === '') {
      i++;
      continue;
    }
    if (line.startsWith('#')) {
      const m = /^#\s*(name|description):\s*(.*)$/u.exec(line);
      if (m && m[1] === 'name') name = m[2].trim();
      else if (m) description = m[2].trim();
      else if (/^#\s*skip duckdb\s*$/u.test(line)) {
        skipDuckDb = true;
        if (markerStart < 0) markerStart = i;
      } else {
        const u = /^#\s*unsupported:\s*(.*)$/u.exec(line);
        if (u) {
          unsupported = regex(u[1], where(i));
          if (markerStart < 0) markerStart = i;
        }
      }
      i++;
      continue;
    }
    const words = line.split(/\s+/u);
    const start = markerStart >= 0 ? markerStart : i;
    if (words[0] === 'require') {
      requires.push(...words.slice(1));
      i++;
    } else if (words[0] === 'statement') {
      if (words[1] !== 'ok' && words[1] !== 'error') throw new Error(`${where(i)}: expected 'statement ok' or 'statement error <regex>'`);
      const error = words[1] === 'error' ? regex(line.replace(/^statement\s+error\s*/u, ''), where(i)) : undefined;
      const { sql, next } = readSql(i + 1);
      records.push({ kind: 'statement', error, sql, skipDuckDb, line: i + 1 });
      i = next;
    } else if (words[0] === 'query' && words[1] === 'error') {
      const error = regex(line.replace(/^query\s+error\s*/u, ''), where(i));
      const { sql, next } = readSql(i + 1);
      records.push({ kind: 'query-error', error, sql, line: i + 1 });
      i = next;
    } else if (words[0] === 'query') {
      let types = '';
      let sort: SortMode | undefined;
      for (const w of words.slice(1)) {
        if (SORT_MODES.has(w)) sort = w as SortMode;
        else if (/^[IRDTB]+$/u.test(w) && types === '') types = w;
        else throw new Error(`${where(i)}: unknown query option '${w}'`);
      }
      const { sql, next } = readSql(i + 1);
      let j = next;
      let expected: string[] | undefined;
      if (j < lines.length && lines[j].trim() === '----') {
        j++;
        expected = [];
        while (j < lines.length && lines[j].trim() !== '') expected.push(lines[j++]);
      }
      records.push({ kind: 'query', types, sort, sql, expected, skipDuckDb, unsupported, line: i + 1, start, end: j });
      i = j;
    } else {
      throw new Error(`${where(i)}: unknown directive '${words[0]}'`);
    }
    skipDuckDb = false;
    unsupported = undefined;
    markerStart = -1;
  }
  if (!name) throw new Error(`${path}: the file must start with a '# name:' line`);
  if (!description) throw new Error(`${path}: the file must have a '# description:' line`);
  return { path, name, description, requires, records, lines };
}

// ---- values ----------------------------------------------------------------------------------

const NUMERIC = /^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/u;
const TIMESTAMP = /^(\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d)(\.\d*)?$/u;

/** Canonical text of a floating-point value: 12 significant digits, no trailing zeros. */
export function formatDouble(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (!Number.isFinite(n)) return n > 0 ? 'Infinity' : '-Infinity';
  if (n === 0) return '0';
  return String(Number(n.toPrecision(12)));
}

/** An exact decimal string without trailing fraction zeros ("3.50" → "3.5", "-0.00" → "0"). */
export function normalizeDecimal(s: string): string {
  let t = s.trim();
  let neg = false;
  if (t.startsWith('-')) {
    neg = true;
    t = t.slice(1);
  } else if (t.startsWith('+')) t = t.slice(1);
  let [int, frac = ''] = t.split('.');
  int = int.replace(/^0+(?=\d)/u, '') || '0';
  frac = frac.replace(/0+$/u, '');
  const body = frac ? `${int}.${frac}` : int;
  return neg && body !== '0' ? `-${body}` : body;
}

function scalarText(v: unknown): string {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean' || typeof v === 'bigint') return String(v);
  return JSON.stringify(v);
}

/** The text of one result value in a column of the given type letter (see test/sql/README.md). */
export function formatValue(v: unknown, type: string): string {
  if (v === null || v === undefined) return 'NULL';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  switch (type) {
    case 'I':
      if (typeof v === 'number' && Number.isInteger(v)) return String(v);
      if (typeof v === 'bigint') return String(v);
      if (typeof v === 'string' && /^[-+]?\d+$/u.test(v.trim())) return normalizeDecimal(v);
      return scalarText(v);
    case 'R': {
      if (typeof v === 'number') return formatDouble(v);
      if (typeof v === 'string' && (NUMERIC.test(v.trim()) || /^[-+]?(NaN|Infinity)$/u.test(v.trim()))) return formatDouble(Number(v));
      return scalarText(v);
    }
    case 'D':
      if (typeof v === 'string' && NUMERIC.test(v.trim()) && !/[eE]/u.test(v)) return normalizeDecimal(v);
      if (typeof v === 'number' && Number.isInteger(v)) return String(v);
      return scalarText(v);
    default: {
      const s = scalarText(v);
      if (s === '') return '(empty)';
      const ts = TIMESTAMP.exec(s);
      if (ts) {
        const frac = (ts[2] ?? '').replace(/0+$/u, '');
        return ts[1].replace('T', ' ') + (frac === '.' ? '' : frac);
      }
      return s.replace(/\\/gu, '\\\\').replace(/\t/gu, '\\t').replace(/\n/gu, '\\n');
    }
  }
}

/** Formats result rows as lines (values separated by tabs), sorted per the sort mode. */
export function formatRows(rows: readonly unknown[][], types: string, sort: SortMode | undefined): string[][] {
  const formatted = rows.map((r) => r.map((v, j) => formatValue(v, types[j] ?? 'T')));
  return sortRows(formatted, sort);
}

export function sortRows(rows: string[][], sort: SortMode | undefined): string[][] {
  if (sort === 'rowsort') return [...rows].sort((a, b) => cmp(a.join('\t'), b.join('\t')));
  if (sort === 'valuesort') return rows.flat().sort(cmp).map((v) => [v]);
  return rows;
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Splits expected lines into values: on tabs, else (several columns) on runs of spaces. */
export function parseExpected(lines: readonly string[], width: number, sort: SortMode | undefined): string[][] {
  const rows = lines.map((l) => {
    if (l.includes('\t') || width === 1) return l.split('\t');
    const parts = l.trim().split(/ +/u);
    return parts.length === width ? parts : [l];
  });
  return sort === 'valuesort' ? rows.flat().map((v) => [v]) : rows;
}

function valuesEqual(actual: string, expected: string, type: string): boolean {
  if (expected === '<slt:ignore>' || actual === expected) return true;
  if (type === 'R' && NUMERIC.test(actual) && NUMERIC.test(expected)) {
    const x = Number(actual);
    const y = Number(expected);
    return Math.abs(x - y) <= 1e-9 * Math.max(Math.abs(x), Math.abs(y), 1e-300);
  }
  return false;
}

/**
 * The first difference between actual rows and expected rows (both formatted), or undefined.
 * R columns compare to 1e-9 relative; `<slt:ignore>` matches anything.
 */
export function diffFormatted(actual: string[][], expected: string[][], types: string, sort: SortMode | undefined): string | undefined {
  const typeOf = (j: number): string => (sort === 'valuesort' ? (new Set(types).size === 1 ? types[0] : 'T') : (types[j] ?? 'T'));
  // Rows sorted by text may order R values differently when they differ in the last digits only;
  // that is rare enough that we accept it (the expected side is written by the same formatter).
  if (actual.length !== expected.length) return `${actual.length} rows, expected ${expected.length}`;
  for (let i = 0; i < actual.length; i++) {
    if (actual[i].length !== expected[i].length) return `row ${i + 1}: ${actual[i].length} values, expected ${expected[i].length} (${JSON.stringify(actual[i])} vs ${JSON.stringify(expected[i])})`;
    for (let j = 0; j < actual[i].length; j++) {
      if (!valuesEqual(actual[i][j], expected[i][j], typeOf(j))) {
        return `row ${i + 1} column ${j + 1}: ${JSON.stringify(actual[i][j])}, expected ${JSON.stringify(expected[i][j])}\n  actual row:   ${actual[i].join('\t')}\n  expected row: ${expected[i].join('\t')}`;
      }
    }
  }
  return undefined;
}

/** Column type letters for DuckDB result types (complete mode, when the block gives none). */
export function typeLetter(duckType: string): string {
  const t = duckType.toUpperCase();
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|HUGEINT|UTINYINT|USMALLINT|UINTEGER|UBIGINT|UHUGEINT)$/u.test(t)) return 'I';
  if (/^(FLOAT|DOUBLE|REAL)$/u.test(t)) return 'R';
  if (t.startsWith('DECIMAL')) return 'D';
  if (t === 'BOOLEAN') return 'B';
  return 'T';
}

/** Whether the SQL has an ORDER BY at the outermost level (a crude check, good enough for completing). */
export function hasTopLevelOrderBy(sql: string): boolean {
  let depth = 0;
  const s = sql.replace(/'(?:[^']|'')*'/gu, "''");
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '(') depth++;
    else if (s[i] === ')') depth--;
    else if (depth === 0 && /^order\s+by\b/iu.test(s.slice(i, i + 12)) && (i === 0 || /\s/u.test(s[i - 1]))) return true;
  }
  return false;
}

/** The file's text with the given query records' headers and expectations replaced. */
export function rewriteSlt(file: SltFile, updates: Map<QueryRecord, { types: string; sort: SortMode | undefined; rows: string[][] }>): string {
  const out: string[] = [];
  let i = 0;
  const byStart = new Map<number, QueryRecord>();
  for (const r of file.records) if (r.kind === 'query' && updates.has(r)) byStart.set(r.line - 1, r);
  while (i < file.lines.length) {
    const r = byStart.get(i);
    if (!r) {
      out.push(file.lines[i++]);
      continue;
    }
    const u = updates.get(r)!;
    out.push(['query', u.types, ...(u.sort ? [u.sort] : [])].join(' '));
    out.push(...r.sql.split('\n'));
    out.push('----');
    out.push(...u.rows.map((row) => row.join('\t')));
    i = r.end;
  }
  return out.join('\n');
}
