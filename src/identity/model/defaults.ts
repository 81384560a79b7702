// What a fresh Keycloak realm contains (notes §4): settings, default client scopes with their
// protocol mappers, built-in clients, roles, required actions and authentication flows.
import { randomUUID } from 'node:crypto';
import type {
  ClientEntity,
  ClientScopeEntity,
  ExecutionEntity,
  FlowEntity,
  ProtocolMapperEntity,
  RequiredActionEntity,
} from '../store/entities.js';

export const KEYCLOAK_VERSION = '26.1.0';

export const REALM_SETTING_DEFAULTS: Record<string, unknown> = {
  notBefore: 0,
  defaultSignatureAlgorithm: 'RS256',
  revokeRefreshToken: false,
  refreshTokenMaxReuse: 0,
  accessTokenLifespan: 300,
  accessTokenLifespanForImplicitFlow: 900,
  ssoSessionIdleTimeout: 1800,
  ssoSessionMaxLifespan: 36000,
  ssoSessionIdleTimeoutRememberMe: 0,
  ssoSessionMaxLifespanRememberMe: 0,
  offlineSessionIdleTimeout: 2592000,
  offlineSessionMaxLifespanEnabled: false,
  offlineSessionMaxLifespan: 5184000,
  clientSessionIdleTimeout: 0,
  clientSessionMaxLifespan: 0,
  clientOfflineSessionIdleTimeout: 0,
  clientOfflineSessionMaxLifespan: 0,
  accessCodeLifespan: 60,
  accessCodeLifespanUserAction: 300,
  accessCodeLifespanLogin: 1800,
  actionTokenGeneratedByAdminLifespan: 43200,
  actionTokenGeneratedByUserLifespan: 300,
  oauth2DeviceCodeLifespan: 600,
  oauth2DevicePollingInterval: 5,
  enabled: false,
  sslRequired: 'external',
  registrationAllowed: false,
  registrationEmailAsUsername: false,
  rememberMe: false,
  verifyEmail: false,
  loginWithEmailAllowed: true,
  duplicateEmailsAllowed: false,
  resetPasswordAllowed: false,
  editUsernameAllowed: false,
  bruteForceProtected: false,
  permanentLockout: false,
  maxTemporaryLockouts: 0,
  bruteForceStrategy: 'MULTIPLE',
  maxFailureWaitSeconds: 900,
  minimumQuickLoginWaitSeconds: 60,
  waitIncrementSeconds: 60,
  quickLoginCheckMilliSeconds: 1000,
  maxDeltaTimeSeconds: 43200,
  failureFactor: 30,
  requiredCredentials: ['password'],
  otpPolicyType: 'totp',
  otpPolicyAlgorithm: 'HmacSHA1',
  otpPolicyInitialCounter: 0,
  otpPolicyDigits: 6,
  otpPolicyLookAheadWindow: 1,
  otpPolicyPeriod: 30,
  otpPolicyCodeReusable: false,
  otpSupportedApplications: ['totpAppFreeOTPName', 'totpAppGoogleName', 'totpAppMicrosoftAuthenticatorName'],
  localizationTexts: {},
  browserSecurityHeaders: {
    contentSecurityPolicyReportOnly: '',
    xContentTypeOptions: 'nosniff',
    referrerPolicy: 'no-referrer',
    xRobotsTag: 'none',
    xFrameOptions: 'SAMEORIGIN',
    contentSecurityPolicy: "frame-src 'self'; frame-ancestors 'self'; object-src 'none';",
    strictTransportSecurity: 'max-age=31536000; includeSubDomains',
  },
  smtpServer: {},
  eventsEnabled: false,
  eventsListeners: ['jboss-logging'],
  enabledEventTypes: [],
  adminEventsEnabled: false,
  adminEventsDetailsEnabled: false,
  internationalizationEnabled: false,
  supportedLocales: [],
  browserFlow: 'browser',
  registrationFlow: 'registration',
  directGrantFlow: 'direct grant',
  resetCredentialsFlow: 'reset credentials',
  clientAuthenticationFlow: 'clients',
  dockerAuthenticationFlow: 'docker auth',
  firstBrokerLoginFlow: 'first broker login',
  attributes: { cibaBackchannelTokenDeliveryMode: 'poll', cibaExpiresIn: '120', cibaAuthRequestedUserHint: 'login_hint', parRequestUriLifespan: '60', cibaInterval: '5', realmReusableOtpCode: 'false' },
  userManagedAccessAllowed: false,
  organizationsEnabled: false,
  verifiableCredentialsEnabled: false,
  adminPermissionsEnabled: false,
  userCacheEnabled: true,
  realmCacheEnabled: true,
};

