// Day numbers to civil dates in integer arithmetic (values.ts civilFromDays / yearOfDays) agree
// with JavaScript's Date (proleptic Gregorian) everywhere: every day of 1900–2100, and a sparse
// sweep over ±2,000 years around 1970 (leap centuries, negative years).

import { describe, expect, it } from 'vitest';
import { civilFromDays, yearOfDays } from '../src/data/values.js';

function viaDate(days: number): [number, number, number] {
  const d = new Date(days * 86_400_000);
  return [d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()];
}

describe('civilFromDays and yearOfDays', () => {
  it('match Date on every day from 1900 to 2100 and on a sweep of ±2,000 years', () => {
    const days = [];
    for (let d = -25_567; d <= 47_482; d++) days.push(d);
    for (let d = -800_000; d <= 800_000; d += 97) days.push(d);
    const wrong = days.filter((d) => {
      const want = viaDate(d);
      const got = civilFromDays(d);
      return got[0] !== want[0] || got[1] !== want[1] || got[2] !== want[2] || yearOfDays(d) !== want[0];
    });
    expect(wrong.slice(0, 5)).toEqual([]);
  });

  it('knows leap days and year boundaries', () => {
    expect(civilFromDays(11_016)).toEqual([2000, 2, 29]);
    expect(civilFromDays(-1)).toEqual([1969, 12, 31]);
    expect(yearOfDays(10_956)).toBe(1999);
    expect(yearOfDays(10_957)).toBe(2000);
  });
});
