// Helpers that generated kernels call through their `rt` parameter: string decoding, LIKE matchers,
// casts, date math and errors. Per-kernel constants (types, sets, regexes) live in `consts`.

import { RE2, type RE2ExecArray } from '@adguard/re2-wasm';
import type { DictionaryColumn, VarcharColumn } from '../../data/page.js';
import { readUtf8, utf8At, utf8View } from '../../data/page.js';
import {
  addMonthsToDays,
  addMonthsToMillis,
  castValue,
  civilFromDays,
  daysFromCivil,
  daysInMonth,
  parseDateLiteral,
  MS_PER_DAY,
  POW10,
  roundHalfUp,
  yearOfDays,
} from '../../data/values.js';
import { EngineError, type ErrorName } from '../../util/engine-error.js';
import { formatValues, toIso8601 } from './format-function.js';
import { urlExtractFragment, urlExtractHost, urlExtractParameter, urlExtractPath, urlExtractPort, urlExtractProtocol, urlExtractQuery } from './url-functions.js';
import { isJsonScalar, jsonArrayContains, jsonArrayGet, jsonArrayLength, jsonExtract, jsonExtractScalar, jsonParse, jsonSize } from './json-functions.js';

const dictionaryStrings = new WeakMap<VarcharColumn, string[]>();

/** The dictionary's entries as JS strings, decoded once per dictionary. */
function dictStrings(col: DictionaryColumn): string[] {
  let s = dictionaryStrings.get(col.dictionary);
  if (!s) {
    s = [];
    for (let i = 0; i < col.dictionary.length; i++) s.push(readUtf8(col.dictionary, i));
    dictionaryStrings.set(col.dictionary, s);
  }
  return s;
}

function fail(name: ErrorName, message: string): never {
  throw new EngineError(name, message);
}

/** One `%`-free piece of a LIKE pattern: code points, `null` for `_` (any one code point). */
type LikeSegment = (string | null)[];

/** A LIKE pattern cut at its `%`s (with an optional escape): the segments between them, in order. */
function likeSegments(pattern: string, escape: string | null): LikeSegment[] {
  if (escape !== null && [...escape].length !== 1) fail('INVALID_FUNCTION_ARGUMENT', 'Escape string must be a single character');
  const segments: LikeSegment[] = [[]];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i];
    if (escape !== null && c === escape) {
      const next = chars[++i];
      if (next === undefined || (next !== '%' && next !== '_' && next !== escape)) fail('INVALID_FUNCTION_ARGUMENT', 'Escape character must be followed by \'%\', \'_\' or the escape character itself');
      segments[segments.length - 1].push(next);
    } else if (c === '%') segments.push([]);
    else segments[segments.length - 1].push(c === '_' ? null : c);
  }
  return segments;
}

function segmentAt(s: readonly string[], at: number, segment: LikeSegment): boolean {
  if (at + segment.length > s.length) return false;
  for (let k = 0; k < segment.length; k++) if (segment[k] !== null && segment[k] !== s[at + k]) return false;
  return true;
}

/**
 * A general LIKE matcher without backtracking: the first segment anchored at the start, the last
 * at the end, each middle one at its leftmost place after the previous (leftmost is never worse),
 * so a value costs at most its length times the pattern's.
 */
function segmentsMatcher(segments: readonly LikeSegment[]): (s: string) => boolean {
  return (text) => {
    const s = [...text];
    const first = segments[0];
    if (segments.length === 1) return s.length === first.length && segmentAt(s, 0, first);
    const last = segments[segments.length - 1];
    if (s.length < first.length + last.length || !segmentAt(s, 0, first) || !segmentAt(s, s.length - last.length, last)) return false;
    let pos = first.length;
    const end = s.length - last.length;
    for (let i = 1; i < segments.length - 1; i++) {
      const segment = segments[i];
      let at = pos;
      while (at + segment.length <= end && !segmentAt(s, at, segment)) at++;
      if (at + segment.length > end) return false;
      pos = at + segment.length;
    }
    return true;
  };
}

/** A fast matcher for a constant LIKE pattern: plain prefix/suffix/contains checks where possible. */
export function likeMatcher(pattern: string, escape: string | null): (s: string) => boolean {
  if (escape === null && !pattern.includes('_')) {
    const parts = pattern.split('%');
    if (parts.length === 1) return (s) => s === pattern;
    if (parts.length === 2) {
      const [pre, post] = parts;
      return (s) => s.length >= pre.length + post.length && s.startsWith(pre) && s.endsWith(post);
    }
    if (parts.length === 3 && parts[0] === '' && parts[2] === '') {
      const mid = parts[1];
      return (s) => s.includes(mid);
    }
    // General %a%b%c%: ordered substring search.
    return (s) => {
      const first = parts[0];
      const last = parts[parts.length - 1];
      if (!s.startsWith(first) || s.length < first.length + last.length) return false;
      let pos = first.length;
      for (let i = 1; i < parts.length - 1; i++) {
        const at = s.indexOf(parts[i], pos);
        if (at < 0) return false;
        pos = at + parts[i].length;
      }
      return s.length - last.length >= pos && s.endsWith(last);
    };
  }
  return segmentsMatcher(likeSegments(pattern, escape));
}