/** The 17 admin roles of a realm's management client (plus impersonation). */
export const MANAGEMENT_ROLES = [
  'create-client', 'view-realm', 'view-users', 'view-clients', 'view-events', 'view-identity-providers', 'view-authorization',
  'manage-realm', 'manage-users', 'manage-clients', 'manage-events', 'manage-identity-providers', 'manage-authorization',
  'query-users', 'query-clients', 'query-realms', 'query-groups',
] as const;
export const MANAGEMENT_COMPOSITES: Record<string, string[]> = {
  'view-users': ['query-users', 'query-groups'],
  'view-clients': ['query-clients'],
};

function mapper(name: string, protocolMapper: string, config: Record<string, string>, protocol = 'openid-connect'): ProtocolMapperEntity {
  return { id: randomUUID(), name, protocol, protocolMapper, consentRequired: false, config };
}
const tokenFlags = (claim: string, type: string, extra: Record<string, string> = {}) => ({
  'introspection.token.claim': 'true',
  'userinfo.token.claim': 'true',
  'id.token.claim': 'true',
  'access.token.claim': 'true',
  'claim.name': claim,
  'jsonType.label': type,
  ...extra,
});
const attr = (name: string, attrName: string, claim: string, type = 'String') =>
  mapper(name, 'oidc-usermodel-attribute-mapper', tokenFlags(claim, type, { 'user.attribute': attrName }));
const prop = (name: string, property: string, claim: string, type = 'String') =>
  mapper(name, 'oidc-usermodel-property-mapper', tokenFlags(claim, type, { 'user.attribute': property }));

interface ScopeDef {
  name: string;
  protocol: string;
  kind: 'default' | 'optional';
  description: string;
  attributes: Record<string, string>;
  mappers: () => ProtocolMapperEntity[];
}

const oidcAttrs = (inScope: boolean, consent: string | null) => ({
  'include.in.token.scope': String(inScope),
  'display.on.consent.screen': String(consent !== null),
  ...(consent !== null ? { 'consent.screen.text': consent } : {}),
});

