// Turning whatever a driver threw into an engine error.

import { describe, expect, it } from 'vitest';
import { EngineError, toEngineError } from '../src/util/engine-error.js';

describe('toEngineError', () => {
  it('keeps engine errors, names a too-long string as the query being too big, and anything else as internal', () => {
    const user = new EngineError('DIVISION_BY_ZERO', 'Division by zero');
    expect(toEngineError(user)).toBe(user);
    let tooLong: unknown;
    try {
      'x'.repeat(2 ** 30);
    } catch (e) {
      tooLong = e;
    }
    expect(tooLong).toBeInstanceOf(RangeError);
    expect(toEngineError(tooLong).errorName).toBe('GENERIC_INSUFFICIENT_RESOURCES');
    expect(toEngineError(new TypeError('x is undefined')).errorName).toBe('GENERIC_INTERNAL_ERROR');
    expect(toEngineError({ errorName: 'TYPE_MISMATCH', message: 'line 1:8: bad' }).message).toBe('line 1:8: bad');
  });
});