/**
 * A constant LIKE pattern without `_` or an escape, matched on UTF-8 bytes directly (no decoding):
 * `%` splits the pattern into parts that must occur in order, anchored at both ends.
 */
export function byteLikeMatcher(pattern: string): ((data: Uint8Array, start: number, end: number) => boolean) | null {
  if (pattern.includes('_')) return null;
  const parts = pattern.split('%').map((p) => new TextEncoder().encode(p));
  const at = (data: Uint8Array, pos: number, part: Uint8Array): boolean => {
    for (let k = 0; k < part.length; k++) if (data[pos + k] !== part[k]) return false;
    return true;
  };
  const first = parts[0];
  const last = parts[parts.length - 1];
  if (parts.length === 1) return (data, start, end) => end - start === first.length && at(data, start, first);
  return (data, start, end) => {
    if (end - start < first.length + last.length) return false;
    if (!at(data, start, first) || !at(data, end - last.length, last)) return false;
    let pos = start + first.length;
    const limit = end - last.length;
    for (let p = 1; p < parts.length - 1; p++) {
      const part = parts[p];
      if (part.length === 0) continue;
      const b0 = part[0];
      let found = -1;
      for (let i = pos; i + part.length <= limit; i++) {
        if (data[i] === b0 && at(data, i, part)) {
          found = i;
          break;
        }
      }
      if (found < 0) return false;
      pos = found + part.length;
    }
    return true;
  };
}

/**
 * Column-at-a-time LIKE for a constant pattern with a non-empty `%…%` middle part (`'%special%requests%'`),
 * by native substring searches over the page's UTF-8 bytes. A pattern that starts and ends with
 * `%` is matched by the searches alone: the first part's next occurrence finds a row, each later
 * part's next occurrence after the previous one must end inside that row (the leftmost occurrences
 * are the best chance, so that decides the row), and a part found nowhere further ends the page.
 * Other patterns search the longest middle part and run the row matcher on the rows holding it.
 * Q13's `'%special%requests%'`: "requests" is in a third of the comments, whose row matcher's
 * byte loops cost about as much as the search. Null when the row matcher alone is as good (exact,
 * prefix or suffix patterns) or the pattern needs decoding.
 */
export function byteLikeColumnMatcher(pattern: string): ((col: { readonly length: number; readonly data: Uint8Array; readonly offsets: Int32Array }) => Uint8Array) | null {
  const row = byteLikeMatcher(pattern);
  const split = pattern.split('%');
  const middle = split.slice(1, -1).filter((p) => p.length > 0);
  if (!row || middle.length === 0) return null;
  if (split[0] === '' && split[split.length - 1] === '') return chainedSearch(middle.map((m) => Buffer.from(m, 'utf8')));
  const needle = Buffer.from(middle.reduce((a, b) => (b.length > a.length ? b : a)), 'utf8');
  return (col) => {
    const n = col.length;
    const hits = new Uint8Array(n);
    const { data, offsets } = col;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const end = offsets[n];
    let r = 0;
    let pos = offsets[0];
    while (pos < end) {
      const at = bytes.indexOf(needle, pos);
      if (at < 0 || at + needle.length > end) break;
      while (offsets[r + 1] <= at) r++;
      const rowEnd = offsets[r + 1];
      if (at + needle.length > rowEnd) {
        pos = at + 1; // straddles two rows
        continue;
      }
      if (row(data, offsets[r], rowEnd)) hits[r] = 1;
      pos = rowEnd;
    }
    return hits;
  };
}

/**
 * `%a%b%…%` over a page's bytes: parts found in order within one row (see byteLikeColumnMatcher).
 * Each part's last search result is kept (the first occurrence at or after a point is also the
 * first at or after any later point before it), and when a later part's next occurrence lies
 * beyond the row, the rows before that occurrence cannot match: the search resumes at its row.
 */
