// format()'s Java-formatter behaviour on values as kernels hold them (exec/compile/format-function.ts).

import { describe, expect, it } from 'vitest';
import { BIGINT, DATE, DOUBLE, TIMESTAMP, VARCHAR, decimal } from '../src/data/types.js';
import { formatValues } from '../src/exec/compile/format-function.js';

describe('format', () => {
  it('prints timestamps as LocalDateTime does: seconds and fraction only when not zero', () => {
    const ts = (text: string): number => Date.parse(`${text}Z`);
    expect(formatValues('%s', [ts('2020-05-17T10:11:12.345')], [TIMESTAMP])).toBe('2020-05-17T10:11:12.345');
    expect(formatValues('%s', [ts('2020-05-17T10:11:12.000')], [TIMESTAMP])).toBe('2020-05-17T10:11:12');
    expect(formatValues('%s', [ts('2020-05-17T10:11:00.000')], [TIMESTAMP])).toBe('2020-05-17T10:11');
  });

  it('rounds %f half up on the shortest decimal digits, as Java does', () => {
    expect(formatValues('%.2f %.2f %.0f %.1f', [1.005, 2.675, 0.5, -0.05], [DOUBLE, DOUBLE, DOUBLE, DOUBLE])).toBe('1.01 2.68 1 -0.1');
    expect(formatValues('%.3f', [1e21], [DOUBLE])).toBe('1000000000000000000000.000');
    expect(formatValues('%,.1f', [1234.5 * 100], [decimal(10, 2)])).toBe('1,234.5');
  });

  it('prints doubles with %s as Double.toString', () => {
    expect(formatValues('%s|%s|%s|%s|%s', [100, 1e7, 0.001, -0.0, Number.NaN], [DOUBLE, DOUBLE, DOUBLE, DOUBLE, DOUBLE])).toBe('100.0|1.0E7|0.001|-0.0|NaN');
  });

  it('supports relative (<) and explicit indexes, widths on %% and %n', () => {
    expect(formatValues('%s %<s %1$s%n%5%', ['a'], [VARCHAR])).toBe('a a a\n    %');
    expect(formatValues('%s', [18000], [DATE])).toBe('2019-04-14');
    expect(formatValues('%,d', [-1234567], [BIGINT])).toBe('-1,234,567');
  });
});
