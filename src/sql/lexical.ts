// Lexical helpers shared by the statement parsers (parse.ts and ddl.ts): identifiers, quoted
// strings, and turning a character offset into Trino's 1-based line and column.

import type { SourceLocation } from '../util/engine-error.js';

/** A plain or double-quoted SQL identifier. */
export const IDENT = String.raw`(?:"(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*)`;

/** 1-based line and column of a character offset. */
export function locationAt(sql: string, offset: number): SourceLocation {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < sql.length; i++) {
    if (sql.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return { lineNumber: line, columnNumber: offset - lineStart + 1 };
}

/** The index just past a quoted run starting at `start` (doubled quotes stay inside). */
export function skipQuoted(sql: string, start: number, quote: string): number {
  let i = start + 1;
  while (i < sql.length) {
    if (sql[i] === quote) {
      if (sql[i + 1] === quote) i += 2;
      else return i + 1;
    } else i++;
  }
  return i;
}

/** An identifier's name: unquoted ones are lower-cased; quoted ones keep their case unless `lowerQuoted`. */
export function identifierText(raw: string, lowerQuoted = false): string {
  if (!raw.startsWith('"')) return raw.toLowerCase();
  const name = raw.slice(1, -1).replace(/""/gu, '"');
  return lowerQuoted ? name.toLowerCase() : name;
}

/** `a.b."C"` → its parts. */
export function splitQualified(raw: string, lowerQuoted = false): string[] {
  const parts: string[] = [];
  const re = new RegExp(IDENT, 'gu');
  let m: RegExpExecArray | null;
  while ((m = re.exec(raw))) parts.push(identifierText(m[0], lowerQuoted));
  return parts;
}

/**
 * The text with the insides of quoted strings, quoted identifiers and comments blanked (same
 * length, quotes kept): searching it finds only the statement's own keywords and names.
 */
export function maskQuoted(sql: string): string {
  let out = '';
  let copied = 0;
  const blank = (from: number, to: number): void => {
    out += sql.slice(copied, from) + sql.slice(from, to).replace(/[^\n]/gu, ' ');
    copied = to;
  };
  for (let i = 0; i < sql.length; ) {
    const c = sql[i];
    if (c === "'" || c === '"') {
      const end = skipQuoted(sql, i, c);
      blank(i + 1, Math.max(i + 1, end - 1));
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const to = end < 0 ? sql.length : end;
      blank(i, to);
      i = to;
    } else if (c === '/' && sql[i + 1] === '*') {
      const end = sql.indexOf('*/', i + 2);
      const to = end < 0 ? sql.length : end + 2;
      blank(i, to);
      i = to;
    } else i++;
  }
  return out + sql.slice(copied);
}

/** The [start, end) of each comma-separated part of masked text (maskQuoted) at parenthesis depth 0. */
export function topLevelRanges(masked: string): [number, number][] {
  const ranges: [number, number][] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < masked.length; i++) {
    if (masked[i] === '(') depth++;
    else if (masked[i] === ')') depth--;
    else if (masked[i] === ',' && depth === 0) {
      ranges.push([start, i]);
      start = i + 1;
    }
  }
  ranges.push([start, masked.length]);
  return ranges;
}

/** The comma-separated parts of a text outside parentheses, quotes and comments (untrimmed; none for blank text). */
export function splitTopLevel(text: string): string[] {
  const ranges = topLevelRanges(maskQuoted(text));
  if (ranges.length === 1 && text.trim() === '') return [];
  return ranges.map(([start, end]) => text.slice(start, end));
}
