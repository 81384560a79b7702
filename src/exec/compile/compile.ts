// Kernel compilation: a filter becomes one loop writing a selection vector; a projection list
// becomes one fused loop writing every computed column. Kernels are specialised to the input
// columns' layouts and nullability and cached per worker by (expressions, shapes).

import { allocFixedColumn, allocLocal, VarcharBuilder, type Column, type DictionaryColumn, type FixedColumn, type Page, type VarcharColumn } from '../../data/page.js';
import type { SqlType } from '../../data/types.js';
import type { Expr } from '../../sql/ir.js';
import { dictionaryPredicateColumn, KernelBuilder, paren, provideDictionaryMasks, type ColumnShape, type DictionaryMasks } from './emit.js';
import { runtime, type Runtime } from './runtime.js';
import { compileWasmFilter } from './wasm-filter.js';

export type FilterKernel = (cols: readonly Column[], n: number, sel: Int32Array) => number;

interface OutputTarget {
  values?: FixedColumn['values'];
  validity?: Uint8Array | null;
  builder?: VarcharBuilder;
  anyNull: boolean;
}

type RawFilter = (cols: readonly Column[], n: number, sel: Int32Array, rt: Runtime, k: unknown[]) => number;
/** A generated function as `new Function` returns it; each compile function knows its real signature. */
export type RawKernel = (...args: never[]) => unknown;
type RawProject = (cols: readonly Column[], sel: Int32Array | null, count: number, rt: Runtime, k: unknown[], out: OutputTarget[]) => void;

export interface ProjectKernel {
  (cols: readonly Column[], sel: Int32Array | null, count: number): Column[];
  readonly source: string;
}

/** A compiled kernel: the function, its constants, its source, and what its compiler learnt building it. */
interface CachedKernel<T extends RawKernel> {
  fn: T;
  consts: unknown[];
  source: string;
  nullable?: boolean[];
  meta?: unknown;
  /** Set once the kernel has run on a few rows (see compileFilteredAggregateUpdate). */
  primed?: boolean;
}

const cache = new Map<string, CachedKernel<RawKernel>>();
const CACHE_LIMIT = 2000;


export function shapesOf(page: Page): ColumnShape[] {
  return page.columns.map((c) => ({ kind: c.kind, type: c.type, nullable: c.validity !== null }));
}

export function shapeKey(shapes: readonly ColumnShape[], used: ReadonlySet<number>): string {
  return shapes.map((s, i) => (used.has(i) ? `${s.kind[0]}${s.nullable ? 'n' : ''}` : '-')).join(',');
}

/** The input columns the expressions read. */
export function usedColumns(exprs: readonly Expr[]): Set<number> {
  const used = new Set<number>();
  const walk = (e: unknown): void => {
    if (!e || typeof e !== 'object') return;
    const node = e as { kind?: string; index?: number };
    if (node.kind === 'column' && typeof node.index === 'number') used.add(node.index);
    for (const v of Object.values(e)) if (v && typeof v === 'object') walk(v);
  };
  for (const e of exprs) walk(e);
  return used;
}

/**
 * Per expression object (or array of them): its text for kernel keys and the columns it reads.
 * Operators compile per page, and a cached plan hands the same objects to every query.
 */
interface ExprFacts {
  readonly text: string;
  readonly used: Set<number>;
  /** Kernel cache keys over these very expressions, by kind and input shapes (see kernelKey). */
  readonly keys: Map<string, string>;
}

const exprFacts = new WeakMap<object, ExprFacts>();

export function factsOf(exprs: Expr | readonly (Expr | null)[]): ExprFacts {
  let facts = exprFacts.get(exprs);
  if (!facts) {
    const list = Array.isArray(exprs) ? (exprs as readonly (Expr | null)[]) : [exprs as Expr];
    facts = { text: JSON.stringify(exprs), used: usedColumns(list.filter((e): e is Expr => e !== null)), keys: new Map() };
    exprFacts.set(exprs, facts);
  }
  return facts;
}

/**
 * The cache key of the `kind` kernel of these expressions for these input shapes, built once per
 * expression object and shape: a new key string with the whole expression text is built and hashed
 * on every lookup otherwise, which costs more than a trivial statement's kernel takes to run (a
 * reused string keeps its hash).
 */
