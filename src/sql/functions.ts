// Scalar functions and operators: how each resolves its argument types to a result type. The code
// each one compiles to lives in exec/compile/functions.ts, keyed by the same name.

import {
  BIGINT,
  BOOLEAN,
  DATE,
  DOUBLE,
  INTERVAL_DAY_TIME,
  INTERVAL_YEAR_MONTH,
  INTEGER,
  MAX_DECIMAL_PRECISION,
  TIMESTAMP,
  VARCHAR,
  decimal,
  varchar,
  isIntegral,
  isNumeric,
  typeDisplayName,
  type SqlType,
} from '../data/types.js';
import { commonSuperType, integralAsDecimal } from './types-coercion.js';

export interface Resolution {
  /** The types the arguments are cast to before the call. */
  readonly argTypes: readonly SqlType[];
  readonly type: SqlType;
}

interface FunctionDef {
  readonly signatures: readonly string[];
  resolve(args: readonly SqlType[]): Resolution | undefined;
}

const same = (args: readonly SqlType[], type: SqlType): Resolution => ({ argTypes: args, type });

function numericUnary(f: (t: SqlType) => SqlType): FunctionDef['resolve'] {
  return (args) => (args.length === 1 && (isNumeric(args[0]) || args[0].id === 'unknown') ? { argTypes: [args[0].id === 'unknown' ? DOUBLE : args[0]], type: f(args[0].id === 'unknown' ? DOUBLE : args[0]) } : undefined);
}

function doubleFn(arity: number): FunctionDef['resolve'] {
  return (args) => (args.length === arity && args.every((a) => isNumeric(a) || a.id === 'unknown') ? { argTypes: args.map(() => DOUBLE), type: DOUBLE } : undefined);
}

function varcharFn(arity: number | [number, number], result: SqlType | 'input', extra: readonly SqlType[] = []): FunctionDef['resolve'] {
  const [min, max] = Array.isArray(arity) ? arity : [arity, arity];
  return (args) => {
    if (args.length < min || args.length > max) return undefined;
    const argTypes: SqlType[] = [];
    for (let i = 0; i < args.length; i++) {
      const want = i === 0 ? VARCHAR : (extra[i - 1] ?? VARCHAR);
      const a = args[i];
      if (a.id === 'unknown') argTypes.push(want);
      else if (want.id === 'varchar' && a.id === 'varchar') argTypes.push(a);
      else if (want.id === 'bigint' && isIntegral(a)) argTypes.push(BIGINT);
      else return undefined;
    }
    return { argTypes, type: result === 'input' ? (args[0].id === 'varchar' ? args[0] : VARCHAR) : result };
  };
}

const isDateLike = (t: SqlType): boolean => t.id === 'date' || t.id === 'timestamp';

function randomResolve(args: readonly SqlType[]): Resolution | undefined {
  if (args.length === 0) return { argTypes: [], type: DOUBLE };
  return args.length === 1 && (isIntegral(args[0]) || args[0].id === 'unknown') ? { argTypes: [BIGINT], type: BIGINT } : undefined;
}

function doublePredicate(args: readonly SqlType[]): Resolution | undefined {
  return args.length === 1 && (isNumeric(args[0]) || args[0].id === 'unknown') ? { argTypes: [DOUBLE], type: BOOLEAN } : undefined;
}

function bigintFn(arity: number): FunctionDef['resolve'] {
  return (args) => (args.length === arity && args.every((a) => isIntegral(a) || a.id === 'unknown') ? { argTypes: args.map(() => BIGINT), type: BIGINT } : undefined);
}

function roundedDecimal(t: SqlType): SqlType {
  const p = t.precision ?? MAX_DECIMAL_PRECISION;
  const s = t.scale ?? 0;
  return decimal(Math.min(MAX_DECIMAL_PRECISION, p - s + Math.min(s, 1)), 0);
}

