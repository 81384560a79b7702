// A task: one stage's work on this node. It owns its output buffer and the merged statistics of
// every driver it ran; TaskInfo (GET /v1/task/{id}) is rendered from it.

import { randomBytes } from 'node:crypto';
import { OutputBuffer } from '../exchange/output-buffer.js';
import { mergeOperatorStats, type OperatorStats } from '../exec/metrics.js';
import type { DriverResult } from '../exec/pipeline.js';
import type { FragmentSpec } from '../exec/specs.js';
import type { EngineError } from '../util/engine-error.js';

export type TaskState = 'PLANNED' | 'RUNNING' | 'FLUSHING' | 'FINISHED' | 'CANCELED' | 'ABORTED' | 'FAILED';

export const TERMINAL_TASK_STATES: ReadonlySet<TaskState> = new Set(['FINISHED', 'CANCELED', 'ABORTED', 'FAILED']);

/** Task instance ids: a per-process random prefix and a counter (unique, and cheap per task). */
const INSTANCE_PREFIX = randomBytes(8).toString('hex');
let instanceCounter = 0;

export class SqlTask {
  private readonly instanceNumber = instanceCounter++;
  readonly outputBuffer: OutputBuffer;
  readonly createTime = Date.now();
  state: TaskState = 'PLANNED';
  version = 0;
  startTime: number | undefined;
  endTime: number | undefined;
  lastHeartbeat = Date.now();
  totalDrivers = 0;
  queuedDrivers = 0;
  runningDrivers = 0;
  completedDrivers = 0;
  scheduledNanos = 0;
  cpuNanos = 0;
  blockedNanos = 0;
  rawInputRows = 0;
  rawInputBytes = 0;
  peakMemoryBytes = 0;
  /** Driver wall times (ms), for the pipeline's elapsed-time distribution. */
  readonly driverMillis: number[] = [];
  operatorStats: OperatorStats[] = [];
  failure: EngineError | undefined;
  noMoreSplits = false;
  /** Waiters for the next state change (created on first use). */
  private listeners: (() => void)[] | undefined;

  constructor(
    readonly taskId: string,
    readonly queryId: string,
    readonly stageId: number,
    readonly fragment: FragmentSpec,
    /** Consumers reading this task's output (more than one for a stage planned once for several uses). */
    readers = 1,
  ) {
    this.outputBuffer = new OutputBuffer('0', readers);
  }

  /** Unique per task instance; written out only when a task is reported (TaskInfo, /v1/task headers). */
  get taskInstanceId(): string {
    return `${INSTANCE_PREFIX}-${this.instanceNumber.toString(16).padStart(8, '0')}`;
  }

  get done(): boolean {
    return TERMINAL_TASK_STATES.has(this.state);
  }

  setState(state: TaskState): void {
    if (this.state === state || this.done) return;
    this.state = state;
    this.version++;
    if (state === 'RUNNING' && this.startTime === undefined) this.startTime = Date.now();
    if (TERMINAL_TASK_STATES.has(state)) {
      this.endTime = Date.now();
      if (this.startTime === undefined) this.startTime = this.endTime;
    }
    const listeners = this.listeners;
    this.listeners = undefined;
    if (listeners !== undefined) for (const l of listeners) l();
  }

  /** Resolves on the next state change. */
  onStateChange(): Promise<void> {
    return new Promise((resolve) => (this.listeners ??= []).push(resolve));
  }

  /** Folds one driver's operator statistics into the task's. */
  recordDriver(result: DriverResult): void {
    // The first driver's statistics become the task's (a driver's are its own, never used again).
    if (this.operatorStats.length === 0) this.operatorStats = [...result.stats];
    else result.stats.forEach((s, i) => mergeOperatorStats(this.operatorStats[i], s));
    this.scheduledNanos += result.wallNanos;
    this.cpuNanos += result.cpuNanos;
    this.driverMillis.push(result.wallNanos / 1e6);
    const source = result.stats[0];
    if (source) {
      this.rawInputRows += source.inputPositions;
      this.rawInputBytes += source.inputBytes;
    }
    const memory = result.stats.reduce((m, s) => Math.max(m, s.peakMemoryBytes), 0);
    this.peakMemoryBytes = Math.max(this.peakMemoryBytes, memory);
    this.version++;
  }

  /** Memory the task holds now: buffered output plus its operators' peak state. */
  memoryReservation(): number {
    return this.done ? 0 : this.outputBuffer.bufferedBytes + this.peakMemoryBytes;
  }
}
