// Gathering fixed-width columns that lie in the column arena by the wasm loop gives the JS loop's
// result bit for bit (doubles' NaN payloads and -0 included), for every layout it takes: doubles,
// int32 values, Int64 pairs and dictionary indices.

import { afterEach, describe, expect, it } from 'vitest';
import { allocArena, createArena, installArena } from '../src/data/arena.js';
import { type Column, type FixedColumn } from '../src/data/page.js';
import { BIGINT, DOUBLE, INTEGER, VARCHAR } from '../src/data/types.js';
import { columnFromStrings } from '../src/exec/build-columns.js';
import { setWasmKernels } from '../src/exec/compile/wasm-kernels.js';
import { wasmGather } from '../src/exec/compile/wasm-gather.js';
import { gatherColumn } from '../src/exec/gather.js';

afterEach(() => {
  installArena(null);
  setWasmKernels(true);
});

const rows = 40_000;

function arenaColumns(): Column[] {
  const doubles = allocArena(Float64Array, rows);
  const bits = new Uint32Array(doubles.buffer, doubles.byteOffset, 2 * rows);
  for (let i = 0; i < rows; i++) doubles[i] = (i * 7919) % 1000 / 7 - 60;
  doubles[3] = -0;
  // A NaN with a payload: only a copy of the bits keeps it.
  bits[2 * 5] = 0x12345;
  bits[2 * 5 + 1] = 0x7ff80000;
  const ints = allocArena(Int32Array, rows).map((_, i) => (i * 2654435761) | 0);
  const pairs = allocArena(Int32Array, 2 * rows).map((_, k) => (k % 2 === 0 ? k * 31 : k % 7) | 0);
  const indices = allocArena(Int32Array, rows).map((_, i) => i % 3);
  const fixed = (type: FixedColumn['type'], values: FixedColumn['values']): FixedColumn => ({ kind: 'fixed', type, length: rows, validity: null, values });
  return [fixed(DOUBLE, doubles), fixed(INTEGER, ints), fixed(BIGINT, pairs), { kind: 'dict', type: VARCHAR, length: rows, validity: null, indices, dictionary: columnFromStrings(VARCHAR, ['a', 'b', 'c'], 3) as never }];
}

const bytesOf = (c: Column): number[] => {
  const data = c.kind === 'fixed' ? c.values : c.kind === 'dict' ? c.indices : c.data;
  return [...new Uint8Array(data.buffer, data.byteOffset, data.byteLength)];
};

describe('wasm gather', () => {
  it('gathers doubles, int32, Int64 pairs and dictionary indices bit for bit as the JS loop does', () => {
    installArena(createArena());
    const cols = arenaColumns();
    // An odd count: the gathered values still start 8-byte aligned.
    const sel = Int32Array.from({ length: 15_001 }, (_, j) => (j * 7 + (j % 5 === 0 ? 3 : 5)) % rows);
    // The wasm loop does take these columns.
    expect(wasmGather((cols[0] as FixedColumn).values as Float64Array, 8, sel, sel.length, new Float64Array(sel.length))).toBe(true);
    for (const col of cols) {
      setWasmKernels(false);
      const js = gatherColumn(col, sel, sel.length);
      setWasmKernels(true);
      const wasm = gatherColumn(col, sel, sel.length);
      expect(bytesOf(wasm)).toEqual(bytesOf(js));
      expect(wasm.length).toBe(sel.length);
    }
  });

  it('leaves columns outside the arena and short selections to the JS loop', () => {
    installArena(createArena());
    const outside = new Float64Array(rows).fill(1.5);
    const into = new Float64Array(1000);
    expect(wasmGather(outside, 8, Int32Array.from({ length: 1000 }, (_, j) => j), 1000, into)).toBe(false);
    const inside = allocArena(Float64Array, rows).fill(2.5);
    expect(wasmGather(inside, 8, Int32Array.of(1, 2, 3), 3, into)).toBe(false);
    expect(wasmGather(inside, 8, Int32Array.from({ length: 1000 }, (_, j) => 2 * j), 1000, into)).toBe(true);
    expect(into.every((v) => v === 2.5)).toBe(true);
  });
});
