// Test helper (not a test file): the identity service on the real HTTP server, port 0, temp LMDB;
// admin-event counting and failure capture; a real SMTP server on loopback (smtp-server).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../src/http/router.js';
import { listen, type HttpServer } from '../src/http/server.js';
import { openIdentityService, type IdentityService } from '../src/identity/service.js';
import { registerIdentityRoutes } from '../src/identity/routes.js';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface Harness {
  baseUrl: string;
  svc: IdentityService;
  /** The routes the server serves (their table lists every method and pattern). */
  router: Router;
  server: HttpServer;
  dir: string;
  close(): Promise<void>;
}

export async function startIdentity(opts: { dir?: string } = {}): Promise<Harness> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'identity-e2e-'));
  const svc = await openIdentityService({ dataDir: dir, adminUsername: 'admin', adminPassword: 'admin-pw' });
  const router = new Router();
  registerIdentityRoutes(router, svc);
  const server = await listen(router, { host: '127.0.0.1', port: 0 });
  return {
    baseUrl: server.baseUrl,
    svc,
    router,
    server,
    dir,
    async close() {
      await server.close();
      await svc.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ── admin client ──
/** Logs in to master as the admin, creates the realm `rep` and returns a client switched to it. */
export async function adminClientFor(h: Harness, rep: Parameters<KcAdminClient['realms']['create']>[0] & { realm: string }): Promise<KcAdminClient> {
  const kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  await kc.realms.create(rep);
  kc.setConfig({ realmName: rep.realm });
  return kc;
}

// ── admin events and failures ──
export async function failure(p: Promise<unknown>): Promise<{ status: number; data: unknown }> {
  try {
    await p;
    return { status: 200, data: undefined };
  } catch (e) {
    const err = e as { response?: { status: number }; responseData?: unknown };
    return { status: err.response?.status ?? -1, data: err.responseData };
  }
}

/** Runs fn and returns the admin events of `realm` it wrote (newest first). */
export async function eventsOf(kc: KcAdminClient, realm: string, fn: () => Promise<unknown>) {
  const before = (await kc.realms.findAdminEvents({ realm, max: 100_000 })).length;
  await fn();
  const all = await kc.realms.findAdminEvents({ realm, max: 100_000 });
  return all.slice(0, all.length - before);
}

// ── SMTP on loopback ──
export interface Received {
  from: string;
  to: string[];
  data: string;
}

export interface Smtp {
  port: number;
  messages: Received[];
  /** Waits for the n-th message (1-based) to arrive. */
  waitFor(n: number): Promise<Received>;
  close(): Promise<void>;
}

export async function startSmtp(opts: { user?: string; password?: string } = {}): Promise<Smtp> {
  const messages: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.password) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    async waitFor(n) {
      for (let i = 0; i < 200 && messages.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      if (messages.length < n) throw new Error(`expected ${n} messages, got ${messages.length}`);
      return messages[n - 1]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