function chainedSearch(parts: readonly Buffer[]): (col: { readonly length: number; readonly data: Uint8Array; readonly offsets: Int32Array }) => Uint8Array {
  return (col) => {
    const n = col.length;
    const hits = new Uint8Array(n);
    const { data, offsets } = col;
    const bytes = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    const end = offsets[n];
    // known[p]: part p's first occurrence at or after searched[p] (-1: none before the page's end).
    const known = new Array<number>(parts.length).fill(0);
    const searched = new Array<number>(parts.length).fill(-1);
    const occurrence = (p: number, from: number): number => {
      if (searched[p] < 0 || from < searched[p] || (known[p] >= 0 && known[p] < from)) {
        const at = bytes.indexOf(parts[p], from);
        known[p] = at >= 0 && at + parts[p].length <= end ? at : -1;
        searched[p] = from;
      }
      return known[p];
    };
    let r = 0;
    let pos = offsets[0];
    while (pos < end) {
      const at = occurrence(0, pos);
      if (at < 0) break;
      while (offsets[r + 1] <= at) r++;
      const rowEnd = offsets[r + 1];
      if (at + parts[0].length > rowEnd) {
        pos = at + 1; // straddles two rows
        continue;
      }
      let from = at + parts[0].length;
      let beyond = -1; // where a later part next occurs when that is past this row
      for (let p = 1; p < parts.length && beyond < 0; p++) {
        const next = occurrence(p, from);
        if (next < 0) return hits; // a part occurs nowhere further: no later row matches
        if (next + parts[p].length > rowEnd) beyond = next;
        else from = next + parts[p].length;
      }
      if (beyond < 0) {
        hits[r] = 1;
        pos = rowEnd;
        continue;
      }
      // No row before that occurrence's row holds the chain (the next row, when it straddles this one's end).
      while (offsets[r + 1] <= beyond) r++;
      pos = Math.max(offsets[r], rowEnd);
    }
    return hits;
  };
}

/**
 * `substring(col, 1, length) IN (literals)` over a UTF-8 column, answered on bytes for a whole page
 * (1 per matching row), or null when a literal is not ASCII. An ASCII literal of `length`
 * characters matches exactly the rows whose first `length` bytes are its bytes (those bytes are
 * then ASCII, so they are the first `length` characters); a shorter literal matches only a row
 * that is exactly it, a longer one nothing. So a row's key is its first `length` bytes (all of a
 * shorter row), compared with the literals' keys: for at most 3 bytes the bytes and their count
 * packed into one integer (no string per row: Q22's phone prefixes, 60 -> about 10 ns a row).
 */
export function prefixInColumnMatcher(length: number, literals: readonly string[]): ((col: { readonly length: number; readonly data: Uint8Array; readonly offsets: Int32Array }) => Uint8Array) | null {
  if (!Number.isInteger(length) || length < 1 || literals.some((t) => !/^[\x00-\x7f]*$/u.test(t))) return null;
  if (length <= 2) return shortPrefixInColumn(length as 1 | 2, literals);
  const keyOf = length <= 3 ? packedKey : byteStringKey;
  const keys = new Set(literals.filter((t) => t.length <= length).map((t) => keyOf(Buffer.from(t, 'latin1'), 0, t.length)));
  return (col) => {
    const n = col.length;
    const hits = new Uint8Array(n);
    const { data, offsets } = col;
    for (let r = 0; r < n; r++) {
      const start = offsets[r];
      const size = offsets[r + 1] - start;
      if (keys.has(keyOf(data, start, size < length ? size : length))) hits[r] = 1;
    }
    return hits;
  };
}

/**
 * prefixInColumnMatcher for 1- or 2-byte prefixes: a 256- or 65,536-entry table indexed by the
 * row's first bytes, for rows at least that long; a shorter row matches a literal equal to all of
 * it (a set of packed keys). Q22's two-digit country codes: 33 → 4 ns a row.
 */
function shortPrefixInColumn(length: 1 | 2, literals: readonly string[]): (col: { readonly length: number; readonly data: Uint8Array; readonly offsets: Int32Array }) => Uint8Array {
  const table = new Uint8Array(length === 1 ? 256 : 65536);
  const shorter = new Set<number>();
  for (const t of literals) {
    const bytes = Buffer.from(t, 'latin1');
    if (t.length === length) table[length === 1 ? bytes[0] : bytes[0] | (bytes[1] << 8)] = 1;
    else if (t.length < length) shorter.add(packedKey(bytes, 0, t.length) as number);
  }
  return (col) => {
    const n = col.length;
    const hits = new Uint8Array(n);
    const { data, offsets } = col;
    for (let r = 0; r < n; r++) {
      const start = offsets[r];
      const size = offsets[r + 1] - start;
      if (size >= length) hits[r] = table[length === 1 ? data[start] : data[start] | (data[start + 1] << 8)];
      else if (shorter.size > 0 && shorter.has(packedKey(data, start, size) as number)) hits[r] = 1;
    }
    return hits;
  };
}

/** `count` (at most 3) bytes and their count as one integer. */
function packedKey(codes: ArrayLike<number>, start: number, count: number): number | string {
  let key = count << 24;
  for (let b = 0; b < count; b++) key |= codes[start + b] << (8 * b);
  return key;
}

/** `count` bytes as a one-char-per-byte string. */
function byteStringKey(codes: ArrayLike<number>, start: number, count: number): number | string {
  let key = '';
  for (let b = 0; b < count; b++) key += String.fromCharCode(codes[start + b]);
  return key;
}

const likeCache = new Map<string, (s: string) => boolean>();

