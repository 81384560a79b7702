// Expression → JavaScript statements. Each node emits statements computing a value variable and a
// null flag; the flag is the literal `false` wherever the inputs cannot be null, so the null checks
// vanish from kernels over NOT NULL columns. Branching forms (AND/OR/CASE/COALESCE) short-circuit,
// so `x <> 0 AND y / x > 1` never divides by zero.

import type { DictionaryColumn } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import { children, mentionsNondeterministic, remapColumns, type Expr } from '../../sql/ir.js';
import { byteLikeColumnMatcher, byteLikeMatcher, likeMatcher, prefixInColumnMatcher, type Runtime } from './runtime.js';

/** What the kernel knows about an input column: its layout and whether it can hold NULLs. */
export interface ColumnShape {
  readonly kind: 'fixed' | 'varchar' | 'dict';
  readonly type: SqlType;
  readonly nullable: boolean;
}

export interface Emitted {
  /** A JS expression (usually a variable) holding the value when not null. */
  readonly v: string;
  /** A JS expression that is true when the value is NULL (`false` when it never is). */
  readonly n: string;
}

/** A predicate's value for each entry of a dictionary: 1 where true, 0 where false. */
export interface DictionaryMasks {
  maskFor(col: DictionaryColumn): Uint8Array;
}

/** Makes the masks of a predicate over column 0 of a one-string-column page (compile.ts compiles it). */
type DictionaryMaskFactory = (predicate: Expr) => DictionaryMasks;
let dictionaryMasks: DictionaryMaskFactory | null = null;

export function provideDictionaryMasks(factory: DictionaryMaskFactory): void {
  dictionaryMasks = factory;
}

/** Whether a one-column predicate (over column 0 of a string page) is never NULL on non-NULL strings, by expression. */
const neverNullOnStrings = new WeakMap<Expr, boolean>();

function neverNullOverEntries(e: Expr, type: SqlType): boolean {
  let known = neverNullOnStrings.get(e);
  if (known === undefined) {
    const probe = new KernelBuilder([{ kind: 'varchar', type, nullable: false }]);
    known = probe.emit(remapColumns(e, () => 0), []).n === 'false';
    neverNullOnStrings.set(e, known);
  }
  return known;
}

/** Functions that are one runtime helper called with their arguments as they are. */
const RUNTIME_HELPERS: Readonly<Record<string, keyof Runtime & string>> = {
  regexp_count: 'regexpCount',
  regexp_position: 'regexpPosition',
  translate: 'translate',
  levenshtein_distance: 'levenshtein',
  hamming_distance: 'hamming',
  codepoint: 'codepoint',
  chr: 'chr',
  date_format: 'dateFormat',
  date_parse: 'dateParse',
  from_iso8601_date: 'isoDate',
  lower: 'lower',
  upper: 'upper',
  reverse: 'reverse',
  length: 'length',
  strpos: 'strpos',
  split_part: 'splitPart',
  regexp_like: 'regexpLike',
  json_extract_scalar: 'jsonExtractScalar',
  json_extract: 'jsonExtract',
  json_size: 'jsonSize',
  json_array_length: 'jsonArrayLength',
  json_array_get: 'jsonArrayGet',
  json_array_contains: 'jsonArrayContains',
  is_json_scalar: 'isJsonScalar',
  json_parse: 'jsonParse',
  json_format: 'jsonParse',
  url_extract_protocol: 'urlExtractProtocol',
  url_extract_host: 'urlExtractHost',
  url_extract_port: 'urlExtractPort',
  url_extract_path: 'urlExtractPath',
  url_extract_query: 'urlExtractQuery',
  url_extract_fragment: 'urlExtractFragment',
  url_extract_parameter: 'urlExtractParameter',
};

/**
 * The one column a boolean expression reads when it is a NOT NULL dictionary column, nothing else
 * varies (literals only, none NULL, nothing random) and the result is never NULL: its value is
 * then a 0/1 function of the dictionary entry, computed once per entry instead of once per row.
 * -1 otherwise.
 */
export function dictionaryPredicateColumn(e: Expr, shapes: readonly ColumnShape[]): number {
  if (e.type.id !== 'boolean' || e.kind === 'column' || e.kind === 'literal') return -1;
  let column = -1;
  let ok = true;
  const walk = (x: Expr): void => {
    if (!ok) return;
    if (x.kind === 'column') {
      if (column >= 0 && column !== x.index) ok = false;
      column = x.index;
    } else if (x.kind === 'outerRef' || (x.kind === 'literal' && x.value === null)) ok = false;
    else for (const c of children(x)) walk(c);
  };
  walk(e);
  const shape = shapes[column];
  if (!ok || shape === undefined || shape.kind !== 'dict' || shape.nullable) return -1;
  if (mentionsNondeterministic(JSON.stringify(e))) return -1;
  return neverNullOverEntries(e, shape.type) ? column : -1;
}

