// Item routes do not tell a caller who may not see a kind of entity whether an id or name exists
// (hardening item 5): the permission check comes first, so a known and an unknown id both get 403.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { startIdentity, type Harness } from './identity-harness.js';

let h: Harness;
const R = 'leak';
const ids: Record<string, string> = {};
const tokens: Record<string, string> = {};

async function tokenOf(username: string): Promise<string> {
  const res = await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'password', client_id: 'admin-cli', username, password: 'pw-pw-pw-1' }),
  });
  return ((await res.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  h = await startIdentity();
  const kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  const cred = [{ type: 'password', value: 'pw-pw-pw-1', temporary: false }];
  await kc.realms.create({
    realm: R, enabled: true, organizationsEnabled: true,
    roles: { realm: [{ name: 'known' }] },
    groups: [{ name: 'staff' }],
    clients: [{ clientId: 'app', publicClient: false }],
    users: [
      { username: 'nobody', enabled: true, credentials: cred },
      { username: 'viewer', enabled: true, credentials: cred, clientRoles: { 'realm-management': ['view-realm', 'view-clients'] } },
    ],
  });
  kc.setConfig({ realmName: R });
  ids.role = (await kc.roles.findOneByName({ name: 'known' }))!.id!;
  ids.user = (await kc.users.find({ username: 'nobody', exact: true }))[0]!.id!;
  ids.group = (await kc.groups.find())[0]!.id!;
  ids.client = (await kc.clients.find({ clientId: 'app' }))[0]!.id!;
  ids.scope = (await kc.clientScopes.find())[0]!.id!;
  await kc.clients.createRole({ id: ids.client, name: 'known' });
  ids.clientRole = (await kc.clients.findRole({ id: ids.client, roleName: 'known' }))!.id!;
  tokens.nobody = await tokenOf('nobody');
  tokens.viewer = await tokenOf('viewer');
});
afterAll(() => h?.close());

const status = async (who: string, method: string, path: string): Promise<number> => {
  const res = await fetch(`${h.baseUrl}/admin/realms/${R}${path}`, {
    method,
    headers: { Authorization: `Bearer ${tokens[who]}`, 'Content-Type': 'application/json' },
    ...(method === 'GET' || method === 'DELETE' ? {} : { body: method === 'POST' ? '[]' : '{}' }),
  });
  await res.arrayBuffer();
  return res.status;
};

/** [method, path with the known entity, path with an unknown one] */
const itemRoutes = (): Array<[string, string, string]> => [
  ['GET', '/roles/known', '/roles/unknown'],
  ['PUT', '/roles/known', '/roles/unknown'],
  ['DELETE', '/roles/known', '/roles/unknown'],
  ['GET', '/roles/known/composites', '/roles/unknown/composites'],
  ['POST', '/roles/known/composites', '/roles/unknown/composites'],
  ['GET', '/roles/known/users', '/roles/unknown/users'],
  ['GET', '/roles/known/groups', '/roles/unknown/groups'],
  ['GET', `/roles-by-id/${ids.role}`, '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000000'],
  ['PUT', `/roles-by-id/${ids.role}`, '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000000'],
  ['DELETE', `/roles-by-id/${ids.role}`, '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000000'],
  ['GET', `/roles-by-id/${ids.role}/composites`, '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000000/composites'],
  ['GET', `/roles-by-id/${ids.clientRole}`, '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000001'],
  ['GET', `/clients/${ids.client}/roles/known`, `/clients/${ids.client}/roles/unknown`],
  ['GET', `/clients/${ids.client}`, '/clients/0d5b6b6e-0000-0000-0000-000000000000'],
  ['GET', `/users/${ids.user}`, '/users/0d5b6b6e-0000-0000-0000-000000000000'],
  ['GET', `/groups/${ids.group}`, '/groups/0d5b6b6e-0000-0000-0000-000000000000'],
  ['GET', `/client-scopes/${ids.scope}`, '/client-scopes/0d5b6b6e-0000-0000-0000-000000000000'],
];

describe('existence of entities to callers without rights', () => {
  it('answers 403 for known and unknown ids alike to a caller with no admin role', async () => {
    const leaks: string[] = [];
    for (const [method, known, unknown] of itemRoutes()) {
      const [a, b] = [await status('nobody', method, known), await status('nobody', method, unknown)];
      if (a !== 403 || b !== 403) leaks.push(`${method} ${unknown}: known ${a}, unknown ${b}`);
    }
    expect(leaks).toEqual([]);
  });

  it('answers 403 on every admin route of the realm to a caller with no admin role, whatever the ids', async () => {
    const answered: string[] = [];
    for (const { method, pattern } of h.router.routes()) {
      if (!pattern.startsWith('/admin/realms/:realm/')) continue;
      const path = pattern.split('/').slice(4).map((s) => (s.startsWith(':') || s.startsWith('*') ? '0d5b6b6e-0000-0000-0000-000000000000' : s)).join('/');
      const got = await status('nobody', method, `/${path}`);
      if (got !== 403) answered.push(`${got} ${method} ${pattern}`);
    }
    expect(answered).toEqual([]);
  });

  it('answers 403 to a viewer changing a role, known or not, and 404 to reading an unknown one', async () => {
    for (const [method, path] of [['PUT', '/roles/known'], ['PUT', '/roles/unknown'], ['DELETE', `/roles-by-id/${ids.role}`], ['DELETE', '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000000']] as const) {
      expect(`${method} ${path} ${await status('viewer', method, path)}`).toBe(`${method} ${path} 403`);
    }
    expect(await status('viewer', 'GET', '/roles/unknown')).toBe(404);
    expect(await status('viewer', 'GET', '/roles-by-id/0d5b6b6e-0000-0000-0000-000000000000')).toBe(404);
    expect(await status('viewer', 'GET', '/roles/known')).toBe(200);
  });
});