function like(s: string, pattern: string, escape: string | null): boolean {
  const key = `${escape ?? ''}\u0000${pattern}`;
  let m = likeCache.get(key);
  if (!m) {
    m = likeMatcher(pattern, escape);
    if (likeCache.size > 1000) likeCache.clear();
    likeCache.set(key, m);
  }
  return m(s);
}

/** Any UTF-16 surrogate unit (no `u` flag: a pair's units must match): characters outside the BMP. */
const SURROGATE = /[\ud800-\udfff]/;

function substr(s: string, start: number, length?: number): string {
  // Positions count code points: a string without surrogates is sliced by its UTF-16 units (no
  // array of characters per call: Q22's substring(c_phone, 1, 2) 900 → 100 ns a row).
  const cps = SURROGATE.test(s) ? [...s] : null;
  const n = cps === null ? s.length : cps.length;
  if (start === 0) return '';
  let from = start > 0 ? start - 1 : n + start;
  if (from < 0 || from >= n) return '';
  const to = length === undefined ? n : Math.min(n, from + Math.max(0, length));
  if (length !== undefined && length < 0) fail('INVALID_FUNCTION_ARGUMENT', 'Length must be non-negative');
  from = Math.max(0, from);
  return cps === null ? s.slice(from, to) : cps.slice(from, to).join('');
}

/**
 * Trino's replace: every occurrence of `search` replaced; an empty `search` puts `replacement`
 * before every character and after the last. replaceAll where `replacement` has no `$` (which it
 * would read as a pattern): split and join cost ~3× as much (~1.2 µs for a phone number).
 */
function replace(s: string, search: string, replacement: string): string {
  if (search === '') {
    let out = replacement;
    for (const ch of s) out += ch + replacement;
    return out;
  }
  return replacement.includes('$') ? s.split(search).join(replacement) : s.replaceAll(search, replacement);
}

function codePointLength(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0xd800 || c > 0xdbff) n++;
  }
  return n;
}

function strpos(s: string, sub: string): number {
  const i = s.indexOf(sub);
  return i < 0 ? 0 : codePointLength(s.slice(0, i)) + 1;
}

function splitPart(s: string, delim: string, index: number): string | null {
  if (index <= 0) fail('INVALID_FUNCTION_ARGUMENT', 'Index must be greater than zero');
  const parts = delim === '' ? [...s] : s.split(delim);
  return index <= parts.length ? parts[index - 1] : null;
}

/** The longest string lpad/rpad build: past it a query fails instead of the process. */
const MAX_BUILT_STRING = 1 << 24;

function pad(s: string, size: number, padding: string, left: boolean): string {
  if (size < 0 || size > MAX_BUILT_STRING) fail('INVALID_FUNCTION_ARGUMENT', `Target length must be in the range [0..${MAX_BUILT_STRING}]`);
  if (padding === '') fail('INVALID_FUNCTION_ARGUMENT', 'Padding string must not be empty');
  const cps = [...s];
  if (size <= cps.length) return cps.slice(0, size).join('');
  const need = size - cps.length;
  const padCps = [...padding];
  // Whole copies of the padding, then the first code points of one more.
  const fill = padding.repeat(Math.floor(need / padCps.length)) + padCps.slice(0, need % padCps.length).join('');
  return left ? fill + s : s + fill;
}

function trimSpaces(s: string, left: boolean, right: boolean): string {
  let a = 0;
  let b = s.length;
  if (left) while (a < b && s.charCodeAt(a) === 32) a++;
  if (right) while (b > a && s.charCodeAt(b - 1) === 32) b--;
  return s.slice(a, b);
}

const regexCache = new Map<string, RE2>();

function regexpLike(s: string, pattern: string): boolean {
  return regex(pattern, 'u').test(s);
}

/**
 * A cached regular expression, run by RE2 (as Trino's re2j option): linear in the input whatever
 * the pattern, so no pattern can hold a thread (JavaScript's backtracking engine takes exponential
 * time on `(a+)+$`). RE2 refuses what needs backtracking (back-references, look-around).
 */
function regex(pattern: string, flags: string): RE2 {
  const key = `${flags}/${pattern}`;
  let re = regexCache.get(key);
  if (!re) {
    try {
      re = new RE2(pattern, flags);
    } catch (e) {
      fail('INVALID_FUNCTION_ARGUMENT', (e as Error).message);
    }
    if (regexCache.size > 1000) regexCache.clear();
    regexCache.set(key, re);
  }
  re.lastIndex = 0;
  return re;
}

/** regexp_replace: every match replaced; `$1` in the replacement is a group, as in Trino. */
function regexpReplace(s: string, pattern: string, replacement: string): string {
  return s.replace(regex(pattern, 'gu'), replacement);
}

const groupCounts = new Map<string, number>();