const FUNCTIONS: Record<string, FunctionDef> = {
  abs: { signatures: ['abs(bigint)', 'abs(double)', 'abs(decimal(p,s))'], resolve: numericUnary((t) => t) },
  sign: { signatures: ['sign(bigint)', 'sign(double)', 'sign(decimal(p,s))'], resolve: numericUnary((t) => (t.id === 'decimal' ? decimal(1, 0) : t)) },
  ceil: { signatures: ['ceil(double)', 'ceil(decimal(p,s))'], resolve: numericUnary((t) => (t.id === 'decimal' ? roundedDecimal(t) : t)) },
  ceiling: { signatures: ['ceiling(double)'], resolve: numericUnary((t) => (t.id === 'decimal' ? roundedDecimal(t) : t)) },
  floor: { signatures: ['floor(double)', 'floor(decimal(p,s))'], resolve: numericUnary((t) => (t.id === 'decimal' ? roundedDecimal(t) : t)) },
  truncate: { signatures: ['truncate(double)'], resolve: numericUnary((t) => (t.id === 'decimal' ? roundedDecimal(t) : t)) },
  round: {
    signatures: ['round(double)', 'round(double, integer)', 'round(decimal(p,s))', 'round(decimal(p,s), integer)'],
    resolve: (args) => {
      if (args.length === 1) return numericUnary((t) => (t.id === 'decimal' ? roundedDecimal(t) : t))(args);
      if (args.length === 2 && isNumeric(args[0]) && isIntegral(args[1])) return { argTypes: [args[0], BIGINT], type: args[0] };
      return undefined;
    },
  },
  sqrt: { signatures: ['sqrt(double)'], resolve: doubleFn(1) },
  cbrt: { signatures: ['cbrt(double)'], resolve: doubleFn(1) },
  exp: { signatures: ['exp(double)'], resolve: doubleFn(1) },
  ln: { signatures: ['ln(double)'], resolve: doubleFn(1) },
  log10: { signatures: ['log10(double)'], resolve: doubleFn(1) },
  log2: { signatures: ['log2(double)'], resolve: doubleFn(1) },
  power: { signatures: ['power(double, double)'], resolve: doubleFn(2) },
  pow: { signatures: ['pow(double, double)'], resolve: doubleFn(2) },
  mod: { signatures: ['mod(bigint, bigint)', 'mod(double, double)'], resolve: (args) => arithmetic('$modulus', args) },
  pi: { signatures: ['pi()'], resolve: (args) => (args.length === 0 ? { argTypes: [], type: DOUBLE } : undefined) },
  random: { signatures: ['random()', 'random(bigint)'], resolve: randomResolve },
  rand: { signatures: ['rand()', 'rand(bigint)'], resolve: randomResolve },
  e: { signatures: ['e()'], resolve: (args) => (args.length === 0 ? { argTypes: [], type: DOUBLE } : undefined) },
  nan: { signatures: ['nan()'], resolve: (args) => (args.length === 0 ? { argTypes: [], type: DOUBLE } : undefined) },
  infinity: { signatures: ['infinity()'], resolve: (args) => (args.length === 0 ? { argTypes: [], type: DOUBLE } : undefined) },
  is_nan: { signatures: ['is_nan(double)'], resolve: doublePredicate },
  is_finite: { signatures: ['is_finite(double)'], resolve: doublePredicate },
  is_infinite: { signatures: ['is_infinite(double)'], resolve: doublePredicate },
  log: { signatures: ['log(double, double)'], resolve: doubleFn(2) },
  degrees: { signatures: ['degrees(double)'], resolve: doubleFn(1) },
  radians: { signatures: ['radians(double)'], resolve: doubleFn(1) },
  sin: { signatures: ['sin(double)'], resolve: doubleFn(1) },
  cos: { signatures: ['cos(double)'], resolve: doubleFn(1) },
  tan: { signatures: ['tan(double)'], resolve: doubleFn(1) },
  asin: { signatures: ['asin(double)'], resolve: doubleFn(1) },
  acos: { signatures: ['acos(double)'], resolve: doubleFn(1) },
  atan: { signatures: ['atan(double)'], resolve: doubleFn(1) },
  atan2: { signatures: ['atan2(double, double)'], resolve: doubleFn(2) },
  sinh: { signatures: ['sinh(double)'], resolve: doubleFn(1) },
  cosh: { signatures: ['cosh(double)'], resolve: doubleFn(1) },
  tanh: { signatures: ['tanh(double)'], resolve: doubleFn(1) },
  width_bucket: {
    signatures: ['width_bucket(double, double, double, bigint)'],
    resolve: (args) => (args.length === 4 && args.every((a) => isNumeric(a) || a.id === 'unknown') && (isIntegral(args[3]) || args[3].id === 'unknown') ? { argTypes: [DOUBLE, DOUBLE, DOUBLE, BIGINT], type: BIGINT } : undefined),
  },
  bitwise_and: { signatures: ['bitwise_and(bigint, bigint)'], resolve: bigintFn(2) },
  bitwise_or: { signatures: ['bitwise_or(bigint, bigint)'], resolve: bigintFn(2) },
  bitwise_xor: { signatures: ['bitwise_xor(bigint, bigint)'], resolve: bigintFn(2) },
  bitwise_not: { signatures: ['bitwise_not(bigint)'], resolve: bigintFn(1) },
  bit_count: { signatures: ['bit_count(bigint, bigint)'], resolve: bigintFn(2) },

  lower: { signatures: ['lower(varchar)'], resolve: varcharFn(1, 'input') },
  upper: { signatures: ['upper(varchar)'], resolve: varcharFn(1, 'input') },
  trim: { signatures: ['trim(varchar)'], resolve: varcharFn(1, 'input') },
  ltrim: { signatures: ['ltrim(varchar)'], resolve: varcharFn(1, 'input') },
  rtrim: { signatures: ['rtrim(varchar)'], resolve: varcharFn(1, 'input') },
  reverse: { signatures: ['reverse(varchar)'], resolve: varcharFn(1, 'input') },
  length: { signatures: ['length(varchar)'], resolve: varcharFn(1, BIGINT) },
  substr: { signatures: ['substr(varchar, bigint)', 'substr(varchar, bigint, bigint)'], resolve: varcharFn([2, 3], 'input', [BIGINT, BIGINT]) },
  substring: { signatures: ['substring(varchar, bigint)', 'substring(varchar, bigint, bigint)'], resolve: varcharFn([2, 3], 'input', [BIGINT, BIGINT]) },
  replace: { signatures: ['replace(varchar, varchar)', 'replace(varchar, varchar, varchar)'], resolve: varcharFn([2, 3], VARCHAR) },
  strpos: { signatures: ['strpos(varchar, varchar)'], resolve: varcharFn(2, BIGINT) },
  starts_with: { signatures: ['starts_with(varchar, varchar)'], resolve: varcharFn(2, BOOLEAN) },
  split_part: { signatures: ['split_part(varchar, varchar, bigint)'], resolve: varcharFn(3, VARCHAR, [VARCHAR, BIGINT]) },
  lpad: { signatures: ['lpad(varchar, bigint, varchar)'], resolve: varcharFn(3, VARCHAR, [BIGINT, VARCHAR]) },
  rpad: { signatures: ['rpad(varchar, bigint, varchar)'], resolve: varcharFn(3, VARCHAR, [BIGINT, VARCHAR]) },
  regexp_like: { signatures: ['regexp_like(varchar, varchar)'], resolve: varcharFn(2, BOOLEAN) },
  regexp_replace: { signatures: ['regexp_replace(varchar, varchar)', 'regexp_replace(varchar, varchar, varchar)'], resolve: varcharFn([2, 3], VARCHAR) },
  regexp_extract: { signatures: ['regexp_extract(varchar, varchar)', 'regexp_extract(varchar, varchar, bigint)'], resolve: varcharFn([2, 3], VARCHAR, [VARCHAR, BIGINT]) },
  regexp_count: { signatures: ['regexp_count(varchar, varchar)'], resolve: varcharFn(2, BIGINT) },
  regexp_position: { signatures: ['regexp_position(varchar, varchar)'], resolve: varcharFn(2, INTEGER) },
  translate: { signatures: ['translate(varchar, varchar, varchar)'], resolve: varcharFn(3, VARCHAR) },
  levenshtein_distance: { signatures: ['levenshtein_distance(varchar, varchar)'], resolve: varcharFn(2, BIGINT) },
  url_extract_protocol: { signatures: ['url_extract_protocol(varchar)'], resolve: varcharFn(1, VARCHAR) },
  url_extract_host: { signatures: ['url_extract_host(varchar)'], resolve: varcharFn(1, VARCHAR) },
  url_extract_port: { signatures: ['url_extract_port(varchar)'], resolve: varcharFn(1, BIGINT) },
  url_extract_path: { signatures: ['url_extract_path(varchar)'], resolve: varcharFn(1, VARCHAR) },
  url_extract_query: { signatures: ['url_extract_query(varchar)'], resolve: varcharFn(1, VARCHAR) },
  url_extract_fragment: { signatures: ['url_extract_fragment(varchar)'], resolve: varcharFn(1, VARCHAR) },
  url_extract_parameter: { signatures: ['url_extract_parameter(varchar, varchar)'], resolve: varcharFn(2, VARCHAR) },
  to_iso8601: {
    signatures: ['to_iso8601(date)', 'to_iso8601(timestamp)'],
    resolve: (args) => (args.length === 1 && isDateLike(args[0]) ? { argTypes: args, type: VARCHAR } : undefined),
  },
  // JSON values are varchar (there is no json type): see exec/compile/json-functions.ts.
  json_extract_scalar: { signatures: ['json_extract_scalar(varchar, varchar)'], resolve: varcharFn(2, VARCHAR) },
  json_extract: { signatures: ['json_extract(varchar, varchar)'], resolve: varcharFn(2, VARCHAR) },
  json_size: { signatures: ['json_size(varchar, varchar)'], resolve: varcharFn(2, BIGINT) },
  json_array_length: { signatures: ['json_array_length(varchar)'], resolve: varcharFn(1, BIGINT) },
  json_array_get: { signatures: ['json_array_get(varchar, bigint)'], resolve: varcharFn(2, VARCHAR, [BIGINT]) },
  json_array_contains: {
    signatures: ['json_array_contains(varchar, boolean)', 'json_array_contains(varchar, bigint)', 'json_array_contains(varchar, double)', 'json_array_contains(varchar, varchar)'],
    resolve: (args) => {
      if (args.length !== 2 || (args[0].id !== 'varchar' && args[0].id !== 'unknown')) return undefined;
      const v = args[1];
      const valueType = v.id === 'boolean' ? BOOLEAN : v.id === 'varchar' ? v : isIntegral(v) ? BIGINT : v.id === 'double' || v.id === 'real' || v.id === 'decimal' ? DOUBLE : undefined;
      return valueType === undefined ? undefined : { argTypes: [VARCHAR, valueType], type: BOOLEAN };
    },
  },
  is_json_scalar: { signatures: ['is_json_scalar(varchar)'], resolve: varcharFn(1, BOOLEAN) },
  json_parse: { signatures: ['json_parse(varchar)'], resolve: varcharFn(1, VARCHAR) },
  json_format: { signatures: ['json_format(varchar)'], resolve: varcharFn(1, VARCHAR) },
  hamming_distance: { signatures: ['hamming_distance(varchar, varchar)'], resolve: varcharFn(2, BIGINT) },
  codepoint: { signatures: ['codepoint(varchar(1))'], resolve: varcharFn(1, INTEGER) },
  chr: {
    signatures: ['chr(bigint)'],
    resolve: (args) => (args.length === 1 && (isIntegral(args[0]) || args[0].id === 'unknown') ? { argTypes: [BIGINT], type: varchar(1) } : undefined),
  },
  format: {
    signatures: ['format(varchar, ...)'],
    resolve: (args) => (args.length >= 1 && (args[0].id === 'varchar' || args[0].id === 'unknown') ? { argTypes: [VARCHAR, ...args.slice(1).map((a) => (a.id === 'unknown' ? VARCHAR : a))], type: VARCHAR } : undefined),
  },
  concat_ws: {
    signatures: ['concat_ws(varchar, varchar, ...)'],
    resolve: (args) => (args.length >= 2 && args.every((a) => a.id === 'varchar' || a.id === 'unknown') ? { argTypes: args.map(() => VARCHAR), type: VARCHAR } : undefined),
  },
  concat: {
    signatures: ['concat(varchar, ...)'],
    resolve: (args) => (args.length >= 1 && args.every((a) => a.id === 'varchar' || a.id === 'unknown') ? { argTypes: args.map(() => VARCHAR), type: VARCHAR } : undefined),
  },
  $concat: {
    signatures: ['varchar || varchar'],
    resolve: (args) => (args.length === 2 && args.every((a) => a.id === 'varchar' || a.id === 'unknown') ? { argTypes: [VARCHAR, VARCHAR], type: VARCHAR } : undefined),
  },

  year: { signatures: ['year(date)', 'year(timestamp)'], resolve: datePart },
  quarter: { signatures: ['quarter(date)'], resolve: datePart },
  month: { signatures: ['month(date)', 'month(timestamp)'], resolve: datePart },
  week: { signatures: ['week(date)'], resolve: datePart },
  day: { signatures: ['day(date)', 'day(timestamp)'], resolve: datePart },
  day_of_month: { signatures: ['day_of_month(date)'], resolve: datePart },
  day_of_week: { signatures: ['day_of_week(date)'], resolve: datePart },
  dow: { signatures: ['dow(date)'], resolve: datePart },
  day_of_year: { signatures: ['day_of_year(date)'], resolve: datePart },
  week_of_year: { signatures: ['week_of_year(date)'], resolve: datePart },
  year_of_week: { signatures: ['year_of_week(date)'], resolve: datePart },
  yow: { signatures: ['yow(date)'], resolve: datePart },
  last_day_of_month: {
    signatures: ['last_day_of_month(date)', 'last_day_of_month(timestamp)'],
    resolve: (args) => (args.length === 1 && isDateLike(args[0]) ? { argTypes: args, type: DATE } : undefined),
  },
  date_format: {
    signatures: ['date_format(timestamp, varchar)'],
    resolve: (args) => (args.length === 2 && (isDateLike(args[0]) || args[0].id === 'unknown') && (args[1].id === 'varchar' || args[1].id === 'unknown') ? { argTypes: [TIMESTAMP, VARCHAR], type: VARCHAR } : undefined),
  },
  date_parse: { signatures: ['date_parse(varchar, varchar)'], resolve: varcharFn(2, TIMESTAMP) },
  from_iso8601_date: { signatures: ['from_iso8601_date(varchar)'], resolve: varcharFn(1, DATE) },
  to_unixtime: { signatures: ['to_unixtime(timestamp)'], resolve: (args) => (args.length === 1 && args[0].id === 'timestamp' ? { argTypes: args, type: DOUBLE } : undefined) },
  doy: { signatures: ['doy(date)'], resolve: datePart },
  hour: { signatures: ['hour(timestamp)'], resolve: timePart },
  minute: { signatures: ['minute(timestamp)'], resolve: timePart },
  second: { signatures: ['second(timestamp)'], resolve: timePart },
  date_trunc: {
    signatures: ['date_trunc(varchar, date)', 'date_trunc(varchar, timestamp)'],
    resolve: (args) => (args.length === 2 && isStringLike(args[0]) && isDateLike(args[1]) ? { argTypes: [VARCHAR, args[1]], type: args[1] } : undefined),
  },
  date_add: {
    signatures: ['date_add(varchar, bigint, date)', 'date_add(varchar, bigint, timestamp)'],
    resolve: (args) => (args.length === 3 && isStringLike(args[0]) && isIntegral(args[1]) && isDateLike(args[2]) ? { argTypes: [VARCHAR, BIGINT, args[2]], type: args[2] } : undefined),
  },
  date_diff: {
    signatures: ['date_diff(varchar, date, date)', 'date_diff(varchar, timestamp, timestamp)'],
    resolve: (args) => {
      if (args.length !== 3 || !isStringLike(args[0]) || !isDateLike(args[1]) || !isDateLike(args[2])) return undefined;
      const t = commonSuperType(args[1], args[2]) ?? TIMESTAMP;
      return { argTypes: [VARCHAR, t, t], type: BIGINT };
    },
  },

  nullif: {
    signatures: ['nullif(T, T)'],
    resolve: (args) => {
      if (args.length !== 2) return undefined;
      // Compared in the common super type, so the result is in it too: call() casts it back to the first argument's type.
      const t = commonSuperType(args[0], args[1]);
      return t ? { argTypes: [t, t], type: t } : undefined;
    },
  },
  try: { signatures: ['try(T)'], resolve: (args) => (args.length === 1 ? same(args, args[0]) : undefined) },
  greatest: { signatures: ['greatest(T, ...)'], resolve: (args) => variadicSame(args) },
  least: { signatures: ['least(T, ...)'], resolve: (args) => variadicSame(args) },

  $add: { signatures: ['T + T'], resolve: (args) => arithmetic('$add', args) },
  $subtract: { signatures: ['T - T'], resolve: (args) => arithmetic('$subtract', args) },
  $multiply: { signatures: ['T * T'], resolve: (args) => arithmetic('$multiply', args) },
  $divide: { signatures: ['T / T'], resolve: (args) => arithmetic('$divide', args) },
  $modulus: { signatures: ['T % T'], resolve: (args) => arithmetic('$modulus', args) },
  $negate: { signatures: ['-T'], resolve: (args) => (args.length === 1 && (isNumeric(args[0]) || args[0].id.startsWith('interval')) ? same(args, args[0]) : undefined) },
  $eq: { signatures: ['T = T'], resolve: comparison },
  $ne: { signatures: ['T <> T'], resolve: comparison },
  $lt: { signatures: ['T < T'], resolve: comparison },
  $le: { signatures: ['T <= T'], resolve: comparison },
  $gt: { signatures: ['T > T'], resolve: comparison },
  $ge: { signatures: ['T >= T'], resolve: comparison },
  $distinct: { signatures: ['T IS DISTINCT FROM T'], resolve: comparison },
};

