// One zod schema per representation: each gives the TypeScript type (z.infer) and the validator.
// Like Keycloak's Jackson binding, unknown properties are ignored (z.object strips them) and every
// known property may be absent or null; a known property of the wrong type is a 400.
// Ids and names are bounded by Keycloak's JPA column lengths (ID VARCHAR(36), NAME/ALIAS/USERNAME
// VARCHAR(255)); they become LMDB keys, which cannot exceed 1,978 bytes.
import { z } from 'zod';

/** Keycloak's length of an entity id column. */
export const MAX_ID_LENGTH = 36;
/** Keycloak's length of a name, alias, clientId, username or attribute name column. */
export const MAX_NAME_LENGTH = 255;

const s = () => z.string().nullish();
export const id = () => z.string().max(MAX_ID_LENGTH).nullish();
export const name = () => z.string().max(MAX_NAME_LENGTH).nullish();
const b = () => z.boolean().nullish();
const n = () => z.number().int().nullish();
const strList = () => z.array(z.string()).nullish();
const attrName = () => z.string().max(MAX_NAME_LENGTH);
export const strMap = () => z.record(attrName(), z.string().nullable()).nullish();
export const multiMap = () => z.record(attrName(), z.array(z.string()).nullable()).nullish();

export const ProtocolMapperRepresentation = z.object({
  id: id(),
  name: name(),
  protocol: name(),
  protocolMapper: name(),
  consentRequired: b(),
  consentText: s(),
  config: strMap(),
});
export type ProtocolMapperRepresentation = z.infer<typeof ProtocolMapperRepresentation>;

export const ClientScopeRepresentation = z.object({
  id: id(),
  name: name(),
  description: s(),
  protocol: name(),
  attributes: strMap(),
  protocolMappers: z.array(ProtocolMapperRepresentation).nullish(),
});
export type ClientScopeRepresentation = z.infer<typeof ClientScopeRepresentation>;

export const RoleRepresentation = z.object({
  id: id(),
  name: name(),
  description: s(),
  scopeParamRequired: b(),
  composite: b(),
  composites: z
    .object({ realm: strList(), client: z.record(z.string(), z.array(z.string())).nullish(), application: z.record(z.string(), z.array(z.string())).nullish() })
    .nullish(),
  clientRole: b(),
  containerId: s(),
  attributes: multiMap(),
});
export type RoleRepresentation = z.infer<typeof RoleRepresentation>;
export const RoleList = z.array(RoleRepresentation);

export const CredentialRepresentation = z.object({
  id: s(),
  type: s(),
  userLabel: s(),
  createdDate: z.number().nullish(),
  secretData: s(),
  credentialData: s(),
  priority: n(),
  value: s(),
  temporary: b(),
  device: s(),
  hashedSaltedValue: s(),
  salt: s(),
  hashIterations: n(),
  counter: n(),
  algorithm: s(),
  digits: n(),
  period: n(),
  config: z.record(z.string(), z.unknown()).nullish(),
  federationLink: s(),
});
export type CredentialRepresentation = z.infer<typeof CredentialRepresentation>;

export const FederatedIdentityRepresentation = z.object({ identityProvider: s(), userId: s(), userName: s() });
export type FederatedIdentityRepresentation = z.infer<typeof FederatedIdentityRepresentation>;

export const UserRepresentation = z.object({
  id: id(),
  username: name(),
  firstName: name(),
  lastName: name(),
  email: name(),
  emailVerified: b(),
  enabled: b(),
  totp: b(),
  self: s(),
  origin: s(),
  createdTimestamp: z.number().nullish(),
  federationLink: name(),
  serviceAccountClientId: name(),
  notBefore: n(),
  attributes: multiMap(),
  credentials: z.array(CredentialRepresentation).nullish(),
  disableableCredentialTypes: strList(),
  requiredActions: strList(),
  federatedIdentities: z.array(FederatedIdentityRepresentation).nullish(),
  realmRoles: strList(),
  clientRoles: z.record(z.string(), z.array(z.string())).nullish(),
  groups: strList(),
  access: z.record(z.string(), z.boolean()).nullish(),
});
export type UserRepresentation = z.infer<typeof UserRepresentation>;

