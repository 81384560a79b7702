// The health record of this node, fed by the HTTP server (every request, every response; a 5xx
// reply or a thrown handler error is a failure). Shaped after Trino's failure-detector stats:
// decaying counters with a one-minute time constant, last request/response times, failures by type
// and the last failure.
import { DecayCounter, ONE_MINUTE_MS, type Clock } from '../util/decaying-counter.js';
import { formatDuration, isoTimestamp } from '../util/wire-format.js';

/** Trino's FailureInfo, as much of it as a node record carries. */
export interface FailureInfo {
  readonly type: string;
  readonly message: string;
  readonly stack: readonly string[];
  readonly suppressed: readonly FailureInfo[];
}

/** One entry of `GET /v1/node` (spec §2 "Node record"). */
export interface NodeRecord {
  readonly uri: string;
  readonly recentRequests: number;
  readonly recentFailures: number;
  readonly recentSuccesses: number;
  readonly recentFailureRatio: number;
  readonly lastRequestTime: string;
  readonly lastResponseTime: string;
  readonly age: string;
  readonly recentFailuresByType: Readonly<Record<string, number>>;
  readonly lastFailureInfo?: FailureInfo;
}

export interface NodeHealthOptions {
  readonly clock?: Clock;
  /** Decay time constant of every counter; default one minute. */
  readonly timeConstantMs?: number;
  /** A node whose recent failure ratio is above this counts as failed (Trino's detector: 0.1). */
  readonly failureRatioThreshold?: number;
}

export class NodeHealth {
  readonly startTime: number;
  private readonly clock: Clock;
  private readonly timeConstantMs: number;
  private readonly failureRatioThreshold: number;
  private readonly requests: DecayCounter;
  private readonly successes: DecayCounter;
  private readonly failures: DecayCounter;
  private readonly failuresByType = new Map<string, DecayCounter>();
  private lastRequest: number;
  private lastResponse: number;
  private lastFailure: FailureInfo | undefined;

  constructor(options: NodeHealthOptions = {}) {
    this.clock = options.clock ?? Date.now;
    this.timeConstantMs = options.timeConstantMs ?? ONE_MINUTE_MS;
    this.failureRatioThreshold = options.failureRatioThreshold ?? 0.1;
    const counter = { clock: this.clock, timeConstantMs: this.timeConstantMs };
    this.requests = new DecayCounter(counter);
    this.successes = new DecayCounter(counter);
    this.failures = new DecayCounter(counter);
    this.startTime = this.clock();
    this.lastRequest = this.startTime;
    this.lastResponse = this.startTime;
  }

  recordRequest(): void {
    this.requests.add(1);
    this.lastRequest = this.clock();
  }

  recordSuccess(): void {
    this.successes.add(1);
    this.lastResponse = this.clock();
  }

  /** Records a failed response; `error` is what was thrown, or a FailureInfo for a 5xx reply. */
  recordFailure(error: unknown): void {
    const info = toFailureInfo(error);
    this.failures.add(1);
    let byType = this.failuresByType.get(info.type);
    if (!byType) {
      byType = new DecayCounter({ clock: this.clock, timeConstantMs: this.timeConstantMs });
      this.failuresByType.set(info.type, byType);
    }
    byType.add(1);
    this.lastFailure = info;
    this.lastResponse = this.clock();
  }

  get recentRequests(): number {
    return this.requests.count;
  }
  get recentSuccesses(): number {
    return this.successes.count;
  }
  get recentFailures(): number {
    return this.failures.count;
  }
  /** recentFailures / recentRequests; 0 before the first request. */
  get recentFailureRatio(): number {
    const requests = this.requests.count;
    return requests > 0 ? this.failures.count / requests : 0;
  }

  /** Failed = recent failure ratio above the threshold (Trino's detector rule). */
  isFailed(): boolean {
    return this.recentFailureRatio > this.failureRatioThreshold;
  }

  snapshot(uri: string): NodeRecord {
    const byType: Record<string, number> = {};
    for (const [type, counter] of this.failuresByType) byType[type] = counter.count;
    return {
      uri,
      recentRequests: this.recentRequests,
      recentFailures: this.recentFailures,
      recentSuccesses: this.recentSuccesses,
      recentFailureRatio: this.recentFailureRatio,
      lastRequestTime: isoTimestamp(this.lastRequest),
      lastResponseTime: isoTimestamp(this.lastResponse),
      age: formatDuration(this.clock() - this.startTime),
      recentFailuresByType: byType,
      ...(this.lastFailure ? { lastFailureInfo: this.lastFailure } : {}),
    };
  }
}

/** Converts anything thrown into a FailureInfo: the class name as type, stack frames as lines. */
export function toFailureInfo(error: unknown): FailureInfo {
  if (isFailureInfo(error)) return error;
  if (error instanceof Error) {
    const frames = (error.stack ?? '')
      .split('\n')
      .slice(1)
      .map((line) => line.trim().replace(/^at /, ''))
      .filter((line) => line !== '');
    const suppressed = error instanceof AggregateError ? error.errors.map(toFailureInfo) : [];
    return { type: error.constructor.name || error.name, message: error.message, stack: frames, suppressed };
  }
  return { type: typeof error, message: String(error), stack: [], suppressed: [] };
}

function isFailureInfo(value: unknown): value is FailureInfo {
  if (typeof value !== 'object' || value === null || value instanceof Error) return false;
  const v = value as Record<string, unknown>;
  return typeof v.type === 'string' && typeof v.message === 'string' && Array.isArray(v.stack) && Array.isArray(v.suppressed);
}