const OPERATOR_TEXT: Record<string, string> = {
  $add: '+',
  $subtract: '-',
  $multiply: '*',
  $divide: '/',
  $modulus: '%',
  $negate: '-',
  $eq: '=',
  $ne: '<>',
  $lt: '<',
  $le: '<=',
  $gt: '>',
  $ge: '>=',
  $concat: '||',
  $distinct: 'IS DISTINCT FROM',
};

function isStringLike(t: SqlType): boolean {
  return t.id === 'varchar' || t.id === 'unknown';
}

function datePart(args: readonly SqlType[]): Resolution | undefined {
  return args.length === 1 && (isDateLike(args[0]) || args[0].id === 'unknown') ? { argTypes: args, type: BIGINT } : undefined;
}

function timePart(args: readonly SqlType[]): Resolution | undefined {
  return args.length === 1 && args[0].id === 'timestamp' ? { argTypes: args, type: BIGINT } : undefined;
}

function variadicSame(args: readonly SqlType[]): Resolution | undefined {
  if (args.length === 0) return undefined;
  let t: SqlType | undefined = args[0];
  for (const a of args.slice(1)) t = t && commonSuperType(t, a);
  return t ? { argTypes: args.map(() => t), type: t } : undefined;
}

function comparison(args: readonly SqlType[]): Resolution | undefined {
  if (args.length !== 2) return undefined;
  const t = commonSuperType(args[0], args[1]);
  return t ? { argTypes: [t, t], type: BOOLEAN } : undefined;
}

