// The SQL face guarded by the identity service, through the real server: authentication on every
// /v1 route (Basic against the SQL realm's users, bearer tokens it issued), the built-in access
// rules and a Trino rules file, query visibility, impersonation, internal task routes, the real
// clients (trino-client, presto-client, @keycloak/keycloak-admin-client), and HTTPS.

import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import https from 'node:https';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { SignJWT, generateKeyPair } from 'jose';
import { BasicAuth, Trino } from 'trino-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../src/http/tls.js';
import { sign } from '../src/identity/oidc/tokens.js';
import { startServer, type StatementAnswer, type TestServer } from './support/server.js';

const require = createRequire(import.meta.url);
// presto-client is CommonJS without types.
const presto = require('presto-client') as { Client: new (options: Record<string, unknown>) => { execute(options: Record<string, unknown>): void } };

const ADMIN_PW = 'admin-pw';
const SECRET = 'internal-secret-for-tests-0123456789';
const basic = (user: string, password: string): string => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;

interface Outcome {
  readonly id: string;
  readonly rows: unknown[][];
  readonly error: StatementAnswer['error'];
  readonly nextUri?: string;
}

/** POSTs a statement with `headers` and follows nextUri with the same headers. */
async function statement(baseUrl: string, sql: string, headers: Record<string, string>): Promise<Outcome> {
  const h = { 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny', ...headers };
  const post = await fetch(`${baseUrl}/v1/statement`, { method: 'POST', body: sql, headers: h });
  if (post.status !== 200) throw new Error(`POST answered ${post.status}: ${await post.text()}`);
  let answer = (await post.json()) as StatementAnswer;
  const rows: unknown[][] = [];
  while (answer.nextUri) {
    const res = await fetch(answer.nextUri, { headers: h });
    if (res.status !== 200) throw new Error(`GET ${answer.nextUri} answered ${res.status}`);
    answer = (await res.json()) as StatementAnswer;
    if (answer.data) rows.push(...answer.data);
  }
  return { id: answer.id, rows, error: answer.error };
}

async function token(baseUrl: string, realm: string, username: string, password: string): Promise<string> {
  const res = await fetch(`${baseUrl}/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password }),
  });
  if (res.status !== 200) throw new Error(`token for ${username}@${realm}: ${res.status} ${await res.text()}`);
  return ((await res.json()) as { access_token: string }).access_token;
}

async function createUser(kc: KcAdminClient, realm: string, username: string, password: string): Promise<string> {
  const { id } = await kc.users.create({ realm, username, enabled: true, credentials: [{ type: 'password', value: password, temporary: false }] });
  return id;
}

const ROUTES: ReadonlyArray<readonly [string, string]> = [
  ['POST', '/v1/statement'],
  ['GET', '/v1/statement/20260101_000000_00000_abcde/1'],
  ['DELETE', '/v1/statement/20260101_000000_00000_abcde/1'],
  ['GET', '/v1/query'],
  ['GET', '/v1/query/20260101_000000_00000_abcde'],
  ['DELETE', '/v1/query/20260101_000000_00000_abcde'],
  ['PUT', '/v1/query/20260101_000000_00000_abcde/killed'],
  ['DELETE', '/v1/stage/20260101_000000_00000_abcde.1'],
  ['GET', '/v1/task'],
  ['GET', '/v1/task/20260101_000000_00000_abcde.0.0'],
  ['POST', '/v1/task/t1'],
  ['DELETE', '/v1/task/t1'],
  ['GET', '/v1/task/t1/results/0/0'],
  ['GET', '/v1/node'],
  ['GET', '/v1/node/failed'],
];

describe('SQL authentication and the built-in access rules', () => {
  let server: TestServer;
  let kc: KcAdminClient;
  let aliceId = '';

  beforeAll(async () => {
    server = await startServer({ authentication: true, adminUsername: 'admin', adminPassword: ADMIN_PW, internalSharedSecret: SECRET });
    kc = new KcAdminClient({ baseUrl: server.baseUrl, realmName: 'master' });
    await kc.auth({ username: 'admin', password: ADMIN_PW, grantType: 'password', clientId: 'admin-cli' });
    await kc.realms.update({ realm: 'master' }, { adminEventsEnabled: true });
    aliceId = await createUser(kc, 'master', 'alice', 'alice-pw');
    await createUser(kc, 'master', 'bob', 'bob-pw');
    await kc.realms.create({ realm: 'acme', enabled: true });
    await createUser(kc, 'acme', 'eve', 'eve-pw');
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers 401 with Basic and Bearer challenges on every /v1 route to missing or bad credentials', async () => {
    const good = await token(server.baseUrl, 'master', 'alice', 'alice-pw');
    const claims = JSON.parse(Buffer.from(good.split('.')[1]!, 'base64url').toString()) as Record<string, number>;
    const master = server.app.identity.realm('master')!;
    const { privateKey } = await generateKeyPair('RS256');
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: master._keys.kid }).sign(privateKey);
    const expired = await sign(server.app.identity.store, master, { ...claims, iat: claims.iat! - 3600, exp: claims.iat! - 1800 });
    const otherRealm = await token(server.baseUrl, 'acme', 'eve', 'eve-pw');
    const bad: Array<string | undefined> = [
      undefined,
      basic('alice', 'wrong'),
      basic('nobody', 'alice-pw'),
      basic('eve', 'eve-pw'),
      'Basic not-base64-colon',
      `Bearer ${forged}`,
      `Bearer ${expired}`,
      `Bearer ${otherRealm}`,
      'Bearer not-a-jwt',
      'Negotiate abc',
    ];
    for (const [method, path] of ROUTES) {
      for (const authorization of bad) {
        const res = await fetch(`${server.baseUrl}${path}`, { method, headers: authorization ? { Authorization: authorization } : {}, ...(method === 'POST' || method === 'PUT' ? { body: 'SELECT 1' } : {}) });
        expect(res.status, `${method} ${path} with ${authorization ?? 'nothing'}`).toBe(401);
        expect(res.headers.get('www-authenticate')).toMatch(/^Basic realm="master", Bearer realm="master"$/);
        expect(await res.text()).toBe('Unauthorized');
      }
    }
    // Trino's server information stays public.
    expect((await fetch(`${server.baseUrl}/v1/info`)).status).toBe(200);
  });

  it('runs statements for trino-client with BasicAuth and with a bearer token, and for presto-client', async () => {
    const basicClient = Trino.create({ server: server.baseUrl, catalog: 'tpch', schema: 'tiny', auth: new BasicAuth('alice', 'alice-pw') });
    const rows: unknown[][] = [];
    for await (const page of await basicClient.query('SELECT current_user, count(*) FROM nation')) rows.push(...(page.data ?? []));
    expect(rows).toEqual([['alice', 25]]);

    const bearer = await token(server.baseUrl, 'master', 'bob', 'bob-pw');
    const bearerClient = Trino.create({ server: server.baseUrl, catalog: 'tpch', schema: 'tiny', extraHeaders: { Authorization: `Bearer ${bearer}`, 'X-Trino-User': 'bob' } });
    const bearerRows: unknown[][] = [];
    for await (const page of await bearerClient.query('SELECT current_user, count(*) FROM region')) bearerRows.push(...(page.data ?? []));
    expect(bearerRows).toEqual([['bob', 5]]);

    const url = new URL(server.baseUrl);
    const prestoRows = await new Promise<unknown[][]>((resolve, reject) => {
      const client = new presto.Client({ host: url.hostname, port: Number(url.port), user: 'alice', catalog: 'tpch', schema: 'tiny', basic_auth: { user: 'alice', password: 'alice-pw' } });
      const out: unknown[][] = [];
      client.execute({ query: 'SELECT current_user, count(*) FROM region', data: (_e: unknown, d: unknown[][]) => out.push(...d), success: () => resolve(out), error: (e: unknown) => reject(new Error(JSON.stringify(e))) });
    });
    expect(prestoRows).toEqual([['alice', 5]]);
  });

  it('lets ordinary users read but not write, until the admin role is granted through the admin API', async () => {
    const alice = { Authorization: basic('alice', 'alice-pw') };
    const denied = await statement(server.baseUrl, 'CREATE SCHEMA memory.alice_s', alice);
    expect(denied.error).toMatchObject({ errorName: 'PERMISSION_DENIED', errorCode: 4, message: 'Access Denied: Cannot create schema memory.alice_s' });
    const admin = { Authorization: basic('admin', ADMIN_PW) };
    expect((await statement(server.baseUrl, 'CREATE SCHEMA memory.shared', admin)).error).toBeUndefined();
    expect((await statement(server.baseUrl, 'CREATE TABLE memory.shared.t AS SELECT 1 AS x', admin)).error).toBeUndefined();
    const insert = await statement(server.baseUrl, 'INSERT INTO memory.shared.t VALUES (2)', alice);
    expect(insert.error).toMatchObject({ errorName: 'PERMISSION_DENIED', message: 'Access Denied: Cannot insert into table memory.shared.t' });
    expect((await statement(server.baseUrl, 'SELECT count(*) FROM memory.shared.t', alice)).rows).toEqual([[1]]);

    const adminRole = await kc.roles.findOneByName({ name: 'admin' });
    await kc.users.addRealmRoleMappings({ id: aliceId, roles: [{ id: adminRole!.id!, name: 'admin' }] });
    // The very next statement sees the role (read live, whatever the credential cache holds).
    expect((await statement(server.baseUrl, 'INSERT INTO memory.shared.t VALUES (2)', alice)).error).toBeUndefined();
    await kc.users.delRealmRoleMappings({ id: aliceId, roles: [{ id: adminRole!.id!, name: 'admin' }] });
    expect((await statement(server.baseUrl, 'INSERT INTO memory.shared.t VALUES (3)', alice)).error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
  });

  it('shows and cancels a query only for its owner and admins', async () => {
    const alice = { Authorization: basic('alice', 'alice-pw') };
    const bob = { Authorization: basic('bob', 'bob-pw') };
    const admin = { Authorization: basic('admin', ADMIN_PW) };
    const post = await fetch(`${server.baseUrl}/v1/statement`, { method: 'POST', body: 'SELECT count(*) FROM lineitem', headers: { ...alice, 'X-Trino-Catalog': 'tpch', 'X-Trino-Schema': 'tiny' } });
    const first = (await post.json()) as StatementAnswer;
    // Bob can neither follow nor cancel Alice's statement: to him it does not exist.
    expect((await fetch(first.nextUri!, { headers: bob })).status).toBe(404);
    expect((await fetch(first.nextUri!, { method: 'DELETE', headers: bob })).status).toBe(404);
    const ids = async (h: Record<string, string>): Promise<string[]> => ((await (await fetch(`${server.baseUrl}/v1/query`, { headers: h })).json()) as Array<{ queryId: string }>).map((q) => q.queryId);
    expect(await ids(alice)).toContain(first.id);
    expect(await ids(bob)).not.toContain(first.id);
    expect(await ids(admin)).toContain(first.id);
    expect((await fetch(`${server.baseUrl}/v1/query/${first.id}`, { headers: bob })).status).toBe(403);
    expect((await fetch(`${server.baseUrl}/v1/query/${first.id}`, { method: 'DELETE', headers: bob })).status).toBe(403);
    expect((await fetch(`${server.baseUrl}/v1/query/${first.id}/killed`, { method: 'PUT', headers: bob })).status).toBe(403);
    expect((await fetch(`${server.baseUrl}/v1/query/${first.id}`, { headers: alice })).status).toBe(200);
    // Tasks follow their query's visibility.
    const taskQueries = async (h: Record<string, string>): Promise<string[]> => ((await (await fetch(`${server.baseUrl}/v1/task`, { headers: h })).json()) as Array<{ taskStatus: { taskId: string } }>).map((t) => t.taskStatus.taskId.split('.')[0]!);
    expect(await taskQueries(bob)).not.toContain(first.id);
    // So does system.runtime: Bob's view of the queries table leaves Alice's out.
    const seen = async (h: Record<string, string>): Promise<unknown[]> => (await statement(server.baseUrl, 'SELECT query_id FROM system.runtime.queries', h)).rows.map((r) => r[0]);
    expect(await seen(bob)).not.toContain(first.id);
    expect(await seen(admin)).toContain(first.id);
    let next: string | undefined = first.nextUri;
    while (next) {
      const a = (await (await fetch(next, { headers: alice })).json()) as StatementAnswer;
      next = a.nextUri;
    }
  });

  it('refuses impersonation to ordinary users and allows it to admins', async () => {
    const asBob = await statement(server.baseUrl, 'SELECT current_user', { Authorization: basic('alice', 'alice-pw'), 'X-Trino-User': 'bob' });
    expect(asBob.error).toMatchObject({ errorName: 'PERMISSION_DENIED', message: 'Access Denied: User alice cannot impersonate user bob' });
    const byAdmin = await statement(server.baseUrl, 'SELECT current_user', { Authorization: basic('admin', ADMIN_PW), 'X-Trino-User': 'bob' });
    expect(byAdmin.rows).toEqual([['bob']]);
    // Running as Bob, the admin has Bob's rights: no writes.
    const write = await statement(server.baseUrl, 'CREATE SCHEMA memory.as_bob', { Authorization: basic('admin', ADMIN_PW), 'X-Trino-User': 'bob' });
    expect(write.error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
  });

  it('keeps task writes and results internal: the shared secret or the admin role', async () => {
    const body = JSON.stringify({});
    const byAlice = await fetch(`${server.baseUrl}/v1/task/t-alice`, { method: 'POST', body, headers: { Authorization: basic('alice', 'alice-pw'), 'Content-Type': 'application/json' } });
    expect(byAlice.status).toBe(403);
    expect((await fetch(`${server.baseUrl}/v1/task/t-alice/results/0/0`, { headers: { Authorization: basic('alice', 'alice-pw') } })).status).toBe(403);
    // Past the guard, the request itself is judged (an empty body is a 400).
    const byAdmin = await fetch(`${server.baseUrl}/v1/task/t-admin`, { method: 'POST', body, headers: { Authorization: basic('admin', ADMIN_PW), 'Content-Type': 'application/json' } });
    expect(byAdmin.status).toBe(400);
    const bySecret = await fetch(`${server.baseUrl}/v1/task/t-node`, { method: 'POST', body, headers: { 'X-Trino-Internal-Secret': SECRET, 'Content-Type': 'application/json' } });
    expect(bySecret.status).toBe(400);
    const wrongSecret = await fetch(`${server.baseUrl}/v1/task/t-node`, { method: 'POST', body, headers: { 'X-Trino-Internal-Secret': `${SECRET}x`, 'Content-Type': 'application/json' } });
    expect(wrongSecret.status).toBe(401);
  });
  it('answers the identity catalog with the admin API\'s counts, to whom the admin API would show them', async () => {
    const admin = { Authorization: basic('admin', ADMIN_PW) };
    const count = async (sql: string, h: Record<string, string>): Promise<unknown> => {
      const r = await statement(server.baseUrl, sql, h);
      if (r.error) throw new Error(`${sql}: ${r.error.errorName}: ${r.error.message}`);
      return r.rows[0]![0];
    };
    await kc.groups.create({ realm: 'acme', name: 'staff' });
    for (const realm of ['master', 'acme']) {
      expect(await count(`SELECT count(*) FROM identity.${realm}.users`, admin)).toBe(await kc.users.count({ realm }));
      expect(await count(`SELECT count(*) FROM identity.${realm}.clients`, admin)).toBe((await kc.clients.find({ realm })).length);
      expect(await count(`SELECT count(*) FROM identity.${realm}.groups`, admin)).toBe((await kc.groups.find({ realm })).length);
    }
    expect((await statement(server.baseUrl, 'SHOW SCHEMAS FROM identity', admin)).rows.map((r) => r[0])).toEqual(expect.arrayContaining(['acme', 'master']));
    // The admin's own changes, joined with who made them.
    const joined = await statement(server.baseUrl, `SELECT u.username, count(*) FROM identity.master.admin_events e JOIN identity.master.users u ON e.auth_user_id = u.id WHERE e.operation_type = 'CREATE' GROUP BY u.username`, admin);
    expect(joined.error).toBeUndefined();
    expect(joined.rows).toHaveLength(1);
    expect(joined.rows[0]![0]).toBe('admin');
    expect(joined.rows[0]![1]).toBeGreaterThanOrEqual(2);
    // Alice holds no admin role: the admin API would show her no users, and neither does SQL.
    const denied = await statement(server.baseUrl, 'SELECT count(*) FROM identity.master.users', { Authorization: basic('alice', 'alice-pw') });
    expect(denied.error).toMatchObject({ errorName: 'PERMISSION_DENIED', message: 'Access Denied: Cannot select from table identity.master.users' });
    // A realm admin of acme (view-users on the master realm's acme-realm client) reads acme, and nothing of master.
    const helperId = await createUser(kc, 'master', 'acme-helper', 'helper-pw');
    const [acmeClient] = await kc.clients.find({ realm: 'master', clientId: 'acme-realm' });
    const viewUsers = await kc.clients.findRole({ realm: 'master', id: acmeClient!.id!, roleName: 'view-users' });
    await kc.users.addClientRoleMappings({ realm: 'master', id: helperId, clientUniqueId: acmeClient!.id!, roles: [{ id: viewUsers!.id!, name: 'view-users' }] });
    const helper = { Authorization: basic('acme-helper', 'helper-pw') };
    expect(await count('SELECT count(*) FROM identity.acme.users', helper)).toBe(await kc.users.count({ realm: 'acme' }));
    expect((await statement(server.baseUrl, 'SELECT count(*) FROM identity.master.users', helper)).error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
    expect((await statement(server.baseUrl, 'SELECT count(*) FROM identity.acme.admin_events', helper)).error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
    // Read-only: a write is refused whoever asks.
    expect((await statement(server.baseUrl, 'DELETE FROM identity.acme.users', admin)).error).toBeDefined();
  });
});

describe('a Trino access-control rules file', () => {
  let server: TestServer;
  let dir = '';
  const alice = { Authorization: basic('alice', 'alice-pw') };
  const admin = { Authorization: basic('admin', ADMIN_PW) };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'rules-'));
    const rules = {
      catalogs: [{ role: 'admin', allow: 'all' }, { catalog: 'tpch|system', allow: 'read-only' }, { allow: 'none' }],
      tables: [
        { role: 'admin', privileges: ['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP'] },
        { catalog: 'tpch', table: 'customer', privileges: [] },
        { privileges: ['SELECT'] },
      ],
    };
    writeFileSync(join(dir, 'rules.json'), JSON.stringify(rules));
    server = await startServer({ authentication: true, adminUsername: 'admin', adminPassword: ADMIN_PW, accessControlFile: join(dir, 'rules.json') });
    const kc = new KcAdminClient({ baseUrl: server.baseUrl, realmName: 'master' });
    await kc.auth({ username: 'admin', password: ADMIN_PW, grantType: 'password', clientId: 'admin-cli' });
    await createUser(kc, 'master', 'alice', 'alice-pw');
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('denies a hidden table at analysis, even when an admin planned the same statement before', async () => {
    const sql = 'SELECT count(*) FROM customer';
    expect((await statement(server.baseUrl, sql, admin)).rows).toEqual([[1500]]);
    const denied = await statement(server.baseUrl, sql, alice);
    expect(denied.error).toMatchObject({ errorName: 'PERMISSION_DENIED', message: 'Access Denied: Cannot select from table tpch.tiny.customer' });
    const joined = await statement(server.baseUrl, 'SELECT count(*) FROM nation n JOIN customer c ON c.nationkey = n.nationkey', alice);
    expect(joined.error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
    expect((await statement(server.baseUrl, 'SELECT count(*) FROM nation', alice)).rows).toEqual([[25]]);
  });

  it('lists only the catalogs and tables the user may see', async () => {
    const catalogs = (await statement(server.baseUrl, 'SHOW CATALOGS', alice)).rows.map((r) => r[0]);
    expect(catalogs).toEqual(['system', 'tpch']);
    expect((await statement(server.baseUrl, 'SHOW CATALOGS', admin)).rows.map((r) => r[0])).toContain('memory');
    const tables = (await statement(server.baseUrl, 'SHOW TABLES FROM tpch.tiny', alice)).rows.map((r) => r[0]);
    expect(tables).not.toContain('customer');
    expect(tables).toContain('nation');
    expect((await statement(server.baseUrl, 'SELECT count(*) FROM memory.information_schema.tables', alice)).error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
    // information_schema leaves out what the user may not see.
    const info = "SELECT table_name FROM tpch.information_schema.tables WHERE table_schema = 'tiny' ORDER BY 1";
    expect((await statement(server.baseUrl, info, alice)).rows.map((r) => r[0])).toEqual(['lineitem', 'nation', 'orders', 'part', 'partsupp', 'region', 'supplier']);
    expect((await statement(server.baseUrl, info, admin)).rows.map((r) => r[0])).toContain('customer');
    const columns = "SELECT count(*) FROM tpch.information_schema.columns WHERE table_schema = 'tiny' AND table_name = 'customer'";
    expect((await statement(server.baseUrl, columns, alice)).rows).toEqual([[0]]);
  });

  it('refuses writes to a read-only catalog even where a table rule would allow them', async () => {
    const write = await statement(server.baseUrl, 'CREATE TABLE memory.default.t (x bigint)', alice);
    expect(write.error).toMatchObject({ errorName: 'PERMISSION_DENIED' });
  });
});

describe('HTTPS', () => {
  it('serves the statement protocol over TLS to trino-client, with https URIs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'tls-'));
    const material = await selfSignedCertificate(['localhost'], ['127.0.0.1']);
    writeFileSync(join(dir, 'cert.pem'), material.cert);
    writeFileSync(join(dir, 'key.pem'), material.key);
    const server = await startServer({ authentication: true, adminUsername: 'admin', adminPassword: ADMIN_PW, tlsCert: join(dir, 'cert.pem'), tlsKey: join(dir, 'key.pem') });
    try {
      expect(server.baseUrl).toMatch(/^https:\/\//);
      const client = Trino.create({ server: server.baseUrl, catalog: 'tpch', schema: 'tiny', auth: new BasicAuth('admin', ADMIN_PW), ssl: { ca: material.cert } });
      const rows: unknown[][] = [];
      let nextUri = '';
      for await (const page of await client.query('SELECT count(*) FROM region')) {
        rows.push(...(page.data ?? []));
        nextUri ||= page.nextUri ?? '';
      }
      expect(rows).toEqual([[5]]);
      expect(nextUri === '' || nextUri.startsWith('https://')).toBe(true);
      // A client that does not trust the certificate is refused at the handshake.
      const untrusted = await new Promise<string>((resolve) => {
        https.get(`${server.baseUrl}/v1/info`, (res) => resolve(String(res.statusCode))).on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? 'error'));
      });
      expect(untrusted).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      await server.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
