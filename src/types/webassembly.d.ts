// The part of the WebAssembly JS API the engine uses (arena and wasm kernels). TypeScript declares
// it only in its DOM and web-worker libraries, and @types/node 20 not at all.

declare namespace WebAssembly {
  interface MemoryDescriptor {
    initial: number;
    maximum?: number;
    shared?: boolean;
  }
  class Memory {
    constructor(descriptor: MemoryDescriptor);
    readonly buffer: ArrayBuffer | SharedArrayBuffer;
    grow(delta: number): number;
  }
  class Module {
    constructor(bytes: Uint8Array);
  }
  type ImportValue = Memory | ((...args: number[]) => number);
  type Imports = Record<string, Record<string, ImportValue>>;
  class Instance {
    constructor(module: Module, imports?: Imports);
    readonly exports: Record<string, unknown>;
  }
  class CompileError extends Error {}
  class RuntimeError extends Error {}
}