function kernelKey(facts: ExprFacts, kind: string, shapes: readonly ColumnShape[]): string {
  const shape = shapeKey(shapes, facts.used);
  const local = `${kind}|${shape}`;
  let key = facts.keys.get(local);
  if (key === undefined) facts.keys.set(local, (key = `${kind}|${facts.text}|${shape}`));
  return key;
}

export function cached<T extends RawKernel>(key: string, build: () => Omit<CachedKernel<T>, 'fn'>): CachedKernel<T> {
  let hit = cache.get(key);
  if (!hit) {
    const built = build();
    // Fixed parameter names; `new Function` gives a sloppy-mode function, so the body opts into strict.
    const fn = new Function('cols', 'a1', 'a2', 'rt', 'k', 'out', `'use strict';\n${built.source}`) as RawKernel;
    hit = { ...built, fn };
    if (cache.size >= CACHE_LIMIT) cache.delete(cache.keys().next().value as string);
    cache.set(key, hit);
  }
  return hit as CachedKernel<T>;
}

const COMPARISONS = new Set(['$eq', '$ne', '$lt', '$le', '$gt', '$ge']);
const NUMERIC_IDS = new Set(['tinyint', 'smallint', 'integer', 'bigint', 'real', 'double', 'decimal', 'date', 'timestamp']);

/**
 * Whether a predicate is AND/OR/NOT over comparisons of NOT NULL numeric columns and numeric
 * literals: it can then be evaluated without branches (no NULLs, nothing that can fail).
 */
export function branchFree(e: Expr, shapes: readonly ColumnShape[]): boolean {
  // A predicate over one dictionary column is read from its 0/1 mask (KernelBuilder.dictionaryMask).
  if (dictionaryPredicateColumn(e, shapes) >= 0) return true;
  switch (e.kind) {
    case 'and':
    case 'or':
      return e.args.every((a) => branchFree(a, shapes));
    case 'not':
      return branchFree(e.arg, shapes);
    case 'call':
      return (
        COMPARISONS.has(e.name) &&
        e.args.every((a) => {
          if (a.kind === 'literal') return typeof a.value === 'number' && Number.isFinite(a.value);
          if (a.kind !== 'column') return false;
          const shape = shapes[a.index];
          return shape !== undefined && shape.kind === 'fixed' && !shape.nullable && NUMERIC_IDS.has(shape.type.id);
        })
      );
    default:
      return false;
  }
}

/** A branch-free predicate as a 0/1 integer expression (see branchFree). */
export function emitBranchFree(e: Expr, b: KernelBuilder, body: string[]): string {
  const mask = b.dictionaryMask(e);
  if (mask !== null) return mask;
  switch (e.kind) {
    case 'and':
      return `(${emitConjuncts(e.args, b, body).join(' & ')})`;
    case 'or':
      return `(${e.args.map((a) => emitBranchFree(a, b, body)).join(' | ')})`;
    case 'not':
      return `(${emitBranchFree(e.arg, b, body)} ^ 1)`;
    default:
      return `((${b.emit(e, body).v}) | 0)`;
  }
}

/** Integer layouts whose values all fit in an int32 (see intBound). */
const INT32_VALUED = new Set(['tinyint', 'smallint', 'integer', 'date']);
/** Bounds and spans of a one-comparison range test stay below this, so the subtraction cannot wrap. */
const RANGE_LIMIT = 2 ** 30;

/**
 * A comparison of a NOT NULL int32-valued column with an integer literal, as a bound on the
 * column: `lo` (inclusive) or `hi` (exclusive).
 */
function intBound(e: Expr, shapes: readonly ColumnShape[]): { index: number; lo?: number; hi?: number } | null {
  if (e.kind !== 'call' || e.args.length !== 2) return null;
  let [left, right] = e.args;
  let op = e.name;
  if (left.kind === 'literal' && right.kind === 'column') {
    [left, right] = [right, left];
    op = ({ $lt: '$gt', $le: '$ge', $gt: '$lt', $ge: '$le' } as Record<string, string>)[op] ?? op;
  }
  if (left.kind !== 'column' || right.kind !== 'literal' || typeof right.value !== 'number' || !Number.isInteger(right.value)) return null;
  const shape = shapes[left.index];
  if (shape === undefined || shape.kind !== 'fixed' || shape.nullable || !INT32_VALUED.has(shape.type.id)) return null;
  const v = right.value;
  switch (op) {
    case '$ge':
      return { index: left.index, lo: v };
    case '$gt':
      return { index: left.index, lo: v + 1 };
    case '$lt':
      return { index: left.index, hi: v };
    case '$le':
      return { index: left.index, hi: v + 1 };
    default:
      return null;
  }
}