export const DEFAULT_SCOPES: ScopeDef[] = [
  {
    name: 'offline_access', protocol: 'openid-connect', kind: 'optional', description: 'OpenID Connect built-in scope: offline_access',
    attributes: { 'consent.screen.text': '${offlineAccessScopeConsentText}', 'display.on.consent.screen': 'true' }, mappers: () => [],
  },
  {
    name: 'role_list', protocol: 'saml', kind: 'default', description: 'SAML role list',
    attributes: { 'consent.screen.text': '${samlRoleListScopeConsentText}', 'display.on.consent.screen': 'true' },
    mappers: () => [mapper('role list', 'saml-role-list-mapper', { single: 'false', 'attribute.nameformat': 'Basic', 'attribute.name': 'Role' }, 'saml')],
  },
  {
    name: 'saml_organization', protocol: 'saml', kind: 'default', description: 'Organization Membership',
    attributes: { 'display.on.consent.screen': 'false' },
    mappers: () => [mapper('organization', 'saml-organization-membership-mapper', {}, 'saml')],
  },
  {
    name: 'profile', protocol: 'openid-connect', kind: 'default', description: 'OpenID Connect built-in scope: profile',
    attributes: oidcAttrs(true, '${profileScopeConsentText}'),
    mappers: () => [
      mapper('full name', 'oidc-full-name-mapper', { 'id.token.claim': 'true', 'introspection.token.claim': 'true', 'access.token.claim': 'true', 'userinfo.token.claim': 'true' }),
      attr('family name', 'lastName', 'family_name'),
      attr('given name', 'firstName', 'given_name'),
      attr('middle name', 'middleName', 'middle_name'),
      attr('nickname', 'nickname', 'nickname'),
      attr('username', 'username', 'preferred_username'),
      attr('profile', 'profile', 'profile'),
      attr('picture', 'picture', 'picture'),
      attr('website', 'website', 'website'),
      attr('gender', 'gender', 'gender'),
      attr('birthdate', 'birthdate', 'birthdate'),
      attr('zoneinfo', 'zoneinfo', 'zoneinfo'),
      attr('locale', 'locale', 'locale'),
      attr('updated at', 'updatedAt', 'updated_at', 'long'),
    ],
  },
  {
    name: 'email', protocol: 'openid-connect', kind: 'default', description: 'OpenID Connect built-in scope: email',
    attributes: oidcAttrs(true, '${emailScopeConsentText}'),
    mappers: () => [attr('email', 'email', 'email'), prop('email verified', 'emailVerified', 'email_verified', 'boolean')],
  },
  {
    name: 'address', protocol: 'openid-connect', kind: 'optional', description: 'OpenID Connect built-in scope: address',
    attributes: oidcAttrs(true, '${addressScopeConsentText}'),
    mappers: () => [
      mapper('address', 'oidc-address-mapper', {
        'user.attribute.formatted': 'formatted', 'user.attribute.country': 'country', 'introspection.token.claim': 'true',
        'user.attribute.postal_code': 'postal_code', 'userinfo.token.claim': 'true', 'user.attribute.street': 'street',
        'id.token.claim': 'true', 'user.attribute.region': 'region', 'access.token.claim': 'true', 'user.attribute.locality': 'locality',
      }),
    ],
  },
  {
    name: 'phone', protocol: 'openid-connect', kind: 'optional', description: 'OpenID Connect built-in scope: phone',
    attributes: oidcAttrs(true, '${phoneScopeConsentText}'),
    mappers: () => [attr('phone number', 'phoneNumber', 'phone_number'), attr('phone number verified', 'phoneNumberVerified', 'phone_number_verified', 'boolean')],
  },
  {
    name: 'roles', protocol: 'openid-connect', kind: 'default', description: 'OpenID Connect scope for add user roles to the access token',
    attributes: oidcAttrs(false, '${rolesScopeConsentText}'),
    mappers: () => [
      mapper('realm roles', 'oidc-usermodel-realm-role-mapper', { 'user.attribute': 'foo', 'introspection.token.claim': 'true', 'access.token.claim': 'true', 'claim.name': 'realm_access.roles', 'jsonType.label': 'String', multivalued: 'true' }),
      mapper('client roles', 'oidc-usermodel-client-role-mapper', { 'user.attribute': 'foo', 'introspection.token.claim': 'true', 'access.token.claim': 'true', 'claim.name': 'resource_access.${client_id}.roles', 'jsonType.label': 'String', multivalued: 'true' }),
      mapper('audience resolve', 'oidc-audience-resolve-mapper', { 'introspection.token.claim': 'true', 'access.token.claim': 'true' }),
    ],
  },
  {
    name: 'web-origins', protocol: 'openid-connect', kind: 'default', description: 'OpenID Connect scope for add allowed web origins to the access token',
    attributes: { 'include.in.token.scope': 'false', 'consent.screen.text': '', 'display.on.consent.screen': 'false' },
    mappers: () => [mapper('allowed web origins', 'oidc-allowed-origins-mapper', { 'introspection.token.claim': 'true', 'access.token.claim': 'true' })],
  },
  {
    name: 'microprofile-jwt', protocol: 'openid-connect', kind: 'optional', description: 'Microprofile - JWT built-in scope',
    attributes: { 'include.in.token.scope': 'true', 'display.on.consent.screen': 'false' },
    mappers: () => [
      attr('upn', 'username', 'upn'),
      mapper('groups', 'oidc-usermodel-realm-role-mapper', { 'introspection.token.claim': 'true', multivalued: 'true', 'userinfo.token.claim': 'true', 'user.attribute': 'foo', 'id.token.claim': 'true', 'access.token.claim': 'true', 'claim.name': 'groups', 'jsonType.label': 'String' }),
    ],
  },
  {
    name: 'acr', protocol: 'openid-connect', kind: 'default', description: 'OpenID Connect scope for add acr (authentication context class reference) to the token',
    attributes: { 'include.in.token.scope': 'false', 'display.on.consent.screen': 'false' },
    mappers: () => [mapper('acr loa level', 'oidc-acr-mapper', { 'id.token.claim': 'true', 'introspection.token.claim': 'true', 'access.token.claim': 'true', 'userinfo.token.claim': 'true' })],
  },
  {
    name: 'basic', protocol: 'openid-connect', kind: 'default', description: 'OpenID Connect scope for add all basic claims to the token',
    attributes: { 'include.in.token.scope': 'false', 'display.on.consent.screen': 'false' },
    mappers: () => [
      mapper('auth_time', 'oidc-usersessionmodel-note-mapper', { 'user.session.note': 'AUTH_TIME', 'introspection.token.claim': 'true', 'id.token.claim': 'true', 'access.token.claim': 'true', 'claim.name': 'auth_time', 'jsonType.label': 'long' }),
      mapper('sub', 'oidc-sub-mapper', { 'introspection.token.claim': 'true', 'access.token.claim': 'true' }),
    ],
  },
  {
    name: 'organization', protocol: 'openid-connect', kind: 'optional', description: 'Additional claims about the organization a subject belongs to',
    attributes: oidcAttrs(true, '${organizationScopeConsentText}'),
    mappers: () => [mapper('organization', 'oidc-organization-membership-mapper', { 'introspection.token.claim': 'true', multivalued: 'true', 'userinfo.token.claim': 'true', 'id.token.claim': 'true', 'access.token.claim': 'true', 'claim.name': 'organization', 'jsonType.label': 'String' })],
  },
];

