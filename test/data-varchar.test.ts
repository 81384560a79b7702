// Varchar columns: VarcharBuilder's bytes (short ASCII copied directly, the rest through the
// encoder) and readUtf8 (one Buffer view per column's bytes) give back exactly the strings.
import { describe, expect, it } from 'vitest';
import { readUtf8, VarcharBuilder, type VarcharColumn } from '../src/data/page.js';
import { VARCHAR } from '../src/data/types.js';

const strings = ['', 'abc', 'héllo', 'x'.repeat(64), 'y'.repeat(65), 'a€b', 'plain ascii then é', '😀 outside the BMP', 'z', `${'q'.repeat(63)}é`];

describe('varchar columns', () => {
  it('are built as the UTF-8 of each string and read back exactly', () => {
    const b = new VarcharBuilder(VARCHAR, 2, 4); // small: the arrays grow on the way
    for (const s of strings) b.append(s);
    b.appendNull();
    const col = b.finish();
    expect(col.length).toBe(strings.length + 1);
    expect(Buffer.from(col.data).toString('utf8')).toBe(strings.join(''));
    strings.forEach((s, i) => {
      expect(col.offsets[i + 1] - col.offsets[i], s).toBe(Buffer.byteLength(s));
      expect(readUtf8(col, i)).toBe(s);
    });
    expect(col.validity).not.toBeNull();
  });

  it('are read through views that start anywhere in their buffer, each view its own', () => {
    const bytes = Buffer.from('hello world', 'utf8');
    const sab = new SharedArrayBuffer(64);
    const whole = new Uint8Array(sab);
    whole.set(bytes, 7);
    whole.set(Buffer.from('WORLD', 'utf8'), 30);
    const column = (data: Uint8Array, offsets: number[]): VarcharColumn => ({ kind: 'varchar', type: VARCHAR, length: offsets.length - 1, validity: null, offsets: Int32Array.from(offsets), data });
    const a = column(new Uint8Array(sab, 7, bytes.length), [0, 5, 6, 11]);
    const b = column(new Uint8Array(sab, 30, 5), [0, 5]);
    expect([readUtf8(a, 0), readUtf8(a, 1), readUtf8(a, 2)]).toEqual(['hello', ' ', 'world']);
    expect(readUtf8(b, 0)).toBe('WORLD');
    expect(readUtf8(a, 2)).toBe('world');
  });
});
