// Admission control, as Trino's resource groups in their simplest form (one group, "global"): at
// most maxRunning statements hold a slot, from planning until their whole result is produced (not
// until their client has read it: a waiting client costs no CPU, and its buffered rows count
// against the memory limits); more wait QUEUED in a first-in first-out queue of at most
// maxQueued; beyond that a statement is refused. Under the limit a statement costs a counter and
// nothing else: no timer, no allocation.

import { RingQueue } from '../util/ring-queue.js';

/** Where a statement stands: not yet submitted or done with admission, waiting, or holding a slot. */
export type AdmissionSlot = 'none' | 'queued' | 'running';

export interface Admitted {
  admission: AdmissionSlot;
}

/** A queue this much longer than the statements still waiting in it is rebuilt without the withdrawn ones. */
const COMPACT_SLACK = 64;

export class Admission<T extends Admitted> {
  private running = 0;
  private queued = 0;
  /** Waiting statements, oldest first; a withdrawn one stays until it reaches the head or a compaction. */
  private readonly queue = new RingQueue<T>(64);
  private drainScheduled = false;
  private readonly drainBound = (): void => this.drain();

  constructor(
    private readonly maxRunning: number,
    private readonly maxQueued: number,
    /** Starts a statement given a slot. */
    private readonly start: (item: T) => void,
  ) {}

  get runningCount(): number {
    return this.running;
  }

  get queuedCount(): number {
    return this.queued;
  }

  /** Starts `item` when a slot is free and nobody waits, else queues it; false when the queue is full. */
  submit(item: T): boolean {
    if (this.running < this.maxRunning && this.queued === 0) {
      this.running++;
      item.admission = 'running';
      this.start(item);
      return true;
    }
    if (this.queued >= this.maxQueued) return false;
    this.queued++;
    item.admission = 'queued';
    this.queue.push(item);
    return true;
  }

  /** `item` gives up its slot (its execution is done) or leaves the queue (cancelled, abandoned). */
  release(item: T): void {
    const was = item.admission;
    item.admission = 'none';
    if (was === 'running') {
      this.running--;
      // Not in this call: it comes from inside a statement's state change, which should end before another statement starts.
      if (this.queued > 0 && !this.drainScheduled) {
        this.drainScheduled = true;
        queueMicrotask(this.drainBound);
      }
    } else if (was === 'queued') {
      this.queued--;
      if (this.queue.length > 2 * this.queued + COMPACT_SLACK) this.compact();
    }
  }

  /** Starts waiting statements, oldest first, while slots are free. */
  private drain(): void {
    this.drainScheduled = false;
    while (this.running < this.maxRunning && this.queued > 0) {
      const item = this.queue.shift();
      if (item === undefined) break;
      if (item.admission !== 'queued') continue;
      this.queued--;
      this.running++;
      item.admission = 'running';
      this.start(item);
    }
  }

  private compact(): void {
    for (let n = this.queue.length; n > 0; n--) {
      const item = this.queue.shift()!;
      if (item.admission === 'queued') this.queue.push(item);
    }
  }
}
