import KcAdminClient from '@keycloak/keycloak-admin-client';
import { SignJWT, generateKeyPair } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sign } from '../src/identity/oidc/tokens.js';
import { startIdentity, type Harness } from './identity-harness.js';

let h: Harness;
let admin: KcAdminClient;

const form = (o: Record<string, string>) => new URLSearchParams(o).toString();
async function token(realm: string, fields: Record<string, string>, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.baseUrl}/realms/${realm}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded', ...headers },
    body: form(fields),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

beforeAll(async () => {
  h = await startIdentity();
  admin = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await admin.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  await admin.realms.create({ realm: 'acme', enabled: true, passwordPolicy: 'hashIterations(1000)' });
  await admin.realms.create({ realm: 'other', enabled: true, passwordPolicy: 'hashIterations(1000)' });
  admin.setConfig({ realmName: 'acme' });
  await admin.users.create({ username: 'helpdesk', enabled: true, credentials: [{ type: 'password', value: 'pw', temporary: false }] });
  await admin.users.create({ username: 'nobody', enabled: true, email: 'nobody@acme.org', credentials: [{ type: 'password', value: 'pw', temporary: false }] });
  const helpdesk = (await admin.users.find({ username: 'helpdesk', exact: true }))[0]!;
  const rm = (await admin.clients.find({ clientId: 'realm-management' }))[0]!;
  const viewUsers = await admin.clients.findRole({ id: rm.id!, roleName: 'view-users' });
  await admin.users.addClientRoleMappings({ id: helpdesk.id!, clientUniqueId: rm.id!, roles: [{ id: viewUsers!.id!, name: 'view-users' }] });
  const { id } = await admin.clients.create({ clientId: 'svc', secret: 's3cret', serviceAccountsEnabled: true, directAccessGrantsEnabled: true, publicClient: false });
  void id;
  admin.setConfig({ realmName: 'other' });
  await admin.users.create({ username: 'boss', enabled: true, credentials: [{ type: 'password', value: 'pw', temporary: false }] });
  const boss = (await admin.users.find({ username: 'boss', exact: true }))[0]!;
  const rm2 = (await admin.clients.find({ clientId: 'realm-management' }))[0]!;
  const ra = await admin.clients.findRole({ id: rm2.id!, roleName: 'realm-admin' });
  await admin.users.addClientRoleMappings({ id: boss.id!, clientUniqueId: rm2.id!, roles: [{ id: ra!.id!, name: 'realm-admin' }] });
  admin.setConfig({ realmName: 'master' });
});
afterAll(async () => {
  await h?.close();
});

describe('token endpoint', () => {
  it('password grant returns Keycloak token response fields', async () => {
    const { status, body } = await token('acme', { grant_type: 'password', client_id: 'admin-cli', username: 'nobody', password: 'pw', scope: 'openid' });
    expect(status).toBe(200);
    expect(Object.keys(body).sort()).toEqual(['access_token', 'expires_in', 'id_token', 'not-before-policy', 'refresh_expires_in', 'refresh_token', 'scope', 'session_state', 'token_type']);
    expect(body.token_type).toBe('Bearer');
    expect(body.scope).toBe('openid email profile');
    const info = await fetch(`${h.baseUrl}/realms/acme/protocol/openid-connect/userinfo`, { headers: { Authorization: `Bearer ${body.access_token}` } });
    expect(await info.json()).toMatchObject({ preferred_username: 'nobody', email: 'nobody@acme.org' });
    const refreshed = await token('acme', { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: body.refresh_token });
    expect(refreshed.status).toBe(200);
    const out = await fetch(`${h.baseUrl}/realms/acme/protocol/openid-connect/logout`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: form({ client_id: 'admin-cli', refresh_token: refreshed.body.refresh_token }) });
    expect(out.status).toBe(204);
    const again = await token('acme', { grant_type: 'refresh_token', client_id: 'admin-cli', refresh_token: refreshed.body.refresh_token });
    expect(again).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
  });

  it('refuses bad credentials, clients and realms as Keycloak does', async () => {
    expect(await token('acme', { grant_type: 'password', client_id: 'admin-cli', username: 'nobody', password: 'x' })).toEqual({ status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } });
    expect((await token('acme', { grant_type: 'password', client_id: 'nope', username: 'nobody', password: 'pw' })).body.error).toBe('invalid_client');
    expect((await token('acme', { grant_type: 'client_credentials', client_id: 'svc', client_secret: 'wrong' })).body.error).toBe('unauthorized_client');
    expect(await token('nowhere', { grant_type: 'password' })).toEqual({ status: 404, body: { error: 'Realm does not exist' } });
  });

  it('client_credentials by form and by HTTP basic', async () => {
    const a = await token('acme', { grant_type: 'client_credentials', client_id: 'svc', client_secret: 's3cret' });
    expect(a.status).toBe(200);
    expect(a.body.refresh_token).toBeUndefined();
    const b = await token('acme', { grant_type: 'client_credentials' }, { Authorization: `Basic ${Buffer.from('svc:s3cret').toString('base64')}` });
    expect(b.status).toBe(200);
  });

  it('publishes keys and discovery, and authenticate() accepts bearer and basic', async () => {
    const certs = (await (await fetch(`${h.baseUrl}/realms/acme/protocol/openid-connect/certs`)).json()) as { keys: Array<Record<string, string>> };
    expect(certs.keys[0]).toMatchObject({ kty: 'RSA', alg: 'RS256', use: 'sig' });
    const wk = (await (await fetch(`${h.baseUrl}/realms/acme/.well-known/openid-configuration`)).json()) as Record<string, string>;
    expect(wk.token_endpoint).toBe(`${h.baseUrl}/realms/acme/protocol/openid-connect/token`);
    const t = await token('acme', { grant_type: 'password', client_id: 'admin-cli', username: 'nobody', password: 'pw' });
    expect(await h.svc.authenticate(`Bearer ${t.body.access_token}`)).toMatchObject({ realm: 'acme', username: 'nobody' });
    expect(await h.svc.authenticate(`Basic ${Buffer.from('nobody:pw').toString('base64')}`, 'acme')).toMatchObject({ username: 'nobody' });
    expect(await h.svc.authenticate(`Basic ${Buffer.from('nobody:bad').toString('base64')}`, 'acme')).toBeNull();
    expect(await h.svc.authenticate('Bearer garbage')).toBeNull();
  });
});

