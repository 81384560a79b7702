// The coordinator's history queues and live-query set: plain containers whose point is how they
// hold memory (see their files); here, that they behave as a FIFO queue and a set, across growth,
// wrap-around and removal from the middle.
import { describe, expect, it } from 'vitest';
import { RingQueue } from '../src/util/ring-queue.js';
import { DenseSet } from '../src/util/dense-set.js';

describe('RingQueue', () => {
  it('is first in, first out across wrap-around and growth', () => {
    const q = new RingQueue<number>(4);
    const reference: number[] = [];
    let next = 0;
    // A pattern of pushes and shifts that wraps the ring many times and grows it twice.
    for (let round = 0; round < 200; round++) {
      const pushes = round % 7 === 0 ? 5 : 2;
      for (let i = 0; i < pushes; i++) {
        q.push(next);
        reference.push(next++);
      }
      const shifts = round % 3 === 0 ? 2 : 1;
      for (let i = 0; i < shifts; i++) expect(q.shift()).toBe(reference.shift());
      expect(q.length).toBe(reference.length);
      expect(q.peek()).toBe(reference[0]);
    }
    while (reference.length > 0) expect(q.shift()).toBe(reference.shift());
    expect(q.length).toBe(0);
    expect(q.peek()).toBeUndefined();
    expect(q.shift()).toBeUndefined();
  });

  it('keeps its order when it grows while wrapped', () => {
    const q = new RingQueue<string>(2);
    q.push('a');
    q.push('b');
    expect(q.shift()).toBe('a');
    q.push('c'); // wraps to slot 0
    q.push('d'); // full: grows, unwrapping b, c
    q.push('e');
    expect([q.shift(), q.shift(), q.shift(), q.shift()]).toEqual(['b', 'c', 'd', 'e']);
  });
});

describe('DenseSet', () => {
  const member = (name: string) => ({ name, denseSlot: -1 });

  it('adds once, deletes from anywhere and snapshots its members', () => {
    const set = new DenseSet<ReturnType<typeof member>>();
    const [a, b, c, d] = ['a', 'b', 'c', 'd'].map(member);
    for (const m of [a, b, c, d, b]) set.add(m);
    expect(set.size).toBe(4);
    expect(set.delete(b)).toBe(true); // the last member moves into b's slot
    expect(set.delete(b)).toBe(false);
    expect(set.has(b)).toBe(false);
    expect(b.denseSlot).toBe(-1);
    expect([a, c, d].every((m) => set.has(m))).toBe(true);
    expect(set.snapshot().map((m) => m.name).sort()).toEqual(['a', 'c', 'd']);
    // Deleting while walking a snapshot visits every member once.
    const seen: string[] = [];
    for (const m of set.snapshot()) {
      seen.push(m.name);
      set.delete(m);
    }
    expect(seen.sort()).toEqual(['a', 'c', 'd']);
    expect(set.size).toBe(0);
    set.add(b);
    expect(set.snapshot()).toEqual([b]);
  });

  it('does not take a member of another set for its own', () => {
    const one = new DenseSet<ReturnType<typeof member>>();
    const other = new DenseSet<ReturnType<typeof member>>();
    const x = member('x');
    const y = member('y');
    one.add(x);
    other.add(y); // both in slot 0 of their own set
    expect(one.has(y)).toBe(false);
    expect(one.delete(y)).toBe(false);
    expect(one.size).toBe(1);
  });
});
