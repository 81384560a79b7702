// Fused aggregation kernels (see fused-aggregation.ts): one generated loop computes every
// aggregate's argument of a row and adds it into the row's group in one interleaved Float64Array
// block. Two forms: over rows an upstream filter already selected, and with the filter's predicate
// evaluated in the same loop (no selection vector at all; the rows it rejects are added into a
// spare "trash" row of the block, or masked out of register sums for a global aggregation).

import type { Column } from '../../data/page.js';
import { mentionsNondeterministic, type Expr } from '../../sql/ir.js';
import { branchFree, cached, emitBranchFree, factsOf, shapeKey } from './compile.js';
import { KernelBuilder, paren, type ColumnShape, type Emitted } from './emit.js';
import { runtime, type Runtime } from './runtime.js';
import { compileWasmFilteredAggregate } from './wasm-aggregate.js';

/** One aggregate's update in a fused aggregation kernel (see fused-aggregation.ts). */
export type AggregateUpdateOp = 'count_star' | 'count' | 'sum' | 'avg';

/**
 * How a fused kernel finds a row's block row: from group ids computed beforehand, or, for keys
 * that are all small dictionaries, from the keys' dictionary indices combined into one code
 * (`columns[0]`'s index is the most significant digit; `sizes` are the dictionary sizes).
 */
export type BlockRowSource = { readonly kind: 'groups' } | CodeRowSource;
export type CodeRowSource = { readonly kind: 'codes'; readonly columns: readonly number[]; readonly sizes: readonly number[] };

/**
 * Where a fused kernel keeps one aggregate's running state in a group's row of the block: its sum
 * (`value`, -1 for counts) and how many rows it counted (`count`). Slot 0 of every row counts the
 * group's rows; aggregates over arguments that cannot be NULL count with it instead of their own.
 * Aggregates over the same argument share slots (Q1's sum(quantity) and avg(quantity)).
 */
export interface AggregateSlots {
  readonly value: number;
  readonly count: number;
}

interface BlockLayout {
  readonly width: number;
  readonly slots: readonly AggregateSlots[];
}

interface BlockKernel extends BlockLayout {
  /** Identifies the block layout: blocks filled by kernels with equal layouts can be shared. */
  readonly layout: string;
}

export interface AggregateUpdateKernel extends BlockKernel {
  /**
   * Adds the selected rows (all `count` rows when `sel` is null) into `block`, `width` slots per
   * block row; `groups` (by selected row) when the rows come from group ids.
   */
  readonly update: (cols: readonly Column[], sel: Int32Array | null, count: number, groups: Int32Array | null, block: Float64Array) => void;
}

export interface FilteredAggregateUpdateKernel extends BlockKernel {
  /**
   * Adds the `n` rows of `cols` the predicate keeps into `block`; block row `trashRow` (one past
   * the code rows) must exist, takes the rows rejected and is zero again on return. Returns the
   * number of rows kept.
   */
  readonly update: (cols: readonly Column[], n: number, block: Float64Array, trashRow: number) => number;
}

type RawAggregateUpdate = (cols: readonly Column[], sel: Int32Array | null, count: number, rt: Runtime, k: unknown[], out: { groups: Int32Array | null; block: Float64Array }) => void;
type RawFilteredUpdate = (cols: readonly Column[], n: number, unused: null, rt: Runtime, k: unknown[], out: { block: Float64Array; trash: number }) => number;

/**
 * Aggregation straight from a page: for each selected row, every aggregate's argument is computed
 * inline and added into its group's row of one interleaved Float64Array (one cache line per group
 * instead of one array per state: 3 ns instead of 10 ns per row for TPC-H Q1's aggregates), so
 * neither the selected rows nor the computed arguments are ever written out as a page. `args[k]`
 * is null for count(*); `rows` says which block row a row adds into.
 */
