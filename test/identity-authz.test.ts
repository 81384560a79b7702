// Authorization services through @keycloak/keycloak-admin-client: resource server settings,
// resources, scopes, policies (role, user, client, group, time, aggregate) and permissions, lookups,
// import/export, and policy evaluation under UNANIMOUS / AFFIRMATIVE / CONSENSUS and NEGATIVE logic.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'authz';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);
let id = '';
const users: Record<string, string> = {};
const pol: Record<string, string> = {};

beforeAll(async () => {
  h = await startIdentity();
  kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  await kc.realms.create({
    realm: R, enabled: true, adminEventsEnabled: true,
    roles: { realm: [{ name: 'reader' }, { name: 'writer' }] },
    groups: [{ name: 'staff', subGroups: [{ name: 'interns' }] }],
    users: [
      { username: 'rita', enabled: true, realmRoles: ['reader'] },
      { username: 'walt', enabled: true, realmRoles: ['reader', 'writer'], groups: ['/staff/interns'] },
      { username: 'nobody', enabled: true },
    ],
  });
  kc.setConfig({ realmName: R });
  for (const u of await kc.users.find()) users[u.username!] = u.id!;
  ({ id } = await kc.clients.create({ clientId: 'api', authorizationServicesEnabled: true, serviceAccountsEnabled: true, publicClient: false }));
});
afterAll(async () => {
  await h?.close();
});

const evalFor = (userId: string, resources: Array<{ name: string; scopes?: Array<{ name: string }> }> = []) =>
  kc.clients.evaluateResource({ id }, { userId, resources, entitlements: false, context: { attributes: {} }, roleIds: [] } as never) as unknown as Promise<{ status: string; results: Array<{ resource: { name: string }; status: string; allowedScopes: Array<{ name: string }> }> }>;

describe('resource server', () => {
  it('is created with defaults and its settings can be updated with one event', async () => {
    const rs = await kc.clients.getResourceServer({ id });
    expect(rs).toMatchObject({ clientId: id, name: 'api', policyEnforcementMode: 'ENFORCING', decisionStrategy: 'UNANIMOUS' });
    expect((await kc.clients.listResources({ id })).map((r) => r.name)).toEqual(['Default Resource']);
    expect((await kc.clients.listPolicies({ id })).map((p) => p.name)).toEqual(['Default Policy', 'Default Permission']);
    const ev = await events(() => kc.clients.updateResourceServer({ id }, { policyEnforcementMode: 'ENFORCING', decisionStrategy: 'AFFIRMATIVE' }));
    expect(ev).toMatchObject([{ operationType: 'UPDATE', resourceType: 'AUTHORIZATION_RESOURCE_SERVER' }]);
    expect((await kc.clients.getResourceServer({ id })).decisionStrategy).toBe('AFFIRMATIVE');
    await kc.clients.updateResourceServer({ id }, { decisionStrategy: 'UNANIMOUS' });
  });

  it('manages scopes and resources', async () => {
    const ev = await events(() => kc.clients.createAuthorizationScope({ id }, { name: 'read' }));
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTHORIZATION_SCOPE' }]);
    await kc.clients.createAuthorizationScope({ id }, { name: 'write' });
    const doc = await kc.clients.createResource({ id }, { name: 'docs', type: 'urn:api:docs', uris: ['/docs/*'], scopes: [{ name: 'read' }, { name: 'write' }, { name: 'delete' }] });
    expect(doc).toMatchObject({ name: 'docs', owner: { id, name: 'api' }, scopes: [{ name: 'read' }, { name: 'write' }, { name: 'delete' }] });
    expect((await kc.clients.listAllScopes({ id })).map((s) => s.name)).toEqual(['read', 'write', 'delete']);
    await kc.clients.createResource({ id }, { name: 'reports', scopes: [{ name: 'read' }] });
    const none = await events(async () => {
      expect((await failure(kc.clients.createResource({ id }, { name: 'docs' }))).status).toBe(409);
      expect((await failure(kc.clients.createAuthorizationScope({ id }, { name: 'read' }))).status).toBe(409);
      expect((await failure(kc.clients.createResource({ id }, { name: '' }))).status).toBe(400);
    });
    expect(none).toHaveLength(0);
    expect((await kc.clients.listResources({ id, name: 'doc' } as never)).map((r) => r.name)).toEqual(['docs']);
    const read = (await kc.clients.listAllScopes({ id })).find((s) => s.name === 'read')!;
    expect((await kc.clients.listAllResourcesByScope({ id, scopeId: read.id! })).map((r) => r.name).sort()).toEqual(['docs', 'reports']);
    expect((await kc.clients.listScopesByResource({ id, resourceName: doc._id! })).map((s) => s.name)).toEqual(['read', 'write', 'delete']);
  });
});

