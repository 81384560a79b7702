// The output buffer's token protocol with one reader and with several (a stage planned once for
// several consumers): pages are freed only when every reader is past them, a reader that goes away
// does not stop the others, and readers waiting on one buffer do not wake each other forever.

import { describe, expect, it } from 'vitest';
import { OutputBuffer } from '../src/exchange/output-buffer.js';
import { allocFixedColumn, type Page } from '../src/data/page.js';
import { INTEGER } from '../src/data/types.js';

function page(rows: number): Page {
  return { length: rows, columns: [allocFixedColumn(INTEGER, rows, false)] };
}

/** Reads everything as `reader`, waiting for the producer; returns the rows seen. */
async function drain(buffer: OutputBuffer, reader: number): Promise<number> {
  let token = 0;
  let rows = 0;
  for (;;) {
    const read = buffer.read(token, 1 << 20, reader);
    token = read.nextToken;
    for (const p of read.pages) rows += p.length;
    if (read.complete) {
      buffer.acknowledge(token, reader);
      return rows;
    }
    if (read.pages.length === 0) await buffer.waitForChange(1000);
  }
}

describe('OutputBuffer', () => {
  it('one reader: reading token N frees the pages below it, and the buffer finishes when read to the end', () => {
    const b = new OutputBuffer();
    b.enqueue(page(3));
    b.enqueue(page(4));
    b.setNoMorePages();
    expect(b.read(0, 1 << 20).pages.map((p) => p.length)).toEqual([3, 4]);
    expect(b.bufferedPages).toBe(2);
    expect(b.read(1, 1 << 20).pages.map((p) => p.length)).toEqual([4]);
    expect(b.bufferedPages).toBe(1);
    const last = b.read(2, 1 << 20);
    expect(last.complete).toBe(true);
    expect(b.state).toBe('FINISHED');
  });

  it('retire: a finished, drained buffer drops its storage and still answers as finished; others keep theirs', () => {
    const done = new OutputBuffer();
    done.enqueue(page(2));
    done.setNoMorePages();
    done.read(1, 1 << 20);
    done.retire();
    expect(done.state).toBe('FINISHED');
    expect(done.read(1, 1 << 20)).toEqual({ pages: [], token: 1, nextToken: 1, complete: true });
    done.enqueue(page(5));
    expect(done.rowsAdded).toBe(2);

    // Open, or finished with pages nobody read: retire leaves it as it is.
    const open = new OutputBuffer();
    open.enqueue(page(3));
    open.retire();
    open.enqueue(page(4));
    open.setNoMorePages();
    expect(open.read(0, 1 << 20).pages.map((p) => p.length)).toEqual([3, 4]);
    const unread = new OutputBuffer();
    unread.enqueue(page(6));
    unread.setNoMorePages();
    unread.retire();
    expect(unread.read(0, 1 << 20).pages.map((p) => p.length)).toEqual([6]);
  });

  it('two readers: a page stays until both have acknowledged it, each reads every page', () => {
    const b = new OutputBuffer('0', 2);
    b.enqueue(page(1));
    b.enqueue(page(2));
    b.setNoMorePages();
    expect(b.read(0, 1 << 20, 0).pages).toHaveLength(2);
    b.acknowledge(2, 0);
    expect(b.bufferedPages).toBe(2);
    expect(b.state).toBe('NO_MORE_PAGES');
    expect(b.read(0, 1 << 20, 1).pages.map((p) => p.length)).toEqual([1, 2]);
    b.acknowledge(1, 1);
    expect(b.bufferedPages).toBe(1);
    b.acknowledge(2, 1);
    expect(b.state).toBe('FINISHED');
  });

  it('a reader that goes away releases its hold; the buffer aborts only when no reader is left', () => {
    const b = new OutputBuffer('0', 2);
    b.enqueue(page(5));
    b.abort(0);
    expect(b.isAbortedFor(0)).toBe(true);
    expect(b.isAbortedFor(1)).toBe(false);
    expect(b.state).toBe('OPEN');
    expect(b.read(0, 1 << 20, 1).pages).toHaveLength(1);
    b.acknowledge(1, 1);
    expect(b.bufferedPages).toBe(0);
    b.abort(1);
    expect(b.state).toBe('ABORTED');
  });

  it('never applies back-pressure with several readers (one may wait for the other to finish first)', () => {
    const one = new OutputBuffer('0', 1);
    const two = new OutputBuffer('0', 2);
    for (const b of [one, two]) for (let i = 0; i < 4; i++) b.enqueue(page(1024));
    expect(one.isFull(1024)).toBe(true);
    expect(two.isFull(1024)).toBe(false);
  });

  it('readers waiting for a producer on one buffer both finish (they do not wake each other in a loop)', async () => {
    const b = new OutputBuffer('0', 2);
    const readers = Promise.all([drain(b, 0), drain(b, 1)]);
    // The producer runs on later macrotasks: two readers that woke each other through microtasks
    // would starve it and never finish.
    for (let i = 0; i < 3; i++) {
      await new Promise((r) => setTimeout(r, 5));
      b.enqueue(page(10));
    }
    setTimeout(() => b.setNoMorePages(), 5);
    expect(await readers).toEqual([30, 30]);
    expect(b.state).toBe('FINISHED');
  });

  it('onNextChange calls back once on the next page, and not at all once withdrawn', async () => {
    const b = new OutputBuffer();
    let calls = 0;
    b.onNextChange(() => calls++);
    const withdraw = b.onNextChange(() => (calls += 100));
    withdraw();
    b.enqueue(page(3));
    b.enqueue(page(3));
    expect(calls).toBe(1);
    // Nothing can change any more: the callback still comes, asynchronously.
    b.setNoMorePages();
    b.acknowledge(b.read(0, 1 << 20).nextToken);
    let late = 0;
    b.onNextChange(() => late++);
    expect(late).toBe(0);
    await Promise.resolve();
    expect(late).toBe(1);
  });
});