export interface GroupRepresentationT {
  id?: string | null | undefined;
  name?: string | null | undefined;
  description?: string | null | undefined;
  path?: string | null | undefined;
  parentId?: string | null | undefined;
  subGroupCount?: number | null | undefined;
  subGroups?: GroupRepresentationT[] | null | undefined;
  attributes?: Record<string, string[] | null> | null | undefined;
  realmRoles?: string[] | null | undefined;
  clientRoles?: Record<string, string[]> | null | undefined;
  access?: Record<string, boolean> | null | undefined;
}
export const GroupRepresentation: z.ZodType<GroupRepresentationT> = z.lazy(() =>
  z.object({
    id: id(),
    name: name(),
    description: s(),
    path: s(),
    parentId: id(),
    subGroupCount: z.number().nullish(),
    subGroups: z.array(GroupRepresentation).nullish(),
    attributes: multiMap(),
    realmRoles: strList(),
    clientRoles: z.record(z.string(), z.array(z.string())).nullish(),
    access: z.record(z.string(), z.boolean()).nullish(),
  }),
);
export type GroupRepresentation = GroupRepresentationT;

export const ClientRepresentation = z.object({
  id: id(),
  clientId: name(),
  name: name(),
  description: s(),
  type: s(),
  rootUrl: s(),
  adminUrl: s(),
  baseUrl: s(),
  surrogateAuthRequired: b(),
  enabled: b(),
  alwaysDisplayInConsole: b(),
  clientAuthenticatorType: s(),
  secret: s(),
  registrationAccessToken: s(),
  defaultRoles: strList(),
  redirectUris: strList(),
  webOrigins: strList(),
  notBefore: n(),
  bearerOnly: b(),
  consentRequired: b(),
  standardFlowEnabled: b(),
  implicitFlowEnabled: b(),
  directAccessGrantsEnabled: b(),
  serviceAccountsEnabled: b(),
  authorizationServicesEnabled: b(),
  directGrantsOnly: b(),
  publicClient: b(),
  frontchannelLogout: b(),
  protocol: name(),
  attributes: strMap(),
  authenticationFlowBindingOverrides: strMap(),
  fullScopeAllowed: b(),
  nodeReRegistrationTimeout: n(),
  registeredNodes: z.record(z.string(), z.number()).nullish(),
  protocolMappers: z.array(ProtocolMapperRepresentation).nullish(),
  clientTemplate: s(),
  useTemplateConfig: b(),
  useTemplateScope: b(),
  useTemplateMappers: b(),
  defaultClientScopes: strList(),
  optionalClientScopes: strList(),
  authorizationSettings: z.record(z.string(), z.unknown()).nullish(),
  access: z.record(z.string(), z.boolean()).nullish(),
  origin: s(),
});
export type ClientRepresentation = z.infer<typeof ClientRepresentation>;

export const RolesRepresentation = z.object({
  realm: z.array(RoleRepresentation).nullish(),
  client: z.record(z.string(), z.array(RoleRepresentation)).nullish(),
  application: z.record(z.string(), z.array(RoleRepresentation)).nullish(),
});

/** Realm settings kept as plain top-level values (the realm's own fields). */
export const REALM_INT_FIELDS = [
  'notBefore', 'accessTokenLifespan', 'accessTokenLifespanForImplicitFlow', 'ssoSessionIdleTimeout', 'ssoSessionMaxLifespan',
  'ssoSessionIdleTimeoutRememberMe', 'ssoSessionMaxLifespanRememberMe', 'offlineSessionIdleTimeout', 'offlineSessionMaxLifespan',
  'clientSessionIdleTimeout', 'clientSessionMaxLifespan', 'clientOfflineSessionIdleTimeout', 'clientOfflineSessionMaxLifespan',
  'accessCodeLifespan', 'accessCodeLifespanUserAction', 'accessCodeLifespanLogin', 'actionTokenGeneratedByAdminLifespan',
  'actionTokenGeneratedByUserLifespan', 'oauth2DeviceCodeLifespan', 'oauth2DevicePollingInterval', 'refreshTokenMaxReuse',
  'maxTemporaryLockouts', 'maxFailureWaitSeconds', 'minimumQuickLoginWaitSeconds', 'waitIncrementSeconds', 'maxDeltaTimeSeconds',
  'failureFactor', 'otpPolicyInitialCounter', 'otpPolicyDigits', 'otpPolicyLookAheadWindow', 'otpPolicyPeriod',
] as const;
export const REALM_LONG_FIELDS = ['quickLoginCheckMilliSeconds', 'eventsExpiration', 'adminEventsExpiration'] as const;
export const REALM_BOOL_FIELDS = [
  'enabled', 'revokeRefreshToken', 'offlineSessionMaxLifespanEnabled', 'registrationAllowed', 'registrationEmailAsUsername',
  'rememberMe', 'verifyEmail', 'loginWithEmailAllowed', 'duplicateEmailsAllowed', 'resetPasswordAllowed', 'editUsernameAllowed',
  'bruteForceProtected', 'permanentLockout', 'eventsEnabled', 'adminEventsEnabled', 'adminEventsDetailsEnabled',
  'internationalizationEnabled', 'userManagedAccessAllowed', 'organizationsEnabled', 'verifiableCredentialsEnabled',
  'adminPermissionsEnabled', 'otpPolicyCodeReusable', 'passwordCredentialGrantAllowed', 'userCacheEnabled', 'realmCacheEnabled',
] as const;
export const REALM_STRING_FIELDS = [
  'realm', 'displayName', 'displayNameHtml', 'defaultSignatureAlgorithm', 'sslRequired', 'bruteForceStrategy', 'passwordPolicy',
  'otpPolicyType', 'otpPolicyAlgorithm', 'loginTheme', 'accountTheme', 'adminTheme', 'emailTheme', 'defaultLocale',
  'browserFlow', 'registrationFlow', 'directGrantFlow', 'resetCredentialsFlow', 'clientAuthenticationFlow',
  'dockerAuthenticationFlow', 'firstBrokerLoginFlow', 'keycloakVersion',
] as const;
export const REALM_LIST_FIELDS = ['eventsListeners', 'enabledEventTypes', 'supportedLocales', 'otpSupportedApplications', 'requiredCredentials'] as const;
export const REALM_MAP_FIELDS = ['attributes', 'browserSecurityHeaders', 'smtpServer'] as const;