export function buildScope(realmId: string, d: ScopeDef): ClientScopeEntity {
  return { id: randomUUID(), realmId, name: d.name, description: d.description, protocol: d.protocol, attributes: { ...d.attributes }, protocolMappers: d.mappers() };
}

/** A client entity with Keycloak's model defaults, before protocol defaults. */
export function baseClient(realmId: string, clientId: string): ClientEntity {
  return {
    id: randomUUID(),
    realmId,
    clientId,
    surrogateAuthRequired: false,
    enabled: true,
    alwaysDisplayInConsole: false,
    clientAuthenticatorType: 'client-secret',
    redirectUris: [],
    webOrigins: [],
    notBefore: 0,
    bearerOnly: false,
    consentRequired: false,
    standardFlowEnabled: true,
    implicitFlowEnabled: false,
    directAccessGrantsEnabled: false,
    serviceAccountsEnabled: false,
    publicClient: false,
    frontchannelLogout: false,
    protocol: 'openid-connect',
    attributes: {},
    authenticationFlowBindingOverrides: {},
    fullScopeAllowed: true,
    nodeReRegistrationTimeout: 0,
    protocolMappers: [],
    defaultClientScopeIds: [],
    optionalClientScopeIds: [],
  };
}

export interface BuiltInClientDef {
  clientId: string;
  patch: (realmName: string) => Partial<ClientEntity>;
  roles?: string[];
  composites?: Record<string, string[]>;
}

const accountUrls = (realm: string) => ({
  rootUrl: '${authBaseUrl}',
  baseUrl: `/realms/${realm}/account/`,
  redirectUris: [`/realms/${realm}/account/*`],
});

export const BUILT_IN_CLIENTS: BuiltInClientDef[] = [
  {
    clientId: 'account',
    patch: (r) => ({ name: '${client_account}', ...accountUrls(r), publicClient: true, fullScopeAllowed: false, frontchannelLogout: true, attributes: { 'realm_client': 'false', 'post.logout.redirect.uris': '+' } }),
    roles: ['view-profile', 'manage-account', 'manage-account-links', 'view-applications', 'view-consent', 'manage-consent', 'view-groups', 'delete-account'],
    composites: { 'manage-account': ['manage-account-links'], 'manage-consent': ['view-consent'] },
  },
  {
    clientId: 'account-console',
    patch: (r) => ({
      name: '${client_account-console}', ...accountUrls(r), publicClient: true, fullScopeAllowed: false, frontchannelLogout: true,
      attributes: { 'realm_client': 'false', 'post.logout.redirect.uris': '+', 'pkce.code.challenge.method': 'S256' },
      protocolMappers: [mapper('audience resolve', 'oidc-audience-resolve-mapper', {})],
    }),
  },
  {
    clientId: 'admin-cli',
    patch: () => ({ name: '${client_admin-cli}', publicClient: true, standardFlowEnabled: false, directAccessGrantsEnabled: true, attributes: { 'realm_client': 'false', 'client.use.lightweight.access.token.enabled': 'true' } }),
  },
  {
    clientId: 'broker',
    patch: () => ({ name: '${client_broker}', bearerOnly: true, fullScopeAllowed: false, attributes: { 'realm_client': 'true' } }),
    roles: ['read-token'],
  },
  {
    clientId: 'security-admin-console',
    patch: (r) => ({
      name: '${client_security-admin-console}', rootUrl: '${authAdminUrl}', baseUrl: `/admin/${r}/console/`, redirectUris: [`/admin/${r}/console/*`],
      webOrigins: ['+'], publicClient: true, frontchannelLogout: true,
      attributes: { 'realm_client': 'false', 'pkce.code.challenge.method': 'S256', 'client.use.lightweight.access.token.enabled': 'true', 'post.logout.redirect.uris': '+' },
      protocolMappers: [mapper('locale', 'oidc-usermodel-attribute-mapper', tokenFlags('locale', 'String', { 'user.attribute': 'locale' }))],
    }),
  },
];