function arithmetic(op: string, args: readonly SqlType[]): Resolution | undefined {
  if (args.length !== 2) return undefined;
  let [a, b] = args;
  if (a.id === 'unknown' && b.id === 'unknown') return { argTypes: [BIGINT, BIGINT], type: BIGINT };
  if (a.id === 'unknown') a = b;
  if (b.id === 'unknown') b = a;
  // date/time arithmetic
  if (op === '$add' || op === '$subtract') {
    if (isDateLike(a) && (b.id === 'interval day to second' || b.id === 'interval year to month')) return { argTypes: [a, b], type: a };
    if (op === '$add' && isDateLike(b) && (a.id === 'interval day to second' || a.id === 'interval year to month')) return { argTypes: [a, b], type: b };
    if (a.id === b.id && (a.id === 'interval day to second' || a.id === 'interval year to month')) return { argTypes: [a, b], type: a };
  }
  if (op === '$multiply') {
    if ((a.id === 'interval day to second' || a.id === 'interval year to month') && isIntegral(b)) return { argTypes: [a, BIGINT], type: a };
    if ((b.id === 'interval day to second' || b.id === 'interval year to month') && isIntegral(a)) return { argTypes: [BIGINT, b], type: b };
  }
  if (!isNumeric(a) || !isNumeric(b)) return undefined;
  if (a.id === 'decimal' || b.id === 'decimal') {
    if (a.id === 'double' || b.id === 'double' || a.id === 'real' || b.id === 'real') return { argTypes: [DOUBLE, DOUBLE], type: DOUBLE };
    const da = a.id === 'decimal' ? a : integralAsDecimal(a);
    const db = b.id === 'decimal' ? b : integralAsDecimal(b);
    return { argTypes: [da, db], type: decimalResult(op, da, db) };
  }
  const t = commonSuperType(a, b);
  return t ? { argTypes: [t, t], type: t } : undefined;
}