export class KernelBuilder {
  readonly lines: string[] = [];
  /** Per-kernel constants (types, sets, matchers), passed to the kernel as `k`. */
  readonly consts: unknown[] = [];
  private next = 0;
  private readonly prologue = new Map<number, string[]>();

  constructor(readonly shapes: readonly ColumnShape[]) {}

  fresh(prefix = 't'): string {
    return `${prefix}${this.next++}`;
  }

  constant(value: unknown): string {
    this.consts.push(value);
    return `k[${this.consts.length - 1}]`;
  }

  /** Declarations hoisted out of the row loop for each column used, then per-page values. */
  columnPrologue(): string[] {
    return [...this.prologue.values()].flat().concat(this.pageValues);
  }

  private readonly pageValues: string[] = [];

  /** Evaluates `code` once per page, before the row loop (it may read `cols`); returns its name. */
  private hoist(code: string): string {
    const name = this.fresh('h');
    this.pageValues.push(`const ${name} = ${code};`);
    return name;
  }

  private useColumn(index: number): ColumnShape {
    const shape = this.shapes[index];
    if (!this.prologue.has(index)) {
      const c = `cols[${index}]`;
      const decl: string[] = [];
      if (shape.kind === 'fixed') decl.push(`const c${index} = ${c}.values;`);
      else if (shape.kind === 'dict') decl.push(`const c${index} = ${c}.indices; const d${index} = rt.dictStrings(${c});`);
      // A varchar column's bytes as one Buffer view and its offsets, looked up once per page (rt.utf8At per row).
      else decl.push(`const c${index} = ${c}; const vo${index} = ${c}.offsets; const vb${index} = rt.utf8View(${c}.data);`);
      if (shape.nullable) decl.push(`const m${index} = ${c}.validity;`);
      this.prologue.set(index, decl);
    }
    return shape;
  }

  /** Per statement list: calls already computed at its top level, by expression (common subexpressions). */
  private readonly computed = new WeakMap<string[], Map<string, Emitted>>();
  /** How many blocks deep the statements being emitted are: values declared inside are not reused. */
  private depth = 0;

  /** Hoisted masks by predicate text (see dictionaryMask). */
  private readonly masks = new Map<string, string>();

  /**
   * A predicate over one dictionary column (dictionaryPredicateColumn) that is never NULL, as the
   * row's entry in a per-dictionary 0/1 mask (`IN ('MAIL', 'SHIP')` over shipmode: one load per
   * row instead of a string and a set lookup); null when it does not apply.
   */
  dictionaryMask(e: Expr): string | null {
    if (dictionaryMasks === null) return null;
    const index = dictionaryPredicateColumn(e, this.shapes);
    if (index < 0) return null;
    const key = JSON.stringify(e);
    let mask = this.masks.get(key);
    if (mask === undefined) {
      this.useColumn(index);
      mask = this.hoist(`${this.constant(dictionaryMasks(remapColumns(e, () => 0)))}.maskFor(cols[${index}])`);
      this.masks.set(key, mask);
    }
    return `${mask}[c${index}[i]]`;
  }

  emit(e: Expr, out: string[]): Emitted {
    const mask = this.dictionaryMask(e);
    if (mask !== null) return { v: `(${mask} === 1)`, n: 'false' };
    if (e.kind !== 'call' && e.kind !== 'cast') return this.emitNode(e, out);
    // A call computed earlier in the same statement list is reused (Q1 computes
    // price * (1 - discount) once for two aggregates); random() must run each time it appears.
    const key = JSON.stringify(e);
    if (this.depth > 0 || mentionsNondeterministic(key)) return this.emitNode(e, out);
    let known = this.computed.get(out);
    if (known === undefined) this.computed.set(out, (known = new Map()));
    const hit = known.get(key);
    if (hit !== undefined) return hit;
    const r = this.materialize(this.emitNode(e, out), out);
    known.set(key, r);
    return r;
  }