describe('policies, permissions and evaluation', () => {
  it('creates typed policies with one event each and refuses bad ones without', async () => {
    const roles = await kc.roles.find();
    const reader = roles.find((r) => r.name === 'reader')!;
    const writer = roles.find((r) => r.name === 'writer')!;
    const staff = (await kc.groups.find())[0]!;
    const mk = async (type: string, body: Record<string, unknown>) => (await kc.clients.createPolicy({ id, type }, body as never)) as { id: string };
    const ev = await events(async () => {
      pol.readers = (await mk('role', { name: 'readers', roles: [{ id: reader.id, required: false }] })).id;
    });
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTHORIZATION_POLICY' }]);
    pol.writers = (await mk('role', { name: 'writers', roles: [{ id: writer.id }] })).id;
    pol.rita = (await mk('user', { name: 'only rita', users: [users.rita] })).id;
    pol.notRita = (await mk('user', { name: 'not rita', users: [users.rita], logic: 'NEGATIVE' })).id;
    pol.staff = (await mk('group', { name: 'staff', groups: [{ id: staff.id, extendChildren: true }] })).id;
    pol.client = (await mk('client', { name: 'api client', clients: ['api'] })).id;
    pol.always = (await mk('time', { name: 'always', notBefore: '2000-01-01 00:00:00' })).id;
    pol.never = (await mk('time', { name: 'never', notOnOrAfter: '2000-01-01 00:00:00' })).id;
    pol.agg = (await mk('aggregate', { name: 'readers or staff', decisionStrategy: 'AFFIRMATIVE', policies: [pol.readers, pol.staff] })).id;
    expect(await kc.clients.findOnePolicyWithType({ id, type: 'role', policyId: pol.readers! })).toMatchObject({ name: 'readers', roles: [{ id: reader.id, required: false }], logic: 'POSITIVE' });
    expect(await kc.clients.findOnePolicy({ id, type: 'role', policyId: pol.readers! })).toMatchObject({ name: 'readers', type: 'role', config: { roles: JSON.stringify([{ id: reader.id, required: false }]) } });
    expect(await kc.clients.findOnePolicyWithType({ id, type: 'user', policyId: 'nope' })).toBeNull();
    const none = await events(async () => {
      expect((await failure(mk('role', { name: 'readers', roles: [{ id: reader.id }] }))).status).toBe(409);
      expect((await failure(mk('role', { name: 'ghost role', roles: [{ id: 'ghost' }] }))).status).toBe(400);
      expect((await failure(mk('js', { name: 'script', code: 'grant()' }))).status).toBe(400);
      expect((await failure(mk('user', { name: 'bad user', users: ['ghost'] }))).status).toBe(400);
      expect((await failure(mk('time', { name: 'bad time', notBefore: 'yesterday' }))).status).toBe(400);
    });
    expect(none).toHaveLength(0);
    expect((await kc.clients.listPolicyProviders({ id })).map((p) => p.type)).toEqual(expect.arrayContaining(['role', 'user', 'client', 'group', 'time', 'aggregate', 'resource', 'scope']));
    expect(await kc.clients.findPolicyByName({ id, name: 'readers' })).toMatchObject({ id: pol.readers, type: 'role' });
    expect((await kc.clients.listDependentPolicies({ id, policyId: pol.readers! })).map((p) => p.name)).toEqual(['readers or staff']);
    expect((await kc.clients.getAssociatedPolicies({ id, permissionId: pol.agg! })).map((p) => p.name)).toEqual(['readers', 'staff']);
  });

  it('evaluates scope permissions with the three decision strategies and NEGATIVE logic', async () => {
    const docs = (await kc.clients.listResources({ id })).find((r) => r.name === 'docs')!;
    // read: readers (one policy). write: writers AND staff (UNANIMOUS). delete: CONSENSUS of readers, writers, not-rita.
    const perm = async (name: string, scopes: string[], policies: string[], decisionStrategy: string) =>
      (await kc.clients.createPermission({ id, type: 'scope' }, { name, resources: [docs._id!], scopes, policies, decisionStrategy } as never)) as { id: string };
    const scopes = await kc.clients.listAllScopes({ id });
    const sid = (n: string) => scopes.find((s) => s.name === n)!.id!;
    const ev = await events(() => perm('read docs', [sid('read')], [pol.readers!], 'UNANIMOUS'));
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTHORIZATION_POLICY' }]);
    const write = await perm('write docs', [sid('write')], [pol.writers!, pol.staff!], 'UNANIMOUS');
    await perm('delete docs', [sid('delete')], [pol.readers!, pol.writers!, pol.notRita!], 'CONSENSUS');
    expect((await kc.clients.findPermissions({ id, name: 'docs' } as never)).map((p) => p.name)).toEqual(['read docs', 'write docs', 'delete docs']);
    expect((await kc.clients.getAssociatedScopes({ id, permissionId: write.id })).map((s) => s.name)).toEqual(['write']);
    expect((await kc.clients.getAssociatedResources({ id, permissionId: write.id })).map((r) => r.name)).toEqual(['docs']);

    const allowed = async (user: string) => {
      const res = await evalFor(users[user]!, [{ name: 'docs' }]);
      return res.results[0]!.allowedScopes.map((s) => s.name).sort();
    };
    expect(await allowed('rita')).toEqual(['read']); // delete: readers P, writers D, not-rita D → DENY
    expect(await allowed('walt')).toEqual(['delete', 'read', 'write']); // delete: P, P, P
    expect(await allowed('nobody')).toEqual([]); // delete: D, D, P → DENY
    expect((await evalFor(users.nobody!, [{ name: 'docs' }])).status).toBe('DENY');

    // AFFIRMATIVE on the write permission lets any of its policies grant.
    await kc.clients.updatePermission({ id, type: 'scope', permissionId: write.id }, { name: 'write docs', resources: [docs._id!], scopes: [sid('write')], policies: [pol.writers!, pol.staff!], decisionStrategy: 'AFFIRMATIVE' } as never);
    await kc.clients.updatePolicy({ id, type: 'role', policyId: pol.writers! }, { name: 'writers', roles: [{ id: (await kc.roles.findOneByName({ name: 'writer' }))!.id! }], logic: 'NEGATIVE' } as never);
    // writers is now NEGATIVE: rita (not a writer) → PERMIT via writers; walt → staff still PERMIT.
    expect(await allowed('rita')).toEqual(['delete', 'read', 'write']);
  });

  it('combines permissions by the resource server strategy and honours the enforcement mode', async () => {
    const reports = (await kc.clients.listResources({ id })).find((r) => r.name === 'reports')!;
    const p1 = (await kc.clients.createPermission({ id, type: 'resource' }, { name: 'reports by readers', resources: [reports._id!], policies: [pol.readers!] } as never)) as { id: string };
    await kc.clients.createPermission({ id, type: 'resource' }, { name: 'reports never', resources: [reports._id!], policies: [pol.never!] } as never);
    expect((await kc.clients.listPermissionsByResource({ id, resourceId: reports._id! })).map((p) => p.name)).toEqual(['reports by readers', 'reports never']);
    const status = async (user: string) => (await evalFor(users[user]!, [{ name: 'reports' }])).results[0]!.status;
    expect(await status('rita')).toBe('DENY'); // UNANIMOUS: never denies
    await kc.clients.updateResourceServer({ id }, { decisionStrategy: 'AFFIRMATIVE' });
    expect(await status('rita')).toBe('PERMIT');
    expect(await status('nobody')).toBe('DENY');
    await kc.clients.updateResourceServer({ id }, { decisionStrategy: 'CONSENSUS' });
    expect(await status('rita')).toBe('DENY'); // 1 permit vs 1 deny
    await kc.clients.updateResourceServer({ id }, { decisionStrategy: 'UNANIMOUS', policyEnforcementMode: 'DISABLED' });
    expect(await status('nobody')).toBe('PERMIT');
    await kc.clients.updateResourceServer({ id }, { policyEnforcementMode: 'ENFORCING' });
    // A resource with no permission: denied when ENFORCING, granted when PERMISSIVE.
    await kc.clients.createResource({ id }, { name: 'orphan' });
    expect((await evalFor(users.rita!, [{ name: 'orphan' }])).results[0]!.status).toBe('DENY');
    await kc.clients.updateResourceServer({ id }, { policyEnforcementMode: 'PERMISSIVE' });
    expect((await evalFor(users.rita!, [{ name: 'orphan' }])).results[0]!.status).toBe('PERMIT');
    await kc.clients.updateResourceServer({ id }, { policyEnforcementMode: 'ENFORCING' });
    const ev = await events(() => kc.clients.delPermission({ id, type: 'resource', permissionId: p1.id }));
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'AUTHORIZATION_POLICY' }]);
  });

  it('exports and imports the resource server', async () => {
    const exported = await kc.clients.exportResource({ id });
    expect(exported.resources?.map((r) => r.name)).toContain('docs');
    expect(exported.policies?.find((p) => p.name === 'read docs')?.config).toMatchObject({ resources: '["docs"]', scopes: '["read"]', applyPolicies: '["readers"]' });
    const { id: other } = await kc.clients.create({ clientId: 'api2', authorizationServicesEnabled: true, serviceAccountsEnabled: true, publicClient: false });
    const ev = await events(() => kc.clients.importResource({ id: other }, exported));
    expect(ev).toHaveLength(1);
    expect((await kc.clients.listResources({ id: other })).map((r) => r.name).sort()).toEqual(['Default Resource', 'docs', 'orphan', 'reports']);
    expect((await kc.clients.listPolicies({ id: other })).map((p) => p.name)).toEqual(expect.arrayContaining(['read docs', 'readers or staff']));
    const res = (await kc.clients.evaluateResource({ id: other }, { userId: users.rita!, resources: [{ name: 'docs' }], entitlements: false, context: { attributes: {} } } as never)) as unknown as { results: Array<{ allowedScopes: Array<{ name: string }> }> };
    expect(res.results[0]!.allowedScopes.map((s) => s.name)).toContain('read');
    // Disabling authorization services removes the resource server.
    await kc.clients.update({ id: other }, { clientId: 'api2', authorizationServicesEnabled: false });
    expect((await failure(kc.clients.getResourceServer({ id: other }))).status).toBe(404);
  });
});