export function compileAggregateUpdate(args: readonly (Expr | null)[], ops: readonly AggregateUpdateOp[], shapes: readonly ColumnShape[], rows: BlockRowSource): AggregateUpdateKernel {
  const facts = factsOf(args);
  const key = `A|${ops.join(',')}|${JSON.stringify(rows)}|${facts.text}|${shapeKey(shapes, facts.used)}`;
  const { fn, consts, meta } = cached<RawAggregateUpdate>(key, () => {
    const b = new KernelBuilder(shapes);
    const body: string[] = [];
    const { emitted, layout } = emitArguments(b, args, ops, body);
    // A global aggregation (one block row) sums every slot in a local and adds it into the block
    // once per call: a store into the block per row would chain each row's add through memory
    // (store-to-load forwarding: ~2 ns a row for sum(x) over 800k rows).
    const global = rows.kind === 'codes' && rows.columns.length === 0;
    const slots = global ? Array.from({ length: layout.width }, (_, s) => s) : [];
    body.push(...blockUpdates(layout, emitted, global ? (s) => `s${s}` : undefined));
    const keyDecl: string[] = [];
    let rowOf = (j: string): string => `groups[${j}]`;
    if (rows.kind === 'codes') {
      keyDecl.push(...codeDeclarations(rows));
      rowOf = () => codeOf(rows);
    }
    const rowLine = (j: string): string[] => (global ? [] : [`    const b = (${rowOf(j)}) * ${layout.width};`]);
    const loop = (head: string[], j: string): string[] => [...head, ...rowLine(j), ...body.map((l) => `    ${l}`), '  }'];
    const lines = [
      ...b.columnPrologue(),
      ...keyDecl,
      'const sel = a1, count = a2, groups = out.groups, blk = out.block;',
      ...slots.map((s) => `let s${s} = 0;`),
      'if (sel === null) {',
      ...loop(['  for (let i = 0; i < count; i++) {'], 'i'),
      '} else {',
      ...loop(['  for (let j = 0; j < count; j++) {', '    const i = sel[j];'], 'j'),
      '}',
      ...slots.map((s) => `blk[${s}] += s${s};`),
    ];
    return { source: lines.join('\n'), consts: b.consts, meta: layout };
  });
  const layout = meta as BlockLayout;
  return {
    update: (cols, sel, count, groups, block) => fn(cols, sel, count, runtime, consts, { groups, block }),
    ...layout,
    layout: layoutKey(layout),
  };
}

/** Rows a filtered kernel first runs on, into a scratch block (see its update). */
const PRIMING_ROWS = 16;

/**
 * The filter and the aggregation in one loop over a whole page: every row's predicate and
 * arguments are computed, and the row is added into its group's block row when kept, into the
 * trash row when not; a global aggregation sums in locals instead, adding 0 for rejected rows.
 * Branch-free for a branch-free predicate. Null (nothing compiled) unless every argument is
 * NULL-free and cannot fail on any row (arguments are computed for rejected rows too).
 */