  private emitNode(e: Expr, out: string[]): Emitted {
    switch (e.kind) {
      case 'column':
        return this.emitColumn(e.index);
      case 'outerRef':
        throw new Error('a correlated reference reached the compiler');
      case 'literal':
        if (e.value === null) return { v: 'null', n: 'true' };
        if (typeof e.value === 'string') return { v: JSON.stringify(e.value), n: 'false' };
        if (typeof e.value === 'number' && !Number.isFinite(e.value)) return { v: Number.isNaN(e.value) ? 'NaN' : e.value > 0 ? 'Infinity' : '-Infinity', n: 'false' };
        return { v: String(e.value), n: 'false' };
      case 'call':
        return this.emitCall(e.name, e.args, e.type, out);
      case 'cast':
        return this.emitCast(e.arg, e.type, e.safe, out);
      case 'not': {
        const a = this.emit(e.arg, out);
        return { v: `(!${a.v})`, n: a.n };
      }
      case 'isNull': {
        const a = this.emit(e.arg, out);
        return { v: e.negated ? `(!${paren(a.n)})` : paren(a.n), n: 'false' };
      }
      case 'and':
      case 'or':
        return this.emitLogical(e.kind, e.args, out);
      case 'in':
        return this.emitIn(e.arg, e.list, e.negated, out);
      case 'case':
        return this.emitCase(e.whens, e.otherwise, out);
      case 'coalesce':
        return this.emitCoalesce(e.args, out);
      case 'like':
        return this.emitLike(e.arg, e.pattern, e.escape, e.negated, out);
    }
  }

  private emitColumn(index: number): Emitted {
    const shape = this.useColumn(index);
    const n = shape.nullable ? `(m${index} !== null && ((m${index}[i >> 3] >> (i & 7)) & 1) === 0)` : 'false';
    let v: string;
    if (shape.kind === 'dict') v = `d${index}[c${index}[i]]`;
    else if (shape.kind === 'varchar') v = `rt.utf8At(vb${index}, vo${index}, i)`;
    else if (shape.type.id === 'boolean') v = `(((c${index}[i >> 3] >> (i & 7)) & 1) === 1)`;
    else if (shape.type.id === 'bigint' || shape.type.id === 'timestamp') v = `(c${index}[2 * i + 1] * 4294967296 + (c${index}[2 * i] >>> 0))`;
    else v = `c${index}[i]`;
    return { v, n };
  }

  /** Evaluates an operand once into variables (so it can be read twice). */
  private materialize(x: Emitted, out: string[]): Emitted {
    if (/^[A-Za-z_$][\w$]*$/u.test(x.v) || /^-?[\d.e]+$/u.test(x.v) || x.v.startsWith('"')) return x;
    const v = this.fresh('v');
    out.push(`const ${v} = ${x.n === 'false' ? x.v : `${paren(x.n)} ? null : ${x.v}`};`);
    const n = x.n === 'false' || x.n === 'true' ? x.n : this.fresh('n');
    if (n !== x.n) out.splice(out.length - 1, 0, `const ${n} = ${x.n};`);
    return { v, n };
  }

  /** Null-propagating call: the result is NULL when any argument is. */
  private strict(args: readonly Expr[], out: string[], body: (v: string[]) => string): Emitted {
    const vals = args.map((a) => this.materialize(this.emit(a, out), out));
    const nulls = vals.map((x) => x.n).filter((n) => n !== 'false');
    if (nulls.includes('true')) return { v: 'null', n: 'true' };
    const n = nulls.length === 0 ? 'false' : nulls.map(paren).join(' || ');
    if (n === 'false') return { v: paren(body(vals.map((x) => x.v))), n };
    // Guard the computation so it never runs on NULL inputs (which could throw).
    const v = this.fresh('v');
    const nv = this.fresh('n');
    out.push(`const ${nv} = ${n};`);
    out.push(`let ${v} = null; if (!${nv}) ${v} = ${body(vals.map((x) => x.v))};`);
    return { v, n: nv };
  }