export const REQUIRED_ACTIONS: Array<[string, string, number, boolean]> = [
  ['CONFIGURE_TOTP', 'Configure OTP', 10, true],
  ['TERMS_AND_CONDITIONS', 'Terms and Conditions', 20, false],
  ['UPDATE_PASSWORD', 'Update Password', 30, true],
  ['UPDATE_PROFILE', 'Update Profile', 40, true],
  ['VERIFY_EMAIL', 'Verify Email', 50, true],
  ['delete_account', 'Delete Account', 60, false],
  ['webauthn-register', 'Webauthn Register', 70, true],
  ['webauthn-register-passwordless', 'Webauthn Register Passwordless', 80, true],
  ['VERIFY_PROFILE', 'Verify Profile', 90, true],
  ['delete_credential', 'Delete Credential', 100, true],
  ['update_user_locale', 'Update User Locale', 1000, true],
];

export function requiredActions(): RequiredActionEntity[] {
  return REQUIRED_ACTIONS.map(([alias, name, priority, enabled]) => ({ alias, name, providerId: alias, enabled, defaultAction: false, priority, config: {} }));
}

type ExecSpec = [string, string, number] | { flow: string; requirement: string; priority: number };

function flow(alias: string, description: string, providerId: string, topLevel: boolean, execs: ExecSpec[], hidden = false): FlowEntity {
  const executions: ExecutionEntity[] = execs.map((e) =>
    Array.isArray(e)
      ? { id: randomUUID(), authenticator: e[0], requirement: e[1], priority: e[2], authenticatorFlow: false, userSetupAllowed: false }
      : { id: randomUUID(), flowAlias: e.flow, requirement: e.requirement, priority: e.priority, authenticatorFlow: true, userSetupAllowed: false },
  );
  return { id: randomUUID(), alias, description, providerId, topLevel, builtIn: true, executions, ...(hidden ? { hidden } : {}) };
}

