import { describe, expect, it } from 'vitest';
import { ChunkedDecoder } from '../src/http/chunked-decoder.js';
import { BadRequestHead, HeaderBlockCache, parseRequestHead } from '../src/http/request-head.js';

function refusal(text: string): number | undefined {
  try {
    parseRequestHead(text);
    return undefined;
  } catch (e) {
    if (e instanceof BadRequestHead) return e.status;
    throw e;
  }
}

describe('request head', () => {
  it('reads method, target, version, headers (lower-case names, repeats joined) and framing', () => {
    const head = parseRequestHead('POST http://h:1/v1/statement?x=1 HTTP/1.1\r\nHost: h:1\r\nX-Trino-Session: a=1\r\nx-trino-session: b=2\r\nContent-Length: 8\r\nUser-Agent:  k6 \t');
    expect(head).toMatchObject({ method: 'POST', target: 'http://h:1/v1/statement?x=1', minorVersion: 1, contentLength: 8, chunked: false, keepAlive: true, expectContinue: false });
    expect(head.headers).toEqual({ host: 'h:1', 'x-trino-session': 'a=1, b=2', 'content-length': '8', 'user-agent': 'k6' });
  });

  it('gives each head its own fields with a cache of recent header blocks, however the blocks alternate', () => {
    const cache = new HeaderBlockCache();
    const post = 'Host: h:1\r\nContent-Type: text/plain\r\nContent-Length: 8';
    const get = 'Host: h:1\r\nX-Trino-User: u';
    const other = 'Host: h:2\r\nConnection: close';
    const sequence = [post, get, post, get, other, post, other, get, get, post];
    const heads = sequence.map((block, i) => parseRequestHead(`${i % 2 ? 'GET' : 'POST'} /r${i} HTTP/1.1\r\n${block}`, cache));
    heads.forEach((head, i) => {
      expect(head.target).toBe(`/r${i}`);
      expect(head.headers).toEqual(parseRequestHead(`GET / HTTP/1.1\r\n${sequence[i]}`).headers);
      expect(head.keepAlive).toBe(sequence[i] !== other);
    });
    // A repeated block yields the very object parsed before (not parsed again).
    expect(heads[2]!.headers).toBe(heads[0]!.headers);
    expect(heads[3]!.headers).toBe(heads[1]!.headers);
  });

  it('keeps HTTP/1.1 connections open unless asked to close, HTTP/1.0 ones only when asked to keep them', () => {
    expect(parseRequestHead('GET / HTTP/1.1\r\nHost: h\r\nConnection: Close').keepAlive).toBe(false);
    expect(parseRequestHead('GET / HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade').keepAlive).toBe(true);
    expect(parseRequestHead('GET / HTTP/1.0').keepAlive).toBe(false);
    expect(parseRequestHead('GET / HTTP/1.0\r\nConnection: Keep-Alive').keepAlive).toBe(true);
  });

  it('frames chunked bodies and refuses what could be read two ways (request smuggling)', () => {
    expect(parseRequestHead('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked').chunked).toBe(true);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5')).toBe(400);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6')).toBe(400);
    expect(parseRequestHead('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 5').contentLength).toBe(5);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1')).toBe(400);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1e3')).toBe(400);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, identity')).toBe(400);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked, chunked')).toBe(400);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked')).toBe(501);
    expect(refusal('GET / HTTP/1.1\r\nHost: a\nX-Smuggled: b')).toBe(400);
    expect(refusal('GET / HTTP/1.1\r\nHost: a\rX: b')).toBe(400);
    expect(refusal('GET / HTTP/1.1\r\nHost: a\r\n folded')).toBe(400);
    expect(refusal('GET / HTTP/1.1\r\nHost: h\r\nBad Name: a')).toBe(400);
    expect(refusal('GET / HTTP/1.1\r\nHost: h\r\n: no name')).toBe(400);
    expect(refusal('GET / HTTP/1.1\r\nHost: h\r\nX: a\u0000b')).toBe(400);
  });

  it('refuses malformed request lines, other HTTP versions and unknown expectations', () => {
    expect(refusal('this is not http')).toBe(400);
    expect(refusal('GET  / HTTP/1.1')).toBe(400);
    expect(refusal('get / HTTP/1.1')).toBe(400);
    expect(refusal('GET / HTTP/2.0')).toBe(505);
    expect(refusal('GET / HTTP/1.2')).toBe(505);
    expect(refusal('POST / HTTP/1.1\r\nHost: h\r\nExpect: 200-ok')).toBe(417);
    expect(parseRequestHead('POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 3').expectContinue).toBe(true);
  });

  it('takes request targets in origin-form, absolute-form, and `*` only for OPTIONS', () => {
    expect(parseRequestHead('OPTIONS * HTTP/1.1\r\nHost: h').target).toBe('*');
    expect(parseRequestHead('GET http://h:1/a HTTP/1.1\r\nHost: h').target).toBe('http://h:1/a');
    expect(refusal('GET * HTTP/1.1\r\nHost: h')).toBe(400);
    expect(refusal('GET a/b HTTP/1.1\r\nHost: h')).toBe(400);
    expect(refusal('GET h:80 HTTP/1.1\r\nHost: h')).toBe(400);
  });

  it('wants exactly one valid Host on HTTP/1.1, and no Transfer-Encoding on HTTP/1.0 (RFC 9112 §3.2, §6.1)', () => {
    expect(parseRequestHead('GET / HTTP/1.1\r\nHost: [::1]:8080').headers.host).toBe('[::1]:8080');
    expect(parseRequestHead('GET / HTTP/1.0').headers.host).toBeUndefined();
    for (const bad of ['', 'Host: a\r\nHost: a', 'Host: ', 'Host: a b', 'Host: u@a', 'Host: a:b', 'Host: a/b']) {
      expect(refusal(`GET / HTTP/1.1${bad ? `\r\n${bad}` : ''}`), bad).toBe(400);
    }
    expect(refusal('GET / HTTP/1.0\r\nHost: a b')).toBe(400);
    expect(refusal('POST / HTTP/1.0\r\nTransfer-Encoding: chunked')).toBe(400);
    // The Host rules hold for a header block the cache has seen with another request line.
    const cache = new HeaderBlockCache();
    expect(parseRequestHead('GET / HTTP/1.0\r\nX: 1', cache).minorVersion).toBe(0);
    expect(() => parseRequestHead('GET / HTTP/1.1\r\nX: 1', cache)).toThrow(BadRequestHead);
  });
});

