// GET /admin/serverinfo and GET /admin/{realm}/console/whoami.
import { ERR } from '../errors.js';
import * as repo from '../store/repo.js';
import { KEYCLOAK_VERSION, MANAGEMENT_ROLES } from '../model/defaults.js';
import { RealmAuth, callerRealmRoles } from './permissions.js';
import { ok, type AdminRoutes } from './context.js';
import { COMPONENT_PROVIDERS, KEY_PROVIDER, REG_POLICY } from '../model/component.js';

const startedAt = Date.now();

const MAPPER_TYPES = [
  'oidc-usermodel-attribute-mapper', 'oidc-usermodel-property-mapper', 'oidc-full-name-mapper', 'oidc-usermodel-realm-role-mapper',
  'oidc-usermodel-client-role-mapper', 'oidc-audience-resolve-mapper', 'oidc-allowed-origins-mapper', 'oidc-usersessionmodel-note-mapper',
  'oidc-sub-mapper', 'oidc-acr-mapper', 'oidc-hardcoded-claim-mapper', 'oidc-address-mapper', 'oidc-audience-mapper', 'oidc-group-membership-mapper',
];

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  r.root('GET', '/admin/serverinfo', (ctx) => {
    const anyAdmin = repo.listRealms(store).some((realm) => new RealmAuth(store, ctx.caller, realm).isAdmin());
    const roles = ctx.caller.realm.realm === 'master' ? callerRealmRoles(store, ctx.caller.user) : new Set<string>();
    if (!anyAdmin && !roles.has('admin') && !roles.has('create-realm')) throw ERR.forbidden();
    const mem = process.memoryUsage();
    return ok({
      systemInfo: {
        version: KEYCLOAK_VERSION,
        serverTime: new Date().toUTCString(),
        uptime: `${Math.floor((Date.now() - startedAt) / 1000)} seconds`,
        uptimeMillis: Date.now() - startedAt,
        javaVersion: process.version,
        osName: process.platform,
        osArchitecture: process.arch,
        userTimezone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      },
      memoryInfo: { total: mem.heapTotal, used: mem.heapUsed, free: mem.heapTotal - mem.heapUsed, usedFormated: `${Math.round(mem.heapUsed / 1048576)} MB` },
      profileInfo: { name: 'community', disabledFeatures: [], previewFeatures: [], experimentalFeatures: [] },
      features: [],
      themes: {},
      providers: {},
      protocolMapperTypes: { 'openid-connect': MAPPER_TYPES.map((id) => ({ id, name: id, category: 'Token mapper', helpText: '', priority: 0, properties: [] })) },
      builtinProtocolMappers: {},
      clientInstallations: { 'openid-connect': [{ id: 'keycloak-oidc-keycloak-json', protocol: 'openid-connect', downloadOnly: false, displayType: 'Keycloak OIDC JSON', helpText: '', filename: 'keycloak.json', mediaType: 'application/json' }] },
      componentTypes: Object.fromEntries([KEY_PROVIDER, REG_POLICY].map((t) => [t, COMPONENT_PROVIDERS.filter((p) => p.type === t).map((p) => ({ id: p.id, helpText: p.helpText, properties: p.properties, metadata: {} }))])),
      passwordPolicies: ['length', 'maxLength', 'digits', 'lowerCase', 'upperCase', 'specialChars', 'notUsername', 'notEmail', 'regexPattern', 'hashAlgorithm', 'hashIterations'].map((id) => ({ id, displayName: id, configType: 'int', multipleSupported: false })),
      enums: { operationType: ['CREATE', 'UPDATE', 'DELETE', 'ACTION'], resourceType: ['REALM', 'REALM_ROLE', 'REALM_ROLE_MAPPING', 'REALM_SCOPE_MAPPING', 'CLIENT', 'CLIENT_SCOPE', 'CLIENT_SCOPE_MAPPING', 'CLIENT_ROLE', 'CLIENT_ROLE_MAPPING', 'GROUP', 'GROUP_MEMBERSHIP', 'PROTOCOL_MAPPER', 'USER', 'USER_SESSION', 'CLUSTER_NODE'] },
      cryptoInfo: { cryptoProvider: 'node:crypto', supportedKeystoreTypes: [], clientSignatureSymmetricAlgorithms: [], clientSignatureAsymmetricAlgorithms: ['RS256'] },
    });
  });

  r.root('GET', '/admin/:realm/console/whoami', (ctx) => {
    const current = ctx.query('currentRealm') ?? ctx.realm.realm;
    const caller = ctx.caller;
    const realmAccess: Record<string, string[]> = {};
    for (const realm of repo.listRealms(store)) {
      const names = [...new RealmAuth(store, caller, realm).names()];
      if (names.length) realmAccess[realm.realm] = names.filter((n) => n === 'realm-admin' || (MANAGEMENT_ROLES as readonly string[]).includes(n) || n === 'impersonation').sort();
    }
    const roles = caller.realm.realm === 'master' ? callerRealmRoles(store, caller.user) : new Set<string>();
    return ok({
      userId: caller.user.id,
      realm: caller.realm.realm,
      displayName: [caller.user.firstName, caller.user.lastName].filter(Boolean).join(' ') || caller.user.username,
      locale: 'en',
      createRealm: roles.has('create-realm'),
      realm_access: realmAccess,
      temporary: caller.user.attributes.is_temporary_admin?.[0] === 'true',
      currentRealm: current,
    });
  }, true);
}
