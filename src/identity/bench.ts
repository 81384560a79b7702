// Identity throughput on this machine: durable user creations/s, user reads/s and token grants/s
// through the real HTTP server (node dist/identity/bench.js). The load generator (autocannon,
// a dev dependency) runs in its own worker thread so server and client share the cores fairly.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Router } from '../http/router.js';
import { listen } from '../http/server.js';
import { openIdentityService } from './service.js';
import { registerIdentityRoutes } from './routes.js';

type Autocannon = (opts: Record<string, unknown>) => Promise<{ requests: { average: number; total: number }; non2xx: number; errors: number; latency: { p99: number } }>;

async function main(): Promise<void> {
  const seconds = Number(process.env.BENCH_SECONDS ?? 5);
  const autocannon = ((await import('autocannon' as string)) as { default: Autocannon }).default;
  const dir = mkdtempSync(join(tmpdir(), 'identity-bench-'));
  const svc = await openIdentityService({ dataDir: dir, adminUsername: 'admin', adminPassword: 'bench-pw' });
  const router = new Router();
  registerIdentityRoutes(router, svc);
  const server = await listen(router, { host: '127.0.0.1', port: 0 });
  const base = server.baseUrl;
  const tok = async (body: string) =>
    ((await (await fetch(`${base}/realms/master/protocol/openid-connect/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body })).json()) as { access_token: string }).access_token;
  const token = await tok('grant_type=password&client_id=admin-cli&username=admin&password=bench-pw');
  const auth = { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' };
  const results: Record<string, unknown> = {};

  const create = await autocannon({
    url: `${base}/admin/realms/master/users`,
    connections: 128,
    duration: seconds,
    workers: 1,
    method: 'POST',
    headers: auth,
    idReplacement: true,
    body: '{"username":"bench-[<id>]","enabled":true}',
  });
  results['durable user creations/s'] = Math.round(create.requests.average);
  results['creations non-2xx'] = create.non2xx;

  const some = (await (await fetch(`${base}/admin/realms/master/users?max=1&first=5`, { headers: auth })).json()) as Array<{ id: string }>;
  const read = await autocannon({ url: `${base}/admin/realms/master/users/${some[0]!.id}`, connections: 64, duration: seconds, workers: 1, headers: auth });
  results['user reads/s'] = Math.round(read.requests.average);
  results['reads non-2xx'] = read.non2xx;

  await fetch(`${base}/admin/realms/master/clients`, { method: 'POST', headers: auth, body: JSON.stringify({ clientId: 'bench-svc', secret: 'bench-secret', serviceAccountsEnabled: true }) });
  const grants = (form: string) =>
    autocannon({
      url: `${base}/realms/master/protocol/openid-connect/token`,
      connections: 32,
      duration: seconds,
      workers: 1,
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: form,
    });
  const cc = await grants('grant_type=client_credentials&client_id=bench-svc&client_secret=bench-secret');
  results['token grants/s (client_credentials)'] = Math.round(cc.requests.average);
  const pw = await grants('grant_type=password&client_id=admin-cli&username=admin&password=bench-pw');
  results['token grants/s (password, verified-hash cache warm)'] = Math.round(pw.requests.average);
  console.log(JSON.stringify(results, null, 2));
  await server.close();
  await svc.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
