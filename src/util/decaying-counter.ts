// airlift's DecayCounter: a count whose events fade exponentially with a time constant, so "recent"
// needs no window bookkeeping. An event `t` ms ago weighs e^(-t / timeConstant); with a one-minute
// constant, 1000 events now read ≈ 367.9 a minute later.

/** Milliseconds since some fixed origin; injectable so tests control time. */
export type Clock = () => number;

export const ONE_MINUTE_MS = 60_000;

export interface DecayCounterOptions {
  /** The time constant τ in milliseconds (airlift's `1 / alpha` seconds); default one minute. */
  readonly timeConstantMs?: number;
  readonly clock?: Clock;
}

export class DecayCounter {
  readonly timeConstantMs: number;
  private readonly clock: Clock;
  private value = 0;
  private updatedAt: number;

  constructor(options: DecayCounterOptions = {}) {
    this.timeConstantMs = options.timeConstantMs ?? ONE_MINUTE_MS;
    if (!(this.timeConstantMs > 0)) throw new RangeError('timeConstantMs must be positive');
    this.clock = options.clock ?? Date.now;
    this.updatedAt = this.clock();
  }

  /** Adds `count` events happening now. */
  add(count = 1): void {
    this.value = this.decayedTo(this.clock()) + count;
  }

  /** The decayed count as of now. */
  get count(): number {
    return this.decayedTo(this.clock());
  }

  /** Events per second implied by the count (airlift `getRate`: count × alpha). */
  get ratePerSecond(): number {
    return this.count / (this.timeConstantMs / 1000);
  }

  reset(): void {
    this.value = 0;
    this.updatedAt = this.clock();
  }

  /** Moves the stored value forward to `now`; a clock that steps backwards is treated as no time passing. */
  private decayedTo(now: number): number {
    const elapsed = now - this.updatedAt;
    if (elapsed > 0) {
      this.value *= Math.exp(-elapsed / this.timeConstantMs);
      this.updatedAt = now;
    }
    return this.value;
  }
}