export function builtInFlows(master: boolean): FlowEntity[] {
  const sub = (f: string, requirement: string, priority: number) => ({ flow: f, requirement, priority });
  const flows: FlowEntity[] = [
    flow('browser', 'Browser based authentication', 'basic-flow', true, [
      ['auth-cookie', 'ALTERNATIVE', 10], ['auth-spnego', 'DISABLED', 20], ['identity-provider-redirector', 'ALTERNATIVE', 25],
      ...(master ? [] : [sub('Organization', 'ALTERNATIVE', 26)]), sub('forms', 'ALTERNATIVE', 30),
    ]),
    flow('forms', 'Username, password, otp and other auth forms.', 'basic-flow', false, [['auth-username-password-form', 'REQUIRED', 10], sub('Browser - Conditional OTP', 'CONDITIONAL', 20)]),
    flow('Browser - Conditional OTP', 'Flow to determine if the OTP is required for the authentication', 'basic-flow', false, [['conditional-user-configured', 'REQUIRED', 10], ['auth-otp-form', 'REQUIRED', 20]]),
    flow('direct grant', 'OpenID Connect Resource Owner Grant', 'basic-flow', true, [
      ['direct-grant-validate-username', 'REQUIRED', 10], ['direct-grant-validate-password', 'REQUIRED', 20], sub('Direct Grant - Conditional OTP', 'CONDITIONAL', 30),
    ]),
    flow('Direct Grant - Conditional OTP', 'Flow to determine if the OTP is required for the authentication', 'basic-flow', false, [['conditional-user-configured', 'REQUIRED', 10], ['direct-grant-validate-otp', 'REQUIRED', 20]]),
    flow('registration', 'Registration flow', 'basic-flow', true, [sub('registration form', 'REQUIRED', 10)]),
    flow('registration form', 'Registration form', 'form-flow', false, [
      ['registration-user-creation', 'REQUIRED', 20], ['registration-password-action', 'REQUIRED', 50],
      ['registration-recaptcha-action', 'DISABLED', 60], ['registration-terms-and-conditions', 'DISABLED', 70],
    ]),
    flow('reset credentials', 'Reset credentials for a user if they forgot their password or something', 'basic-flow', true, [
      ['reset-credentials-choose-user', 'REQUIRED', 10], ['reset-credential-email', 'REQUIRED', 20], ['reset-password', 'REQUIRED', 30],
      sub('Reset - Conditional OTP', 'CONDITIONAL', 40),
    ]),
    flow('Reset - Conditional OTP', 'Flow to determine if the OTP should be reset or not. Set to REQUIRED to force.', 'basic-flow', false, [['conditional-user-configured', 'REQUIRED', 10], ['reset-otp', 'REQUIRED', 20]]),
    flow('clients', 'Base authentication for clients', 'client-flow', true, [
      ['client-secret', 'ALTERNATIVE', 10], ['client-jwt', 'ALTERNATIVE', 20], ['client-secret-jwt', 'ALTERNATIVE', 30], ['client-x509', 'ALTERNATIVE', 40],
    ]),
    flow('first broker login', 'Actions taken after first broker login with identity provider account, which is not yet linked to any Keycloak account', 'basic-flow', true, [
      ['idp-review-profile', 'REQUIRED', 10], sub('User creation or linking', 'REQUIRED', 20), ...(master ? [] : [sub('First Broker Login - Conditional Organization', 'CONDITIONAL', 50)]),
    ]),
    flow('User creation or linking', 'Flow for the existing/non-existing user alternatives', 'basic-flow', false, [['idp-create-user-if-unique', 'ALTERNATIVE', 10], sub('Handle Existing Account', 'ALTERNATIVE', 20)]),
    flow('Handle Existing Account', 'Handle what to do if there is existing account with same email/username like authenticated identity provider', 'basic-flow', false, [['idp-confirm-link', 'REQUIRED', 10], sub('Account verification options', 'REQUIRED', 20)]),
    flow('Account verification options', 'Method with which to verity the existing account', 'basic-flow', false, [['idp-email-verification', 'ALTERNATIVE', 10], sub('Verify Existing Account by Re-authentication', 'ALTERNATIVE', 20)]),
    flow('Verify Existing Account by Re-authentication', 'Reauthentication of existing account', 'basic-flow', false, [['idp-username-password-form', 'REQUIRED', 10], sub('First broker login - Conditional OTP', 'CONDITIONAL', 20)]),
    flow('First broker login - Conditional OTP', 'Flow to determine if the OTP is required for the authentication', 'basic-flow', false, [['conditional-user-configured', 'REQUIRED', 10], ['auth-otp-form', 'REQUIRED', 20]]),
    flow('saml ecp', 'SAML ECP Profile Authentication Flow', 'basic-flow', true, [['http-basic-authenticator', 'REQUIRED', 10]], true),
    flow('docker auth', 'Used by Docker clients to authenticate against the IDP', 'basic-flow', true, [['docker-http-basic-authenticator', 'REQUIRED', 10]]),
  ];
  if (!master) {
    flows.push(
      flow('Organization', '', 'basic-flow', false, [sub('Browser - Conditional Organization', 'CONDITIONAL', 10)]),
      flow('Browser - Conditional Organization', 'Flow to determine if the organization identity-first login is to be used', 'basic-flow', false, [['conditional-user-configured', 'REQUIRED', 10], ['organization', 'ALTERNATIVE', 20]]),
      flow('First Broker Login - Conditional Organization', 'Flow to determine if the authenticator that adds organization members is to be used', 'basic-flow', false, [['conditional-user-configured', 'REQUIRED', 10], ['idp-add-organization-member', 'REQUIRED', 20]]),
    );
  }
  return flows;
}
