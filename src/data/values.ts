// Value-level semantics shared by constant folding (analyzer) and compiled kernels: date math,
// casts between types, decimal scaling and text forms. Values are in physical form (see page.ts).

import { EngineError } from '../util/engine-error.js';
import { typeDisplayName, type SqlType } from './types.js';

export const MS_PER_DAY = 86_400_000;

export const POW10: readonly number[] = Array.from({ length: 39 }, (_, i) => 10 ** i);

/** Days since 1970-01-01 for a civil date (proleptic Gregorian; any year, unlike Date.UTC). */
export function daysFromCivil(y: number, m: number, d: number): number {
  const t = new Date(0);
  t.setUTCFullYear(y, m - 1, d);
  return Math.floor(t.getTime() / MS_PER_DAY);
}

/** Parses `YYYY-MM-DD` (Trino accepts single-digit month/day too); undefined when invalid. */
export function parseDateLiteral(s: string): number | undefined {
  const m = /^\s*(-?\d{1,6})-(\d{1,2})-(\d{1,2})\s*$/u.exec(s);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  return daysFromCivil(y, mo, d);
}

/** Parses `YYYY-MM-DD[ HH:MM[:SS[.fff]]]` as UTC milliseconds; undefined when invalid. */
export function parseTimestampLiteral(s: string): number | undefined {
  const m = /^\s*(-?\d{1,6}-\d{1,2}-\d{1,2})(?:[ T](\d{1,2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?)?\s*$/u.exec(s);
  if (!m) return undefined;
  const days = parseDateLiteral(m[1]);
  if (days === undefined) return undefined;
  const h = Number(m[2] ?? 0);
  const mi = Number(m[3] ?? 0);
  const sec = Number(m[4] ?? 0);
  const frac = m[5] ? Number(m[5].padEnd(3, '0').slice(0, 3)) : 0;
  if (h > 23 || mi > 59 || sec > 59) return undefined;
  return days * MS_PER_DAY + ((h * 60 + mi) * 60 + sec) * 1000 + frac;
}

export function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1];
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

/** [year, month (1-12), day] of a day number. */
/**
 * Proleptic Gregorian (year, month, day) of a day number (days since 1970-01-01), in integer
 * arithmetic (H. Hinnant's civil_from_days): no Date object per call.
 */
export function civilFromDays(days: number): [number, number, number] {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

/** The year of a day number (civilFromDays without the array). */
export function yearOfDays(days: number): number {
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  // Months from March: January and February (doy ≥ 306) belong to the next civil year.
  return yoe + era * 400 + (doy >= 306 ? 1 : 0);
}

export function formatDate(days: number): string {
  const [y, m, d] = civilFromDays(days);
  const ys = y < 0 ? `-${String(-y).padStart(4, '0')}` : String(y).padStart(4, '0');
  return `${ys}-${m < 10 ? '0' : ''}${m}-${d < 10 ? '0' : ''}${d}`;
}

export function formatTimestamp(ms: number): string {
  const days = Math.floor(ms / MS_PER_DAY);
  return `${formatDate(days)} ${formatTimeOfDay(ms - days * MS_PER_DAY)}`;
}

/** `HH:MM:SS.fff` for milliseconds within one day. */
function formatTimeOfDay(ms: number): string {
  const h = Math.floor(ms / 3_600_000);
  const mi = Math.floor((ms % 3_600_000) / 60_000);
  const s = Math.floor((ms % 60_000) / 1000);
  const p2 = (n: number): string => (n < 10 ? `0${n}` : String(n));
  return `${p2(h)}:${p2(mi)}:${p2(s)}.${String(ms % 1000).padStart(3, '0')}`;
}

/** Adds months to a date, clamping the day to the target month's length (Trino semantics). */
export function addMonthsToDays(days: number, months: number): number {
  const [y, m, d] = civilFromDays(days);
  const total = y * 12 + (m - 1) + months;
  const ny = Math.floor(total / 12);
  const nm = total - ny * 12 + 1;
  return daysFromCivil(ny, nm, Math.min(d, daysInMonth(ny, nm)));
}

export function addMonthsToMillis(ms: number, months: number): number {
  const days = Math.floor(ms / MS_PER_DAY);
  return addMonthsToDays(days, months) * MS_PER_DAY + (ms - days * MS_PER_DAY);
}

/** A scaled decimal as text with exactly `scale` fraction digits. */
export function formatDecimal(scaled: number, scale: number): string {
  if (scale === 0) return Object.is(scaled, -0) ? '0' : String(Math.round(scaled));
  const negative = scaled < 0;
  const digits = String(Math.round(Math.abs(scaled))).padStart(scale + 1, '0');
  const text = `${digits.slice(0, digits.length - scale)}.${digits.slice(digits.length - scale)}`;
  return negative ? `-${text}` : text;
}

/** Rounds half away from zero, as Trino does for decimals. */
export function roundHalfUp(x: number): number {
  return x < 0 ? -Math.round(-x) : Math.round(x);
}

export function formatDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  // Trino's CAST(double AS varchar) uses scientific notation, e.g. 1.5E0.
  if (x === 0) return Object.is(x, -0) ? '-0.0E0' : '0.0E0';
  const exp = Math.floor(Math.log10(Math.abs(x)));
  let mantissa = x / 10 ** exp;
  if (Math.abs(mantissa) >= 10) mantissa /= 10;
  let m = String(Number(mantissa.toPrecision(16)));
  if (!m.includes('.')) m += '.0';
  return `${m}E${exp}`;
}

export function formatIntervalDayTime(ms: number): string {
  const negative = ms < 0;
  const abs = Math.abs(ms);
  const days = Math.floor(abs / MS_PER_DAY);
  return `${negative ? '-' : ''}${days} ${formatTimeOfDay(abs - days * MS_PER_DAY)}`;
}

export function formatIntervalYearMonth(months: number): string {
  const negative = months < 0;
  const a = Math.abs(months);
  return `${negative ? '-' : ''}${Math.floor(a / 12)}-${a % 12}`;
}

const INTEGRAL_RANGE: Record<string, [number, number]> = {
  tinyint: [-128, 127],
  smallint: [-32768, 32767],
  integer: [-2147483648, 2147483647],
  bigint: [-(2 ** 63), 2 ** 63 - 1],
};

function castError(value: unknown, to: SqlType): EngineError {
  return new EngineError('INVALID_CAST_ARGUMENT', `Cannot cast '${String(value)}' to ${typeDisplayName(to)}`);
}

function outOfRange(value: unknown, to: SqlType): EngineError {
  return new EngineError('NUMERIC_VALUE_OUT_OF_RANGE', `Out of range for ${typeDisplayName(to)}: ${String(value)}`);
}

/** A value's text form as CAST(x AS varchar) gives it. */
export function valueToText(v: number | string | boolean, t: SqlType): string {
  switch (t.id) {
    case 'varchar':
      return String(v);
    case 'boolean':
      return v ? 'true' : 'false';
    case 'decimal':
      return formatDecimal(v as number, t.scale ?? 0);
    case 'double':
    case 'real':
      return formatDouble(v as number);
    case 'date':
      return formatDate(v as number);
    case 'timestamp':
      return formatTimestamp(v as number);
    case 'interval day to second':
      return formatIntervalDayTime(v as number);
    case 'interval year to month':
      return formatIntervalYearMonth(v as number);
    default:
      return String(v);
  }
}

/**
 * CAST of one non-null value in physical form. `safe` (TRY_CAST) turns failures into null.
 * Kernels call this for casts that are not plain numeric conversions.
 */
export function castValue(v: number | string | boolean, from: SqlType, to: SqlType, safe: boolean): number | string | boolean | null {
  try {
    return castValueStrict(v, from, to);
  } catch (e) {
    if (safe) return null;
    throw e;
  }
}

function castValueStrict(v: number | string | boolean, from: SqlType, to: SqlType): number | string | boolean {
  if (from.id === to.id && from.id !== 'decimal') {
    if (to.id === 'varchar' && to.precision !== undefined && typeof v === 'string' && [...v].length > to.precision) {
      return [...v].slice(0, to.precision).join('');
    }
    return v;
  }
  switch (to.id) {
    case 'varchar': {
      const s = valueToText(v, from);
      return to.precision !== undefined && [...s].length > to.precision ? [...s].slice(0, to.precision).join('') : s;
    }
    case 'boolean':
      if (typeof v === 'string') {
        const s = v.trim().toLowerCase();
        if (s === 'true' || s === 't' || s === '1') return true;
        if (s === 'false' || s === 'f' || s === '0') return false;
        throw castError(v, to);
      }
      if (typeof v === 'number') return from.id === 'decimal' ? v !== 0 : v !== 0;
      return v;
    case 'tinyint':
    case 'smallint':
    case 'integer':
    case 'bigint': {
      let n: number;
      if (typeof v === 'string') {
        if (!/^\s*[-+]?\d+\s*$/u.test(v)) throw castError(v, to);
        n = Number(v);
      } else if (typeof v === 'boolean') n = v ? 1 : 0;
      else if (from.id === 'decimal') n = roundHalfUp(v / POW10[from.scale ?? 0]);
      else if (from.id === 'double' || from.id === 'real') {
        if (!Number.isFinite(v)) throw outOfRange(v, to);
        n = roundHalfUp(v);
      } else n = v;
      const [lo, hi] = INTEGRAL_RANGE[to.id];
      if (n < lo || n > hi) throw outOfRange(v, to);
      return n;
    }
    case 'real':
    case 'double': {
      let n: number;
      if (typeof v === 'string') {
        const s = v.trim();
        if (/^[-+]?nan$/iu.test(s)) n = NaN;
        else if (/^[-+]?infinity$/iu.test(s)) n = s.startsWith('-') ? -Infinity : Infinity;
        else if (!/^[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$/u.test(s)) throw castError(v, to);
        else n = Number(s);
      } else if (typeof v === 'boolean') n = v ? 1 : 0;
      else if (from.id === 'decimal') n = v / POW10[from.scale ?? 0];
      else n = v;
      return to.id === 'real' ? Math.fround(n) : n;
    }
    case 'decimal': {
      const scale = to.scale ?? 0;
      const precision = to.precision ?? 38;
      let scaled: number;
      if (typeof v === 'string') {
        const s = v.trim();
        if (!/^[-+]?(\d+\.?\d*|\.\d+)$/u.test(s)) throw castError(v, to);
        scaled = roundHalfUp(Number(s) * POW10[scale]);
      } else if (typeof v === 'boolean') scaled = v ? POW10[scale] : 0;
      else if (from.id === 'decimal') {
        const fs = from.scale ?? 0;
        scaled = fs <= scale ? v * POW10[scale - fs] : roundHalfUp(v / POW10[fs - scale]);
      } else scaled = roundHalfUp(v * POW10[scale]);
      if (Math.abs(scaled) >= POW10[precision]) throw new EngineError('NUMERIC_VALUE_OUT_OF_RANGE', `Cannot cast ${typeDisplayName(from)} '${valueToText(v, from)}' to ${typeDisplayName(to)}`);
      return scaled;
    }
    case 'date':
      if (typeof v === 'string') {
        const d = parseDateLiteral(v);
        if (d === undefined) throw new EngineError('INVALID_CAST_ARGUMENT', `Value cannot be cast to date: ${v}`);
        return d;
      }
      if (from.id === 'timestamp') return Math.floor((v as number) / MS_PER_DAY);
      throw castError(v, to);
    case 'timestamp':
      if (typeof v === 'string') {
        const t = parseTimestampLiteral(v);
        if (t === undefined) throw new EngineError('INVALID_CAST_ARGUMENT', `Value cannot be cast to timestamp: ${v}`);
        return t;
      }
      if (from.id === 'date') return (v as number) * MS_PER_DAY;
      throw castError(v, to);
    default:
      throw castError(v, to);
  }
}
