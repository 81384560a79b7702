import { describe, expect, it } from 'vitest';
import { formatDataSize, formatDuration, isoTimestamp, parseDataSize, parseDuration } from '../src/util/wire-format.js';

describe('formatDuration (airlift Duration.toString)', () => {
  it.each([
    [12.345, '12.35ms'],
    [1234, '1.23s'],
    [150_000, '2.50m'],
    [0.005, '5.00us'],
    [0.0008, '800.00ns'],
    [1, '1.00ms'],
    [999.99999, '1.00s'],
    [7_200_000, '2.00h'],
    [2 * 86_400_000, '2.00d'],
    [0, '0.00ns'],
  ])('%s ms → %s', (ms, text) => expect(formatDuration(ms)).toBe(text));

  it('treats negative and non-finite input as zero', () => {
    expect(formatDuration(-5)).toBe('0.00ns');
    expect(formatDuration(Number.NaN)).toBe('0.00ns');
  });
});

describe('parseDuration', () => {
  it.each([
    ['500ms', 500],
    ['2s', 2000],
    ['1m', 60_000],
    ['1.5m', 90_000],
    ['10.00us', 0.01],
    ['1h', 3_600_000],
    ['1d', 86_400_000],
    [' 3 s ', 3000],
  ])('%s → %s ms', (text, ms) => expect(parseDuration(text)).toBeCloseTo(ms, 9));

  it('round-trips what formatDuration writes', () => {
    for (const ms of [0.0008, 0.005, 12.34, 1230, 150_000]) expect(parseDuration(formatDuration(ms))).toBeCloseTo(ms, 6);
  });

  it.each(['', '5', 'ms', '5 sec', '-1s', '1x', '1.2.3s'])('rejects %j', (text) => {
    expect(() => parseDuration(text)).toThrow(RangeError);
  });
});

describe('formatDataSize (airlift DataSize.succinct)', () => {
  it.each([
    [0, '0B'],
    [123, '123B'],
    [1023, '1023B'],
    [1024, '1.00kB'],
    [1536, '1.50kB'],
    [2 * 1024 ** 2, '2.00MB'],
    [1024 ** 3, '1.00GB'],
    [1.5 * 1024 ** 4, '1.50TB'],
  ])('%s bytes → %s', (bytes, text) => expect(formatDataSize(bytes)).toBe(text));
});

describe('parseDataSize', () => {
  it.each([
    ['16MB', 16 * 1024 ** 2],
    ['1GB', 1024 ** 3],
    ['123B', 123],
    ['1.50kB', 1536],
    ['1kb', 1024],
    ['512 MB', 512 * 1024 ** 2],
  ])('%s → %s bytes', (text, bytes) => expect(parseDataSize(text)).toBe(bytes));

  it.each(['', '16', 'MB', '16 XB', '-1MB'])('rejects %j', (text) => {
    expect(() => parseDataSize(text)).toThrow(RangeError);
  });
});

describe('isoTimestamp', () => {
  it('writes ISO 8601 with milliseconds in UTC', () => {
    expect(isoTimestamp(Date.UTC(2026, 10, 21, 10, 11, 12, 345))).toBe('2026-11-21T10:11:12.345Z');
    expect(isoTimestamp(0)).toBe('1970-01-01T00:00:00.000Z');
  });
});
