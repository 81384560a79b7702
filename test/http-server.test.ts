import { createHash, randomBytes } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { Writable } from 'node:stream';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { Router } from '../src/http/router.js';
import { splitTarget } from '../src/http/request-head.js';
import { listen, type HttpServer } from '../src/http/server.js';
import { HttpError, json, noContent, text, type HttpRequest } from '../src/http/types.js';
import { NodeHealth } from '../src/coordinator/node-health.js';

const require = createRequire(import.meta.url);
// presto-client is CommonJS without types.
const presto = require('presto-client') as { Client: new (options: Record<string, unknown>) => { execute(options: Record<string, unknown>): void } };

/** Sends raw bytes on a fresh connection and returns everything the server wrote until it closed. */
function rawRequest(port: number, data: string | Buffer, timeoutMs = 2000, pieceBytes?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => (out += d.toString('latin1')));
    socket.on('close', () => resolve(out));
    socket.on('error', (e) => (out ? resolve(out) : reject(e)));
    if (pieceBytes === undefined) socket.write(data);
    else {
      const bytes = Buffer.from(data);
      const send = (at: number): void => {
        if (at >= bytes.length || socket.destroyed) return;
        socket.write(bytes.subarray(at, at + pieceBytes));
        setTimeout(() => send(at + pieceBytes), 2);
      };
      send(0);
    }
    setTimeout(() => socket.destroy(), timeoutMs);
  });
}

function parseRaw(response: string): { status: number; headers: Record<string, string>; body: string } {
  const split = response.indexOf('\r\n\r\n');
  const [statusLine, ...lines] = response.slice(0, split).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const i = line.indexOf(':');
    headers[line.slice(0, i).toLowerCase()] = line.slice(i + 1).trim();
  }
  return { status: Number(statusLine!.split(' ')[1]), headers, body: response.slice(split + 4) };
}

const seen: { lastCancel?: HttpRequest; lastCancelPeer?: string; longPollAborted: number; statementBodies: string[] } = { longPollAborted: 0, statementBodies: [] };
const logLines: string[] = [];

function testRouter(): Router {
  const router = new Router();
  router.add('GET', '/hello/:name', (req) => json(200, { name: req.params.name, query: req.query.get('q'), baseUrl: req.baseUrl, remote: req.remoteAddress, path: req.path }));
  router.add('POST', '/digest', (req) => json(200, { length: req.body.length, sha256: createHash('sha256').update(req.body).digest('hex') }));
  router.add('POST', '/echo', (req) => json(200, { length: req.body.length, sha: req.body.toString('utf8').slice(0, 40), contentType: req.headers['content-type'] ?? null }));
  router.add('DELETE', '/v1/statement/:queryId/:token', (req) => {
    seen.lastCancel = req;
    // The peer's address is read while the request is being handled (the connection may go after).
    seen.lastCancelPeer = req.remoteAddress;
    return noContent();
  });
  router.add('POST', '/v1/statement', (req) => {
    const sql = req.body.toString('utf8');
    seen.statementBodies.push(sql);
    if (sql === '') throw new HttpError(400, text(400, 'SQL statement is empty'));
    const id = sql.includes('CANCEL') ? 'q_cancel' : 'q_1';
    return json(200, { id, infoUri: `${req.baseUrl}/v1/query/${id}`, nextUri: `${req.baseUrl}/v1/statement/${id}/1`, stats: { state: 'QUEUED' } });
  });
  router.add('GET', '/v1/statement/:queryId/:token', (req) => {
    const { queryId, token } = req.params;
    const base = { id: queryId, infoUri: `${req.baseUrl}/v1/query/${queryId}` };
    if (queryId === 'q_cancel') return json(200, { ...base, nextUri: `${req.baseUrl}/v1/statement/${queryId}/${Number(token) + 1}`, stats: { state: 'RUNNING' } });
    return json(200, { ...base, columns: [{ name: 'sql', type: 'varchar' }], data: [[seen.statementBodies.at(-1)]], stats: { state: 'FINISHED' } });
  });
  router.add('GET', '/long-poll', (req) =>
    new Promise((resolve) => {
      const timer = setTimeout(() => resolve(json(200, { waited: true })), 5000);
      req.signal.addEventListener('abort', () => {
        clearTimeout(timer);
        seen.longPollAborted++;
        resolve(json(200, { aborted: true })); // must never be written
      });
    }),
  );
  router.add('GET', '/slow/:ms', async (req) => {
    await new Promise((r) => setTimeout(r, Number(req.params.ms)));
    return json(200, { slept: Number(req.params.ms) });
  });
  router.add('GET', '/http-error', () => {
    throw new HttpError(409, json(409, { error: 'Conflict', message: 'already done' }));
  });
  router.add('GET', '/boom', () => {
    throw new Error('secret internals at /etc/passwd');
  });
  router.add('GET', '/async-boom', async () => {
    await new Promise((r) => setTimeout(r, 5));
    throw new TypeError('async secret');
  });
  router.add('GET', '/unavailable', () => json(503, { error: 'Service Unavailable' }));
  router.add('GET', '/big/:n', (req) => text(200, `${req.params.n}:${'x'.repeat(256 * 1024)}`));
  router.add('GET', '/bad-header', () => ({ status: 200, headers: { 'X-Injected': 'a\r\nSet-Cookie: evil=1' }, body: 'no' }));
  router.add('GET', '/bytes', () => ({ status: 200, headers: { 'Content-Type': 'application/octet-stream', 'X-Multi': ['a', 'b'] }, body: new Uint8Array([1, 2, 3, 4]) }));
  return router;
}