  private emitCall(name: string, args: readonly Expr[], type: SqlType, out: string[]): Emitted {
    const t = args.map((a) => a.type);
    switch (name) {
      case '$distinct': {
        const [a, b] = args.map((x) => this.materialize(this.emit(x, out), out));
        return { v: `(${paren(a.n)} !== ${paren(b.n)} || (!${paren(a.n)} && ${a.v} !== ${b.v}))`, n: 'false' };
      }
      case 'split_part':
      case 'regexp_extract':
      case 'json_extract_scalar':
      case 'json_extract':
      case 'json_size':
      case 'json_array_length':
      case 'json_array_get':
      case 'json_array_contains':
      case 'url_extract_protocol':
      case 'url_extract_host':
      case 'url_extract_port':
      case 'url_extract_path':
      case 'url_extract_query':
      case 'url_extract_fragment':
      case 'url_extract_parameter': {
        // NULL when the index is past the last part / nothing matches / the JSON path leads
        // nowhere: strict, yet NULL results.
        const r = this.strict(args, out, (v) => this.scalar(name, v, t, type));
        const v = this.fresh('v');
        out.push(`const ${v} = ${r.v};`);
        return { v, n: `(${paren(r.n)} || ${v} === null)` };
      }
      case 'try': {
        // NULL where the argument fails with one of the errors TRY absorbs (runtime.tryFailure).
        const v = this.fresh('v');
        const n = this.fresh('n');
        out.push(`let ${v} = null, ${n} = true;`);
        out.push('try {');
        this.depth++;
        const x = this.emit(args[0], out);
        out.push(`${v} = ${x.v}; ${n} = ${x.n};`);
        this.depth--;
        out.push('} catch (e) { rt.tryFailure(e); }');
        return { v, n };
      }
      case 'format': {
        // NULL arguments print as "null" (as Java's formatter does); only a NULL format is NULL.
        const [fmt, ...rest] = args.map((x) => this.materialize(this.emit(x, out), out));
        const v = this.fresh('v');
        const values = rest.map((x) => (x.n === 'false' ? x.v : `${paren(x.n)} ? null : ${x.v}`));
        out.push(`const ${v} = ${paren(fmt.n)} ? null : rt.format(${fmt.v}, [${values.join(', ')}], ${this.constant(t.slice(1))});`);
        return { v, n: `${v} === null` };
      }
      case 'concat_ws': {
        // NULL arguments after the separator are skipped; a NULL separator makes the result NULL.
        const [sep, ...rest] = args.map((x) => this.materialize(this.emit(x, out), out));
        const v = this.fresh('v');
        const parts = rest.map((x) => (x.n === 'false' ? x.v : `${paren(x.n)} ? null : ${x.v}`));
        out.push(`const ${v} = ${paren(sep.n)} ? null : [${parts.join(', ')}].filter((s) => s !== null).join(${sep.v});`);
        return { v, n: `${v} === null` };
      }
      case 'nullif': {
        const [a, b] = args.map((x) => this.materialize(this.emit(x, out), out));
        const v = this.fresh('v');
        const n = this.fresh('n');
        out.push(`let ${v} = ${a.v}, ${n} = ${a.n};`);
        out.push(`if (!${n} && !${paren(b.n)} && ${a.v} === ${b.v}) ${n} = true;`);
        return { v, n };
      }
      default:
        return this.strict(args, out, (v) => this.scalar(name, v, t, type));
    }
  }

