// splitPages: an exchange batch shared among the pool's threads (execution.ts, stream): every
// page once, in order, in at most `parts` groups of about equal rows.

import { describe, expect, it } from 'vitest';
import { splitPages } from '../src/coordinator/execution.js';
import type { Page } from '../src/data/page.js';

const pages = (...lengths: number[]): Page[] => lengths.map((length) => ({ length, columns: [] }));
const total = (ps: readonly Page[]): number => ps.reduce((n, p) => n + p.length, 0);

describe('splitPages', () => {
  it('keeps every page once and in order', () => {
    const input = pages(7000, 3, 9000, 12000, 1, 6000, 500);
    for (const parts of [1, 2, 3, 4, 16]) {
      const groups = splitPages(input, total(input), parts);
      expect(groups.flat()).toEqual(input);
      expect(groups.length).toBeLessThanOrEqual(Math.max(1, parts));
      expect(groups.every((g) => g.length > 0)).toBe(true);
    }
  });

  it('balances rows between the groups', () => {
    const input = pages(10, 10, 10, 10, 10, 10, 10, 10);
    expect(splitPages(input, 80, 2).map(total)).toEqual([40, 40]);
    expect(splitPages(input, 80, 4).map(total)).toEqual([20, 20, 20, 20]);
    // One page, or one part: one group.
    expect(splitPages(pages(5000), 5000, 2)).toHaveLength(1);
    expect(splitPages(input, 80, 1)).toHaveLength(1);
  });
});