export function compileFilteredAggregateUpdate(
  predicate: Expr,
  args: readonly (Expr | null)[],
  ops: readonly AggregateUpdateOp[],
  shapes: readonly ColumnShape[],
  rows: CodeRowSource,
): FilteredAggregateUpdateKernel | null {
  // The operator asks again only while the answer is yes: a decline ends its attempts.
  if (!args.every((a) => a === null || speculationSafe(a, shapes))) return null;
  const predicateFacts = factsOf(predicate);
  const argFacts = factsOf(args);
  const used = new Set([...predicateFacts.used, ...argFacts.used]);
  const key = `AF|${ops.join(',')}|${JSON.stringify(rows)}|${predicateFacts.text}|${argFacts.text}|${shapeKey(shapes, used)}`;
  const entry = cached<RawFilteredUpdate>(key, () => {
    const b = new KernelBuilder(shapes);
    const body: string[] = [];
    let keep: string;
    if (branchFree(predicate, shapes)) keep = emitBranchFree(predicate, b, body);
    else {
      const r = b.emit(predicate, body);
      keep = `((${r.n === 'false' ? '' : `!${paren(r.n)} && `}${r.v} === true) ? 1 : 0)`;
    }
    body.push(`const m = ${keep};`);
    const { emitted, layout } = emitArguments(b, args, ops, body);
    const { width } = layout;
    let lines: string[];
    if (rows.columns.length === 0) {
      // One group: sums in locals (a store into the block per row would chain every row's add
      // through memory), adding 0 for a rejected row, whose argument may be anything.
      const valueSlots = distinctValueSlots(layout);
      const sums = valueSlots.map(({ slot }) => `let s${slot} = 0;`);
      const adds = valueSlots.map(({ slot, k }) => `  s${slot} += m !== 0 ? arg${k} : 0;`);
      lines = [
        ...b.columnPrologue(),
        'const n = a1, blk = out.block;',
        'let kept = 0;',
        ...sums,
        'for (let i = 0; i < n; i++) {',
        ...body.map((l) => `  ${l}`),
        '  kept += m;',
        ...adds,
        '}',
        'blk[0] += kept;',
        ...valueSlots.map(({ slot }) => `blk[${slot}] += s${slot};`),
        'return kept;',
      ];
    } else {
      lines = [
        ...b.columnPrologue(),
        ...codeDeclarations(rows),
        `const n = a1, blk = out.block, trash = out.trash * ${width};`,
        'for (let i = 0; i < n; i++) {',
        ...body.map((l) => `  ${l}`),
        // The code is read for every row: then a few rows give the JIT feedback for all of it.
        `  const code = (${codeOf(rows)}) * ${width};`,
        '  const b = m !== 0 ? code : trash;',
        ...blockUpdates(layout, emitted).map((l) => `  ${l}`),
        '}',
        'const kept = n - blk[trash];',
        `for (let s = 0; s < ${width}; s++) blk[trash + s] = 0;`,
        'return kept;',
      ];
    }
    return { source: lines.join('\n'), consts: b.consts, meta: layout };
  });
  const { fn, consts } = entry;
  const layout = entry.meta as BlockLayout;
  const valueSlots = distinctValueSlots(layout).map(({ slot, k }) => ({ slot, arg: args[k] as Expr }));
  const wasm = compileWasmFilteredAggregate(key, predicate, valueSlots, shapes, rows.columns, rows.sizes, layout.width);
  return {
    update: (cols, n, block, trashRow) => {
      // The same kernel in WebAssembly, when every column it reads lies in the column arena.
      if (wasm !== null) {
        const kept = wasm.update(cols, n, block);
        if (kept >= 0) return kept;
      }
      if (!entry.primed) {
        // Run a few rows into a scratch block first. Otherwise the JIT optimizes the kernel while
        // its loop runs (on-stack replacement), before the code after the loop ever ran; reaching
        // that code deoptimizes it, and the same optimized code was seen deoptimizing again on
        // every later page (about 160 deoptimizations over 10 runs of Q1 and Q6).
        entry.primed = true;
        fn(cols, Math.min(n, PRIMING_ROWS), null, runtime, consts, { block: new Float64Array(block.length), trash: trashRow });
      }
      return fn(cols, n, null, runtime, consts, { block, trash: trashRow });
    },
    ...layout,
    layout: layoutKey(layout),
  };
}

/**
 * Emits every aggregate's argument into `body` as `arg<k>`, all before the first store into the
 * block (so the JIT can keep loads from the input columns in registers: a store into a
 * Float64Array may alias any other); a repeated argument is computed once (emit reuses calls).
 */
function emitArguments(b: KernelBuilder, args: readonly (Expr | null)[], ops: readonly AggregateUpdateOp[], body: string[]): { emitted: (Emitted | null)[]; layout: BlockLayout } {
  const emitted = ops.map((op, k) => {
    const arg = args[k];
    if (op === 'count_star' || arg === null) return null;
    const r = b.emit(arg, body);
    // count(column) needs only the NULL flag: a varchar value would be decoded per row for nothing
    // (count(DISTINCT name)'s final count over sf1's 150k names: 40 ms).
    if (op === 'count' && arg.kind === 'column') {
      body.push(`const arg${k} = 0;`);
      return r;
    }
    // The value a projection would have stored: real columns hold float32.
    body.push(`const arg${k} = ${arg.type.id === 'real' ? `Math.fround(${r.v})` : r.v};`);
    return r;
  });
  const argNullable = emitted.map((r) => r !== null && r.n !== 'false');
  const argKeys = args.map((a) => {
    if (a === null) return null;
    const text = JSON.stringify(a);
    // random() twice is two values: never one slot.
    return mentionsNondeterministic(text) ? null : text;
  });
  return { emitted, layout: blockLayout(ops, argNullable, argKeys) };
}

/**
 * The statements adding a row into the block row at `b`: its count, then each slot once; `slotRef`
 * names where slot s is kept (default: the block).
 */
