// One metrics shape for every operator (a BaselineMetrics equivalent): the operator itself counts
// calls, positions, bytes and time, and task/query statistics and EXPLAIN ANALYZE read these.

import { pageBytes, type Page } from '../data/page.js';

export interface OperatorStats {
  operatorId: number;
  operatorType: string;
  addInputCalls: number;
  getOutputCalls: number;
  finishCalls: number;
  inputPositions: number;
  inputBytes: number;
  outputPositions: number;
  outputBytes: number;
  /** Nanoseconds spent in addInput / producing output / finish. */
  addInputNanos: number;
  getOutputNanos: number;
  finishNanos: number;
  peakMemoryBytes: number;
}

export function emptyOperatorStats(operatorId: number, operatorType: string): OperatorStats {
  return {
    operatorId,
    operatorType,
    addInputCalls: 0,
    getOutputCalls: 0,
    finishCalls: 0,
    inputPositions: 0,
    inputBytes: 0,
    outputPositions: 0,
    outputBytes: 0,
    addInputNanos: 0,
    getOutputNanos: 0,
    finishNanos: 0,
    peakMemoryBytes: 0,
  };
}

export function mergeOperatorStats(into: OperatorStats, from: OperatorStats): void {
  into.addInputCalls += from.addInputCalls;
  into.getOutputCalls += from.getOutputCalls;
  into.finishCalls += from.finishCalls;
  into.inputPositions += from.inputPositions;
  into.inputBytes += from.inputBytes;
  into.outputPositions += from.outputPositions;
  into.outputBytes += from.outputBytes;
  into.addInputNanos += from.addInputNanos;
  into.getOutputNanos += from.getOutputNanos;
  into.finishNanos += from.finishNanos;
  into.peakMemoryBytes = Math.max(into.peakMemoryBytes, from.peakMemoryBytes);
}

export function recordInput(stats: OperatorStats, page: Page): void {
  stats.addInputCalls++;
  stats.inputPositions += page.length;
  stats.inputBytes += pageBytes(page);
}

export function recordOutput(stats: OperatorStats, page: Page): void {
  stats.getOutputCalls++;
  stats.outputPositions += page.length;
  stats.outputBytes += pageBytes(page);
}

/** A monotonic clock in nanoseconds, for durations on one thread (not comparable across threads). */
export function nowNanos(): number {
  // performance.now() rather than process.hrtime.bigint(): no BigInt allocated per reading, and
  // operators read the clock around every page (a trivial statement reads it a dozen times).
  return Math.round(performance.now() * 1e6);
}
