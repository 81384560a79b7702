// Localization, client policies/profiles/types, clients initial access, client certificates (with
// PKCS12/JKS key stores) and the client description converter, via @keycloak/keycloak-admin-client.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import forge from 'node-forge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';
import { readJks } from '../src/identity/oidc/keystores.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'conf';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);
let clientId = '';

beforeAll(async () => {
  h = await startIdentity();
  kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  await kc.realms.create({ realm: R, enabled: true, adminEventsEnabled: true, defaultLocale: 'en' });
  kc.setConfig({ realmName: R });
  ({ id: clientId } = await kc.clients.create({ clientId: 'svc', protocol: 'openid-connect', publicClient: false }));
});
afterAll(async () => {
  await h?.close();
});

describe('localization', () => {
  it('puts, gets and deletes texts per locale with one event each', async () => {
    const ev = await events(() => kc.realms.addLocalization({ realm: R, selectedLocale: 'de', key: 'greeting' }, 'Hallo Welt'));
    expect(ev).toMatchObject([{ operationType: 'UPDATE', resourceType: 'REALM_LOCALIZATION', resourcePath: 'localization/de/greeting' }]);
    await kc.realms.addLocalization({ realm: R, selectedLocale: 'en', key: 'greeting' }, 'Hello');
    await kc.realms.addLocalization({ realm: R, selectedLocale: 'en', key: 'farewell' }, 'Bye');
    expect(await kc.realms.getRealmSpecificLocales({ realm: R })).toEqual(['de', 'en']);
    expect(await kc.realms.getRealmLocalizationTexts({ realm: R, selectedLocale: 'de' })).toEqual({ greeting: 'Hallo Welt' });
    const fb = await fetch(`${h.baseUrl}/admin/realms/${R}/localization/de?useRealmDefaultLocaleFallback=true`, { headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(await fb.json()).toEqual({ greeting: 'Hallo Welt', farewell: 'Bye' });
    const one = await fetch(`${h.baseUrl}/admin/realms/${R}/localization/de/greeting`, { headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(one.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(await one.text()).toBe('Hallo Welt');
    // Import a JSON file (multipart), merged into the locale.
    const form = new FormData();
    form.append('file', new Blob([JSON.stringify({ a: '1', b: '2' })], { type: 'application/json' }), 'de.json');
    const imp = await fetch(`${h.baseUrl}/admin/realms/${R}/localization/de`, { method: 'POST', headers: { Authorization: `Bearer ${kc.accessToken}` }, body: form });
    expect(imp.status).toBe(204);
    expect(await kc.realms.getRealmLocalizationTexts({ realm: R, selectedLocale: 'de' })).toEqual({ greeting: 'Hallo Welt', a: '1', b: '2' });
    const bad = new FormData();
    bad.append('file', new Blob(['not json']), 'x.json');
    const none = await events(async () => {
      expect((await fetch(`${h.baseUrl}/admin/realms/${R}/localization/de`, { method: 'POST', headers: { Authorization: `Bearer ${kc.accessToken}` }, body: bad })).status).toBe(400);
      expect((await failure(kc.realms.deleteRealmLocalizationTexts({ realm: R, selectedLocale: 'de', key: 'nope' }))).status).toBe(404);
    });
    expect(none).toHaveLength(0);
    const evD = await events(() => kc.realms.deleteRealmLocalizationTexts({ realm: R, selectedLocale: 'de', key: 'a' }));
    expect(evD).toMatchObject([{ operationType: 'DELETE' }]);
    const del = await fetch(`${h.baseUrl}/admin/realms/${R}/localization/de`, { method: 'DELETE', headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(del.status).toBe(204);
    expect(await kc.realms.getRealmSpecificLocales({ realm: R })).toEqual(['en']);
  });

  it('serves effective message bundles with realm overrides', async () => {
    const list = await kc.serverInfo.findEffectiveMessageBundles({ realm: R, themeType: 'login', locale: 'en', source: true });
    expect(list.find((m) => m.key === 'greeting')).toEqual({ key: 'greeting', value: 'Hello', source: 'REALM' });
    expect(list.find((m) => m.key === 'doLogIn')).toEqual({ key: 'doLogIn', value: 'Sign In', source: 'THEME' });
  });
});

describe('client policies, profiles and types', () => {
  it('stores profiles and policies with global ones on request; rejects bad input without an event', async () => {
    expect(await kc.clientPolicies.listProfiles({ realm: R })).toEqual({ profiles: [] });
    const all = await kc.clientPolicies.listProfiles({ realm: R, includeGlobalProfiles: true });
    expect(all.globalProfiles?.map((p) => p.name)).toContain('fapi-1-baseline');
    const ev = await events(() => kc.clientPolicies.createProfiles({ realm: R, profiles: [{ name: 'strict', description: 'd', executors: [{ executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } }] }] }));
    expect(ev).toMatchObject([{ operationType: 'UPDATE', resourcePath: 'client-policies/profiles' }]);
    const ev2 = await events(() => kc.clientPolicies.updatePolicy({ realm: R, policies: [{ name: 'p1', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['strict', 'fapi-1-baseline'] }] }));
    expect(ev2).toHaveLength(1);
    expect((await kc.clientPolicies.listPolicies({ realm: R })).policies).toEqual([{ name: 'p1', enabled: true, conditions: [{ condition: 'any-client', configuration: {} }], profiles: ['strict', 'fapi-1-baseline'] }]);
    const none = await events(async () => {
      expect((await failure(kc.clientPolicies.updatePolicy({ realm: R, policies: [{ name: 'p2', profiles: ['missing'] }] }))).status).toBe(400);
      expect((await failure(kc.clientPolicies.createProfiles({ realm: R, profiles: [{ name: 'x', executors: [{ executor: 'nope' }] }] }))).status).toBe(400);
      expect((await failure(kc.clientPolicies.createProfiles({ realm: R, profiles: [] }))).status).toBe(400);
    });
    expect(none).toHaveLength(0);
  });

  it('stores realm client types beside the global ones', async () => {
    const before = await fetch(`${h.baseUrl}/admin/realms/${R}/client-types`, { headers: { Authorization: `Bearer ${kc.accessToken}` } }).then((r) => r.json());
    expect(before['global-client-types'].map((t: { name: string }) => t.name)).toEqual(['sla', 'service-account']);
    const put = await fetch(`${h.baseUrl}/admin/realms/${R}/client-types`, { method: 'PUT', headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ 'client-types': [{ name: 'mine', provider: 'default', parent: 'sla', config: { publicClient: { applicable: true, value: true } } }] }) });
    expect(put.status).toBe(204);
    const dup = await fetch(`${h.baseUrl}/admin/realms/${R}/client-types`, { method: 'PUT', headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ 'client-types': [{ name: 'sla', provider: 'default' }] }) });
    expect(dup.status).toBe(400);
    const after = await fetch(`${h.baseUrl}/admin/realms/${R}/client-types`, { headers: { Authorization: `Bearer ${kc.accessToken}` } }).then((r) => r.json());
    expect(after['client-types'].map((t: { name: string }) => t.name)).toEqual(['mine']);
  });
});

describe('clients initial access and description converter', () => {
  it('creates (with the token), lists and deletes initial access tokens', async () => {
    let created: Record<string, unknown> = {};
    const ev = await events(async () => {
      created = (await kc.realms.createClientsInitialAccess({ realm: R }, { count: 2, expiration: 3600 })) as Record<string, unknown>;
    });
    expect(created).toMatchObject({ count: 2, remainingCount: 2, expiration: 3600, token: expect.stringMatching(/^ey/) });
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'CLIENT_INITIAL_ACCESS_MODEL' }]);
    const list = await kc.realms.getClientsInitialAccess({ realm: R });
    expect(list).toHaveLength(1);
    expect(list[0]).not.toHaveProperty('token');
    await kc.realms.delClientsInitialAccess({ realm: R, id: created.id as string });
    expect(await kc.realms.getClientsInitialAccess({ realm: R })).toEqual([]);
  });

  it('converts OIDC metadata and SAML descriptors to client representations', async () => {
    const post = (body: string) => fetch(`${h.baseUrl}/admin/realms/${R}/client-description-converter`, { method: 'POST', headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' }, body });
    const oidc = await (await post(JSON.stringify({ client_id: 'app1', client_name: 'App', redirect_uris: ['https://app/cb'], grant_types: ['authorization_code', 'client_credentials'], token_endpoint_auth_method: 'private_key_jwt' }))).json();
    expect(oidc).toMatchObject({ clientId: 'app1', name: 'App', protocol: 'openid-connect', redirectUris: ['https://app/cb'], clientAuthenticatorType: 'client-jwt', serviceAccountsEnabled: true, standardFlowEnabled: true });
    const saml = await (await post('<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="https://sp.example/meta"><md:SPSSODescriptor><md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="https://sp.example/acs" index="0"/></md:SPSSODescriptor></md:EntityDescriptor>')).json();
    expect(saml).toMatchObject({ clientId: 'https://sp.example/meta', protocol: 'saml', redirectUris: ['https://sp.example/acs'], attributes: { saml_assertion_consumer_url_post: 'https://sp.example/acs' } });
    expect((await post('hello')).status).toBe(400);
  });
});

describe('client certificates', () => {
  it('generates, shows, downloads (PKCS12, JKS) and uploads certificates', async () => {
    expect(await kc.clients.getKeyInfo({ id: clientId, attr: 'jwt.credential' })).toEqual({});
    let gen: { certificate?: string; privateKey?: string } = {};
    const ev = await events(async () => {
      gen = await kc.clients.generateKey({ id: clientId, attr: 'jwt.credential' });
    });
    expect(ev).toMatchObject([{ operationType: 'ACTION', resourceType: 'CLIENT', resourcePath: `clients/${clientId}/certificates/jwt.credential/generate` }]);
    expect(JSON.stringify(ev[0]!.representation ?? '')).not.toContain(gen.privateKey!.slice(0, 40));
    expect(gen.certificate).toMatch(/^MII/);
    const info = await kc.clients.getKeyInfo({ id: clientId, attr: 'jwt.credential' });
    expect(info.certificate).toBe(gen.certificate);
    expect(info).not.toHaveProperty('privateKey');

    const p12 = await kc.clients.downloadKey({ id: clientId, attr: 'jwt.credential' }, { format: 'PKCS12', keyAlias: 'svc', keyPassword: 'kpw', storePassword: 'spw' });
    const p12buf = Buffer.from(p12 as ArrayBuffer);
    const parsed = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(p12buf.toString('binary')), 'spw');
    const certBag = parsed.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!]![0]!;
    expect(Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(certBag.cert!)).getBytes(), 'binary').toString('base64')).toBe(gen.certificate);

    const jksBytes = Buffer.from((await kc.clients.downloadKey({ id: clientId, attr: 'jwt.credential' }, { format: 'JKS', keyAlias: 'svc', keyPassword: 'kpw', storePassword: 'spw', realmCertificate: true, realmAlias: R })) as ArrayBuffer);
    expect(jksBytes.readUInt32BE(0)).toBe(0xfeedfeed);
    const back = readJks(jksBytes, 'spw', 'kpw', 'svc');
    expect(back.certificate).toBe(gen.certificate);
    expect(back.keyPem).toContain('BEGIN PRIVATE KEY');

    // generate-and-download keeps only the certificate.
    const fresh = Buffer.from((await kc.clients.generateAndDownloadKey({ id: clientId, attr: 'saml.signing' }, { format: 'JKS', keyAlias: 'a', keyPassword: 'k', storePassword: 's' })) as ArrayBuffer);
    const freshCert = readJks(fresh, 's', 'k', 'a').certificate;
    expect((await kc.clients.getKeyInfo({ id: clientId, attr: 'saml.signing' })).certificate).toBe(freshCert);
    expect((await failure(kc.clients.downloadKey({ id: clientId, attr: 'saml.signing' }, { format: 'JKS', keyAlias: 'a', keyPassword: 'k', storePassword: 's' }))).status).toBe(400);

    // Upload: a PEM certificate, then the PKCS12 store with its key.
    const pem = `-----BEGIN CERTIFICATE-----\n${gen.certificate}\n-----END CERTIFICATE-----\n`;
    const f1 = new FormData();
    f1.append('keystoreFormat', 'Certificate PEM');
    f1.append('file', new Blob([pem]), 'cert.pem');
    const up1 = await kc.clients.uploadCertificate({ id: clientId, attr: 'other' }, f1);
    expect(up1.certificate).toBe(gen.certificate);
    const f2 = new FormData();
    f2.append('keystoreFormat', 'PKCS12');
    f2.append('storePassword', 'spw');
    f2.append('keyPassword', 'kpw');
    f2.append('keyAlias', 'svc');
    f2.append('file', new Blob([p12buf]), 'svc.p12');
    await kc.clients.uploadKey({ id: clientId, attr: 'third' }, f2);
    const again = Buffer.from((await kc.clients.downloadKey({ id: clientId, attr: 'third' }, { format: 'PKCS12', keyAlias: 'x', keyPassword: 'p', storePassword: 'p' })) as ArrayBuffer);
    expect(again.length).toBeGreaterThan(1000);
    const f3 = new FormData();
    f3.append('keystoreFormat', 'PKCS12');
    f3.append('storePassword', 'wrong');
    f3.append('file', new Blob([p12buf]), 'svc.p12');
    expect((await failure(kc.clients.uploadKey({ id: clientId, attr: 'fourth' }, f3))).status).toBe(400);
  });
});
