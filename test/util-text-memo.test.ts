// TextMemo: hands out the last text only for equal numbers and key text.
import { describe, expect, it } from 'vitest';
import { TextMemo } from '../src/util/text-memo.js';

describe('TextMemo', () => {
  it('gives the remembered text for equal values only', () => {
    const memo = new TextMemo(3);
    const v = new Float64Array([1, 2, 3, 99]);
    expect(memo.get(v, 'a')).toBeUndefined();
    expect(memo.set(v, 'a', 'text-1')).toBe('text-1');
    expect(memo.get(v, 'a')).toBe('text-1');
    // Only the first `size` numbers are the key.
    v[3] = 7;
    expect(memo.get(v, 'a')).toBe('text-1');
    expect(memo.get(v, 'b')).toBeUndefined();
    v[1] = 5;
    expect(memo.get(v, 'a')).toBeUndefined();
  });

  it('keeps its own copy of the key and never matches NaN', () => {
    const memo = new TextMemo(2);
    const v = new Float64Array([1, 2]);
    memo.set(v, '', 'x');
    v[0] = 4;
    expect(memo.get(new Float64Array([1, 2]), '')).toBe('x');
    expect(memo.get(v, '')).toBeUndefined();
    const nan = new Float64Array([Number.NaN, 1]);
    memo.set(nan, '', 'y');
    expect(memo.get(nan, '')).toBeUndefined();
  });
});