describe.each([
  { reads: 'a shared read buffer', sharedReadBuffer: true },
  { reads: "'data' events", sharedReadBuffer: false },
])('HTTP server reading through $reads', ({ sharedReadBuffer }) => {
  describe('HTTP server', () => {
    let server: HttpServer;
    let base: string;
    // A clock that stands still: the counts must not decay between a test's two reads. With Date.now
    // ~116 earlier successes lost more than the one added when the clock moved ~0.5 s between them.
    const health = new NodeHealth({ clock: () => 0 });

    beforeAll(async () => {
      const capture = new Writable({ write: (chunk, _enc, done) => (logLines.push(String(chunk)), done()) });
      server = await listen(testRouter(), { host: '127.0.0.1', port: 0, sharedReadBuffer, maxBodyBytes: 64 * 1024, logger: pino({ level: 'info' }, capture), recorder: health });
      base = `http://127.0.0.1:${server.port}`;
      // The shared read buffer must really be in use on this node, not silently fallen back.
      expect(server.reads).toBe(sharedReadBuffer ? 'shared-buffer' : 'data-events');
    });
    afterAll(async () => {
      await server?.close();
    });

    it('listens on a free port and routes with decoded parameters and the query string', async () => {
      expect(server.port).toBeGreaterThan(0);
      expect(server.baseUrl).toBe(base);
      const res = await fetch(`${base}/hello/J%C3%BCrgen%20X?q=a%26b`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ name: 'Jürgen X', query: 'a&b', baseUrl: base, remote: '127.0.0.1', path: '/hello/J%C3%BCrgen%20X' });
    });

    it('takes baseUrl from the Host header', async () => {
      const res = parseRaw(await rawRequest(server.port, 'GET /hello/x HTTP/1.1\r\nHost: coordinator.example:9999\r\nConnection: close\r\n\r\n'));
      expect(JSON.parse(res.body).baseUrl).toBe('http://coordinator.example:9999');
      // An invalid Host is refused (RFC 9112 §3.2), so it never reaches a URL the server builds.
      const bad = parseRaw(await rawRequest(server.port, 'GET /hello/x HTTP/1.1\r\nHost: evil"/><script>\r\nConnection: close\r\n\r\n'));
      expect(bad.status).toBe(400);
      // HTTP/1.0 may omit Host: the listening address stands in.
      const old = parseRaw(await rawRequest(server.port, 'GET /hello/x HTTP/1.0\r\n\r\n'));
      expect(JSON.parse(old.body).baseUrl).toBe(base);
    });

    it('answers 404 and 405 with Allow, as JSON', async () => {
      const missing = await fetch(`${base}/nothing/here`);
      expect(missing.status).toBe(404);
      expect(await missing.json()).toEqual({ error: 'Not Found' });
      const wrong = await fetch(`${base}/echo`, { method: 'PUT', body: 'x' });
      expect(wrong.status).toBe(405);
      expect(wrong.headers.get('allow')).toBe('OPTIONS, POST');
      const options = await fetch(`${base}/hello/x`, { method: 'OPTIONS' });
      expect(options.status).toBe(204);
      expect(options.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    });

    it('answers HEAD from the GET handler without a body but with its length', async () => {
      const getBody = parseRaw(await rawRequest(server.port, 'GET /hello/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n')).body;
      const head = parseRaw(await rawRequest(server.port, 'HEAD /hello/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'));
      expect(head.status).toBe(200);
      expect(head.body).toBe('');
      expect(Number(head.headers['content-length'])).toBe(Buffer.byteLength(getBody));
      expect(head.headers['content-type']).toBe('application/json');
    });

    it('writes binary bodies and repeated headers; 204 has no Content-Length', async () => {
      const res = await fetch(`${base}/bytes`);
      expect(new Uint8Array(await res.arrayBuffer())).toEqual(new Uint8Array([1, 2, 3, 4]));
      expect(res.headers.get('x-multi')).toBe('a, b');
      const raw = parseRaw(await rawRequest(server.port, 'DELETE /v1/statement/q/1 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n'));
      expect(raw.status).toBe(204);
      expect(raw.headers['content-length']).toBeUndefined();
    });

    it('reads bodies whatever the Content-Type (form-urlencoded raw SQL like trino-client)', async () => {
      const sql = 'SELECT * FROM nation WHERE name = \'A&B=C\'';
      const res = await fetch(`${base}/echo`, { method: 'POST', body: sql, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(await res.json()).toEqual({ length: Buffer.byteLength(sql), sha: sql.slice(0, 40), contentType: 'application/x-www-form-urlencoded' });
      const empty = await fetch(`${base}/echo`, { method: 'POST' });
      expect((await empty.json()).length).toBe(0);
    });

    it('reads a chunked body sent on a raw socket', async () => {
      const raw = 'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n';
      const res = parseRaw(await rawRequest(server.port, raw));
      expect(res.status).toBe(200);
      expect(JSON.parse(res.body)).toMatchObject({ length: 11, sha: 'hello world', contentType: null });
    });

    it('hands a request without Content-Length or Transfer-Encoding an empty body at once, on a kept-alive connection', async () => {
      const raw = await rawRequest(server.port, 'POST /echo HTTP/1.1\r\nHost: h\r\n\r\nPOST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\nPOST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nConnection: close\r\n\r\nabc');
      const bodies = raw.split(/HTTP\/1\.1 /).slice(1).map((r) => parseRaw(`HTTP/1.1 ${r}`));
      expect(bodies.map((b) => b.status)).toEqual([200, 200, 200]);
      expect(bodies.map((b) => JSON.parse(b.body).length)).toEqual([0, 0, 3]);
    });

    it('reads a chunked body from http.request without Content-Length', async () => {
      const body = await new Promise<string>((resolve, reject) => {
        const req = http.request(`${base}/echo`, { method: 'POST' }, (res) => {
          let data = '';
          res.on('data', (d) => (data += d));
          res.on('end', () => resolve(data));
        });
        req.on('error', reject);
        expect(req.getHeader('content-length')).toBeUndefined();
        req.write('x'.repeat(20_000));
        setTimeout(() => req.end('y'.repeat(20_000)), 20);
      });
      expect(JSON.parse(body).length).toBe(40_000);
    });

    it('answers 413 for a declared oversize body without reading it, and stays healthy', async () => {
      const res = parseRaw(await rawRequest(server.port, `POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: ${10 * 1024 * 1024}\r\n\r\n${'z'.repeat(1000)}`));
      expect(res.status).toBe(413);
      expect(res.headers.connection).toBe('close');
      expect(JSON.parse(res.body).message).toMatch(/exceeds the limit of 64\.00kB/);
      expect((await fetch(`${base}/hello/again`)).status).toBe(200);
    });

    it('delivers the 413 of a declared oversize upload while the client keeps sending (lingering close, no reset)', async () => {
      const upload = (): Promise<string> =>
        new Promise((resolve) => {
          const socket = net.connect(server.port, '127.0.0.1');
          let out = '';
          socket.on('data', (d) => (out += d.toString('latin1')));
          socket.on('error', () => undefined);
          socket.on('close', () => {
            clearInterval(more);
            resolve(out);
          });
          socket.write(`POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n${'z'.repeat(200_000)}`);
          const more = setInterval(() => socket.writable && socket.write('z'.repeat(64 * 1024)), 1);
          setTimeout(() => socket.destroy(), 3000);
        });
      const statuses = new Set<number>();
      for (let k = 0; k < 25; k++) statuses.add(parseRaw(await upload()).status);
      expect([...statuses]).toEqual([413]);
    });

    it('answers 413 for a chunked body that grows past the limit', async () => {
      const chunk = 'a'.repeat(16 * 1024);
      const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
      const res = parseRaw(await rawRequest(server.port, `POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`));
      expect(res.status).toBe(413);
      const after = await fetch(`${base}/echo`, { method: 'POST', body: 'b'.repeat(60 * 1024) });
      expect((await after.json()).length).toBe(60 * 1024);
    });

    it('delivers the 413 of a chunked upload past the limit every time (the rest is drained, not reset)', async () => {
      const chunk = 'a'.repeat(16 * 1024);
      const chunks = Array.from({ length: 8 }, () => `${chunk.length.toString(16)}\r\n${chunk}\r\n`).join('');
      const statuses = new Set<number>();
      for (let k = 0; k < 60; k++) {
        statuses.add(parseRaw(await rawRequest(server.port, `POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\n\r\n`)).status);
      }
      expect([...statuses]).toEqual([413]);
    });

    it('routes an absolute-form target by its path (raw socket)', async () => {
      seen.lastCancel = undefined;
      const res = parseRaw(await rawRequest(server.port, `DELETE http://127.0.0.1:${server.port}/v1/statement/q_9/3?x=1 HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nConnection: close\r\n\r\n`));
      expect(res.status).toBe(204);
      expect(seen.lastCancel?.path).toBe('/v1/statement/q_9/3');
      expect(seen.lastCancel?.params).toEqual({ queryId: 'q_9', token: '3' });
      expect(seen.lastCancel?.query.get('x')).toBe('1');
      expect(seen.lastCancelPeer).toBe('127.0.0.1');
    });

    it('reduces absolute-form targets to their path and query', () => {
      expect(splitTarget('http://h:1')).toEqual({ path: '/', rawQuery: '' });
      expect(splitTarget('https://h?a=1')).toEqual({ path: '/', rawQuery: 'a=1' });
      expect(splitTarget('http://h:1/v1/statement/q/2?x=1&y')).toEqual({ path: '/v1/statement/q/2', rawQuery: 'x=1&y' });
      expect(splitTarget('/x?a=b?c')).toEqual({ path: '/x', rawQuery: 'a=b?c' });
    });

    it('routes absolute-form targets on every request of a keep-alive connection', async () => {
      seen.lastCancel = undefined;
      const raw = await rawRequest(
        server.port,
        `GET /hello/first HTTP/1.1\r\nHost: h\r\n\r\nDELETE http://127.0.0.1:${server.port}/v1/statement/q_keep/7 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n`,
      );
      expect(raw.match(/HTTP\/1\.1 \d{3}/g)).toEqual(['HTTP/1.1 200', 'HTTP/1.1 204']);
      expect(seen.lastCancel?.params).toEqual({ queryId: 'q_keep', token: '7' });
    });

    it('answers a request it cannot parse with 400 and headers over 16 KiB with 431, and stays healthy', async () => {
      const garbage = parseRaw(await rawRequest(server.port, 'this is not http\r\n\r\n'));
      expect(garbage.status).toBe(400);
      expect(JSON.parse(garbage.body)).toEqual({ error: 'Bad Request' });
      // A PROXY protocol header is not HTTP: a client cannot claim another address by sending one.
      const proxy = Buffer.from([0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a, 0x21, 0x11, 0x00, 0x0c, 10, 1, 2, 3, 127, 0, 0, 1, 0x04, 0xd2, 0x00, 0x50]);
      expect(parseRaw(await rawRequest(server.port, Buffer.concat([proxy, Buffer.from('GET /hello/x HTTP/1.1\r\nHost: h\r\n\r\n')]))).status).toBe(400);
      const huge = parseRaw(await rawRequest(server.port, `GET /hello/x HTTP/1.1\r\nHost: h\r\nX-Big: ${'b'.repeat(17 * 1024)}\r\n\r\n`));
      expect(huge.status).toBe(431);
      const jwtSized = await fetch(`${base}/hello/token`, { headers: { authorization: `Bearer ${'t'.repeat(12 * 1024)}` } });
      expect(jwtSized.status).toBe(200);
      expect((await fetch(`${base}/hello/again`)).status).toBe(200);
    });

    it('answers pipelined requests in order, each after the one before', async () => {
      const raw = await rawRequest(server.port, 'GET /slow/30 HTTP/1.1\r\nHost: h\r\n\r\nPOST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nabGET /hello/third HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
      const replies = raw.split(/(?=HTTP\/1\.1 )/).map((r) => parseRaw(r));
      expect(replies.map((r) => JSON.parse(r.body))).toEqual([{ slept: 30 }, { length: 2, sha: 'ab', contentType: null }, expect.objectContaining({ name: 'third' })]);
      expect(replies.map((r) => r.headers.connection)).toEqual(['keep-alive', 'keep-alive', 'close']);
    });

    it('answers thousands of pipelined requests whose handlers answer at once, in order', async () => {
      // Replies written during dispatch: the parse loop goes on with the next request (no nesting
      // per request), and waits for 'drain' when the client reads its replies slower than they come.
      const count = 3000;
      const requests = Array.from({ length: count }, (_, i) => `GET /hello/n${i} HTTP/1.1\r\nHost: h\r\n${i === count - 1 ? 'Connection: close\r\n' : ''}\r\n`).join('');
      const raw = await rawRequest(server.port, requests, 10_000);
      const names = raw
        .split(/(?=HTTP\/1\.1 )/)
        .map((r) => (JSON.parse(parseRaw(r).body) as { name: string }).name);
      expect(names).toEqual(Array.from({ length: count }, (_, i) => `n${i}`));
    });

    it('reads requests however their bytes are split across packets', async () => {
      const requests =
        'GET /hello/a HTTP/1.1\r\nHost: h\r\n\r\n' +
        'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello' +
        'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n2;x=y\r\nde\r\n0\r\nT: 1\r\n\r\n' +
        'GET /hello/b HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n';
      for (const size of [1, 2, 5, 13, 64]) {
        const out = await new Promise<string>((resolve) => {
          const socket = net.connect(server.port, '127.0.0.1');
          socket.setNoDelay(true);
          let got = '';
          socket.on('data', (d) => (got += d.toString('latin1')));
          socket.on('close', () => resolve(got));
          let at = 0;
          const send = (): void => {
            if (at >= requests.length) return;
            socket.write(requests.slice(at, (at += size)));
            setImmediate(send);
          };
          send();
        });
        const replies = out.split(/(?=HTTP\/1\.1 )/).map((r) => JSON.parse(parseRaw(r).body) as Record<string, unknown>);
        expect(replies, `pieces of ${size} bytes`).toEqual([
          expect.objectContaining({ name: 'a' }),
          { length: 5, sha: 'hello', contentType: null },
          { length: 5, sha: 'abcde', contentType: null },
          expect.objectContaining({ name: 'b' }),
        ]);
      }
    });

    it('keeps every byte of large bodies arriving in pieces on several connections at a time, pipelined and chunked', async () => {
      // With a shared read buffer, any byte kept by reference instead of copied is overwritten by
      // the next read, of this connection or another one.
      const digest = (b: Buffer): string => createHash('sha256').update(b).digest('hex');
      const client = async (seed: number): Promise<void> => {
        const bodies = [randomBytes(60_000 + seed), randomBytes(7 + seed), randomBytes(50_000)];
        const chunked = bodies[2]!;
        const wire = Buffer.concat([
          Buffer.from(`POST /digest HTTP/1.1\r\nHost: h\r\nContent-Length: ${bodies[0]!.length}\r\n\r\n`),
          bodies[0]!,
          Buffer.from(`POST /digest HTTP/1.1\r\nHost: h\r\nContent-Length: ${bodies[1]!.length}\r\n\r\n`),
          bodies[1]!,
          Buffer.from(`POST /digest HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`),
          Buffer.from(`${(30_000).toString(16)}\r\n`),
          chunked.subarray(0, 30_000),
          Buffer.from(`\r\n${(20_000).toString(16)}\r\n`),
          chunked.subarray(30_000),
          Buffer.from('\r\n0\r\n\r\n'),
        ]);
        // Under the server's 64 KiB body limit, and sent in pieces (with pauses) so that bodies
        // span several reads, whose buffer other connections' reads reuse in between.
        const replies = (await rawRequest(server.port, wire, 5000, 20_000 + seed * 1000)).split(/(?=HTTP\/1\.1 )/).map((r) => JSON.parse(parseRaw(r).body) as unknown);
        expect(replies).toEqual(bodies.map((b) => ({ length: b.length, sha256: digest(b) })));
      };
      await Promise.all([1, 2, 3, 4].map(client));
    });

    it('answers pipelined requests of a client that reads its replies late, all of them in order', async () => {
      const count = 40;
      const requests = Array.from({ length: count }, (_, i) => `GET /big/${i} HTTP/1.1\r\nHost: h\r\n${i === count - 1 ? 'Connection: close\r\n' : ''}\r\n`).join('');
      const out = await new Promise<Buffer>((resolve) => {
        const socket = net.connect(server.port, '127.0.0.1');
        const chunks: Buffer[] = [];
        socket.pause();
        socket.on('data', (d: Buffer) => chunks.push(d));
        socket.on('close', () => resolve(Buffer.concat(chunks)));
        socket.write(requests);
        // 40 replies of 256 KiB are far more than the socket buffers hold: the server must wait.
        setTimeout(() => socket.resume(), 300);
      });
      const text = out.toString('latin1');
      const bodies = text.split(/HTTP\/1\.1 200 OK\r\n/).slice(1).map((r) => parseRaw(`HTTP/1.1 200 OK\r\n${r}`).body);
      expect(bodies.map((b) => b.slice(0, b.indexOf(':')))).toEqual(Array.from({ length: count }, (_, i) => String(i)));
      expect(bodies.every((b) => b.length === b.indexOf(':') + 1 + 256 * 1024)).toBe(true);
    });

    it('sends 100 Continue to a client that expects it before its body', async () => {
      const out = await new Promise<string>((resolve) => {
        const socket = net.connect(server.port, '127.0.0.1');
        let got = '';
        socket.on('data', (d) => {
          got += d.toString('latin1');
          if (got === 'HTTP/1.1 100 Continue\r\n\r\n') socket.write('hello');
        });
        socket.on('close', () => resolve(got));
        socket.write('POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n');
      });
      expect(out.startsWith('HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n')).toBe(true);
      expect(JSON.parse(parseRaw(out.slice(25)).body)).toMatchObject({ length: 5, sha: 'hello' });
    });

    it('closes an HTTP/1.0 connection after its reply unless asked to keep it, and refuses other versions with 505', async () => {
      const plain = parseRaw(await rawRequest(server.port, 'GET /hello/old HTTP/1.0\r\n\r\n'));
      expect([plain.status, plain.headers.connection]).toEqual([200, 'close']);
      const kept = await rawRequest(server.port, 'GET /hello/a HTTP/1.0\r\nConnection: keep-alive\r\n\r\nGET /hello/b HTTP/1.0\r\n\r\n');
      expect(kept.match(/HTTP\/1\.1 200/g)).toHaveLength(2);
      const h2 = parseRaw(await rawRequest(server.port, 'GET /hello/x HTTP/2.0\r\nHost: h\r\n\r\n'));
      expect([h2.status, h2.headers.connection]).toEqual([505, 'close']);
      const smuggle = parseRaw(await rawRequest(server.port, 'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'));
      expect(smuggle.status).toBe(400);
    });

    it('answers 500 instead of writing a reply header that would split the response', async () => {
      const raw = await rawRequest(server.port, 'GET /bad-header HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n');
      expect(parseRaw(raw).status).toBe(500);
      expect(raw).not.toMatch(/evil/);
      expect(logLines.some((line) => line.includes('reply has an invalid header'))).toBe(true);
    });

    it('joins repeated request headers with ", "', async () => {
      const router = new Router();
      router.add('GET', '/h', (req) => json(200, { session: req.headers['x-trino-session'] }));
      const s = await listen(router, { host: '127.0.0.1', port: 0, sharedReadBuffer });
      const res = parseRaw(await rawRequest(s.port, 'GET /h HTTP/1.1\r\nHost: h\r\nX-Trino-Session: a=1\r\nX-Trino-Session: b=2\r\nConnection: close\r\n\r\n'));
      expect(JSON.parse(res.body)).toEqual({ session: 'a=1, b=2' });
      await s.close();
    });

    it("reads each request's own header fields on a kept-alive connection (the same fields again, then changed ones)", async () => {
      const router = new Router();
      router.add('POST', '/h/:n', (req) => json(200, { n: req.params.n, user: req.headers['x-trino-user'], body: req.body.toString('utf8') }));
      const s = await listen(router, { host: '127.0.0.1', port: 0, sharedReadBuffer });
      const post = (n: number, user: string, body: string, close = false): string =>
        `POST /h/${n} HTTP/1.1\r\nHost: h\r\nX-Trino-User: ${user}\r\nContent-Length: ${body.length}\r\n${close ? 'Connection: close\r\n' : ''}\r\n${body}`;
      const raw = await rawRequest(s.port, post(1, 'ann', 'ab') + post(2, 'ann', 'cd') + post(3, 'bob', 'efg') + post(4, 'bob', 'efg', true));
      const replies = raw.split(/(?=HTTP\/1\.1 )/).map((r) => parseRaw(r));
      expect(replies.map((r) => JSON.parse(r.body))).toEqual([
        { n: '1', user: 'ann', body: 'ab' },
        { n: '2', user: 'ann', body: 'cd' },
        { n: '3', user: 'bob', body: 'efg' },
        { n: '4', user: 'bob', body: 'efg' },
      ]);
      expect(replies.map((r) => r.headers.connection)).toEqual(['keep-alive', 'keep-alive', 'keep-alive', 'close']);
      await s.close();
    });

    it('serves presto-client: chunked POST without Content-Type, polling, and cancel by absolute-form DELETE', async () => {
      const client = new presto.Client({ host: '127.0.0.1', port: server.port, user: 'tester', catalog: 'tpch', schema: 'tiny', checkInterval: 10 });
      const rows = await new Promise<unknown[]>((resolve, reject) => {
        const collected: unknown[] = [];
        client.execute({
          query: 'SELECT name FROM nation',
          data: (_e: unknown, data: unknown[]) => collected.push(...data),
          success: () => resolve(collected),
          error: (e: unknown) => reject(new Error(JSON.stringify(e))),
        });
      });
      expect(rows).toEqual([['SELECT name FROM nation']]);

      seen.lastCancel = undefined;
      let polls = 0;
      const outcome = await new Promise<unknown>((resolve) => {
        client.execute({
          query: 'SELECT CANCEL',
          cancel: () => ++polls > 2,
          success: () => resolve('finished?'),
          error: (e: unknown) => resolve(e),
        });
      });
      expect(outcome).toEqual({ message: 'query fetch canceled by operation' });
      expect(seen.lastCancel?.params.queryId).toBe('q_cancel');
    });

    it('aborts the signal of a long poll whose client disconnects, without crashing', async () => {
      const before = seen.longPollAborted;
      const req = http.get(`${base}/long-poll`);
      req.on('error', () => {});
      await new Promise((r) => setTimeout(r, 100));
      req.destroy();
      await expect.poll(() => seen.longPollAborted, { timeout: 2000 }).toBe(before + 1);
      expect((await fetch(`${base}/hello/alive`)).status).toBe(200);
      expect(server.inFlight()).toBe(0);
    });

    it('maps HttpError to its reply and other errors to a logged 500 without details', async () => {
      const conflict = await fetch(`${base}/http-error`);
      expect(conflict.status).toBe(409);
      expect(await conflict.json()).toEqual({ error: 'Conflict', message: 'already done' });

      const failuresBefore = health.recentFailures;
      for (const path of ['/boom', '/async-boom']) {
        const res = await fetch(`${base}${path}`);
        expect(res.status).toBe(500);
        const body = await res.text();
        expect(JSON.parse(body)).toEqual({ error: 'Internal Server Error' });
        expect(body).not.toMatch(/secret|at |passwd/);
      }
      expect(logLines.some((line) => line.includes('secret internals') && line.includes('request handler failed'))).toBe(true);
      expect(health.recentFailures).toBeGreaterThan(failuresBefore + 1.9);
      expect(health.snapshot('x').recentFailuresByType).toHaveProperty('TypeError');
    });

    it('counts 5xx replies as failures and others as successes', async () => {
      const failures = health.recentFailures;
      const successes = health.recentSuccesses;
      await (await fetch(`${base}/unavailable`)).text();
      await (await fetch(`${base}/nothing`)).text();
      expect(health.recentFailures).toBeGreaterThan(failures + 0.99);
      expect(health.recentSuccesses).toBeGreaterThan(successes + 0.99);
    });

    it('serves 200 concurrent requests', async () => {
      const results = await Promise.all(Array.from({ length: 200 }, (_, i) => fetch(`${base}/hello/n${i}`).then((r) => r.json() as Promise<{ name: string }>)));
      expect(results.map((r) => r.name)).toEqual(Array.from({ length: 200 }, (_, i) => `n${i}`));
    });
  });

  describe('connection timeouts', () => {
    let server: HttpServer;
    beforeAll(async () => {
      server = await listen(testRouter(), { host: '127.0.0.1', port: 0, sharedReadBuffer, timeouts: { keepAliveMs: 300, headersMs: 400, requestMs: 800 } });
    });
    afterAll(async () => {
      await server?.close();
    });

    /** Writes `data` and returns what came back and when the server closed the connection. */
    const stalled = (data: string): Promise<{ out: string; closedAfterMs: number }> =>
      new Promise((resolve) => {
        const started = Date.now();
        const socket = net.connect(server.port, '127.0.0.1');
        let out = '';
        socket.on('data', (d) => (out += d.toString('latin1')));
        socket.on('error', () => undefined);
        socket.on('close', () => resolve({ out, closedAfterMs: Date.now() - started }));
        socket.write(data);
      });

    it('closes an idle keep-alive connection', async () => {
      const { out, closedAfterMs } = await stalled('GET /hello/x HTTP/1.1\r\nHost: h\r\n\r\n');
      expect(parseRaw(out).status).toBe(200);
      expect(closedAfterMs).toBeGreaterThanOrEqual(250);
      expect(closedAfterMs).toBeLessThan(3000);
    });

    it('answers 408 to a request head that does not arrive in time (slow loris) and to a body that does not', async () => {
      const head = await stalled('GET /hello/x HTTP/1.1\r\nHost: h\r\nX-Slow: ');
      expect([parseRaw(head.out).status, parseRaw(head.out).headers.connection]).toEqual([408, 'close']);
      const body = await stalled('POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc');
      expect(parseRaw(body.out).status).toBe(408);
      expect(body.closedAfterMs).toBeGreaterThanOrEqual(700);
    });
  });
});

describe('graceful close', () => {
  it('finishes in-flight requests, then refuses connections', async () => {
    const server = await listen(testRouter(), { host: '127.0.0.1', port: 0 });
    const base = `http://127.0.0.1:${server.port}`;
    const slow = fetch(`${base}/slow/300`).then(async (r) => ({ status: r.status, body: await r.json(), connection: r.headers.get('connection') }));
    // Until the request is in the handler (a fixed 50 ms wait was too short for fetch's first
    // request of a busy test run).
    for (const deadline = Date.now() + 5000; server.inFlight() === 0 && Date.now() < deadline; ) await new Promise((r) => setTimeout(r, 5));
    expect(server.inFlight()).toBe(1);
    const started = Date.now();
    await server.close();
    expect(Date.now() - started).toBeGreaterThanOrEqual(150);
    expect(await slow).toEqual({ status: 200, body: { slept: 300 }, connection: 'close' });
    await expect(fetch(`${base}/hello/x`)).rejects.toThrow();
    await server.close(); // idempotent
  });

  it('gives up waiting after the timeout', async () => {
    const server = await listen(testRouter(), { host: '127.0.0.1', port: 0 });
    const pending = fetch(`http://127.0.0.1:${server.port}/slow/3000`).catch((e: unknown) => e);
    await new Promise((r) => setTimeout(r, 50));
    const started = Date.now();
    await server.close(200);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(await pending).toBeInstanceOf(Error);
  });

  it('reports an IPv6 client address and base URL', async () => {
    const router = new Router();
    router.add('GET', '/ip', (req) => json(200, { ip: req.remoteAddress, baseUrl: req.baseUrl }));
    const server = await listen(router, { host: '::1', port: 0 }).catch(() => undefined);
    if (!server) return; // no IPv6 loopback here
    expect(server.baseUrl).toBe(`http://[::1]:${server.port}`);
    expect(await (await fetch(`http://[::1]:${server.port}/ip`)).json()).toEqual({ ip: '::1', baseUrl: `http://[::1]:${server.port}` });
    await server.close();
  });

  it('fails to listen on a port in use with a clear error', async () => {
    const first = await listen(testRouter(), { host: '127.0.0.1', port: 0 });
    await expect(listen(testRouter(), { host: '127.0.0.1', port: first.port })).rejects.toThrow(/EADDRINUSE|in use/);
    await first.close();
  });
});

describe('HTTP server with an external URL', () => {
  it('builds every request\'s baseUrl on it, whatever the Host header says', async () => {
    const router = new Router();
    router.add('GET', '/hello/:name', (req) => json(200, { baseUrl: req.baseUrl }));
    const server = await listen(router, { host: '127.0.0.1', port: 0, externalUrl: 'https://sql.example.com/trino' });
    try {
      expect(server.baseUrl).toBe('https://sql.example.com/trino');
      const res = parseRaw(await rawRequest(server.port, 'GET /hello/x HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n'));
      expect(JSON.parse(res.body).baseUrl).toBe('https://sql.example.com/trino');
    } finally {
      await server.close();
    }
  });
});