  /** The JS expression for a strict scalar function over non-null argument values. */
  private scalar(name: string, v: string[], t: readonly SqlType[], type: SqlType): string {
    const helper = RUNTIME_HELPERS[name];
    if (helper !== undefined) return `rt.${helper}(${v.join(', ')})`;
    const [a, b, c] = v;
    const decimalScale = (x: SqlType): number => x.scale ?? 0;
    switch (name) {
      case '$add':
      case '$subtract': {
        const op = name === '$add' ? '+' : '-';
        if (t[0].id === 'date' && t[1].id === 'interval day to second') return `rt.checkedDays(${a} ${op} Math.trunc(${b} / 86400000))`;
        if (t[0].id === 'date' && t[1].id === 'interval year to month') return `rt.addMonthsToDays(${a}, ${op}${b})`;
        if (t[1].id === 'date' && t[0].id === 'interval day to second') return `rt.checkedDays(${b} + Math.trunc(${a} / 86400000))`;
        if (t[1].id === 'date' && t[0].id === 'interval year to month') return `rt.addMonthsToDays(${b}, ${a})`;
        if (t[0].id === 'timestamp' && t[1].id === 'interval year to month') return `rt.addMonthsToMillis(${a}, ${op}${b})`;
        if (t[1].id === 'timestamp' && t[0].id === 'interval year to month') return `rt.addMonthsToMillis(${b}, ${a})`;
        if (type.id === 'decimal') {
          const rs = decimalScale(type);
          return `${scaleBy(a, rs - decimalScale(t[0]))} ${op} ${scaleBy(b, rs - decimalScale(t[1]))}`;
        }
        return this.checkedIntegral(`${a} ${op} ${b}`, type);
      }
      case '$multiply':
        return this.checkedIntegral(`${a} * ${b}`, type);
      case '$divide':
        if (type.id === 'decimal') return `rt.decimalDivide(${a}, ${decimalScale(t[0])}, ${b}, ${decimalScale(t[1])}, ${decimalScale(type)})`;
        if (type.id === 'double' || type.id === 'real') return `${a} / ${b}`;
        return `(${b} === 0 ? rt.fail('DIVISION_BY_ZERO', 'Division by zero') : Math.trunc(${a} / ${b}))`;
      case '$modulus':
        if (type.id === 'double' || type.id === 'real') return `${a} % ${b}`;
        if (type.id === 'decimal') {
          const rs = decimalScale(type);
          return `(${b} === 0 ? rt.fail('DIVISION_BY_ZERO', 'Division by zero') : (${scaleBy(a, rs - decimalScale(t[0]))}) % (${scaleBy(b, rs - decimalScale(t[1]))}))`;
        }
        return `(${b} === 0 ? rt.fail('DIVISION_BY_ZERO', 'Division by zero') : ${a} % ${b})`;
      case '$negate':
        return `-${a}`;
      case '$eq':
        return `${a} === ${b}`;
      case '$ne':
        return `${a} !== ${b}`;
      case '$lt':
        return `${a} < ${b}`;
      case '$le':
        return `${a} <= ${b}`;
      case '$gt':
        return `${a} > ${b}`;
      case '$ge':
        return `${a} >= ${b}`;
      case '$concat':
      case 'concat':
        return v.join(' + ');
      case 'abs':
        return `Math.abs(${a})`;
      case 'sign':
        return type.id === 'decimal' ? `Math.sign(${a})` : `Math.sign(${a})`;
      case 'ceil':
      case 'ceiling':
        return t[0].id === 'decimal' ? `Math.ceil(${a} / ${10 ** decimalScale(t[0])})` : `Math.ceil(${a})`;
      case 'floor':
        return t[0].id === 'decimal' ? `Math.floor(${a} / ${10 ** decimalScale(t[0])})` : `Math.floor(${a})`;
      case 'truncate':
        return t[0].id === 'decimal' ? `Math.trunc(${a} / ${10 ** decimalScale(t[0])})` : `Math.trunc(${a})`;
      case 'round':
        if (t[0].id === 'decimal') {
          return b === undefined ? `rt.roundHalfUp(${a} / ${10 ** decimalScale(t[0])})` : `rt.roundDecimal(${a}, ${decimalScale(t[0])}, ${b})`;
        }
        if (t[0].id === 'double' || t[0].id === 'real') return b === undefined ? `rt.roundHalfUp(${a})` : `rt.roundTo(${a}, ${b})`;
        return b === undefined ? a : `rt.roundHalfUp(rt.roundTo(${a}, ${b}))`;
      case 'sqrt':
        return `Math.sqrt(${a})`;
      case 'cbrt':
        return `Math.cbrt(${a})`;
      case 'exp':
        return `Math.exp(${a})`;
      case 'ln':
        return `Math.log(${a})`;
      case 'log10':
        return `Math.log10(${a})`;
      case 'log2':
        return `Math.log2(${a})`;
      case 'power':
      case 'pow':
        return `Math.pow(${a}, ${b})`;
      case 'mod':
        return this.scalar('$modulus', v, t, type);
      case 'pi':
        return 'Math.PI';
      case 'e':
        return 'Math.E';
      case 'nan':
        return 'NaN';
      case 'infinity':
        return 'Infinity';
      case 'is_nan':
        return `Number.isNaN(${a})`;
      case 'is_finite':
        return `Number.isFinite(${a})`;
      case 'is_infinite':
        return `(${a} === Infinity || ${a} === -Infinity)`;
      case 'log':
        return `(Math.log(${b}) / Math.log(${a}))`;
      case 'degrees':
        return `(${a} * 180 / Math.PI)`;
      case 'radians':
        return `(${a} * Math.PI / 180)`;
      case 'sin':
      case 'cos':
      case 'tan':
      case 'asin':
      case 'acos':
      case 'atan':
      case 'sinh':
      case 'cosh':
      case 'tanh':
        return `Math.${name}(${a})`;
      case 'atan2':
        return `Math.atan2(${a}, ${b})`;
      case 'width_bucket':
        return `rt.widthBucket(${a}, ${b}, ${c}, ${v[3]})`;
      case 'bitwise_and':
      case 'bitwise_or':
      case 'bitwise_xor':
      case 'bitwise_not':
      case 'bit_count':
        return `rt.bitwise(${JSON.stringify(name)}, ${a}, ${b ?? 0})`;
      case 'random':
      case 'rand':
        return a === undefined ? 'Math.random()' : `rt.randomBelow(${a})`;
      case 'regexp_replace':
        return `rt.regexpReplace(${a}, ${b}, ${c ?? '""'})`;
      case 'regexp_extract':
        return `rt.regexpExtract(${a}, ${b}, ${c ?? 0})`;
      case 'last_day_of_month':
        return `rt.lastDayOfMonth(${t[0].id === 'timestamp' ? `Math.floor(${a} / 86400000)` : a})`;
      case 'to_unixtime':
        return `(${a} / 1000)`;
      case 'trim':
        return `rt.trimSpaces(${a}, true, true)`;
      case 'ltrim':
        return `rt.trimSpaces(${a}, true, false)`;
      case 'rtrim':
        return `rt.trimSpaces(${a}, false, true)`;
      case 'substr':
      case 'substring':
        return c === undefined ? `rt.substr(${a}, ${b})` : `rt.substr(${a}, ${b}, ${c})`;
      case 'replace':
        return `rt.replace(${a}, ${b}, ${c ?? '""'})`;
      case 'starts_with':
        return `${a}.startsWith(${b})`;
      case 'to_iso8601':
        return `rt.toIso8601(${a}, ${this.constant(t[0])})`;
      case 'lpad':
        return `rt.pad(${a}, ${b}, ${c}, true)`;
      case 'rpad':
        return `rt.pad(${a}, ${b}, ${c}, false)`;
      case 'year':
      case 'quarter':
      case 'month':
      case 'week':
      case 'day':
      case 'day_of_month':
      case 'day_of_week':
      case 'dow':
      case 'day_of_year':
      case 'doy':
      case 'week_of_year':
      case 'year_of_week':
      case 'yow': {
        const unit = ({ day_of_month: 'day', dow: 'day_of_week', doy: 'day_of_year', week_of_year: 'week', yow: 'year_of_week' } as Record<string, string>)[name] ?? name;
        const days = t[0].id === 'timestamp' ? `Math.floor(${a} / 86400000)` : a;
        if (unit === 'year') return `rt.yearOfDays(${days})`;
        return `rt.datePart(${JSON.stringify(unit)}, ${days})`;
      }
      case 'hour':
        return `Math.floor(((${a} % 86400000) + 86400000) % 86400000 / 3600000)`;
      case 'minute':
        return `Math.floor(((${a} % 3600000) + 3600000) % 3600000 / 60000)`;
      case 'second':
        return `Math.floor(((${a} % 60000) + 60000) % 60000 / 1000)`;
      case 'date_trunc':
        return `rt.dateTrunc(${a}, ${b}, ${t[1].id === 'timestamp'})`;
      case 'date_add':
        return `rt.dateAdd(${a}, ${b}, ${c}, ${t[2].id === 'timestamp'})`;
      case 'date_diff':
        return `rt.dateDiff(${a}, ${b}, ${c}, ${t[1].id === 'timestamp'})`;
      case 'greatest':
        return type.id === 'varchar' ? `rt.maxString(${v.join(', ')})` : `Math.max(${v.join(', ')})`;
      case 'least':
        return type.id === 'varchar' ? `rt.minString(${v.join(', ')})` : `Math.min(${v.join(', ')})`;
      default:
        throw new Error(`no kernel for function ${name}`);
    }
  }

