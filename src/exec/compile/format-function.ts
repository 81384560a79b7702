// format(fmt, args...): Trino passes its arguments to Java's String.format, so this follows
// java.util.Formatter for the conversions people use: %s %S %d %x %X %o %f %e %E %b %c %n %%, the
// flags - 0 , + and space, width, precision and `n$` argument indexes. Values print as Java prints
// the objects Trino hands over: doubles as Double.toString ("1.0", "1.0E10"), timestamps as
// LocalDateTime ("2020-05-17T10:11:12.345"), NULL as "null".

import type { SqlType } from '../../data/types.js';
import { valueToText } from '../../data/values.js';
import { EngineError } from '../../util/engine-error.js';

/** Widths and precisions past this fail (a query must not be able to build gigabyte strings). */
const MAX_FORMAT_WIDTH = 1 << 20;
const SPECIFIER = /%(\d+\$|<)?([-#+ 0,(]*)(\d+)?(\.\d+)?([a-zA-Z%])/gu;

function invalid(message: string): never {
  throw new EngineError('INVALID_FUNCTION_ARGUMENT', `Invalid format string: ${message}`);
}

/** Java's Double.toString: the shortest digits, scientific notation outside [1e-3, 1e7). */
function javaDouble(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const abs = Math.abs(x);
  if (abs >= 1e-3 && abs < 1e7) {
    const s = String(x);
    return s.includes('.') ? s : `${s}.0`;
  }
  const [mantissa, exponent] = x.toExponential().split('e') as [string, string];
  return `${mantissa.includes('.') ? mantissa : `${mantissa}.0`}E${Number(exponent)}`;
}

/** A value as Java's toString of the object Trino passes for it. */
function javaString(value: unknown, type: SqlType): string {
  if (value === null || value === undefined) return 'null';
  switch (type.id) {
    case 'double':
    case 'real':
      return javaDouble(value as number);
    case 'timestamp':
      // LocalDateTime.toString: seconds only when not zero, then the fraction only when not zero.
      return toIso8601(value as number, type).replace(/\.0+$/u, '').replace(/T(\d\d:\d\d):00$/u, 'T$1');
    case 'varchar':
      return value as string;
    case 'boolean':
      return value ? 'true' : 'false';
    default:
      return valueToText(value as number | string | boolean, type);
  }
}

/** to_iso8601: a date as YYYY-MM-DD, a timestamp as YYYY-MM-DDTHH:MM:SS.sss. */
export function toIso8601(value: number, type: SqlType): string {
  return valueToText(value, type).replace(' ', 'T');
}

/** A number's value as a decimal string (decimals are scaled integers here). */
function decimalText(value: number, type: SqlType): string {
  if (type.id === 'decimal') return valueToText(value, type);
  return String(value);
}

/** Rounds a plain or exponent-form decimal string half up to `digits` fraction digits (Java's %f). */
function fixed(text: string, digits: number): string {
  const negative = text.startsWith('-');
  let [int, frac = ''] = (negative ? text.slice(1) : text).split('.') as [string, string?];
  if (/e/iu.test(int + frac)) {
    // Exponent form: expand it.
    const [m, e] = (negative ? text.slice(1) : text).toLowerCase().split('e') as [string, string];
    const [mi, mf = ''] = m.split('.') as [string, string?];
    const shift = Number(e);
    const digitsAll = mi + mf;
    const point = mi.length + shift;
    if (point <= 0) {
      int = '0';
      frac = '0'.repeat(-point) + digitsAll;
    } else if (point >= digitsAll.length) {
      int = digitsAll + '0'.repeat(point - digitsAll.length);
      frac = '';
    } else {
      int = digitsAll.slice(0, point);
      frac = digitsAll.slice(point);
    }
  }
  let kept = (frac + '0'.repeat(digits)).slice(0, digits);
  if ((frac[digits] ?? '0') >= '5') {
    const all = (BigInt(int + kept) + 1n).toString().padStart(int.length + digits, '0');
    int = all.slice(0, all.length - digits) || '0';
    kept = digits > 0 ? all.slice(all.length - digits) : '';
  }
  int = int.replace(/^0+(?=\d)/u, '');
  const body = digits > 0 ? `${int}.${kept}` : int;
  return negative && /[1-9]/u.test(body) ? `-${body}` : body;
}

function group(int: string): string {
  return int.replace(/\B(?=(\d{3})+(?!\d))/gu, ',');
}

function withSign(body: string, negative: boolean, flags: string): string {
  if (negative) return flags.includes('(') ? `(${body})` : `-${body}`;
  if (flags.includes('+')) return `+${body}`;
  if (flags.includes(' ')) return ` ${body}`;
  return body;
}

function pad(text: string, width: number | undefined, flags: string, numeric: boolean): string {
  if (width === undefined || text.length >= width) return text;
  if (flags.includes('-')) return text + ' '.repeat(width - text.length);
  if (numeric && flags.includes('0')) {
    const sign = /^[-+ (]/u.exec(text)?.[0] ?? '';
    return sign + '0'.repeat(width - text.length) + text.slice(sign.length);
  }
  return ' '.repeat(width - text.length) + text;
}

function isIntegral(type: SqlType): boolean {
  return type.id === 'bigint' || type.id === 'integer' || type.id === 'smallint' || type.id === 'tinyint';
}

/** format(fmt, values…), `types` being the values' SQL types. */
export function formatValues(fmt: string, values: readonly unknown[], types: readonly SqlType[]): string {
  let next = 0;
  let last = -1;
  const out = fmt.replace(SPECIFIER, (_all, index: string | undefined, flags: string, widthText: string | undefined, precisionText: string | undefined, conversion: string) => {
    if (conversion === '%') return pad('%', widthText === undefined ? undefined : Math.min(Number(widthText), MAX_FORMAT_WIDTH), flags, false);
    if (conversion === 'n') return '\n';
    const at = index === '<' ? last : index !== undefined ? Number(index.slice(0, -1)) - 1 : next++;
    if (at < 0 || at >= values.length) invalid(`missing argument for '%${conversion}'`);
    last = at;
    const value = values[at];
    const type = types[at] as SqlType;
    const width = widthText === undefined ? undefined : Number(widthText);
    const precision = precisionText === undefined ? undefined : Number(precisionText.slice(1));
    if ((width ?? 0) > MAX_FORMAT_WIDTH || (precision ?? 0) > MAX_FORMAT_WIDTH) invalid(`width and precision must be at most ${MAX_FORMAT_WIDTH}`);
    const nullText = (): string => pad('null', width, flags, false);
    switch (conversion) {
      case 's':
      case 'S': {
        let text = javaString(value, type);
        if (precision !== undefined) text = text.slice(0, precision);
        const padded = pad(text, width, flags, false);
        return conversion === 'S' ? padded.toUpperCase() : padded;
      }
      case 'b':
      case 'B': {
        const text = value === null || value === undefined ? 'false' : type.id === 'boolean' ? String(Boolean(value)) : 'true';
        return pad(conversion === 'B' ? text.toUpperCase() : text, width, flags, false);
      }
      case 'c':
      case 'C': {
        if (value === null || value === undefined) return nullText();
        if (isIntegral(type) && !((value as number) >= 0 && (value as number) <= 0x10ffff)) invalid(`%${conversion}: not a Unicode code point: ${String(value)}`);
        const text = typeof value === 'string' ? [...value][0] ?? '' : isIntegral(type) ? String.fromCodePoint(value as number) : invalid(`%${conversion} needs a character, got ${type.id}`);
        return pad(conversion === 'C' ? text.toUpperCase() : text, width, flags, false);
      }
      case 'd': {
        if (value === null || value === undefined) return nullText();
        if (!isIntegral(type)) invalid(`%d needs an integer, got ${type.id}`);
        const n = value as number;
        const digits = String(Math.abs(n));
        return pad(withSign(flags.includes(',') ? group(digits) : digits, n < 0, flags), width, flags, true);
      }
      case 'x':
      case 'X':
      case 'o': {
        if (value === null || value === undefined) return nullText();
        if (!isIntegral(type)) invalid(`%${conversion} needs an integer, got ${type.id}`);
        const n = BigInt(value as number);
        // Java prints a negative long in two's complement.
        const text = (n < 0n ? (1n << 64n) + n : n).toString(conversion === 'o' ? 8 : 16);
        return pad(conversion === 'X' ? text.toUpperCase() : text, width, flags, true);
      }
      case 'f':
      case 'e':
      case 'E': {
        if (value === null || value === undefined) return nullText();
        if (isIntegral(type) || (type.id !== 'double' && type.id !== 'real' && type.id !== 'decimal')) invalid(`%${conversion} needs a floating-point or decimal number, got ${type.id}`);
        const x = value as number;
        const numeric = type.id === 'decimal' ? Number(decimalText(x, type)) : x;
        if (!Number.isFinite(numeric)) return pad(withSign(Number.isNaN(numeric) ? 'NaN' : 'Infinity', numeric < 0, flags), width, flags, false);
        const digits = precision ?? 6;
        const negative = numeric < 0 || Object.is(numeric, -0);
        const text = type.id === 'decimal' ? decimalText(Math.abs(x), type) : javaDouble(Math.abs(numeric)).replace('E', 'e');
        let body: string;
        if (conversion === 'f') {
          const rounded = fixed(text, digits);
          const [int, frac] = rounded.split('.') as [string, string?];
          body = (flags.includes(',') ? group(int) : int) + (frac === undefined ? '' : `.${frac}`);
        } else {
          const [m, e] = Math.abs(numeric).toExponential(digits).split('e') as [string, string];
          const exp = Number(e);
          body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
          if (conversion === 'E') body = body.toUpperCase();
        }
        return pad(withSign(body, negative && /[1-9]/u.test(body), flags), width, flags, true);
      }
      default:
        return invalid(`unknown conversion '%${conversion}'`);
    }
  });
  return out;
}
