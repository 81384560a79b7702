// A minimal WebAssembly binary writer for generated kernels: one module with one exported function
// over an imported shared memory (the column arena). Only the instructions the kernels use.

export const I32 = 0x7f;
export const I64 = 0x7e;
export const F64 = 0x7c;
export const V128 = 0x7b;
export type ValueType = typeof I32 | typeof I64 | typeof F64 | typeof V128;

/** Thrown by kernel compilers for an expression they have no wasm form of. */
export class WasmUnsupported extends Error {}

/** Opcodes by name (the WebAssembly core specification's numbering). */
export const Op = {
  block: 0x02,
  loop: 0x03,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  select: 0x1b,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i64Load: 0x29,
  f64Load: 0x2b,
  i32Store: 0x36,
  i64Store: 0x37,
  f64Store: 0x39,
  i32Const: 0x41,
  f64Const: 0x44,
  i32Eqz: 0x45,
  i32Eq: 0x46,
  i32Ne: 0x47,
  i32LtS: 0x48,
  i32GtS: 0x4a,
  i32LeS: 0x4c,
  i32GeS: 0x4e,
  i32LtU: 0x49,
  i32GeU: 0x4f,
  f64Eq: 0x61,
  f64Ne: 0x62,
  f64Lt: 0x63,
  f64Gt: 0x64,
  f64Le: 0x65,
  f64Ge: 0x66,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32Popcnt: 0x69,
  i32And: 0x71,
  i32Or: 0x72,
  i32Shl: 0x74,
  i32ShrS: 0x75,
  i32ShrU: 0x76,
  i64Add: 0x7c,
  i64And: 0x83,
  i32WrapI64: 0xa7,
  i64ExtendI32S: 0xac,
  i64ReinterpretF64: 0xbd,
  f64ReinterpretI64: 0xbf,
  f64Neg: 0x9a,
  f64Add: 0xa0,
  f64Sub: 0xa1,
  f64Mul: 0xa2,
  f64Div: 0xa3,
  f64ConvertI32S: 0xb7,
  f64ConvertI32U: 0xb8,
  f64ConvertI64S: 0xb9,
} as const;

/** SIMD opcodes (after the 0xfd prefix), by name: 128-bit vectors as two f64 or four i32 lanes. */
export const Simd = {
  v128Load: 0x00,
  v128Store: 0x0b,
  v128Load64Zero: 0x5d,
  i32x4Splat: 0x11,
  f64x2Splat: 0x14,
  i64x2ExtractLane: 0x1d,
  f64x2ExtractLane: 0x21,
  i32x4Eq: 0x37,
  i32x4Ne: 0x38,
  i32x4LtS: 0x39,
  i32x4GtS: 0x3b,
  i32x4LeS: 0x3d,
  i32x4GeS: 0x3f,
  f64x2Eq: 0x47,
  f64x2Ne: 0x48,
  f64x2Lt: 0x49,
  f64x2Gt: 0x4a,
  f64x2Le: 0x4b,
  f64x2Ge: 0x4c,
  v128Not: 0x4d,
  v128And: 0x4e,
  v128Or: 0x50,
  i64x2ExtendLowI32x4S: 0xc7,
  i64x2Sub: 0xd1,
  f64x2Neg: 0xed,
  f64x2Add: 0xf0,
  f64x2Sub: 0xf1,
  f64x2Mul: 0xf2,
  f64x2Div: 0xf3,
  f64x2ConvertLowI32x4S: 0xfe,
} as const;

const SIMD_PREFIX = 0xfd;

/** The empty block type (a block or loop that leaves nothing on the stack). */
const VOID = 0x40;

function uleb(n: number, out: number[]): void {
  do {
    let byte = n & 0x7f;
    n >>>= 7;
    if (n !== 0) byte |= 0x80;
    out.push(byte);
  } while (n !== 0);
}

function sleb(n: number, out: number[]): void {
  for (;;) {
    const byte = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (byte & 0x40) === 0) || (n === -1 && (byte & 0x40) !== 0)) {
      out.push(byte);
      return;
    }
    out.push(byte | 0x80);
  }
}

/** A function body under construction: locals after the parameters, then code. */
export class FunctionBody {
  readonly code: number[] = [];
  private readonly locals: ValueType[] = [];

  constructor(readonly params: readonly ValueType[]) {}

  /** A new local of `type`; returns its index. */
  local(type: ValueType): number {
    this.locals.push(type);
    return this.params.length + this.locals.length - 1;
  }

  /** An instruction with one unsigned immediate (a local index, a branch depth). */
  private withImmediate(code: number, immediate: number): this {
    this.code.push(code);
    uleb(immediate, this.code);
    return this;
  }