/**
 * The conjuncts of an AND as 0/1 expressions; a lower and an upper bound on the same int32
 * column become one unsigned comparison, `(x - lo) >>> 0 < hi - lo` (a date range such as Q6's
 * shipdate: one test instead of two, about 13% off that filter).
 */
function emitConjuncts(args: readonly Expr[], b: KernelBuilder, body: string[]): string[] {
  const bounds = args.map((a) => intBound(a, b.shapes));
  const paired = new Set<number>();
  const out: string[] = [];
  args.forEach((a, i) => {
    if (paired.has(i)) return;
    const bound = bounds[i];
    const j = bound === null ? -1 : bounds.findIndex((o, k) => k > i && !paired.has(k) && o !== null && o.index === bound.index && (o.lo === undefined) !== (bound.lo === undefined));
    if (bound === null || j < 0) {
      out.push(emitBranchFree(a, b, body));
      return;
    }
    paired.add(j);
    const other = bounds[j] as { lo?: number; hi?: number };
    const lo = (bound.lo ?? other.lo) as number;
    const hi = (bound.hi ?? other.hi) as number;
    if (Math.abs(lo) >= RANGE_LIMIT || Math.abs(hi) >= RANGE_LIMIT || hi - lo >= RANGE_LIMIT) {
      out.push(emitBranchFree(a, b, body), emitBranchFree(args[j], b, body));
      return;
    }
    if (hi <= lo) {
      out.push('0');
      return;
    }
    const x = b.emit({ kind: 'column', index: bound.index, type: b.shapes[bound.index].type }, body).v;
    out.push(`((((${x} - ${lo}) >>> 0) < ${hi - lo}) | 0)`);
  });
  return out;
}

export function compileFilter(predicate: Expr, shapes: readonly ColumnShape[]): FilterKernel & { source: string } {
  const facts = factsOf(predicate);
  const key = kernelKey(facts, 'F', shapes);
  const { fn, consts, source } = cached<RawFilter>(key, () => {
    const b = new KernelBuilder(shapes);
    const body: string[] = [];
    if (branchFree(predicate, shapes)) {
      // Random data makes short-circuit branches unpredictable: evaluate every comparison and
      // append the row index unconditionally, advancing the count by the 0/1 result.
      const r = emitBranchFree(predicate, b, body);
      const lines = [...b.columnPrologue(), 'const n = a1, sel = a2;', 'let count = 0;', 'for (let i = 0; i < n; i++) {', ...body.map((l) => `  ${l}`), `  sel[count] = i;`, `  count += ${r};`, '}', 'return count;'];
      return { source: lines.join('\n'), consts: b.consts };
    }
    const r = b.emit(predicate, body);
    const lines = [
      ...b.columnPrologue(),
      'const n = a1, sel = a2;',
      'let count = 0;',
      'for (let i = 0; i < n; i++) {',
      ...body.map((l) => `  ${l}`),
      `  if (${r.n === 'false' ? '' : `!(${r.n}) && `}${r.v} === true) sel[count++] = i;`,
      '}',
      'return count;',
    ];
    return { source: lines.join('\n'), consts: b.consts };
  });
  // The same filter in WebAssembly, when every column it reads lies in the column arena.
  const wasm = compileWasmFilter(key, predicate, shapes);
  const kernel = (
    wasm === null
      ? (cols: readonly Column[], n: number, sel: Int32Array) => fn(cols, n, sel, runtime, consts)
      : (cols: readonly Column[], n: number, sel: Int32Array) => {
          const count = wasm.run(cols, n, sel);
          return count >= 0 ? count : fn(cols, n, sel, runtime, consts);
        }
  ) as FilterKernel & { source: string };
  Object.defineProperty(kernel, 'source', { value: source });
  return kernel;
}

/**
 * A predicate over the entries of string dictionaries: evaluated by a filter kernel over each
 * dictionary once (kept while the dictionary lives), then read per row through the row's index.
 */
class DictionaryPredicate implements DictionaryMasks {
  private kernel: FilterKernel | undefined;
  private readonly masks = new WeakMap<VarcharColumn, Uint8Array>();

