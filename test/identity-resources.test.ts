import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClientFor, failure, startIdentity, type Harness } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'imp';

beforeAll(async () => {
  h = await startIdentity();
  kc = await adminClientFor(h, {
    realm: R,
    enabled: true,
    adminEventsEnabled: true,
    adminEventsDetailsEnabled: true,
    eventsEnabled: true,
    passwordPolicy: 'length(6) and hashIterations(1000)',
    roles: { realm: [{ name: 'analyst' }, { name: 'lead', composite: true, composites: { realm: ['analyst'] } }], client: { portal: [{ name: 'portal-user' }] } },
    clients: [{ clientId: 'portal', publicClient: true, directAccessGrantsEnabled: true }],
    groups: [{ name: 'sales', realmRoles: ['analyst'], subGroups: [{ name: 'emea' }] }],
    users: [{ username: 'erin', enabled: true, email: 'erin@imp.org', groups: ['/sales/emea'], realmRoles: ['lead'], clientRoles: { portal: ['portal-user'] }, credentials: [{ type: 'password', value: 'secret-1' }] }],
  });
});
afterAll(async () => {
  await h?.close();
});

describe('realm import and export', () => {
  it('imports nested roles, clients, groups and users', async () => {
    const lead = await kc.roles.findOneByName({ name: 'lead' });
    expect((await kc.roles.getCompositeRoles({ id: lead!.id! })).map((r) => r.name)).toEqual(['analyst']);
    const erin = (await kc.users.find({ username: 'erin', exact: true }))[0]!;
    expect((await kc.users.listGroups({ id: erin.id! })).map((g) => g.path)).toEqual(['/sales/emea']);
    const eff = (await kc.users.listCompositeRealmRoleMappings({ id: erin.id! })).map((r) => r.name);
    expect(eff).toEqual(expect.arrayContaining(['lead', 'analyst']));
    const t = await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: 'grant_type=password&client_id=portal&username=erin&password=secret-1' });
    expect(t.status).toBe(200);
    const claims = JSON.parse(Buffer.from(((await t.json()) as { access_token: string }).access_token.split('.')[1]!, 'base64url').toString());
    expect(claims.realm_access.roles).toEqual(expect.arrayContaining(['lead', 'analyst', 'offline_access']));
    expect(claims.resource_access.portal.roles).toEqual(['portal-user']);
    // User events are recorded after the token answer (as in Keycloak): wait for it, bounded.
    let events = await kc.realms.findEvents({ realm: R, type: 'LOGIN' });
    for (let i = 0; i < 40 && events.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 50));
      events = await kc.realms.findEvents({ realm: R, type: 'LOGIN' });
    }
    expect(events[0]).toMatchObject({ type: 'LOGIN', clientId: 'portal', userId: erin.id });
  });

  it('exports and partially imports with the three policies', async () => {
    const exported = await kc.realms.export({ realm: R, exportClients: true, exportGroupsAndRoles: true });
    expect((exported.clients ?? []).map((c) => c.clientId)).toContain('portal');
    expect(JSON.stringify(exported)).not.toContain('secret-1');
    const rep = { users: [{ username: 'erin', firstName: 'Changed' }, { username: 'frank' }], roles: { realm: [{ name: 'analyst' }] } };
    const failed = await failure(kc.realms.partialImport({ realm: R, rep: { ...rep, ifResourceExists: 'FAIL' } as never }));
    expect(failed.status).toBe(409);
    expect(await kc.users.find({ username: 'frank', exact: true })).toEqual([]);
    const skipped = await kc.realms.partialImport({ realm: R, rep: { ...rep, ifResourceExists: 'SKIP' } as never });
    expect(skipped).toMatchObject({ added: 1, skipped: 2, overwritten: 0 });
    const over = await kc.realms.partialImport({ realm: R, rep: { ...rep, ifResourceExists: 'OVERWRITE' } as never });
    expect(over).toMatchObject({ added: 0, overwritten: 3 });
    expect((await kc.users.find({ username: 'erin', exact: true }))[0]?.firstName).toBe('Changed');
  });
});

