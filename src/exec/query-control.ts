// A query's stop flag and memory budget, shared by the coordinator and every driver of the query
// through one SharedArrayBuffer. Drivers poll it between pages and long kernels between chunks
// (checkpoint), so a cancelled or failed query stops using the workers at once instead of running
// each driver to the end of its split; and a driver charges what it holds (its output so far and
// its operators' state) against the query's limit while it runs, where the coordinator only sees
// it once the driver returns (a cross join's split made gigabytes of output before that).

import { EngineError } from '../util/engine-error.js';
import { formatDataSize } from '../util/wire-format.js';

/**
 * Slots of a control array (Int32, memory in KiB: 2 TB fit). STOP is 0 while the query runs, -1
 * once the coordinator stopped it, and the KiB in use when a driver took it past its limit: the
 * other drivers then fail with the same error (whichever answer reaches the coordinator first
 * names the query's failure).
 */
const STOP = 0;
const DRIVERS_KB = 1;
const COORDINATOR_KB = 2;
const LIMIT_KB = 3;
const SLOTS = 4;

/** A query's control array (see the slots above). */
export type QueryControl = Int32Array;

export function createQueryControl(limitBytes: number): QueryControl {
  const control = new Int32Array(new SharedArrayBuffer(SLOTS * 4));
  control[LIMIT_KB] = Math.min(2 ** 31 - 1, Math.ceil(limitBytes / 1024));
  return control;
}

/** Tells every driver of the query to stop at its next checkpoint. */
export function stopQuery(control: QueryControl): void {
  Atomics.compareExchange(control, STOP, 0, -1);
}

export function queryStopped(control: QueryControl): boolean {
  return Atomics.load(control, STOP) !== 0;
}

/** Records what the coordinator holds for the query, for the drivers' checks against the limit. */
export function setCoordinatorBytes(control: QueryControl, bytes: number): void {
  Atomics.store(control, COORDINATOR_KB, Math.min(2 ** 31 - 1, Math.ceil(bytes / 1024)));
}

/** Bytes the query's running drivers hold now. */
export function driverBytes(control: QueryControl): number {
  return Atomics.load(control, DRIVERS_KB) * 1024;
}

export function memoryLimitError(limitBytes: number, usedBytes: number): EngineError {
  return new EngineError('EXCEEDED_LOCAL_MEMORY_LIMIT', `Query exceeded per-node memory limit of ${formatDataSize(limitBytes)} [Allocated: ${formatDataSize(usedBytes)}]`);
}

/** What a driver throws when its query was stopped: the coordinator, which stopped it, ignores it. */
export function queryStoppedError(): EngineError {
  return new EngineError('USER_CANCELED', 'Query was stopped');
}

/** One running driver's view of its query's control array. */
export class DriverGuard {
  /** KiB this driver added to the drivers' total (taken back by release). */
  private heldKb = 0;
  /** Bytes of output this driver finished and keeps until it returns (a worker's claimed splits). */
  private kept = 0;
  /** What the running pipeline holds now (see Pipeline.heldBytes). */
  measure: (() => number) | null = null;

  constructor(private readonly control: QueryControl) {}

  /** Throws once the query was stopped, or when what the driver holds takes the query past its limit. */
  check(): void {
    const stop = Atomics.load(this.control, STOP);
    if (stop !== 0) throw stop > 0 ? memoryLimitError(this.control[LIMIT_KB] * 1024, stop * 1024) : queryStoppedError();
    const kb = Math.ceil((this.kept + (this.measure === null ? 0 : this.measure())) / 1024);
    if (kb === this.heldKb) return;
    const grew = kb > this.heldKb;
    const drivers = Atomics.add(this.control, DRIVERS_KB, kb - this.heldKb) + kb - this.heldKb;
    this.heldKb = kb;
    const used = drivers + Atomics.load(this.control, COORDINATOR_KB);
    if (grew && used > this.control[LIMIT_KB]) {
      // The query fails; its other drivers stop at their next checkpoint.
      Atomics.compareExchange(this.control, STOP, 0, used);
      throw memoryLimitError(this.control[LIMIT_KB] * 1024, used * 1024);
    }
  }

  /** Output of a finished pipeline that this driver keeps until it returns. */
  keep(bytes: number): void {
    this.kept += bytes;
    this.measure = null;
  }

  /** The driver ended (its output now belongs to the coordinator, which accounts it). */
  release(): void {
    if (this.heldKb !== 0) Atomics.sub(this.control, DRIVERS_KB, this.heldKb);
    this.heldKb = 0;
  }
}

/** The guard of the driver running on this thread (drivers run synchronously, one at a time). */
let current: DriverGuard | null = null;

/** Runs `run` as a driver of the query `control` controls (none: unchecked), releasing what it held after. */
export function guarded<T>(control: QueryControl | undefined, run: () => T): T {
  if (control === undefined) return run();
  const outer = current;
  const guard = new DriverGuard(control);
  current = guard;
  try {
    guard.check();
    return run();
  } finally {
    guard.release();
    current = outer;
  }
}

/** The running driver's guard (null outside one), for a pipeline to register what it holds. */
export function currentGuard(): DriverGuard | null {
  return current;
}

/**
 * Throws when the running driver's query was stopped or is past its memory limit: drivers call it
 * between pages, operators and kernels between chunks of long work.
 */
export function checkpoint(): void {
  if (current !== null) current.check();
}
