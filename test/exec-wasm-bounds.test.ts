// The wasm scan for the bounds of Int64 keys' low words: the least and greatest key when every
// key is a non-negative int32, 'other' otherwise, and the JS loop's job for columns outside the
// arena or pages of few rows.

import { afterEach, describe, expect, it } from 'vitest';
import { allocArena, createArena, installArena } from '../src/data/arena.js';
import { wasmInt64Bounds } from '../src/exec/compile/wasm-bounds.js';

afterEach(() => installArena(null));

function keys(values: readonly number[]): Int32Array {
  const pairs = allocArena(Int32Array, 2 * values.length);
  values.forEach((v, r) => {
    pairs[2 * r] = v | 0;
    pairs[2 * r + 1] = Math.floor(v / 2 ** 32);
  });
  return pairs;
}

describe('wasm Int64 key bounds', () => {
  it('finds the least and greatest key, and tells keys beyond int32 apart', () => {
    installArena(createArena());
    const values = Array.from({ length: 10_000 }, (_, i) => 1_000 + ((i * 7_919) % 50_000));
    expect(wasmInt64Bounds(keys(values), values.length)).toEqual({ min: Math.min(...values), max: Math.max(...values) });
    expect(wasmInt64Bounds(keys([...values, 2 ** 32 + 5]), values.length + 1)).toBe('other');
    expect(wasmInt64Bounds(keys([...values, -3]), values.length + 1)).toBe('other');
    expect(wasmInt64Bounds(keys([0, ...values, 2 ** 31 - 1]), values.length + 2)).toEqual({ min: 0, max: 2 ** 31 - 1 });
    expect(wasmInt64Bounds(keys(values.slice(0, 100)), 100)).toBeUndefined();
    expect(wasmInt64Bounds(new Int32Array(2 * values.length), values.length)).toBeUndefined();
  });
});