  private checkedIntegral(expr: string, type: SqlType): string {
    if (type.id === 'integer') return `rt.checkInteger(${expr})`;
    if (type.id === 'bigint') return `rt.checkBigint(${expr})`;
    return expr;
  }

  private emitCast(arg: Expr, to: SqlType, safe: boolean, out: string[]): Emitted {
    const from = arg.type;
    const a = this.emit(arg, out);
    const numeric = (id: string): boolean => ['tinyint', 'smallint', 'integer', 'bigint', 'real', 'double'].includes(id);
    if (from.id === to.id && from.id !== 'decimal' && from.id !== 'varchar') return a;
    if (from.id === 'unknown') return { v: 'null', n: 'true' };
    // Widening numeric casts are the identity on JS numbers.
    if (numeric(from.id) && (to.id === 'double' || (to.id === 'bigint' && from.id !== 'real' && from.id !== 'double'))) return a;
    if (from.id === 'decimal' && to.id === 'double') return this.strictValue(a, out, (x) => `${x} / ${10 ** (from.scale ?? 0)}`);
    if (['tinyint', 'smallint', 'integer', 'bigint'].includes(from.id) && to.id === 'decimal') return this.strictValue(a, out, (x) => scaleBy(x, to.scale ?? 0));
    if (from.id === 'decimal' && to.id === 'decimal' && (from.scale ?? 0) <= (to.scale ?? 0) && (from.precision ?? 38) - (from.scale ?? 0) <= (to.precision ?? 38) - (to.scale ?? 0)) {
      return this.strictValue(a, out, (x) => scaleBy(x, (to.scale ?? 0) - (from.scale ?? 0)));
    }
    if (from.id === 'date' && to.id === 'timestamp') return this.strictValue(a, out, (x) => `${x} * 86400000`);
    const fromK = this.constant(from);
    const toK = this.constant(to);
    const m = this.materialize(a, out);
    const v = this.fresh('v');
    const n = this.fresh('n');
    out.push(`let ${v} = null; if (!${paren(m.n)}) ${v} = rt.castValue(${m.v}, ${fromK}, ${toK}, ${safe});`);
    out.push(`const ${n} = ${v} === null;`);
    return { v, n };
  }