describe('more resources', () => {
  it('admin events filter by operation, resource type and path', async () => {
    const { id } = await kc.users.create({ username: 'gina', enabled: true });
    await kc.users.update({ id }, { firstName: 'Gina' });
    const creates = await kc.realms.findAdminEvents({ realm: R, operationTypes: 'CREATE', resourceTypes: 'USER', resourcePath: `users/${id}` } as never);
    expect(creates).toHaveLength(1);
    const updates = await kc.realms.findAdminEvents({ realm: R, operationTypes: 'UPDATE', resourcePath: 'users/*' } as never);
    expect(updates.some((e) => e.resourcePath === `users/${id}`)).toBe(true);
    expect(updates[0]).toHaveProperty('authDetails.userId');
    await kc.realms.clearAdminEvents({ realm: R });
    expect(await kc.realms.findAdminEvents({ realm: R })).toEqual([]);
  });

  it('reset-password applies the password policy and never returns hashes', async () => {
    const { id } = await kc.users.create({ username: 'hank', enabled: true });
    const bad = await failure(kc.users.resetPassword({ id, credential: { type: 'password', value: 'abc', temporary: false } }));
    expect(bad.status).toBe(400);
    expect(bad.data).toMatchObject({ errorMessage: 'Password policy not met. See logs for details' });
    await kc.users.resetPassword({ id, credential: { type: 'password', value: 'long-enough', temporary: true } });
    expect((await kc.users.findOne({ id }))?.requiredActions).toEqual(['UPDATE_PASSWORD']);
    const creds = await kc.users.getCredentials({ id });
    expect(creds[0]).not.toHaveProperty('secretData');
    await kc.users.updateCredentialLabel({ id, credentialId: creds[0]!.id! }, 'laptop');
    expect((await kc.users.getCredentials({ id }))[0]?.userLabel).toBe('laptop');
  });

  it('roles by id, client scopes of clients, realm default scopes, scope mappings', async () => {
    const analyst = await kc.roles.findOneByName({ name: 'analyst' });
    await kc.roles.updateById({ id: analyst!.id! }, { name: 'analyst', description: 'reads reports' });
    expect((await kc.roles.findOneById({ id: analyst!.id! }))?.description).toBe('reads reports');
    const portal = (await kc.clients.find({ clientId: 'portal' }))[0]!;
    const defaults = await kc.clients.listDefaultClientScopes({ id: portal.id! });
    expect(defaults.map((s) => s.name)).toEqual(expect.arrayContaining(['profile', 'email', 'roles', 'web-origins', 'acr', 'basic']));
    const phone = (await kc.clientScopes.find()).find((s) => s.name === 'phone')!;
    await kc.clients.addOptionalClientScope({ id: portal.id!, clientScopeId: phone.id! });
    await kc.clientScopes.addDefaultClientScope({ id: phone.id! });
    expect((await kc.clientScopes.listDefaultClientScopes()).map((s) => s.name)).toContain('phone');
    await kc.clients.addRealmScopeMappings({ id: portal.id! }, [analyst!]);
    expect((await kc.clients.listRealmScopeMappings({ id: portal.id! })).map((r) => r.name)).toEqual(['analyst']);
    const granted = await kc.clients.evaluatePermission({ id: portal.id!, roleContainer: R, type: 'granted', scope: 'openid' });
    expect(granted.map((r) => r.name)).toContain('analyst');
  });

  it('moves groups and finds them by path', async () => {
    const { id: a } = await kc.groups.create({ name: 'a' });
    const { id: b } = await kc.groups.create({ name: 'b' });
    await kc.groups.updateChildGroup({ id: a }, { id: b, name: 'b' });
    const byPath = await fetch(`${h.baseUrl}/admin/realms/${R}/group-by-path/a/b`, { headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(((await byPath.json()) as { id: string }).id).toBe(b);
    expect((await failure(kc.groups.create({ name: '' }))).status).toBe(400);
  });

  it('404s with Keycloak bodies', async () => {
    expect(await failure(kc.users.update({ id: 'nope' }, { firstName: 'x' }))).toEqual({ status: 404, data: { error: 'User not found' } });
    expect(await failure(kc.clients.update({ id: 'nope' }, { description: 'x' }))).toEqual({ status: 404, data: { error: 'Could not find client' } });
    expect(await failure(kc.groups.update({ id: 'nope' }, { name: 'x' }))).toEqual({ status: 404, data: { error: 'Could not find group by id' } });
    expect((await failure(kc.realms.update({ realm: 'no-such-realm' }, { displayName: 'x' }))).data).toEqual({ error: 'Realm not found.' });
  });
});