/** Decodes `body` fed in pieces of `step` bytes; returns the data and what followed the body. */
function decode(body: string, step: number): { data: string; rest: string } {
  const decoder = new ChunkedDecoder();
  const bytes = Buffer.from(body, 'latin1');
  let data = '';
  for (let at = 0; at < bytes.length; at += step) {
    const piece = bytes.subarray(at, Math.min(bytes.length, at + step));
    const used = decoder.feed(piece, 0, (chunk) => (data += chunk.toString('latin1')));
    if (decoder.done) return { data, rest: piece.subarray(used).toString('latin1') + bytes.subarray(at + step).toString('latin1') };
  }
  throw new Error('body did not end');
}

describe('chunked body', () => {
  const body = '5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nTrailer: x\r\n\r\nGET / HTTP/1.1';

  it('decodes chunks, extensions and trailers however the bytes arrive, and stops at the body end', () => {
    for (const step of [1, 2, 3, 7, 64]) expect(decode(body, step)).toEqual({ data: 'hello world', rest: 'GET / HTTP/1.1' });
    expect(decode('A\r\n0123456789\r\n0\r\n\r\n', 4)).toEqual({ data: '0123456789', rest: '' });
  });

  it('refuses malformed framing', () => {
    for (const bad of ['x\r\n', '5\r\nhelloXX', '5\nhello\r\n', '5\r\nhello\r\n0\r\nT: x\n\r\n', `${'f'.repeat(13)}\r\n`, `1;${'e'.repeat(5000)}`, '5 \r\nhello\r\n', '5\r\r\nhello\r\n', '5;a\x01\r\nhello\r\n', '5\r\nhello\r\n0\r\nno colon\r\n']) {
      expect(() => decode(`${bad}0\r\n\r\n`, 3), bad).toThrow(BadRequestHead);
    }
  });
});
