// Spec coverage: every route of the identity admin spec's section 4 (transcribed below, with the
// client-templates twins, both role prefixes, both role-mapping owners and all three protocol-mapper
// owners) is called with its documented method against real objects; none may answer 404 or 405.
import KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIdentity, type Harness } from './identity-harness.js';
import { startSmtp, type Smtp } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
let smtp: Smtp;
const R = 'cov';
const ids: Record<string, string> = {};

type Route = [method: string, path: string, body?: unknown, contentType?: string];

/** Section 4, in an order where each call finds what it needs (creations before deletions). */
function routes(): Route[] {
  const A = '/{realm}/authentication';
  const CC = '/{realm}/clients/{client}/certificates/jwt.credential';
  const AZ = '/{realm}/clients/{client}/authz/resource-server';
  const O = '/{realm}/organizations';
  const role = { id: '{roleId}', name: 'cov-role' };
  const list: Route[] = [
    // Attack detection
    ['GET', '/{realm}/attack-detection/brute-force/users/{user}'],
    ['DELETE', '/{realm}/attack-detection/brute-force/users/{user}'],
    ['DELETE', '/{realm}/attack-detection/brute-force/users'],
    // Authentication management
    ...['/authenticator-providers', '/client-authenticator-providers', '/form-action-providers', '/form-providers', '/per-client-config-description', '/config-description/auth-otp-form'].map((p): Route => ['GET', A + p]),
    ['POST', `${A}/config`, { alias: 'cov-extra-config', config: {} }],
    ['GET', `${A}/config/{config}`],
    ['PUT', `${A}/config/{config}`, { alias: 'cov-config', config: { condUserRole: 'x' } }],
    ['POST', `${A}/executions`, { parentFlow: '{flowId}', authenticator: 'auth-otp-form', requirement: 'DISABLED' }],
    ['GET', `${A}/executions/{exec}`],
    ['POST', `${A}/executions/{exec2}/config`, { alias: 'cov-exec2-config', config: {} }],
    ['GET', `${A}/executions/{exec}/config/{config}`],
    ['POST', `${A}/executions/{exec}/lower-priority`],
    ['POST', `${A}/executions/{exec}/raise-priority`],
    ['POST', `${A}/flows/cov%20flow/copy`, { newName: 'cov copy' }],
    ['POST', `${A}/flows/cov%20flow/executions/execution`, { provider: 'auth-cookie' }],
    ['POST', `${A}/flows/cov%20flow/executions/flow`, { alias: 'cov sub', type: 'basic-flow', description: '' }],
    ['GET', `${A}/flows/cov%20flow/executions`],
    ['PUT', `${A}/flows/cov%20flow/executions`, { id: '{exec}', requirement: 'REQUIRED' }],
    ['GET', `${A}/flows`],
    ['POST', `${A}/flows`, { alias: 'cov new flow', providerId: 'basic-flow', topLevel: true }],
    ['GET', `${A}/flows/{flowId}`],
    ['PUT', `${A}/flows/{flowId}`, { alias: 'cov flow', description: 'updated', providerId: 'basic-flow', topLevel: true }],
    ['POST', `${A}/register-required-action`, { providerId: 'UPDATE_EMAIL', name: 'Update Email' }],
    ['GET', `${A}/required-actions`],
    ['GET', `${A}/unregistered-required-actions`],
    ['GET', `${A}/required-actions/UPDATE_PASSWORD`],
    ['PUT', `${A}/required-actions/UPDATE_PASSWORD`, { alias: 'UPDATE_PASSWORD', name: 'Update Password', providerId: 'UPDATE_PASSWORD', enabled: true, defaultAction: false, priority: 30, config: {} }],
    ['PUT', `${A}/required-actions/UPDATE_PASSWORD/config`, { config: { max_auth_age: '300' } }],
    ['GET', `${A}/required-actions/UPDATE_PASSWORD/config`],
    ['GET', `${A}/required-actions/UPDATE_PASSWORD/config-description`],
    ['DELETE', `${A}/required-actions/UPDATE_PASSWORD/config`],
    ['POST', `${A}/required-actions/UPDATE_PASSWORD/lower-priority`],
    ['POST', `${A}/required-actions/UPDATE_PASSWORD/raise-priority`],
    ['DELETE', `${A}/required-actions/UPDATE_EMAIL`],
    ['DELETE', `${A}/executions/{exec2}`],
    ['DELETE', `${A}/config/{config2}`],
    ['DELETE', `${A}/flows/{flow2}`],
    // Client attribute certificates
    ['GET', CC],
    ['POST', `${CC}/generate`],
    ['POST', `${CC}/generate-and-download`, { format: 'PKCS12', keyAlias: 'a', keyPassword: 'p', storePassword: 'p' }],
    ['POST', `${CC}/generate`],
    ['POST', `${CC}/download`, { format: 'JKS', keyAlias: 'a', keyPassword: 'p', storePassword: 'p' }],
    ['POST', `${CC}/upload`, 'FORM:cert'],
    ['POST', `${CC}/upload-certificate`, 'FORM:cert'],
    // Client initial access and registration policy
    ['GET', '/{realm}/clients-initial-access'],
    ['POST', '/{realm}/clients-initial-access', { count: 1, expiration: 60 }],
    ['DELETE', '/{realm}/clients-initial-access/{cia}'],
    ['GET', '/{realm}/client-registration-policy/providers'],
  ];
  // Role mappings (groups and users)
  for (const owner of ['/{realm}/groups/{group}', '/{realm}/users/{user}']) {
    list.push(
      ['GET', `${owner}/role-mappings`],
      ['GET', `${owner}/role-mappings/realm`],
      ['GET', `${owner}/role-mappings/realm/available`],
      ['GET', `${owner}/role-mappings/realm/composite`],
      ['POST', `${owner}/role-mappings/realm`, [role]],
      ['DELETE', `${owner}/role-mappings/realm`, [role]],
      ['GET', `${owner}/role-mappings/clients/{client}`],
      ['GET', `${owner}/role-mappings/clients/{client}/available`],
      ['GET', `${owner}/role-mappings/clients/{client}/composite`],
      ['POST', `${owner}/role-mappings/clients/{client}`, [{ id: '{clientRoleId}', name: 'cov-client-role' }]],
      ['DELETE', `${owner}/role-mappings/clients/{client}`, [{ id: '{clientRoleId}', name: 'cov-client-role' }]],
    );
  }
  // Client scopes (and the legacy client-templates twin)
  for (const base of ['/{realm}/client-scopes', '/{realm}/client-templates']) {
    list.push(['GET', base], ['POST', base, { name: `cov-made-${base.endsWith('templates') ? 't' : 's'}`, protocol: 'openid-connect' }], ['GET', `${base}/{scope}`], ['PUT', `${base}/{scope}`, { name: 'cov-scope', protocol: 'openid-connect', description: 'd' }]);
  }
  list.push(['DELETE', '/{realm}/client-scopes/{scope2}'], ['DELETE', '/{realm}/client-templates/{scope3}']);
  // Clients
  const C = '/{realm}/clients/{client}';
  list.push(
    ['GET', '/{realm}/clients'],
    ['POST', '/{realm}/clients', { clientId: 'cov-made-client' }],
    ['GET', C],
    ['PUT', C, { clientId: 'cov-client', description: 'd' }],
    ['GET', `${C}/client-secret`],
    ['POST', `${C}/client-secret`],
    ['GET', `${C}/client-secret/rotated`],
    ['DELETE', `${C}/client-secret/rotated`],
    ['GET', `${C}/default-client-scopes`],
    ['GET', `${C}/optional-client-scopes`],
    ['PUT', `${C}/default-client-scopes/{scope}`],
    ['DELETE', `${C}/default-client-scopes/{scope}`],
    ['PUT', `${C}/optional-client-scopes/{scope}`],
    ['DELETE', `${C}/optional-client-scopes/{scope}`],
    ['GET', `${C}/evaluate-scopes/generate-example-access-token?userId={user}`],
    ['GET', `${C}/evaluate-scopes/generate-example-id-token?userId={user}`],
    ['GET', `${C}/evaluate-scopes/generate-example-userinfo?userId={user}`],
    ['GET', `${C}/evaluate-scopes/protocol-mappers`],
    ['GET', `${C}/evaluate-scopes/scope-mappings/cov/granted`],
    ['GET', `${C}/evaluate-scopes/scope-mappings/{client}/not-granted`],
    ['GET', `${C}/installation/providers/keycloak-oidc-keycloak-json`],
    ['GET', `${C}/management/permissions`],
    ['PUT', `${C}/management/permissions`, { enabled: false }],
    ['POST', `${C}/nodes`, { node: 'node1' }],
    ['GET', `${C}/test-nodes-available`],
    ['DELETE', `${C}/nodes/node1`],
    ['GET', `${C}/offline-session-count`],
    ['GET', `${C}/session-count`],
    ['GET', `${C}/offline-sessions`],
    ['GET', `${C}/user-sessions`],
    ['POST', `${C}/push-revocation`],
    ['POST', `${C}/registration-access-token`],
    ['GET', `${C}/service-account-user`],
    ['DELETE', '/{realm}/clients/{client2}'],
    // Components
    ['GET', '/{realm}/components'],
    ['POST', '/{realm}/components', { name: 'cov-made-comp', providerId: 'max-clients', providerType: 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy', subType: 'anonymous', config: {} }],
    ['GET', '/{realm}/components/{comp}'],
    ['PUT', '/{realm}/components/{comp}', { name: 'cov-comp', providerId: 'max-clients', providerType: 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy', config: { 'max-clients': ['3'] } }],
    ['GET', '/{realm}/components/{comp}/sub-component-types?type=x'],
    ['DELETE', '/{realm}/components/{comp2}'],
    // Authorization services
    ['GET', AZ],
    ['POST', `${AZ}/import`, { scopes: [{ name: 'cov-imported' }] }],
    ['POST', `${AZ}/permission/evaluate`, { userId: '{user}', resources: [], context: { attributes: {} }, entitlements: false }],
    ['POST', `${AZ}/policy/evaluate`, { userId: '{user}', resources: [], context: { attributes: {} }, entitlements: false }],
    ['GET', `${AZ}/permission`],
    ['GET', `${AZ}/policy`],
    ['POST', `${AZ}/permission`, { type: 'resource', name: 'cov-perm', resources: ['Default Resource'], policies: ['Default Policy'] }],
    ['GET', `${AZ}/permission/providers`],
    ['GET', `${AZ}/permission/search?name=cov-perm`],
    // Organizations
    ['POST', O, { name: 'cov-made-org' }],
    ['PUT', `${O}/{org}`, { name: 'cov-org', description: 'd' }],
    ['GET', `${O}/{org}/members`],
    ['POST', `${O}/{org}/members`, '"{user2}"'],
    ['GET', `${O}/{org}/members/count`],
    ['POST', `${O}/{org}/members/invite-existing-user`, 'FORM:id={user3}'],
    ['POST', `${O}/{org}/members/invite-user`, 'FORM:email=new@cov.org'],
    ['GET', `${O}/{org}/members/{user}`],
    ['GET', `${O}/{org}/members/{user}/organizations`],
    ['GET', `${O}/members/{user}/organizations`],
    ['DELETE', `${O}/{org}/members/{user2}`],
  );
  // Protocol mappers (three owners)
  for (const [owner, mapper] of [['/{realm}/client-scopes/{scope}', '{smapper}'], ['/{realm}/client-templates/{scope}', '{smapper}'], ['/{realm}/clients/{client}', '{cmapper}']] as const) {
    const tag = owner.includes('templates') ? 't' : owner.includes('clients') ? 'c' : 's';
    list.push(
      ['POST', `${owner}/protocol-mappers/add-models`, [{ name: `cov-add-${tag}`, protocol: 'openid-connect', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { 'claim.name': `a${tag}`, 'claim.value': '1' } }]],
      ['GET', `${owner}/protocol-mappers/models`],
      ['POST', `${owner}/protocol-mappers/models`, { name: `cov-one-${tag}`, protocol: 'openid-connect', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { 'claim.name': `b${tag}`, 'claim.value': '1' } }],
      ['GET', `${owner}/protocol-mappers/models/${mapper}`],
      ['PUT', `${owner}/protocol-mappers/models/${mapper}`, { id: mapper, name: tag === 'c' ? 'cov-cmapper' : 'cov-smapper', protocol: 'openid-connect', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { 'claim.name': 'c', 'claim.value': '2' } }],
      ['GET', `${owner}/protocol-mappers/protocol/openid-connect`],
    );
  }
  list.push(['DELETE', '/{realm}/clients/{client}/protocol-mappers/models/{cmapper}']);
  // Realm administration
  list.push(
    ['GET', '/admin/realms'],
    ['POST', '/admin/realms', { realm: 'cov-made-realm', enabled: true }],
    ['GET', '/{realm}'],
    ['PUT', '/{realm}', { displayName: 'Coverage' }],
    ['GET', '/{realm}/admin-events'],
    ['GET', '/{realm}/events'],
    ['GET', '/{realm}/events/config'],
    ['PUT', '/{realm}/events/config', { eventsEnabled: true, adminEventsEnabled: true }],
    ['POST', '/{realm}/client-description-converter', { clientId: 'converted' }],
    ['GET', '/{realm}/client-policies/policies'],
    ['PUT', '/{realm}/client-policies/policies', { policies: [] }],
    ['GET', '/{realm}/client-policies/profiles'],
    ['PUT', '/{realm}/client-policies/profiles', { profiles: [] }],
    ['GET', '/{realm}/client-session-stats'],
    ['GET', '/{realm}/client-types'],
    ['PUT', '/{realm}/client-types', { 'client-types': [] }],
    ['GET', '/{realm}/credential-registrators'],
    ['GET', '/{realm}/default-default-client-scopes'],
    ['GET', '/{realm}/default-optional-client-scopes'],
    ['PUT', '/{realm}/default-default-client-scopes/{scope}'],
    ['DELETE', '/{realm}/default-default-client-scopes/{scope}'],
    ['PUT', '/{realm}/default-optional-client-scopes/{scope}'],
    ['DELETE', '/{realm}/default-optional-client-scopes/{scope}'],
    ['PUT', '/{realm}/default-groups/{group}'],
    ['GET', '/{realm}/default-groups'],
    ['DELETE', '/{realm}/default-groups/{group}'],
    ['GET', '/{realm}/group-by-path/cov-group'],
    ['PUT', '/{realm}/localization/de/k1', 'TEXT:eins'],
    ['GET', '/{realm}/localization'],
    ['GET', '/{realm}/localization/de'],
    ['POST', '/{realm}/localization/de', { k2: 'zwei' }],
    ['GET', '/{realm}/localization/de/k1'],
    ['DELETE', '/{realm}/localization/de/k1'],
    ['DELETE', '/{realm}/localization/de'],
    ['POST', '/{realm}/partial-export'],
    ['POST', '/{realm}/partialImport', { ifResourceExists: 'SKIP', roles: { realm: [{ name: 'cov-imported-role' }] } }],
    ['POST', '/{realm}/push-revocation'],
    ['DELETE', '/{realm}/sessions/{session}'],
    ['POST', '/{realm}/testSMTPConnection', { host: '127.0.0.1', port: '{smtpPort}', from: 'a@b.c' }],
    ['GET', '/{realm}/users-management-permissions'],
    ['PUT', '/{realm}/users-management-permissions', { enabled: false }],
    ['POST', '/{realm}/logout-all'],
  );
  // Roles (realm and client prefixes)
  for (const [base, name, cr] of [['/{realm}/roles', 'cov-role', 'r'], ['/{realm}/clients/{client}/roles', 'cov-client-role', 'c']] as const) {
    list.push(
      ['GET', base],
      ['POST', base, { name: `cov-made-role-${cr}` }],
      ['GET', `${base}/${name}`],
      ['PUT', `${base}/${name}`, { name, description: 'd' }],
      ['GET', `${base}/${name}/composites`],
      ['GET', `${base}/${name}/composites/realm`],
      ['GET', `${base}/${name}/composites/clients/{client}`],
      ['POST', `${base}/${name}/composites`, [{ id: '{role2Id}', name: 'cov-role-2' }]],
      ['DELETE', `${base}/${name}/composites`, [{ id: '{role2Id}', name: 'cov-role-2' }]],
      ['GET', `${base}/${name}/groups`],
      ['GET', `${base}/${name}/users`],
      ['GET', `${base}/${name}/management/permissions`],
      ['PUT', `${base}/${name}/management/permissions`, { enabled: false }],
    );
  }
  list.push(['DELETE', '/{realm}/roles/cov-role-3']);
  // Roles by id
  const RB = '/{realm}/roles-by-id/{roleId}';
  list.push(
    ['GET', RB],
    ['PUT', RB, { name: 'cov-role', description: 'by id' }],
    ['GET', `${RB}/composites`],
    ['POST', `${RB}/composites`, [{ id: '{role2Id}' }]],
    ['DELETE', `${RB}/composites`, [{ id: '{role2Id}' }]],
    ['GET', `${RB}/composites/realm`],
    ['GET', `${RB}/composites/clients/{client}`],
    ['GET', `${RB}/management/permissions`],
    ['PUT', `${RB}/management/permissions`, { enabled: false }],
    ['DELETE', '/{realm}/roles-by-id/{role4Id}'],
  );
  // Scope mappings
  const SM = '/{realm}/client-scopes/{scope}/scope-mappings';
  list.push(
    ['GET', `${SM}/clients/{client}/available`],
    ['GET', `${SM}/clients/{client}/composite`],
    ['GET', `${SM}/clients/{client}`],
    ['POST', `${SM}/clients/{client}`, [{ id: '{clientRoleId}', name: 'cov-client-role' }]],
    ['DELETE', `${SM}/clients/{client}`, [{ id: '{clientRoleId}', name: 'cov-client-role' }]],
    ['GET', SM],
  );
  // Users
  const U = '/{realm}/users/{user}';
  list.push(
    ['GET', U],
    ['PUT', U, { firstName: 'Cov' }],
    ['PUT', `${U}/execute-actions-email`, ['UPDATE_PASSWORD']],
    ['PUT', `${U}/reset-password-email`],
    ['PUT', `${U}/reset-password`, { type: 'password', value: 'pw-cov-2', temporary: false }],
    ['PUT', `${U}/send-verify-email`],
    ['GET', `${U}/federated-identity`],
    ['POST', `${U}/federated-identity/github`, { identityProvider: 'github', userId: 'gh1', userName: 'gh' }],
    ['DELETE', `${U}/federated-identity/github`],
    ['GET', `${U}/groups`],
    ['GET', `${U}/groups/count`],
    ['PUT', `${U}/groups/{group}`],
    ['DELETE', `${U}/groups/{group}`],
    ['POST', `${U}/impersonation`],
    ['GET', `${U}/offline-sessions/{client}`],
    ['GET', `${U}/sessions`],
    ['GET', `${U}/unmanagedAttributes`],
    ['POST', `${U}/logout`],
    // Cleanup routes last.
    ['DELETE', '/{realm}/admin-events'],
    ['DELETE', '/{realm}/events'],
    ['DELETE', '/cov-made-realm'],
  );
  return list;
}

beforeAll(async () => {
  [h, smtp] = await Promise.all([startIdentity(), startSmtp()]);
  kc = new KcAdminClient({ baseUrl: h.baseUrl, realmName: 'master' });
  await kc.auth({ username: 'admin', password: 'admin-pw', grantType: 'password', clientId: 'admin-cli' });
  const admin = (await kc.users.find({ username: 'admin', exact: true }))[0]!;
  await kc.users.update({ id: admin.id! }, { email: 'admin@master.test' });
  await kc.realms.create({
    realm: R, enabled: true, organizationsEnabled: true, smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'idm@cov.org' },
    roles: { realm: [{ name: 'cov-role' }, { name: 'cov-role-2' }, { name: 'cov-role-3' }, { name: 'cov-role-4' }] },
    groups: [{ name: 'cov-group' }],
    users: [
      { username: 'cov-user', email: 'cov@cov.org', enabled: true, credentials: [{ type: 'password', value: 'pw-cov-1' }] },
      { username: 'cov-user2', email: 'cov2@cov.org', enabled: true },
      { username: 'cov-user3', email: 'cov3@cov.org', enabled: true },
    ],
  });
  kc.setConfig({ realmName: R });
  const user = async (n: string) => (await kc.users.find({ username: n, exact: true }))[0]!.id!;
  ids.user = await user('cov-user');
  ids.user2 = await user('cov-user2');
  ids.user3 = await user('cov-user3');
  ids.group = (await kc.groups.find())[0]!.id!;
  ids.client = (await kc.clients.create({ clientId: 'cov-client', publicClient: false, serviceAccountsEnabled: true, authorizationServicesEnabled: true, directAccessGrantsEnabled: true })).id;
  ids.client2 = (await kc.clients.create({ clientId: 'cov-client-2' })).id;
  await kc.clients.createRole({ id: ids.client, name: 'cov-client-role' });
  ids.clientRoleId = (await kc.clients.findRole({ id: ids.client, roleName: 'cov-client-role' }))!.id!;
  ids.roleId = (await kc.roles.findOneByName({ name: 'cov-role' }))!.id!;
  ids.role2Id = (await kc.roles.findOneByName({ name: 'cov-role-2' }))!.id!;
  ids.role4Id = (await kc.roles.findOneByName({ name: 'cov-role-4' }))!.id!;
  ids.scope = (await kc.clientScopes.create({ name: 'cov-scope', protocol: 'openid-connect' })).id;
  ids.scope2 = (await kc.clientScopes.create({ name: 'cov-scope-2', protocol: 'openid-connect' })).id;
  ids.scope3 = (await kc.clientScopes.create({ name: 'cov-scope-3', protocol: 'openid-connect' })).id;
  const sm = await kc.clientScopes.addProtocolMapper({ id: ids.scope }, { name: 'cov-smapper', protocol: 'openid-connect', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { 'claim.name': 's', 'claim.value': '1' } });
  void sm;
  ids.smapper = (await kc.clientScopes.listProtocolMappers({ id: ids.scope }))[0]!.id!;
  await kc.clients.addProtocolMapper({ id: ids.client }, { name: 'cov-cmapper', protocol: 'openid-connect', protocolMapper: 'oidc-hardcoded-claim-mapper', config: { 'claim.name': 'c', 'claim.value': '1' } });
  ids.cmapper = (await kc.clients.listProtocolMappers({ id: ids.client }))[0]!.id!;
  ids.flowId = (await kc.authenticationManagement.createFlow({ alias: 'cov flow', providerId: 'basic-flow', topLevel: true, builtIn: false })).id;
  ids.exec = (await kc.authenticationManagement.addExecutionToFlow({ flow: 'cov flow', provider: 'conditional-user-role' })).id;
  ids.exec2 = (await kc.authenticationManagement.addExecutionToFlow({ flow: 'cov flow', provider: 'auth-otp-form' })).id;
  ids.config = (await kc.authenticationManagement.createConfig({ id: ids.exec, alias: 'cov-config', config: {} })).id;
  const c2 = await fetch(`${h.baseUrl}/admin/realms/${R}/authentication/config`, { method: 'POST', headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' }, body: JSON.stringify({ alias: 'cov-config-2', config: {} }) });
  ids.config2 = c2.headers.get('location')!.split('/').pop()!;
  ids.flow2 = (await kc.authenticationManagement.createFlow({ alias: 'cov flow 2', providerId: 'basic-flow', topLevel: true, builtIn: false })).id;
  const KP = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';
  ids.comp = (await kc.components.create({ name: 'cov-comp', providerId: 'max-clients', providerType: KP, subType: 'anonymous', config: {} })).id;
  ids.comp2 = (await kc.components.create({ name: 'cov-comp-2', providerId: 'max-clients', providerType: KP, subType: 'anonymous', config: {} })).id;
  ids.cia = ((await kc.realms.createClientsInitialAccess({ realm: R }, { count: 1, expiration: 60 })) as { id: string }).id;
  ids.org = (await kc.organizations.create({ name: 'cov-org' })).id;
  await kc.organizations.addMember({ orgId: ids.org, userId: ids.user });
  const secret = (await kc.clients.getClientSecret({ id: ids.client })).value!;
  const t = await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/token`, { method: 'POST', headers: { 'Content-Type': 'application/x-www-form-urlencoded' }, body: `grant_type=password&client_id=cov-client&client_secret=${secret}&username=cov-user&password=pw-cov-1` });
  ids.session = ((await t.json()) as { session_state: string }).session_state;
  await kc.realms.create({ realm: 'cov-del', enabled: true });
  ids.smtpPort = String(smtp.port);
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

describe('spec coverage', () => {
  it('answers every documented route with its documented method (no 404, no 405)', async () => {
    const fill = (s: string) => s.replace(/\{realm\}/g, R).replace(/\{(\w+)\}/g, (m, k: string) => ids[k] ?? m);
    const cert = (await kc.clients.generateKey({ id: ids.client, attr: 'seed' })).certificate!;
    const failures: string[] = [];
    let ok2xx = 0;
    const all = routes();
    for (const [method, rawPath, body] of all) {
      const path = rawPath.startsWith('/admin/') ? rawPath : rawPath === '/cov-made-realm' ? '/admin/realms/cov-del' : `/admin/realms${fill(rawPath)}`;
      const headers: Record<string, string> = { Authorization: `Bearer ${kc.accessToken}` };
      let payload: BodyInit | undefined;
      if (typeof body === 'string' && body.startsWith('FORM:')) {
        const form = new FormData();
        if (body === 'FORM:cert') {
          form.append('keystoreFormat', 'Certificate PEM');
          form.append('file', new Blob([`-----BEGIN CERTIFICATE-----\n${cert}\n-----END CERTIFICATE-----\n`]), 'c.pem');
        } else {
          const [k, v] = body.slice(5).split('=');
          form.append(k!, fill(v!));
        }
        payload = form;
      } else if (typeof body === 'string' && body.startsWith('TEXT:')) {
        headers['Content-Type'] = 'text/plain';
        payload = body.slice(5);
      } else if (body !== undefined) {
        headers['Content-Type'] = 'application/json';
        payload = typeof body === 'string' ? fill(body) : fill(JSON.stringify(body));
      }
      const res = await fetch(`${h.baseUrl}${path}`, { method, headers, ...(payload !== undefined ? { body: payload } : {}) });
      const text = await res.text();
      if (res.status === 404 || res.status === 405) failures.push(`${method} ${rawPath} → ${res.status} ${text.slice(0, 120)}`);
      else if (res.status < 300) ok2xx++;
      else if (process.env.COVERAGE_VERBOSE) console.log(`${method} ${rawPath} → ${res.status} ${text.slice(0, 160)}`);
    }
    // theme resources outside /admin
    const msg = await fetch(`${h.baseUrl}/resources/${R}/login/en`, { headers: { Authorization: `Bearer ${kc.accessToken}` } });
    if (msg.status !== 200) failures.push(`GET /resources/{realm}/{themeType}/{locale} → ${msg.status}`);
    if (process.env.COVERAGE_VERBOSE) console.log(`${all.length} routes, ${ok2xx} answered 2xx`);
    expect(failures).toEqual([]);
    expect(all.length).toBeGreaterThan(250);
    expect(ok2xx).toBe(all.length);
    expect(smtp.messages.length).toBe(6);
  });
});