  private strictValue(a: Emitted, out: string[], f: (v: string) => string): Emitted {
    if (a.n === 'false') return { v: paren(f(a.v)), n: 'false' };
    const m = this.materialize(a, out);
    return { v: `(${paren(m.n)} ? null : ${f(m.v)})`, n: m.n };
  }

  private emitLogical(kind: 'and' | 'or', args: readonly Expr[], out: string[]): Emitted {
    const v = this.fresh('v');
    const n = this.fresh('n');
    const label = this.fresh('L');
    const decisive = kind === 'and' ? 'false' : 'true';
    out.push(`let ${v} = ${kind === 'and' ? 'true' : 'false'}, ${n} = false;`);
    out.push(`${label}: {`);
    this.depth++;
    let nullable = false;
    for (const arg of args) {
      const a = this.emit(arg, out);
      out.push(`if (!${paren(a.n)} && ${a.v} === ${decisive}) { ${v} = ${decisive}; ${n} = false; break ${label}; }`);
      if (a.n !== 'false') out.push(`if (${a.n}) ${n} = true;`);
      nullable ||= a.n !== 'false';
    }
    this.depth--;
    out.push('}');
    return { v, n: nullable ? n : 'false' };
  }

  private emitIn(arg: Expr, list: readonly Expr[], negated: boolean, out: string[]): Emitted {
    const prefix = this.prefixIn(arg, list);
    if (prefix) return negated ? { v: `(!${prefix.v})`, n: prefix.n } : prefix;
    const a = this.materialize(this.emit(arg, out), out);
    const v = this.fresh('v');
    const n = this.fresh('n');
    const constants = list.filter((x) => x.kind === 'literal' && x.value !== null);
    const others = list.filter((x) => !(x.kind === 'literal' && x.value !== null));
    const listHasNull = list.some((x) => x.kind === 'literal' && x.value === null);
    out.push(`let ${v} = false, ${n} = ${a.n === 'false' ? 'false' : a.n};`);
    const label = this.fresh('L');
    out.push(`${label}: if (!${n}) {`);
    this.depth++;
    if (constants.length > 0) {
      const set = this.constant(new Set(constants.map((x) => (x as { value: unknown }).value)));
      out.push(`if (${set}.has(${a.v})) { ${v} = true; break ${label}; }`);
    }
    for (const item of others) {
      const x = this.emit(item, out);
      out.push(`if (${x.n}) ${n} = true; else if (${x.v} === ${a.v}) { ${v} = true; ${n} = false; break ${label}; }`);
    }
    if (listHasNull) out.push(`${n} = true;`);
    this.depth--;
    out.push('}');
    // Constants only, none NULL, over a NOT NULL value: never NULL.
    const flag = a.n === 'false' && others.length === 0 && !listHasNull ? 'false' : n;
    return negated ? { v: `(!${v})`, n: flag } : { v, n: flag };
  }

