// A task's output buffer: pages numbered by sequence id, read with tokens (Trino's page exchange).
// Reading token N acknowledges and frees every page below N; the same token again returns the
// same pages; a buffer with no more pages and nothing left is complete. A stage read by several
// consumers (a repeated subquery planned once) has one reader per consumer, each with its own
// tokens: a page is freed once every reader has acknowledged it (Trino's broadcast buffer).

import type { ClientSignal } from '../util/client-signal.js';
import { pageBytes, type Page } from '../data/page.js';

export type OutputBufferState = 'OPEN' | 'NO_MORE_PAGES' | 'FINISHED' | 'ABORTED';

interface Entry {
  readonly sequence: number;
  readonly page: Page;
  readonly bytes: number;
}

export interface BufferRead {
  readonly pages: readonly Page[];
  /** Sequence id of the first page returned (the requested token). */
  readonly token: number;
  /** The token to ask for next (token + pages returned). */
  readonly nextToken: number;
  /** No more pages will ever follow. */
  readonly complete: boolean;
}

/** The entries of a retired buffer: nothing, and nothing can be added (see retire). */
const NO_ENTRIES = Object.freeze([]) as unknown as Entry[];

export class OutputBuffer {
  private entries: Entry[] = [];
  /** Sequence id of entries[0]. */
  private firstSequence = 0;
  private nextSequence = 0;
  private noMorePages = false;
  private aborted = false;
  /** Per reader: the token below which it has acknowledged everything (Infinity once it is gone). */
  private readonly acknowledged: number[];
  /** Called on the next change; created on first use. */
  private waiters: (() => void)[] | undefined;
  pagesAdded = 0;
  rowsAdded = 0;
  bytesAdded = 0;
  pagesSent = 0;
  bufferedBytes = 0;
  peakBufferedBytes = 0;

  constructor(
    readonly bufferId = '0',
    readonly readers = 1,
  ) {
    this.acknowledged = new Array<number>(readers).fill(0);
  }

  get state(): OutputBufferState {
    if (this.aborted) return 'ABORTED';
    if (!this.noMorePages) return 'OPEN';
    return this.entries.length === 0 ? 'FINISHED' : 'NO_MORE_PAGES';
  }

  get bufferedPages(): number {
    return this.entries.length;
  }

  /** Sequence id the next added page gets (the Trino `masterSequenceId`). */
  get sequence(): number {
    return this.nextSequence;
  }

  get isFinished(): boolean {
    return this.noMorePages || this.aborted;
  }

  enqueue(page: Page): void {
    if (this.noMorePages || this.aborted) return;
    const bytes = pageBytes(page);
    this.entries.push({ sequence: this.nextSequence++, page, bytes });
    this.pagesAdded++;
    this.rowsAdded += page.length;
    this.bytesAdded += bytes;
    this.bufferedBytes += bytes;
    this.peakBufferedBytes = Math.max(this.peakBufferedBytes, this.bufferedBytes);
    this.wake();
  }

  setNoMorePages(): void {
    if (this.noMorePages) return;
    this.noMorePages = true;
    this.wake();
  }

  /**
   * Drops everything (consumer gone or query failed). With several readers, `reader` names the
   * one that is gone: the others read on, and the buffer aborts when none is left.
   */
  abort(reader?: number): void {
    if (reader !== undefined && this.readers > 1) {
      this.acknowledged[reader] = Infinity;
      if (this.acknowledged.some((a) => a !== Infinity)) {
        this.release();
        this.wake();
        return;
      }
    }
    this.aborted = true;
    this.entries = [];
    this.bufferedBytes = 0;
    this.wake();
  }

  /** Whether `reader` went away (or the whole buffer was aborted). */
  isAbortedFor(reader: number): boolean {
    return this.aborted || this.acknowledged[reader] === Infinity;
  }

  /** Frees pages below `token` (once every reader is past them). */
  acknowledge(token: number, reader = 0): void {
    // Only progress wakes waiters: readers of one buffer must not wake each other in a loop.
    if (token <= this.acknowledged[reader]) return;
    this.acknowledged[reader] = token;
    this.release();
    this.wake();
  }

  private release(): void {
    const upTo = this.readers === 1 ? this.acknowledged[0] : Math.min(...this.acknowledged);
    while (this.entries.length > 0 && this.entries[0].sequence < upTo) {
      const e = this.entries.shift() as Entry;
      this.bufferedBytes -= e.bytes;
      this.firstSequence = e.sequence + 1;
    }
  }

  /**
   * Pages from `token` on, up to about `maxBytes` (at least one page when any is available).
   * Tokens below the acknowledged point get an empty, non-complete answer.
   */
  read(token: number, maxBytes: number, reader = 0): BufferRead {
    this.acknowledge(token, reader);
    return this.peek(token, maxBytes);
  }

  /** What `read` returns, without acknowledging anything (an observer that is not the consumer). */
  peek(token: number, maxBytes: number): BufferRead {
    if (token < this.firstSequence) return { pages: [], token, nextToken: token, complete: false };
    const pages: Page[] = [];
    let bytes = 0;
    for (const e of this.entries) {
      if (e.sequence < token) continue;
      if (pages.length > 0 && bytes + e.bytes > maxBytes) break;
      pages.push(e.page);
      bytes += e.bytes;
    }
    const nextToken = token + pages.length;
    const complete = (this.noMorePages && nextToken >= this.nextSequence) || this.aborted;
    return { pages, token, nextToken, complete };
  }

  /** Resolves when pages are added or acknowledged, the buffer finishes, or the timeout passes. */
  waitForChange(timeoutMs: number, signal?: ClientSignal): Promise<void> {
    // Nothing can change any more: do not wait (but never resolve early while pages remain,
    // or a caller waiting for them to drain would spin).
    if (this.aborted || (this.noMorePages && this.entries.length === 0)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = (): void => {
        if (timer !== undefined) clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      // Every change wakes the waiters: a wait with no deadline needs no timer.
      const timer = Number.isFinite(timeoutMs) ? setTimeout(done, timeoutMs) : undefined;
      signal?.addEventListener('abort', done, { once: true });
      (this.waiters ??= []).push(done);
    });
  }

  /**
   * Calls `callback` once on the next change (soon, when nothing can change any more); the returned
   * function withdraws it. For a caller that also waits on other things and must not leave a waiter
   * (or a timer) behind when one of those ends the wait first.
   */
  onNextChange(callback: () => void): () => void {
    if (this.aborted || (this.noMorePages && this.entries.length === 0)) {
      queueMicrotask(callback);
      return () => undefined;
    }
    (this.waiters ??= []).push(callback);
    return () => {
      const waiters = this.waiters;
      if (waiters === undefined) return;
      const i = waiters.indexOf(callback);
      if (i >= 0) waiters.splice(i, 1);
    };
  }

  private wake(): void {
    const w = this.waiters;
    if (w === undefined) return;
    this.waiters = undefined;
    for (const f of w) f();
  }

  /**
   * A finished buffer (no more pages, or aborted) lets go of its entry list once its query is in the
   * history: nothing reads or adds pages any more, and the list's storage outlived its last page.
   */
  retire(): void {
    if (!this.isFinished || this.entries.length > 0) return;
    this.entries = NO_ENTRIES;
  }

  /**
   * Whether the producer should pause (back-pressure). A buffer with several readers never does:
   * one reader may wait for another to finish first (a probe for its build), and pausing for the
   * waiting one would deadlock both; the query's memory limit bounds it instead.
   */
  isFull(limitBytes: number): boolean {
    return this.readers === 1 && this.bufferedBytes >= limitBytes;
  }
}