const realmShape: Record<string, z.ZodType> = {};
for (const f of REALM_INT_FIELDS) realmShape[f] = z.number().int().nullish();
for (const f of REALM_LONG_FIELDS) realmShape[f] = z.number().nullish();
for (const f of REALM_BOOL_FIELDS) realmShape[f] = b();
for (const f of REALM_STRING_FIELDS) realmShape[f] = s();
realmShape.realm = name();
for (const f of REALM_LIST_FIELDS) realmShape[f] = strList();
for (const f of REALM_MAP_FIELDS) realmShape[f] = strMap();

export const RealmRepresentation = z.object({
  ...realmShape,
  id: id(),
  roles: RolesRepresentation.nullish(),
  groups: z.array(GroupRepresentation).nullish(),
  users: z.array(UserRepresentation).nullish(),
  clients: z.array(ClientRepresentation).nullish(),
  clientScopes: z.array(ClientScopeRepresentation).nullish(),
  clientTemplates: z.array(ClientScopeRepresentation).nullish(),
  defaultRoles: strList(),
  defaultRole: RoleRepresentation.nullish(),
  defaultGroups: strList(),
  defaultDefaultClientScopes: strList(),
  defaultOptionalClientScopes: strList(),
  scopeMappings: z.array(z.object({ client: s(), clientScope: s(), clientTemplate: s(), roles: strList() })).nullish(),
  clientScopeMappings: z.record(z.string(), z.array(z.object({ client: s(), clientScope: s(), roles: strList() }))).nullish(),
  webAuthnPolicyRpEntityName: s(),
  privateKey: s(),
  publicKey: s(),
  certificate: s(),
  codeSecret: s(),
}) as z.ZodType<RealmRepresentationT>;

export type RealmRepresentationT = {
  [k: string]: unknown;
  id?: string | null;
  realm?: string | null;
  roles?: z.infer<typeof RolesRepresentation> | null;
  groups?: GroupRepresentationT[] | null;
  users?: UserRepresentation[] | null;
  clients?: ClientRepresentation[] | null;
  clientScopes?: ClientScopeRepresentation[] | null;
  clientTemplates?: ClientScopeRepresentation[] | null;
  defaultRoles?: string[] | null;
  defaultRole?: RoleRepresentation | null;
  defaultGroups?: string[] | null;
  defaultDefaultClientScopes?: string[] | null;
  defaultOptionalClientScopes?: string[] | null;
  scopeMappings?: Array<{ client?: string | null; clientScope?: string | null; clientTemplate?: string | null; roles?: string[] | null }> | null;
  clientScopeMappings?: Record<string, Array<{ client?: string | null; clientScope?: string | null; roles?: string[] | null }>> | null;
};
export type RealmRepresentation = RealmRepresentationT;

export const RealmEventsConfigRepresentation = z.object({
  eventsEnabled: b(),
  eventsExpiration: z.number().nullish(),
  eventsListeners: strList(),
  enabledEventTypes: strList(),
  adminEventsEnabled: b(),
  adminEventsDetailsEnabled: b(),
});
export type RealmEventsConfigRepresentation = z.infer<typeof RealmEventsConfigRepresentation>;

export const PartialImportRepresentation = z.object({
  ifResourceExists: z.enum(['FAIL', 'SKIP', 'OVERWRITE']).nullish(),
  policy: z.enum(['FAIL', 'SKIP', 'OVERWRITE']).nullish(),
  users: z.array(UserRepresentation).nullish(),
  clients: z.array(ClientRepresentation).nullish(),
  groups: z.array(GroupRepresentation).nullish(),
  roles: RolesRepresentation.nullish(),
});