  /** `substring(col, 1, L) IN ('..', ...)` on a plain UTF-8 column: one byte pass per page (Q22). */
  private prefixIn(arg: Expr, list: readonly Expr[]): Emitted | null {
    if (arg.kind !== 'call' || (arg.name !== 'substring' && arg.name !== 'substr') || arg.args.length !== 3) return null;
    const [column, start, length] = arg.args;
    if (column.kind !== 'column' || this.shapes[column.index]?.kind !== 'varchar') return null;
    if (start.kind !== 'literal' || start.value !== 1 || length.kind !== 'literal' || typeof length.value !== 'number') return null;
    if (list.length === 0 || !list.every((x) => x.kind === 'literal' && typeof x.value === 'string')) return null;
    const matcher = prefixInColumnMatcher(length.value, list.map((x) => (x as { value: string }).value));
    if (!matcher) return null;
    this.emitColumn(column.index); // declares the column in the prologue
    const shape = this.shapes[column.index];
    const n = shape.nullable ? `(m${column.index} !== null && ((m${column.index}[i >> 3] >> (i & 7)) & 1) === 0)` : 'false';
    const hits = this.hoist(`${this.constant(matcher)}(cols[${column.index}])`);
    return { v: `(${hits}[i] !== 0)`, n };
  }

  private emitCase(whens: readonly { when: Expr; then: Expr }[], otherwise: Expr | null, out: string[]): Emitted {
    const v = this.fresh('v');
    const n = this.fresh('n');
    const label = this.fresh('L');
    out.push(`let ${v} = null, ${n} = true;`);
    out.push(`${label}: {`);
    this.depth++;
    for (const w of whens) {
      const c = this.emit(w.when, out);
      out.push(`if (!${paren(c.n)} && ${c.v} === true) {`);
      const r = this.emit(w.then, out);
      out.push(`${v} = ${r.v}; ${n} = ${r.n}; break ${label}; }`);
    }
    if (otherwise) {
      const r = this.emit(otherwise, out);
      out.push(`${v} = ${r.v}; ${n} = ${r.n};`);
    }
    this.depth--;
    out.push('}');
    return { v, n };
  }

  private emitCoalesce(args: readonly Expr[], out: string[]): Emitted {
    const v = this.fresh('v');
    const n = this.fresh('n');
    const label = this.fresh('L');
    out.push(`let ${v} = null, ${n} = true;`);
    out.push(`${label}: {`);
    this.depth++;
    for (const arg of args) {
      const a = this.emit(arg, out);
      out.push(`if (!${paren(a.n)}) { ${v} = ${a.v}; ${n} = false; break ${label}; }`);
    }
    this.depth--;
    out.push('}');
    return { v, n };
  }

  private emitLike(arg: Expr, pattern: Expr, escape: Expr | null, negated: boolean, out: string[]): Emitted {
    const not = negated ? '!' : '';
    // A plain UTF-8 column against a simple constant pattern: match the bytes, never decode.
    if (arg.kind === 'column' && this.shapes[arg.index]?.kind === 'varchar' && !escape && pattern.kind === 'literal' && typeof pattern.value === 'string') {
      const columnWide = byteLikeColumnMatcher(pattern.value);
      const bytes = columnWide ? null : byteLikeMatcher(pattern.value);
      if (columnWide || bytes) {
        this.emitColumn(arg.index); // declares the column in the prologue
        const shape = this.shapes[arg.index];
        const n = shape.nullable ? `(m${arg.index} !== null && ((m${arg.index}[i >> 3] >> (i & 7)) & 1) === 0)` : 'false';
        if (columnWide) {
          const hits = this.hoist(`${this.constant(columnWide)}(cols[${arg.index}])`);
          return { v: `(${hits}[i] ${negated ? '===' : '!=='} 0)`, n };
        }
        const c = `c${arg.index}`;
        return { v: `(${not}${this.constant(bytes)}(${c}.data, ${c}.offsets[i], ${c}.offsets[i + 1]))`, n };
      }
    }
    if (pattern.kind === 'literal' && typeof pattern.value === 'string' && (!escape || (escape.kind === 'literal' && typeof escape.value === 'string'))) {
      const esc = escape && escape.kind === 'literal' ? (escape.value as string) : null;
      const matcher = this.constant(likeMatcher(pattern.value, esc));
      return this.strict([arg], out, ([s]) => `${not}${matcher}(${s})`);
    }
    const args = escape ? [arg, pattern, escape] : [arg, pattern];
    return this.strict(args, out, ([s, p, e]) => `${not}rt.like(${s}, ${p}, ${e ?? 'null'})`);
  }
}

/** Wraps a JS expression in parentheses unless it is a plain name or member access. */
export function paren(x: string): string {
  return /^[\w$.[\]]+$/u.test(x) ? x : `(${x})`;
}

function scaleBy(x: string, digits: number): string {
  if (digits === 0) return x;
  return `${x} * ${10 ** digits}`;
}
