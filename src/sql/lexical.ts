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
