import KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type Harness } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;

beforeAll(async () => {
  h = await startIdentity();
  kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
});
afterAll(async () => {
  await h?.close();
});

async function status(p: Promise<unknown>): Promise<number> {
  try {
    await p;
    return 200;
  } catch (e) {
    return (e as { response?: { status: number } }).response?.status ?? -1;
  }
}

describe('realms', () => {
  it('lists master and creates a realm with Keycloak defaults', async () => {
    const list = await kc.realms.find();
    expect(list.map((r) => r.realm)).toContain('master');
    const created = await kc.realms.create({ realm: 'acme', enabled: true });
    expect(created).toEqual({ realmName: 'acme' });
    const acme = await kc.realms.findOne({ realm: 'acme' });
    expect(acme?.realm).toBe('acme');
    expect(acme?.accessTokenLifespan).toBe(300);
    expect(acme?.defaultRole?.name).toBe('default-roles-acme');
    kc.setConfig({ realmName: 'acme' });
    const roles = (await kc.roles.find()).map((r) => r.name).sort();
    expect(roles).toEqual(['default-roles-acme', 'offline_access', 'uma_authorization']);
    const clients = (await kc.clients.find()).map((c) => c.clientId);
    expect(clients).toEqual(['account', 'account-console', 'admin-cli', 'broker', 'realm-management', 'security-admin-console']);
    const rm = (await kc.clients.find({ clientId: 'realm-management' }))[0]!;
    expect(await kc.clients.listRoles({ id: rm.id! })).toHaveLength(19);
    expect(await kc.clientScopes.find()).toHaveLength(13);
    kc.setConfig({ realmName: 'master' });
    const dup = await status(kc.realms.create({ realm: 'acme' }));
    expect(dup).toBe(409);
  });

  it('updates top level settings and deletes', async () => {
    await kc.realms.create({ realm: 'tmp1', enabled: true });
    await kc.realms.update({ realm: 'tmp1' }, { displayName: 'Temp', users: [{ username: 'ignored' }] } as never);
    const r = await kc.realms.findOne({ realm: 'tmp1' });
    expect(r?.displayName).toBe('Temp');
    await kc.realms.del({ realm: 'tmp1' });
    expect(await kc.realms.findOne({ realm: 'tmp1' })).toBeNull();
  });

  it('rejects a wrongly typed field with 400 naming it', async () => {
    const res = await fetch(`${h.baseUrl}/admin/realms/acme`, {
      method: 'PUT',
      headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' },
      body: JSON.stringify({ enabled: 'yes' }),
    });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'unknown_error', error_description: 'Cannot parse the JSON', field: 'enabled' });
  });
});

