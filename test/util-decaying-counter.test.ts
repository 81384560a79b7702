import { describe, expect, it } from 'vitest';
import { DecayCounter, ONE_MINUTE_MS } from '../src/util/decaying-counter.js';

function manualClock(start = 1_000_000): { now: () => number; advance: (ms: number) => void } {
  let t = start;
  return { now: () => t, advance: (ms) => void (t += ms) };
}

describe('DecayCounter', () => {
  it('1000 events read about 367.9 one minute later', () => {
    const clock = manualClock();
    const counter = new DecayCounter({ clock: clock.now });
    for (let i = 0; i < 1000; i++) counter.add();
    expect(counter.count).toBe(1000);
    clock.advance(ONE_MINUTE_MS);
    expect(counter.count).toBeCloseTo(1000 * Math.exp(-1), 6); // 367.879…
    expect(Math.floor(counter.count)).toBe(367);
  });

  it('adds new events on top of the decayed value', () => {
    const clock = manualClock();
    const counter = new DecayCounter({ clock: clock.now });
    counter.add(100);
    clock.advance(30_000);
    counter.add(10);
    expect(counter.count).toBeCloseTo(100 * Math.exp(-0.5) + 10, 9);
    clock.advance(30_000);
    expect(counter.count).toBeCloseTo(100 * Math.exp(-1) + 10 * Math.exp(-0.5), 9);
  });

  it('decays the same whether read often or rarely', () => {
    const clock = manualClock();
    const often = new DecayCounter({ clock: clock.now });
    const rarely = new DecayCounter({ clock: clock.now });
    often.add(500);
    rarely.add(500);
    for (let i = 0; i < 120; i++) {
      clock.advance(1000);
      void often.count;
    }
    expect(often.count).toBeCloseTo(rarely.count, 9);
    expect(rarely.count).toBeCloseTo(500 * Math.exp(-2), 9);
  });

  it('gives the ratio of two counters fed by the same events', () => {
    const clock = manualClock();
    const requests = new DecayCounter({ clock: clock.now });
    const failures = new DecayCounter({ clock: clock.now });
    for (let i = 0; i < 100; i++) {
      requests.add();
      if (i % 4 === 0) failures.add();
      clock.advance(100);
    }
    clock.advance(ONE_MINUTE_MS);
    expect(failures.count / requests.count).toBeCloseTo(0.25, 1);
  });

  it('honours another time constant, reports a rate, resets, and ignores a clock stepping back', () => {
    const clock = manualClock();
    const counter = new DecayCounter({ clock: clock.now, timeConstantMs: 1000 });
    counter.add(60);
    expect(counter.ratePerSecond).toBeCloseTo(60, 9);
    clock.advance(1000);
    expect(counter.count).toBeCloseTo(60 * Math.exp(-1), 9);
    clock.advance(-5000);
    expect(counter.count).toBeCloseTo(60 * Math.exp(-1), 9);
    counter.reset();
    expect(counter.count).toBe(0);
    expect(() => new DecayCounter({ timeConstantMs: 0 })).toThrow(RangeError);
  });
});
