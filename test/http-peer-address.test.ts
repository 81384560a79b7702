import { describe, expect, it } from 'vitest';
import { isIPv6 } from 'node:net';
import { addressText } from '../src/http/peer-address.js';

const v6 = (...groups: number[]): Uint8Array => {
  const b = new Uint8Array(16);
  groups.forEach((g, i) => ((b[2 * i] = g >> 8), (b[2 * i + 1] = g & 0xff)));
  return b;
};

describe('addressText', () => {
  it('writes IPv4 dotted and IPv4-mapped IPv6 as its IPv4 part', () => {
    expect(addressText(new Uint8Array([127, 0, 0, 1]))).toBe('127.0.0.1');
    expect(addressText(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 10, 1, 2, 3]))).toBe('10.1.2.3');
  });

  it('writes IPv6 in RFC 5952 form: lower case, the longest zero run (first of equals, two or more) as ::', () => {
    expect(addressText(v6(0, 0, 0, 0, 0, 0, 0, 1))).toBe('::1');
    expect(addressText(v6(0, 0, 0, 0, 0, 0, 0, 0))).toBe('::');
    expect(addressText(v6(0x2001, 0xdb8, 0, 0, 0, 0, 0, 0xab))).toBe('2001:db8::ab');
    expect(addressText(v6(0x2001, 0xdb8, 0, 1, 0, 0, 0, 1))).toBe('2001:db8:0:1::1');
    expect(addressText(v6(0x2001, 0, 0, 1, 0, 0, 1, 1))).toBe('2001::1:0:0:1:1');
    expect(addressText(v6(0xfe80, 0, 0, 0, 0xabcd, 0xef01, 0x2345, 0x6789))).toBe('fe80::abcd:ef01:2345:6789');
    expect(addressText(v6(1, 0, 2, 0, 3, 0, 4, 0))).toBe('1:0:2:0:3:0:4:0');
    for (const bytes of [v6(0, 0, 0, 0, 0, 0, 0, 1), v6(0x2001, 0xdb8, 0, 1, 0, 0, 0, 1), v6(1, 0, 2, 0, 3, 0, 4, 0)]) expect(isIPv6(addressText(bytes))).toBe(true);
  });

  it('answers empty text for anything else', () => {
    expect(addressText(new Uint8Array(0))).toBe('');
    expect(addressText(new Uint8Array(7))).toBe('');
  });
});