describe('users, roles, groups, clients through the admin client', () => {
  beforeAll(async () => {
    kc.setConfig({ realmName: 'acme' });
    await kc.realms.update({ realm: 'acme' }, { adminEventsEnabled: true, adminEventsDetailsEnabled: true });
  });

  it('creates, finds, updates and deletes users with exactly one admin event each', async () => {
    const before = (await kc.realms.findAdminEvents({ realm: 'acme', max: 1000 })).length;
    const { id } = await kc.users.create({ username: 'Alice', email: 'alice@example.org', enabled: true, firstName: 'Alice', credentials: [{ type: 'password', value: 'pw-1', temporary: false }] });
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const u = await kc.users.findOne({ id });
    expect(u?.username).toBe('alice');
    expect(JSON.stringify(u)).not.toContain('pw-1');
    expect((await kc.users.find({ search: 'ali' })).map((x) => x.id)).toEqual([id]);
    expect(await kc.users.count()).toBe(1);
    expect(await status(kc.users.create({ username: 'alice' }))).toBe(409);
    expect(await status(kc.users.create({ username: 'bob', email: 'alice@example.org' }))).toBe(409);
    await kc.users.update({ id }, { lastName: 'Liddell' });
    expect((await kc.users.findOne({ id }))?.lastName).toBe('Liddell');
    const creds = await kc.users.getCredentials({ id });
    expect(creds).toHaveLength(1);
    expect(JSON.stringify(creds)).not.toMatch(/secretData|"value"/);
    const events = await kc.realms.findAdminEvents({ realm: 'acme', max: 1000 });
    expect(events.length - before).toBe(2);
    expect(events[0]).toMatchObject({ operationType: 'UPDATE', resourceType: 'USER', resourcePath: `users/${id}` });
    expect(events[1]).toMatchObject({ operationType: 'CREATE', resourceType: 'USER', resourcePath: `users/${id}` });
    expect(events[1]!.representation).not.toContain('pw-1');
    await kc.users.del({ id });
    expect(await kc.users.findOne({ id })).toBeNull();
    expect((await kc.realms.findAdminEvents({ realm: 'acme', max: 1000 })).length - before).toBe(3);
  });

  it('manages realm and client roles, composites and role mappings', async () => {
    expect(await kc.roles.create({ name: 'reader', description: 'reads' })).toEqual({ roleName: 'reader' });
    expect(await status(kc.roles.create({ name: 'reader' }))).toBe(409);
    await kc.roles.create({ name: 'writer' });
    const reader = await kc.roles.findOneByName({ name: 'reader' });
    const writer = await kc.roles.findOneByName({ name: 'writer' });
    await kc.roles.createComposite({ roleId: writer!.id! }, [reader!]);
    expect((await kc.roles.getCompositeRoles({ id: writer!.id! })).map((r) => r.name)).toEqual(['reader']);
    const { id: userId } = await kc.users.create({ username: 'carol', enabled: true });
    await kc.users.addRealmRoleMappings({ id: userId, roles: [{ id: writer!.id!, name: 'writer' }] });
    const eff = (await kc.users.listCompositeRealmRoleMappings({ id: userId })).map((r) => r.name).sort();
    expect(eff).toEqual(expect.arrayContaining(['reader', 'writer', 'offline_access', 'uma_authorization']));
    expect((await kc.roles.findUsersWithRole({ name: 'writer' })).map((u) => u.username)).toEqual(['carol']);
    await kc.users.delRealmRoleMappings({ id: userId, roles: [{ id: writer!.id!, name: 'writer' }] });
    expect((await kc.users.listRealmRoleMappings({ id: userId })).map((r) => r.name)).toEqual(['default-roles-acme']);
    const { id: clientUuid } = await kc.clients.create({ clientId: 'app', serviceAccountsEnabled: true });
    await kc.clients.createRole({ id: clientUuid, name: 'app-admin' });
    const role = await kc.clients.findRole({ id: clientUuid, roleName: 'app-admin' });
    await kc.users.addClientRoleMappings({ id: userId, clientUniqueId: clientUuid, roles: [{ id: role!.id!, name: role!.name! }] });
    expect((await kc.users.listClientRoleMappings({ id: userId, clientUniqueId: clientUuid })).map((r) => r.name)).toEqual(['app-admin']);
    await kc.roles.delByName({ name: 'reader' });
    expect(await kc.roles.findOneByName({ name: 'reader' })).toBeNull();
  });

  it('manages clients and their secrets', async () => {
    const { id } = await kc.clients.create({ clientId: 'svc', secret: 'given-secret', serviceAccountsEnabled: true });
    const c = await kc.clients.findOne({ id });
    expect(c?.clientId).toBe('svc');
    expect(c?.publicClient).toBe(false);
    expect(c?.secret).toBeUndefined();
    expect(c?.defaultClientScopes).toEqual(expect.arrayContaining(['profile', 'email', 'roles']));
    expect((await kc.clients.getClientSecret({ id })).value).toBe('given-secret');
    const fresh = await kc.clients.generateNewClientSecret({ id });
    expect(fresh.value).not.toBe('given-secret');
    const sa = await kc.clients.getServiceAccountUser({ id });
    expect(sa.username).toBe('service-account-svc');
    expect(await status(kc.clients.create({ clientId: 'svc' }))).toBe(409);
    await kc.clients.update({ id }, { description: 'a service' });
    expect((await kc.clients.findOne({ id }))?.description).toBe('a service');
    await kc.clients.del({ id });
    expect(await kc.clients.findOne({ id })).toBeNull();
  });

  it('manages groups, children and members', async () => {
    const { id: top } = await kc.groups.create({ name: 'eng' });
    expect(await status(kc.groups.create({ name: 'eng' }))).toBe(409);
    const { id: child } = await kc.groups.createChildGroup({ id: top }, { name: 'backend' });
    const found = await kc.groups.findOne({ id: child });
    expect(found?.path).toBe('/eng/backend');
    const { id: userId } = await kc.users.create({ username: 'dave', enabled: true });
    await kc.users.addToGroup({ id: userId, groupId: child });
    expect((await kc.groups.listMembers({ id: child })).map((u) => u.username)).toEqual(['dave']);
    expect((await kc.users.listGroups({ id: userId })).map((g) => g.path)).toEqual(['/eng/backend']);
    expect(await kc.groups.count()).toEqual({ count: 2 });
    const byPath = await kc.groups.find({ search: 'back' });
    expect(byPath[0]?.subGroups?.[0]?.name).toBe('backend');
    await kc.groups.del({ id: top });
    expect(await kc.groups.findOne({ id: child })).toBeNull();
  });

  it('manages client scopes and protocol mappers', async () => {
    const { id } = await kc.clientScopes.create({ name: 'extra', protocol: 'openid-connect' });
    expect(await status(kc.clientScopes.create({ name: 'extra' }))).toBe(409);
    await kc.clientScopes.addProtocolMapper({ id }, { name: 'dept', protocol: 'openid-connect', protocolMapper: 'oidc-usermodel-attribute-mapper', config: { 'user.attribute': 'dept', 'claim.name': 'dept', 'access.token.claim': 'true' } });
    const mappers = await kc.clientScopes.listProtocolMappers({ id });
    expect(mappers.map((m) => m.name)).toEqual(['dept']);
    await kc.clientScopes.delProtocolMapper({ id, mapperId: mappers[0]!.id! });
    await kc.clientScopes.del({ id });
    expect(await kc.clientScopes.findOne({ id })).toBeNull();
  });

  it('writes no admin event for failed requests', async () => {
    const before = (await kc.realms.findAdminEvents({ realm: 'acme', max: 10000 })).length;
    await status(kc.users.create({ username: 'carol' }));
    await status(kc.roles.create({ name: 'writer' }));
    await status(kc.users.update({ id: 'nope' }, { firstName: 'x' }));
    expect((await kc.realms.findAdminEvents({ realm: 'acme', max: 10000 })).length).toBe(before);
  });
});
