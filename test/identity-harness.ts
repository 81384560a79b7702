// Test helper (not a test file): the identity service on the real HTTP server, port 0, temp LMDB.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../src/http/router.js';
import { listen, type HttpServer } from '../src/http/server.js';
import { openIdentityService, type IdentityService } from '../src/identity/service.js';
import { registerIdentityRoutes } from '../src/identity/routes.js';

export interface Harness {
  baseUrl: string;
  svc: IdentityService;
  server: HttpServer;
  dir: string;
  close(): Promise<void>;
}

export async function startIdentity(opts: { dir?: string } = {}): Promise<Harness> {
  const dir = opts.dir ?? mkdtempSync(join(tmpdir(), 'identity-e2e-'));
  const svc = await openIdentityService({ dataDir: dir, adminUsername: 'admin', adminPassword: 'admin-pw' });
  const router = new Router();
  registerIdentityRoutes(router, svc);
  const server = await listen(router, { host: '127.0.0.1', port: 0, frontDoor: false });
  return {
    baseUrl: server.baseUrl,
    svc,
    server,
    dir,
    async close() {
      await server.close();
      await svc.close();
      if (!opts.dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}