  op(code: number): this {
    this.code.push(code);
    return this;
  }

  get(index: number): this {
    return this.withImmediate(Op.localGet, index);
  }

  set(index: number): this {
    return this.withImmediate(Op.localSet, index);
  }

  tee(index: number): this {
    return this.withImmediate(Op.localTee, index);
  }

  i32(value: number): this {
    this.code.push(Op.i32Const);
    sleb(value | 0, this.code);
    return this;
  }

  f64(value: number): this {
    this.code.push(Op.f64Const);
    const bytes = new Uint8Array(8);
    new DataView(bytes.buffer).setFloat64(0, value, true);
    this.code.push(...bytes);
    return this;
  }

  /** A load or store with its alignment (log2 bytes) and constant offset. */
  memory(op: number, alignLog2: number, offset = 0): this {
    this.code.push(op, alignLog2);
    uleb(offset, this.code);
    return this;
  }

  /** A SIMD instruction; `memory` gives a load's alignment (log2 bytes) and offset, `lane` a lane index. */
  simd(op: number, memory?: { align: number; offset?: number }, lane?: number): this {
    this.code.push(SIMD_PREFIX);
    uleb(op, this.code);
    if (memory !== undefined) {
      this.code.push(memory.align);
      uleb(memory.offset ?? 0, this.code);
    }
    if (lane !== undefined) this.code.push(lane);
    return this;
  }

  /** Inserts code recorded elsewhere (see `take`) at `position`: set-up hoisted before a loop. */
  insert(position: number, code: readonly number[]): void {
    this.code.splice(position, 0, ...code);
  }

  /** Removes and returns the code from `position` on. */
  take(position: number): number[] {
    return this.code.splice(position);
  }

  block(): this {
    this.code.push(Op.block, VOID);
    return this;
  }

  loop(): this {
    this.code.push(Op.loop, VOID);
    return this;
  }

  end(): this {
    this.code.push(Op.end);
    return this;
  }

  br(depth: number): this {
    return this.withImmediate(Op.br, depth);
  }

  brIf(depth: number): this {
    return this.withImmediate(Op.brIf, depth);
  }

  /** The body as the code section encodes it: its size, local declarations, code and final end. */
  encode(): number[] {
    const body: number[] = [];
    // Locals in runs of one type.
    const runs: [number, ValueType][] = [];
    for (const t of this.locals) {
      const last = runs[runs.length - 1];
      if (last !== undefined && last[1] === t) last[0]++;
      else runs.push([1, t]);
    }
    uleb(runs.length, body);
    for (const [count, type] of runs) {
      uleb(count, body);
      body.push(type);
    }
    body.push(...this.code, Op.end);
    const out: number[] = [];
    uleb(body.length, out);
    return out.concat(body);
  }
}

function section(id: number, content: number[], out: number[]): void {
  out.push(id);
  uleb(content.length, out);
  out.push(...content);
}

function name(text: string, out: number[]): void {
  const bytes = Buffer.from(text, 'utf8');
  uleb(bytes.length, out);
  out.push(...bytes);
}

/** wasm32's largest memory, in pages: an imported memory of any maximum matches this limit. */
const MAX_PAGES = 65536;

/**
 * A module importing a shared memory as `env.memory` and exporting `fn` as `kernel`, a function of
 * `fn.params` returning `results`.
 */
export function kernelModule(fn: FunctionBody, results: readonly ValueType[] = []): Uint8Array {
  const out = [0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00];
  const types: number[] = [1, 0x60];
  uleb(fn.params.length, types);
  types.push(...fn.params);
  uleb(results.length, types);
  types.push(...results);
  section(1, types, out);
  const imports: number[] = [1];
  name('env', imports);
  name('memory', imports);
  // Memory import, shared with limits (flag 3): at least 1 page, at most wasm32's maximum.
  imports.push(0x02, 0x03);
  uleb(1, imports);
  uleb(MAX_PAGES, imports);
  section(2, imports, out);
  section(3, [1, 0], out);
  const exports: number[] = [1];
  name('kernel', exports);
  exports.push(0x00, 0);
  section(7, exports, out);
  section(10, [1, ...fn.encode()], out);
  return new Uint8Array(out);
}

/** `fn` compiled (kernelModule) and instantiated over `memory`: the exported kernel function. */
export function instantiateKernel<K>(memory: WebAssembly.Memory, fn: FunctionBody, results: readonly ValueType[] = []): K {
  const instance = new WebAssembly.Instance(new WebAssembly.Module(kernelModule(fn, results)), { env: { memory } });
  return instance.exports.kernel as K;
}
