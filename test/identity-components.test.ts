// Components through @keycloak/keycloak-admin-client: filters, CRUD with one admin event per change,
// and the realm's key providers as components whose keys sign tokens and show under /keys and /certs.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'comp';
const KP = 'org.keycloak.keys.KeyProvider';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);

async function token(): Promise<{ kid: string; access: string }> {
  const res = await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: 'grant_type=password&client_id=admin-cli&username=kim&password=pw-kim-1',
  });
  expect(res.status).toBe(200);
  const access = ((await res.json()) as { access_token: string }).access_token;
  return { access, kid: JSON.parse(Buffer.from(access.split('.')[0]!, 'base64url').toString()).kid };
}

beforeAll(async () => {
  h = await startIdentity();
  kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  await kc.realms.create({ realm: R, enabled: true, adminEventsEnabled: true, users: [{ username: 'kim', enabled: true, credentials: [{ type: 'password', value: 'pw-kim-1' }] }] });
  kc.setConfig({ realmName: R });
});
afterAll(async () => {
  await h?.close();
});

describe('components', () => {
  it('has the default key providers and client-registration policies', async () => {
    const realm = await kc.realms.findOne({ realm: R });
    const keys = await kc.components.find({ type: KP });
    expect(keys.map((c) => [c.name, c.providerId, c.config?.priority?.[0]])).toEqual([
      expect.anything(), expect.anything(), expect.anything(), expect.anything(),
    ]);
    expect(keys.map((c) => c.name).sort()).toEqual(['aes-generated', 'hmac-generated-hs512', 'rsa-enc-generated', 'rsa-generated']);
    expect(keys.every((c) => c.parentId === realm!.id && c.config?.priority?.[0] === '100')).toBe(true);
    const rsa = keys.find((c) => c.name === 'rsa-generated')!;
    expect(rsa.config?.privateKey).toEqual(['**********']);
    const anon = await kc.components.find({ type: 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy' });
    expect(anon.filter((c) => c.subType === 'anonymous').map((c) => c.name)).toEqual(expect.arrayContaining(['Trusted Hosts', 'Consent Required', 'Full Scope Disabled', 'Max Clients Limit', 'Allowed Protocol Mapper Types', 'Allowed Client Scopes']));
    expect(anon.filter((c) => c.subType === 'authenticated')).toHaveLength(2);
    expect(await kc.components.find({ name: 'Max Clients Limit' })).toHaveLength(1);
    expect(await kc.components.find({ parent: 'nobody' })).toHaveLength(0);
    const providers = await kc.realms.getClientRegistrationPolicyProviders({ realm: R });
    expect(providers.map((p) => p.id)).toContain('max-clients');
  });

  it('creates, updates and deletes a component with one event each; bad input changes nothing', async () => {
    let id = '';
    const ev1 = await events(async () => {
      ({ id } = await kc.components.create({ name: 'limit', providerId: 'max-clients', providerType: 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy', subType: 'authenticated', config: { 'max-clients': ['5'] } }));
    });
    expect(ev1).toMatchObject([{ operationType: 'CREATE', resourceType: 'COMPONENT', resourcePath: `components/${id}` }]);
    const ev2 = await events(() => kc.components.update({ id }, { name: 'limit2', providerId: 'max-clients', providerType: 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy', config: { 'max-clients': ['7'] } }));
    expect(ev2).toMatchObject([{ operationType: 'UPDATE', resourceType: 'COMPONENT' }]);
    expect(await kc.components.findOne({ id })).toMatchObject({ name: 'limit2', config: { 'max-clients': ['7'] } });
    const none = await events(async () => {
      expect((await failure(kc.components.create({ name: 'x', providerId: 'nope', providerType: KP }))).status).toBe(400);
      expect((await failure(kc.components.create({ name: 'x', providerId: 'rsa-generated', providerType: KP, config: { keySize: ['123'] } }))).status).toBe(400);
      expect((await failure(kc.components.update({ id: 'missing' }, { name: 'x' }))).status).toBe(404);
    });
    expect(none).toHaveLength(0);
    const ev3 = await events(() => kc.components.del({ id }));
    expect(ev3).toMatchObject([{ operationType: 'DELETE', resourceType: 'COMPONENT' }]);
    expect(await kc.components.findOne({ id })).toBeNull();
    expect(await kc.components.listSubComponents({ id: (await kc.components.find({ name: 'rsa-generated' }))[0]!.id!, type: 'x' })).toEqual([]);
  });

  it('signs tokens with the active RSA key of highest priority, shown under /keys and /certs', async () => {
    const keysBefore = await kc.realms.getKeys({ realm: R });
    const t1 = await token();
    expect(t1.kid).toBe(keysBefore.active!.RS256);
    expect(keysBefore.keys!.map((k) => k.algorithm).sort()).toEqual(['AES', 'HS512', 'RS256', 'RSA-OAEP']);
    expect(keysBefore.keys!.find((k) => k.algorithm === 'RS256')).toMatchObject({ type: 'RSA', use: 'SIG', status: 'ACTIVE', providerPriority: 100 });
    expect(keysBefore.keys!.find((k) => k.algorithm === 'RS256')!.certificate).toMatch(/^MII/);

    const { id } = await kc.components.create({ name: 'rsa-2', providerId: 'rsa-generated', providerType: KP, config: { priority: ['200'] } });
    const keysAfter = await kc.realms.getKeys({ realm: R });
    const newKid = keysAfter.keys!.find((k) => k.providerId === id)!.kid!;
    expect(keysAfter.active!.RS256).toBe(newKid);
    const t2 = await token();
    expect(t2.kid).toBe(newKid);
    const certs = (await (await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/certs`)).json()) as { keys: Array<{ kid: string; use: string; alg: string }> };
    expect(certs.keys.map((k) => k.kid)).toEqual(expect.arrayContaining([t1.kid, t2.kid]));
    expect(certs.keys.find((k) => k.alg === 'RSA-OAEP')?.use).toBe('enc');

    // Both tokens are accepted (the old key is still enabled), e.g. by userinfo.
    for (const t of [t1, t2]) expect((await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/userinfo`, { headers: { Authorization: `Bearer ${t.access}` } })).status).toBe(200);

    // Disabling the old provider retires its key: tokens it signed stop verifying.
    const old = (await kc.components.find({ name: 'rsa-generated' }))[0]!;
    await kc.components.update({ id: old.id! }, { ...old, config: { ...old.config, enabled: ['false'] } });
    expect((await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/userinfo`, { headers: { Authorization: `Bearer ${t1.access}` } })).status).toBe(401);
    expect((await kc.realms.getKeys({ realm: R })).keys!.find((k) => k.kid === t1.kid)?.status).toBe('DISABLED');
    // An update that sends the masked private key back keeps the key.
    const again = await kc.components.findOne({ id });
    await kc.components.update({ id }, { ...again!, name: 'rsa-2b' });
    expect((await token()).kid).toBe(newKid);
  });
});

describe('realm creation and deletion', () => {
  it('write no admin event, as in Keycloak (RealmsAdminResource.importRealm / RealmAdminResource.deleteRealm)', async () => {
    await kc.realms.update({ realm: 'master' }, { adminEventsEnabled: true });
    const before = (await kc.realms.findAdminEvents({ realm: 'master', max: 1000 })).length;
    await kc.realms.create({ realm: 'ephemeral', enabled: true });
    await kc.realms.del({ realm: 'ephemeral' });
    const after = await kc.realms.findAdminEvents({ realm: 'master', max: 1000 });
    // (The settings update above is already counted in `before`.)
    expect(after.length - before).toBe(0);
    await kc.realms.update({ realm: 'master' }, { adminEventsEnabled: false });
  });
});