function blockUpdates(layout: BlockLayout, emitted: readonly (Emitted | null)[], slotRef: (slot: number) => string = (slot) => (slot === 0 ? 'blk[b]' : `blk[b + ${slot}]`)): string[] {
  const lines = [`${slotRef(0)} += 1;`];
  const done = new Set<number>([0]);
  layout.slots.forEach((slot, k) => {
    const r = emitted[k];
    if (r === null) return;
    const updates: string[] = [];
    if (slot.value >= 0 && !done.has(slot.value)) updates.push(`${slotRef(slot.value)} += arg${k};`);
    if (slot.count > 0 && !done.has(slot.count)) updates.push(`${slotRef(slot.count)} += 1;`);
    done.add(slot.value).add(slot.count);
    if (updates.length === 0) return;
    lines.push(r.n === 'false' ? updates.join(' ') : `if (!${paren(r.n)}) { ${updates.join(' ')} }`);
  });
  return lines;
}

/** Each value slot once, with an aggregate that fills it. */
function distinctValueSlots(layout: BlockLayout): { slot: number; k: number }[] {
  const seen = new Map<number, number>();
  layout.slots.forEach((s, k) => {
    if (s.value >= 0 && !seen.has(s.value)) seen.set(s.value, k);
  });
  return [...seen].map(([slot, k]) => ({ slot, k }));
}

function codeDeclarations(rows: CodeRowSource): string[] {
  return rows.columns.map((c, k) => `const kc${k} = cols[${c}].indices;`);
}

/** Horner's rule over the key digits: ((i0 * s1 + i1) * s2 + i2) ...; 0 without keys. */
function codeOf(rows: CodeRowSource): string {
  return rows.columns.reduce((code, _, k) => (k === 0 ? `kc0[i]` : `(${code}) * ${rows.sizes[k]} + kc${k}[i]`), '0');
}

function layoutKey(layout: BlockLayout): string {
  return `${layout.width}|${layout.slots.map((l) => `${l.value}:${l.count}`).join(',')}`;
}

/**
 * A group's block row: slot 0 counts its rows, then each distinct argument its value (sum, avg)
 * and, when it can be NULL, its own count of non-NULL rows. `argKeys` identify equal arguments
 * (null: never shared).
 */
function blockLayout(ops: readonly AggregateUpdateOp[], argNullable: readonly boolean[], argKeys: readonly (string | null)[]): BlockLayout {
  let width = 1;
  const byArgument = new Map<string, { value: number; count: number }>();
  const slots = ops.map((op, k): AggregateSlots => {
    if (op === 'count_star') return { value: -1, count: 0 };
    const key = argKeys[k];
    let known = key === null ? undefined : byArgument.get(key);
    if (known === undefined) {
      known = { value: -1, count: argNullable[k] ? -1 : 0 };
      if (key !== null) byArgument.set(key, known);
    }
    if (op !== 'count' && known.value < 0) known.value = width++;
    if (known.count < 0) known.count = width++;
    return { value: op === 'count' ? -1 : known.value, count: known.count };
  });
  return { width, slots };
}

const SPECULABLE_NUMERIC = new Set(['tinyint', 'smallint', 'integer', 'bigint', 'real', 'double', 'decimal', 'date']);
const SPECULABLE_ARITHMETIC = new Set(['$add', '$subtract', '$multiply', '$negate']);

/**
 * Whether an expression can be computed on any row, also one a filter rejects: NOT NULL numeric
 * columns, finite literals, and arithmetic that cannot fail (no integer overflow checks, no
 * division but of doubles).
 */
function speculationSafe(e: Expr, shapes: readonly ColumnShape[]): boolean {
  switch (e.kind) {
    case 'column': {
      const shape = shapes[e.index];
      return shape !== undefined && shape.kind === 'fixed' && !shape.nullable && SPECULABLE_NUMERIC.has(shape.type.id);
    }
    case 'literal':
      return typeof e.value === 'number' && Number.isFinite(e.value);
    case 'call': {
      const t = e.type.id;
      const floating = t === 'double' || t === 'real';
      const arithmetic = (SPECULABLE_ARITHMETIC.has(e.name) && (floating || t === 'decimal')) || (e.name === '$divide' && floating);
      return arithmetic && e.args.every((a) => SPECULABLE_NUMERIC.has(a.type.id) && a.type.id !== 'date' && speculationSafe(a, shapes));
    }
    default:
      return false;
  }
}
