// The HTTP/1.1 conformance corpus (test/support/http-conformance-cases.ts) against our server, and
// against Node's own llhttp-based server as the independent reference: every case must answer as
// llhttp does, except where the corpus records a deliberate difference (an RFC MUST llhttp relaxes).

import http from 'node:http';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from '../src/http/router.js';
import { listen, type HttpServer } from '../src/http/server.js';
import { json } from '../src/http/types.js';
import { CONFORMANCE_CASES } from './support/http-conformance-cases.js';

/** The status line's code of what the server answered first on a fresh connection. */
function statusOf(port: number, request: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let out = '';
    socket.on('data', (d) => {
      out += d.toString('latin1');
      const m = /^HTTP\/1\.1 (\d{3}) /.exec(out);
      if (m) {
        socket.destroy();
        resolve(Number(m[1]));
      }
    });
    socket.on('error', reject);
    socket.on('close', () => resolve(0));
    socket.write(Buffer.from(request, 'latin1'));
    // HTTP/1.0 requests without keep-alive end with the reply; others carry `Connection: close`.
    setTimeout(() => socket.end(), 500);
  });
}

let ours: HttpServer;
let reference: http.Server;
let referencePort = 0;

beforeAll(async () => {
  const router = new Router();
  router.add('GET', '/hello/:name', (req) => json(200, { name: req.params.name }));
  router.add('POST', '/echo', (req) => json(200, { body: req.body.toString('latin1') }));
  ours = await listen(router, { host: '127.0.0.1', port: 0 });
  reference = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      // Node hands OPTIONS * to the handler; our router answers it 204, so the reference does too.
      res.statusCode = req.method === 'OPTIONS' ? 204 : 200;
      res.end();
    });
  });
  await new Promise<void>((resolve) => reference.listen(0, '127.0.0.1', resolve));
  referencePort = (reference.address() as net.AddressInfo).port;
});

afterAll(async () => {
  await ours?.close();
  await new Promise((resolve) => reference?.close(resolve));
});

describe('HTTP/1.1 conformance corpus', () => {
  it.each(CONFORMANCE_CASES.map((c) => [c.name, c] as const))('%s', async (_name, c) => {
    expect(await statusOf(ours.port, c.request)).toBe(c.status);
  });

  it('answers every case as llhttp does, except the recorded RFC differences', async () => {
    const differences: string[] = [];
    for (const c of CONFORMANCE_CASES) {
      const status = await statusOf(referencePort, c.request);
      const expected = c.llhttp?.status ?? c.status;
      // llhttp answers a refused request 400 whatever the reason (our 501/505 are finer).
      const agrees = status === expected || (expected >= 400 && status === 400);
      if (!agrees) differences.push(`${c.name}: llhttp ${status}, corpus says ${expected}`);
    }
    expect(differences).toEqual([]);
  });
});
