// The query table: ids by the counter inside them, the side Map when a slot is taken, and deletes
// that only remove the very query stored (a newer one with the same id text stays).
import { describe, expect, it } from 'vitest';
import { counterOfId } from '../src/coordinator/query-manager.js';
import { QueryTable } from '../src/coordinator/query-table.js';

const item = (id: string): { id: string } => ({ id });

describe('query table', () => {
  it('reads the counter of a query id and refuses other text', () => {
    expect(counterOfId('20261121_120000_00042_abcde')).toBe(42);
    expect(counterOfId('20261121_120000_99999_abcde')).toBe(99999);
    expect(counterOfId('20261121_120000_0004x_abcde')).toBe(-1);
    expect(counterOfId('20261121_120000_00042_abcdef')).toBe(-1);
    expect(counterOfId('20261121-120000-00042-abcde')).toBe(-1);
    expect(counterOfId('')).toBe(-1);
  });

  it('stores by slot, falls back to the side map when the slot is taken, and lists everything', () => {
    const table = new QueryTable<{ id: string }>(10, (id) => (id.startsWith('q') ? Number(id.slice(1, 2)) : -1));
    const a = item('q1a');
    const b = item('q1b'); // same slot as a
    const c = item('x');
    table.set(a);
    table.set(b);
    table.set(c);
    expect(table.size).toBe(3);
    expect(table.get('q1a')).toBe(a);
    expect(table.get('q1b')).toBe(b);
    expect(table.get('x')).toBe(c);
    expect(table.get('q2')).toBeUndefined();
    expect(table.values()).toEqual([a, b, c]);
    table.delete(a);
    expect(table.get('q1a')).toBeUndefined();
    expect(table.get('q1b')).toBe(b);
    table.delete(b);
    table.delete(c);
    expect(table.size).toBe(0);
    expect(table.values()).toEqual([]);
  });

  it('deletes only the item stored under the id', () => {
    const table = new QueryTable<{ id: string }>(4, () => 0);
    const first = item('same');
    const second = item('same');
    table.set(first);
    table.set(second); // replaces the first in its slot
    table.delete(first);
    expect(table.get('same')).toBe(second);
    expect(table.size).toBe(1);
  });

  it('ignores slots outside the array', () => {
    const table = new QueryTable<{ id: string }>(2, () => 7);
    const a = item('a');
    table.set(a);
    expect(table.get('a')).toBe(a);
    table.delete(a);
    expect(table.size).toBe(0);
  });
});