/** regexp_extract: the first match (or its group), NULL when nothing matches. */
function regexpExtract(s: string, pattern: string, group: number): string | null {
  const re = regex(pattern, 'u');
  let groups = groupCounts.get(pattern);
  if (groups === undefined) {
    // An alternative that matches the empty string shows how many groups the pattern has.
    groups = (regex(`(?:${pattern})|`, 'u').exec('') as RE2ExecArray).length - 1;
    if (groupCounts.size > 1000) groupCounts.clear();
    groupCounts.set(pattern, groups);
  }
  if (!Number.isInteger(group) || group < 0 || group > groups) fail('INVALID_FUNCTION_ARGUMENT', `Pattern has ${groups} groups. Cannot access group ${group}`);
  const m = re.exec(s);
  return m === null ? null : (m[group] ?? null);
}

function regexpCount(s: string, pattern: string): number {
  let count = 0;
  const re = regex(pattern, 'gu');
  for (let m = re.exec(s); m !== null; m = re.exec(s)) {
    count++;
    if (m[0] === '') re.lastIndex++;
  }
  return count;
}

/** regexp_position: the 1-based code point position of the first match, -1 without one. */
function regexpPosition(s: string, pattern: string): number {
  const m = regex(pattern, 'u').exec(s);
  return m === null ? -1 : [...s.slice(0, m.index)].length + 1;
}

function translate(s: string, from: string, to: string): string {
  const source = [...from];
  const target = [...to];
  const map = new Map<string, string>();
  source.forEach((c, i) => {
    if (!map.has(c)) map.set(c, target[i] ?? '');
  });
  let out = '';
  for (const c of s) out += map.get(c) ?? c;
  return out;
}

/** levenshtein_distance compares at most this many pairs of characters (Trino's limit). */
const MAX_LEVENSHTEIN_CELLS = 1_000_000;

function levenshtein(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length * y.length > MAX_LEVENSHTEIN_CELLS) fail('INVALID_FUNCTION_ARGUMENT', 'The combined inputs for Levenshtein distance are too large');
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++) row.push(Math.min(prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (x[i - 1] === y[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[y.length];
}

function hamming(a: string, b: string): number {
  const x = [...a];
  const y = [...b];
  if (x.length !== y.length) fail('INVALID_FUNCTION_ARGUMENT', 'The input strings to hamming_distance function must have the same length');
  let d = 0;
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) d++;
  return d;
}

function codepoint(s: string): number {
  const cps = [...s];
  if (cps.length !== 1) fail('INVALID_FUNCTION_ARGUMENT', 'Input string must be a single character');
  return cps[0].codePointAt(0) as number;
}

function chr(n: number): string {
  if (!Number.isInteger(n) || n < 0 || n > 0x10ffff || (n >= 0xd800 && n <= 0xdfff)) fail('INVALID_FUNCTION_ARGUMENT', 'Not a valid Unicode code point: ' + n);
  return String.fromCodePoint(n);
}

function lastDayOfMonth(days: number): number {
  const [y, m] = civilFromDays(days);
  return m === 12 ? daysFromCivil(y + 1, 1, 1) - 1 : daysFromCivil(y, m + 1, 1) - 1;
}

function widthBucket(x: number, lo: number, hi: number, buckets: number): number {
  if (buckets <= 0) fail('INVALID_FUNCTION_ARGUMENT', 'bucketCount must be greater than 0');
  if (lo === hi || !Number.isFinite(lo) || !Number.isFinite(hi) || Number.isNaN(x)) fail('INVALID_FUNCTION_ARGUMENT', 'bounds cannot equal each other and must be finite; operand must not be NaN');
  if (lo < hi) {
    if (x < lo) return 0;
    if (x >= hi) return buckets + 1;
    return Math.floor(((x - lo) * buckets) / (hi - lo)) + 1;
  }
  if (x > lo) return 0;
  if (x <= hi) return buckets + 1;
  return Math.floor(((lo - x) * buckets) / (lo - hi)) + 1;
}

/** Two's-complement 64-bit operations (bigints are exact up to 2^53 here, as everywhere). */
function bitwise(op: string, a: number, b: number): number {
  const x = BigInt.asIntN(64, BigInt(a));
  const y = BigInt.asIntN(64, BigInt(b));
  switch (op) {
    case 'bitwise_and':
      return Number(x & y);
    case 'bitwise_or':
      return Number(x | y);
    case 'bitwise_xor':
      return Number(x ^ y);
    case 'bitwise_not':
      return Number(~x);
    default: {
      if (b < 2 || b > 64) fail('INVALID_FUNCTION_ARGUMENT', 'Bits specified in bit_count must be between 2 and 64, got ' + b);
      let v = BigInt.asUintN(b, x);
      let n = 0;
      for (; v > 0n; v >>= 1n) n += Number(v & 1n);
      return n;
    }
  }
}

/** The errors TRY(x) turns into NULL, as Trino's TRY does; anything else is rethrown. */
const TRY_ABSORBS = new Set<ErrorName>(['DIVISION_BY_ZERO', 'INVALID_CAST_ARGUMENT', 'INVALID_FUNCTION_ARGUMENT', 'NUMERIC_VALUE_OUT_OF_RANGE']);

function tryFailure(e: unknown): void {
  if (!(e instanceof EngineError) || !TRY_ABSORBS.has(e.errorName)) throw e;
}

const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DAY_NAMES = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];

/** date_format(timestamp, format): MySQL's specifiers, as Trino implements them (the common ones). */
function dateFormat(ms: number, format: string): string {
  const days = Math.floor(ms / MS_PER_DAY);
  const [y, m, d] = civilFromDays(days);
  const within = ms - days * MS_PER_DAY;
  const h = Math.floor(within / 3_600_000);
  const mi = Math.floor((within % 3_600_000) / 60_000);
  const s = Math.floor((within % 60_000) / 1000);
  const frac = within % 1000;
  const dow = ((((days + 3) % 7) + 7) % 7) + 1; // ISO: Monday = 1
  const two = (n: number): string => String(n).padStart(2, '0');
  const h12 = h % 12 === 0 ? 12 : h % 12;
  let out = '';
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== '%' || i + 1 === format.length) {
      out += c;
      continue;
    }
    const f = format[++i];
    switch (f) {
      case 'Y': out += String(y).padStart(4, '0'); break;
      case 'y': out += two(y % 100); break;
      case 'm': out += two(m); break;
      case 'c': out += String(m); break;
      case 'M': out += MONTH_NAMES[m - 1]; break;
      case 'b': out += MONTH_NAMES[m - 1].slice(0, 3); break;
      case 'd': out += two(d); break;
      case 'e': out += String(d); break;
      case 'j': out += String(datePart('day_of_year', days)).padStart(3, '0'); break;
      case 'W': out += DAY_NAMES[dow - 1]; break;
      case 'a': out += DAY_NAMES[dow - 1].slice(0, 3); break;
      case 'H': out += two(h); break;
      case 'k': out += String(h); break;
      case 'h': case 'I': out += two(h12); break;
      case 'l': out += String(h12); break;
      case 'i': out += two(mi); break;
      case 's': case 'S': out += two(s); break;
      case 'f': out += String(frac * 1000).padStart(6, '0'); break;
      case 'p': out += h < 12 ? 'AM' : 'PM'; break;
      case 'T': out += `${two(h)}:${two(mi)}:${two(s)}`; break;
      case 'r': out += `${two(h12)}:${two(mi)}:${two(s)} ${h < 12 ? 'AM' : 'PM'}`; break;
      case '%': out += '%'; break;
      default: fail('INVALID_FUNCTION_ARGUMENT', `%${f} not supported in date format string`);
    }
  }
  return out;
}