describe('admin authorization matrix', () => {
  const routes: Array<[string, string, unknown?]> = [
    ['GET', '/admin/realms/acme/users'],
    ['POST', '/admin/realms/acme/users', { username: 'matrix-user' }],
    ['GET', '/admin/realms/acme'],
    ['PUT', '/admin/realms/acme', { displayName: 'x' }],
    ['GET', '/admin/realms/acme/clients'],
    ['POST', '/admin/realms/acme/roles', { name: 'matrix-role' }],
    ['GET', '/admin/realms/acme/groups'],
    ['GET', '/admin/realms/acme/admin-events'],
    ['GET', '/admin/realms/acme/client-scopes'],
  ];
  const call = async (method: string, path: string, body: unknown, bearer?: string) => {
    const res = await fetch(`${h.baseUrl}${path}`, {
      method,
      headers: { ...(bearer ? { Authorization: `Bearer ${bearer}` } : {}), ...(body ? { 'Content-Type': 'application/json' } : {}) },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, headers: res.headers, body: await res.text() };
  };

  it('refuses missing, forged and expired tokens with 401', async () => {
    const { privateKey } = await generateKeyPair('RS256');
    const master = h.svc.realm('master')!;
    const good = await token('master', { grant_type: 'password', client_id: 'admin-cli', username: 'admin', password: 'admin-pw' });
    const claims = JSON.parse(Buffer.from(good.body.access_token.split('.')[1], 'base64url').toString());
    const forged = await new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: master._keys.kid }).sign(privateKey);
    const expired = await sign(h.svc.store, master, { ...claims, iat: claims.iat - 3600, exp: claims.iat - 1800 });
    for (const [method, path, body] of routes) {
      for (const bearer of [undefined, forged, expired, 'not-a-jwt']) {
        const r = await call(method, path, body, bearer);
        expect(r.status, `${method} ${path}`).toBe(401);
        expect(r.headers.get('www-authenticate')).toBe('Bearer');
        expect(JSON.parse(r.body)).toEqual({ error: 'HTTP 401 Unauthorized' });
      }
    }
  });

  it('refuses a token of another realm and an insufficient role with 403', async () => {
    const other = await token('other', { grant_type: 'password', client_id: 'admin-cli', username: 'boss', password: 'pw' });
    const nobody = await token('acme', { grant_type: 'password', client_id: 'admin-cli', username: 'nobody', password: 'pw' });
    for (const [method, path, body] of routes) {
      for (const bearer of [other.body.access_token, nobody.body.access_token]) {
        const r = await call(method, path, body, bearer);
        expect(r.status, `${method} ${path}`).toBe(403);
        expect(JSON.parse(r.body)).toEqual({ error: 'HTTP 403 Forbidden' });
      }
    }
    // ...while the other realm's own admin manages its realm.
    expect((await call('GET', '/admin/realms/other/users', undefined, other.body.access_token)).status).toBe(200);
  });

  it('lets view-users read users but not create them', async () => {
    const t = await token('acme', { grant_type: 'password', client_id: 'admin-cli', username: 'helpdesk', password: 'pw' });
    expect((await call('GET', '/admin/realms/acme/users', undefined, t.body.access_token)).status).toBe(200);
    expect((await call('POST', '/admin/realms/acme/users', { username: 'x1' }, t.body.access_token)).status).toBe(403);
    expect((await call('GET', '/admin/realms/acme/clients', undefined, t.body.access_token)).status).toBe(403);
  });

  it('serves serverinfo and whoami to admins', async () => {
    const res = await fetch(`${h.baseUrl}/admin/serverinfo`, { headers: { Authorization: `Bearer ${admin.accessToken}` } });
    expect(res.status).toBe(200);
    // A doubled slash (as clients joining a base URL that ends in `/` send) is the same path.
    const doubled = await fetch(`${h.baseUrl}//admin//serverinfo`, { headers: { Authorization: `Bearer ${admin.accessToken}` } });
    expect(doubled.status).toBe(200);
    expect(Object.keys(await doubled.json())).toEqual(Object.keys(await res.json()));
    expect((await admin.serverInfo.find()).systemInfo).toBeDefined();
    const who = (await (await fetch(`${h.baseUrl}/admin/master/console/whoami?currentRealm=acme`, { headers: { Authorization: `Bearer ${admin.accessToken}` } })).json()) as Record<string, any>;
    expect(who).toMatchObject({ realm: 'master', createRealm: true });
    expect(who.realm_access.acme).toContain('manage-users');
  });
});