  constructor(private readonly predicate: Expr) {}

  maskFor(col: DictionaryColumn): Uint8Array {
    const entries = col.dictionary;
    let mask = this.masks.get(entries);
    if (mask === undefined) {
      this.kernel ??= compileFilter(this.predicate, [{ kind: 'varchar', type: entries.type, nullable: false }]);
      const sel = new Int32Array(entries.length);
      const kept = this.kernel([entries], entries.length, sel);
      mask = new Uint8Array(entries.length);
      for (let j = 0; j < kept; j++) mask[sel[j]] = 1;
      this.masks.set(entries, mask);
    }
    return mask;
  }
}

provideDictionaryMasks((predicate) => new DictionaryPredicate(predicate));

function storeCode(j: number, type: SqlType, v: string, n: string): string[] {
  const lines: string[] = [];
  const nullable = n !== 'false';
  if (type.id === 'varchar') {
    lines.push(nullable ? `if (${n}) { o${j}.appendNull(); x${j} = true; } else o${j}.append(${v});` : `o${j}.append(${v});`);
    return lines;
  }
  let store: string;
  if (type.id === 'boolean') store = `if (${v}) o${j}[j >> 3] |= 1 << (j & 7);`;
  else if (type.id === 'bigint' || type.id === 'timestamp') store = `{ const w = ${v}; o${j}[2 * j] = w >>> 0; o${j}[2 * j + 1] = Math.floor(w / 4294967296); }`;
  else store = `o${j}[j] = ${v};`;
  if (nullable) lines.push(`if (${n}) { q${j}[j >> 3] &= ~(1 << (j & 7)); x${j} = true; } else ${store}`);
  else lines.push(store);
  return lines;
}

/**
 * Compiles computed projections. `exprs[j]` may be null for outputs the caller fills itself
 * (pass-through columns gathered by selection).
 */
export function compileProjection(exprs: readonly (Expr | null)[], shapes: readonly ColumnShape[]): ProjectKernel {
  const facts = factsOf(exprs);
  const { fn, consts, source, nullable } = cached<RawProject>(kernelKey(facts, 'P', shapes), () => {
    const b = new KernelBuilder(shapes);
    const body: string[] = [];
    const decl: string[] = [];
    const tail: string[] = [];
    const nullable: boolean[] = exprs.map(() => false);
    exprs.forEach((e, j) => {
      if (!e) return;
      const r = b.emit(e, body);
      nullable[j] = r.n !== 'false';
      if (e.type.id === 'varchar') decl.push(`const o${j} = out[${j}].builder; let x${j} = false;`);
      else decl.push(`const o${j} = out[${j}].values; const q${j} = out[${j}].validity; let x${j} = false;`);
      body.push(...storeCode(j, e.type, r.v, r.n));
      tail.push(`out[${j}].anyNull = x${j};`);
    });
    const lines = [
      ...b.columnPrologue(),
      'const sel = a1, count = a2;',
      ...decl,
      'for (let j = 0; j < count; j++) {',
      '  const i = sel === null ? j : sel[j];',
      ...body.map((l) => `  ${l}`),
      '}',
      ...tail,
    ];
    return { source: lines.join('\n'), consts: b.consts, nullable };
  });
  const kernel = ((cols: readonly Column[], sel: Int32Array | null, count: number): Column[] => {
    const out: OutputTarget[] = exprs.map((e, j) => {
      if (!e) return { anyNull: false };
      if (e.type.id === 'varchar') return { builder: new VarcharBuilder(e.type, count), anyNull: false };
      // Validity only where the expression can be NULL (the kernel never writes it otherwise).
      // Ordinary memory: the next operator reads it here; a page leaving the thread is shared then.
      const col = allocFixedColumn(e.type, count, nullable?.[j] ?? true, allocLocal);
      col.validity?.fill(0xff);
      return { values: col.values, validity: col.validity, anyNull: false };
    });
    fn(cols, sel, count, runtime, consts, out);
    return exprs.map((e, j) => {
      if (!e) return null as unknown as Column;
      const t = out[j];
      if (t.builder) return t.builder.finish();
      return { kind: 'fixed', type: e.type, length: count, validity: t.anyNull ? (t.validity ?? null) : null, values: t.values } as FixedColumn;
    });
  }) as ProjectKernel;
  Object.defineProperty(kernel, 'source', { value: source });
  return kernel;
}