/** date_parse(string, format): the inverse of dateFormat for its numeric specifiers. */
function dateParse(text: string, format: string): number {
  let y = 1970;
  let m = 1;
  let d = 1;
  let h = 0;
  let mi = 0;
  let s = 0;
  let ms = 0;
  let pm: boolean | undefined;
  let at = 0;
  const bad = (): never => fail('INVALID_FUNCTION_ARGUMENT', `Invalid format: "${text}"`);
  const digits = (max: number): number => {
    const m0 = /^\d+/u.exec(text.slice(at, at + max));
    if (!m0) bad();
    at += (m0 as RegExpExecArray)[0].length;
    return Number((m0 as RegExpExecArray)[0]);
  };
  for (let i = 0; i < format.length; i++) {
    const c = format[i];
    if (c !== '%' || i + 1 === format.length) {
      if (text[at] !== c) bad();
      at++;
      continue;
    }
    const f = format[++i];
    switch (f) {
      case 'Y': y = digits(4); break;
      case 'y': y = 2000 + digits(2); if (y > 2069) y -= 100; break;
      case 'm': case 'c': m = digits(2); break;
      case 'd': case 'e': d = digits(2); break;
      case 'H': case 'k': h = digits(2); break;
      case 'h': case 'I': case 'l': h = digits(2) % 12; break;
      case 'i': mi = digits(2); break;
      case 's': case 'S': s = digits(2); break;
      case 'f': { const start = at; const v = digits(6); ms = Math.floor(v / 10 ** (at - start - 3)); break; }
      case 'p': {
        const word = text.slice(at, at + 2).toUpperCase();
        if (word !== 'AM' && word !== 'PM') bad();
        pm = word === 'PM';
        at += 2;
        break;
      }
      case 'T': h = digits(2); if (text[at++] !== ':') bad(); mi = digits(2); if (text[at++] !== ':') bad(); s = digits(2); break;
      case '%': if (text[at++] !== '%') bad(); break;
      default: fail('INVALID_FUNCTION_ARGUMENT', `%${f} not supported in date parse string`);
    }
  }
  if (at !== text.length) bad();
  if (pm !== undefined) h = (h % 12) + (pm ? 12 : 0);
  if (m < 1 || m > 12 || d < 1 || d > daysInMonth(y, m) || h > 23 || mi > 59 || s > 59) bad();
  return daysFromCivil(y, m, d) * MS_PER_DAY + h * 3_600_000 + mi * 60_000 + s * 1000 + ms;
}