/** Trino's result type rules for decimal arithmetic. */
function decimalResult(op: string, a: SqlType, b: SqlType): SqlType {
  const p1 = a.precision ?? MAX_DECIMAL_PRECISION;
  const s1 = a.scale ?? 0;
  const p2 = b.precision ?? MAX_DECIMAL_PRECISION;
  const s2 = b.scale ?? 0;
  const cap = (p: number): number => Math.min(MAX_DECIMAL_PRECISION, p);
  switch (op) {
    case '$add':
    case '$subtract': {
      const s = Math.max(s1, s2);
      return decimal(cap(Math.max(p1 - s1, p2 - s2) + s + 1), s);
    }
    case '$multiply':
      return decimal(cap(p1 + p2), s1 + s2);
    case '$divide': {
      const s = Math.max(s1, s2);
      return decimal(cap(p1 + s2 + Math.max(0, s2 - s1)), s);
    }
    default: {
      const s = Math.max(s1, s2);
      return decimal(cap(Math.min(p1 - s1, p2 - s2) + s), s);
    }
  }
}

export class FunctionResolutionError extends Error {
  constructor(
    readonly kind: 'unknown' | 'mismatch',
    message: string,
  ) {
    super(message);
  }
}

/** Every scalar function's name and signatures (operators left out), for SHOW FUNCTIONS. */
export function scalarFunctionSignatures(): { readonly name: string; readonly signature: string; readonly result: (args: readonly SqlType[]) => SqlType | undefined }[] {
  return Object.entries(FUNCTIONS)
    .filter(([name]) => !name.startsWith('$'))
    .flatMap(([name, def]) => def.signatures.map((signature) => ({ name, signature, result: (args: readonly SqlType[]) => def.resolve(args)?.type })));
}

export function isKnownFunction(name: string): boolean {
  return Object.hasOwn(FUNCTIONS, name);
}

/** Resolves a call; throws FunctionResolutionError with Trino's wording when it does not apply. */
export function resolveFunction(name: string, args: readonly SqlType[]): Resolution {
  const def = FUNCTIONS[name];
  if (!def) throw new FunctionResolutionError('unknown', `Function '${name}' not registered`);
  const r = def.resolve(args);
  if (r) return r;
  const shown = args.map(typeDisplayName);
  const op = OPERATOR_TEXT[name];
  if (op) {
    if (name === '$negate') throw new FunctionResolutionError('mismatch', `Cannot negate ${shown[0]}`);
    throw new FunctionResolutionError('mismatch', `Cannot apply operator: ${shown.join(` ${op} `)}`);
  }
  throw new FunctionResolutionError('mismatch', `Unexpected parameters (${shown.join(', ')}) for function ${name}. Expected: ${def.signatures.join(', ')}`);
}

export { DATE, INTERVAL_DAY_TIME, INTERVAL_YEAR_MONTH };