function isoDate(text: string): number {
  const days = parseDateLiteral(text);
  if (days === undefined) fail('INVALID_FUNCTION_ARGUMENT', `Invalid format: "${text}"`);
  return days as number;
}

function randomBelow(n: number): number {
  if (n <= 0) fail('INVALID_FUNCTION_ARGUMENT', 'bound must be positive');
  return Math.floor(Math.random() * n);
}

function datePart(unit: string, days: number): number {
  const [y, m, d] = civilFromDays(days);
  switch (unit) {
    case 'year':
      return y;
    case 'quarter':
      return Math.floor((m - 1) / 3) + 1;
    case 'month':
      return m;
    case 'day':
      return d;
    case 'day_of_week': {
      const dow = (((days + 3) % 7) + 7) % 7; // 1970-01-01 was a Thursday; ISO Monday = 1
      return dow + 1;
    }
    case 'day_of_year':
      return days - daysFromCivil(y, 1, 1) + 1;
    case 'week':
    case 'year_of_week': {
      // ISO week: the one holding the week's Thursday, numbered within that Thursday's year.
      const dow = ((((days + 3) % 7) + 7) % 7) + 1;
      const thursday = days - dow + 4;
      const [ty] = civilFromDays(thursday);
      return unit === 'year_of_week' ? ty : Math.floor((thursday - daysFromCivil(ty, 1, 1)) / 7) + 1;
    }
    default:
      return fail('INVALID_FUNCTION_ARGUMENT', `Unknown date part: ${unit}`);
  }
}

const UNIT_MS: Record<string, number> = { millisecond: 1, second: 1000, minute: 60_000, hour: 3_600_000, day: MS_PER_DAY, week: 7 * MS_PER_DAY };

function dateTrunc(unit: string, value: number, isTimestamp: boolean): number {
  const u = unit.toLowerCase();
  const days = isTimestamp ? Math.floor(value / MS_PER_DAY) : value;
  const [y, m] = civilFromDays(days);
  let truncatedDays: number | undefined;
  switch (u) {
    case 'year':
      truncatedDays = daysFromCivil(y, 1, 1);
      break;
    case 'quarter':
      truncatedDays = daysFromCivil(y, Math.floor((m - 1) / 3) * 3 + 1, 1);
      break;
    case 'month':
      truncatedDays = daysFromCivil(y, m, 1);
      break;
    case 'week':
      truncatedDays = days - ((((days + 3) % 7) + 7) % 7);
      break;
    case 'day':
      truncatedDays = days;
      break;
    default:
      if (!isTimestamp || !(u in UNIT_MS)) fail('INVALID_FUNCTION_ARGUMENT', `'${unit}' is not a valid ${isTimestamp ? 'Timestamp' : 'DATE'} field`);
      return Math.floor(value / UNIT_MS[u]) * UNIT_MS[u];
  }
  return isTimestamp ? truncatedDays * MS_PER_DAY : truncatedDays;
}

/** A date's days since the epoch, refused past what a date column holds (32-bit days) instead of wrapping. */
function checkedDays(days: number): number {
  if (!(days >= -2147483648 && days <= 2147483647)) fail('NUMERIC_VALUE_OUT_OF_RANGE', 'Date value out of range');
  return days;
}

/** A timestamp's milliseconds, refused past ±8.64e15 (JavaScript's and the engine's range) instead of losing digits. */
function checkedMillis(ms: number): number {
  if (!(ms >= -8.64e15 && ms <= 8.64e15)) fail('NUMERIC_VALUE_OUT_OF_RANGE', 'Timestamp value out of range');
  return ms;
}

function dateAdd(unit: string, amount: number, value: number, isTimestamp: boolean): number {
  const u = unit.toLowerCase();
  const months = ({ year: 12, quarter: 3, month: 1 } as Record<string, number>)[u];
  if (months !== undefined) return isTimestamp ? checkedMillis(addMonthsToMillis(value, amount * months)) : checkedDays(addMonthsToDays(value, amount * months));
  const ms = UNIT_MS[u];
  if (ms === undefined || (!isTimestamp && ms < MS_PER_DAY)) fail('INVALID_FUNCTION_ARGUMENT', `'${unit}' is not a valid ${isTimestamp ? 'Timestamp' : 'DATE'} field`);
  return isTimestamp ? checkedMillis(value + amount * ms) : checkedDays(value + (amount * ms) / MS_PER_DAY);
}

function dateDiff(unit: string, a: number, b: number, isTimestamp: boolean): number {
  const u = unit.toLowerCase();
  const toMs = (x: number): number => (isTimestamp ? x : x * MS_PER_DAY);
  const months = ({ year: 12, quarter: 3, month: 1 } as Record<string, number>)[u];
  if (months !== undefined) {
    const da = Math.floor(toMs(a) / MS_PER_DAY);
    const db = Math.floor(toMs(b) / MS_PER_DAY);
    const [ya, ma, dda] = civilFromDays(da);
    const [yb, mb, ddb] = civilFromDays(db);
    let diff = (yb - ya) * 12 + (mb - ma);
    const remA = toMs(a) - daysFromCivil(ya, ma, 1) * MS_PER_DAY;
    const remB = toMs(b) - daysFromCivil(yb, mb, 1) * MS_PER_DAY;
    if (diff > 0 && remB < remA) diff--;
    else if (diff < 0 && remB > remA) diff++;
    void dda;
    void ddb;
    return Math.trunc(diff / months);
  }
  const ms = UNIT_MS[u];
  if (ms === undefined || (!isTimestamp && ms < MS_PER_DAY)) fail('INVALID_FUNCTION_ARGUMENT', `'${unit}' is not a valid ${isTimestamp ? 'Timestamp' : 'DATE'} field`);
  return Math.trunc((toMs(b) - toMs(a)) / ms);
}

function decimalDivide(a: number, sa: number, b: number, sb: number, rs: number): number {
  if (b === 0) fail('DIVISION_BY_ZERO', 'Division by zero');
  // a/10^sa / (b/10^sb) * 10^rs, rounded half up
  return roundHalfUp(((a / b) * POW10[sb + rs]) / POW10[sa]);
}

function roundTo(x: number, digits: number): number {
  if (!Number.isFinite(x)) return x;
  const f = 10 ** digits;
  // Past a double's range either way: nothing to round (huge digits) or nothing left (huge negative ones).
  if (f === 0) return 0;
  const scaled = x * f;
  if (!Number.isFinite(scaled)) return x;
  return roundHalfUp(scaled) / f;
}

function roundDecimal(scaled: number, scale: number, digits: number): number {
  if (digits >= scale) return scaled;
  const f = POW10[scale - digits];
  return roundHalfUp(scaled / f) * f;
}

function checkInteger(x: number): number {
  if (x > 2147483647 || x < -2147483648) fail('NUMERIC_VALUE_OUT_OF_RANGE', `integer overflow: ${x}`);
  return x;
}

/** bigint is computed in doubles: beyond 2^53 a result would be inexact, so it is refused instead. */
function checkBigint(x: number): number {
  if (!Number.isSafeInteger(x) && Number.isFinite(x)) {
    fail('NUMERIC_VALUE_OUT_OF_RANGE', `bigint result ${x} is beyond the exact range of this engine (2^53)`);
  }
  return x;
}

const ASCII = /^[\x00-\x7f]*$/u;

/** Case mapping one code point at a time, as Trino does (so 'ß' stays 'ß' in upper case). */
function mapCase(s: string, upper: boolean): string {
  if (ASCII.test(s)) return upper ? s.toUpperCase() : s.toLowerCase();
  let out = '';
  for (const c of s) {
    const m = upper ? c.toUpperCase() : c.toLowerCase();
    out += [...m].length === 1 ? m : c;
  }
  return out;
}

function minString(...xs: string[]): string {
  return xs.reduce((a, b) => (b < a ? b : a));
}

function maxString(...xs: string[]): string {
  return xs.reduce((a, b) => (b > a ? b : a));
}

export const runtime = {
  checkInteger,
  checkBigint,
  upper: (s: string) => mapCase(s, true),
  lower: (s: string) => mapCase(s, false),
  minString,
  maxString,
  utf8View,
  utf8At,
  dictStrings,
  yearOfDays,
  fail,
  like,
  likeMatcher,
  castValue,
  substr,
  replace,
  length: codePointLength,
  strpos,
  splitPart,
  pad,
  trimSpaces,
  regexpLike,
  regexpReplace,
  regexpExtract,
  jsonExtractScalar,
  format: formatValues,
  urlExtractProtocol,
  urlExtractHost,
  urlExtractPort,
  urlExtractPath,
  urlExtractQuery,
  urlExtractFragment,
  urlExtractParameter,
  toIso8601,
  jsonExtract,
  jsonSize,
  jsonArrayLength,
  jsonArrayGet,
  jsonArrayContains,
  isJsonScalar,
  jsonParse,
  regexpCount,
  regexpPosition,
  translate,
  levenshtein,
  hamming,
  codepoint,
  chr,
  lastDayOfMonth,
  widthBucket,
  bitwise,
  randomBelow,
  dateFormat,
  dateParse,
  isoDate,
  tryFailure,
  reverse: (s: string) => [...s].reverse().join(''),
  datePart,
  dateTrunc,
  dateAdd,
  dateDiff,
  addMonthsToDays: (days: number, months: number) => checkedDays(addMonthsToDays(days, months)),
  addMonthsToMillis: (ms: number, months: number) => checkedMillis(addMonthsToMillis(ms, months)),
  checkedDays,
  decimalDivide,
  roundHalfUp,
  roundTo,
  roundDecimal,
  POW10,
  MS_PER_DAY,
};

export type Runtime = typeof runtime;
