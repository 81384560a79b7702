// What the store keeps. Entities are close to their representations; fields starting with `_` and
// the secrets (keys, client secrets, credential secret data) never leave through a converter.

export interface RealmKeys {
  kid: string;
  privateJwk: Record<string, unknown>;
  publicJwk: Record<string, unknown>;
  publicKeyPem: string;
  certificate: string;
  createdAt: number;
}

export interface RequiredActionEntity {
  alias: string;
  name: string;
  providerId: string;
  enabled: boolean;
  defaultAction: boolean;
  priority: number;
  config: Record<string, string>;
}

export interface ExecutionEntity {
  id: string;
  authenticator?: string;
  flowAlias?: string;
  requirement: string;
  priority: number;
  authenticatorFlow: boolean;
  authenticatorConfig?: string;
  userSetupAllowed: boolean;
}

export interface FlowEntity {
  id: string;
  alias: string;
  description: string;
  providerId: string;
  topLevel: boolean;
  builtIn: boolean;
  hidden?: boolean;
  executions: ExecutionEntity[];
}

export interface AuthenticatorConfigEntity {
  id: string;
  alias: string;
  config: Record<string, string>;
}

export interface RealmEntity {
  [setting: string]: unknown;
  id: string;
  realm: string;
  adminEventsEnabled: boolean;
  adminEventsDetailsEnabled: boolean;
  _keys: RealmKeys;
  _defaultRoleId: string;
  _defaultDefaultClientScopes: string[];
  _defaultOptionalClientScopes: string[];
  _defaultGroups: string[];
  _requiredActions: RequiredActionEntity[];
  _flows: FlowEntity[];
  _authenticatorConfigs?: AuthenticatorConfigEntity[];
  _identityProviders?: IdentityProviderEntity[];
  _identityProviderMappers?: IdentityProviderMapperEntity[];
  _createdAt: number;
}

export interface ProtocolMapperEntity {
  id: string;
  name: string;
  protocol: string;
  protocolMapper: string;
  consentRequired?: boolean;
  consentText?: string;
  config: Record<string, string>;
}

export interface ClientEntity {
  id: string;
  realmId: string;
  clientId: string;
  name?: string;
  description?: string;
  type?: string;
  rootUrl?: string;
  adminUrl?: string;
  baseUrl?: string;
  surrogateAuthRequired: boolean;
  enabled: boolean;
  alwaysDisplayInConsole: boolean;
  clientAuthenticatorType: string;
  secret?: string;
  _rotatedSecret?: string;
  _registrationAccessToken?: string;
  /** Private keys of client certificates by attribute prefix (PKCS#8 PEM): never returned. */
  _certKeys?: Record<string, string>;
  redirectUris: string[];
  webOrigins: string[];
  notBefore: number;
  bearerOnly: boolean;
  consentRequired: boolean;
  standardFlowEnabled: boolean;
  implicitFlowEnabled: boolean;
  directAccessGrantsEnabled: boolean;
  serviceAccountsEnabled: boolean;
  authorizationServicesEnabled?: boolean;
  publicClient: boolean;
  frontchannelLogout: boolean;
  protocol: string;
  attributes: Record<string, string>;
  authenticationFlowBindingOverrides: Record<string, string>;
  fullScopeAllowed: boolean;
  nodeReRegistrationTimeout: number;
  registeredNodes?: Record<string, number>;
  protocolMappers: ProtocolMapperEntity[];
  defaultClientScopeIds: string[];
  optionalClientScopeIds: string[];
}

export interface ClientScopeEntity {
  id: string;
  realmId: string;
  name: string;
  description?: string;
  protocol: string;
  attributes: Record<string, string>;
  protocolMappers: ProtocolMapperEntity[];
}

export interface RoleEntity {
  id: string;
  realmId: string;
  /** '' for a realm role, else the client's internal id. */
  clientId: string;
  name: string;
  description?: string;
  composites: string[];
  attributes: Record<string, string[]>;
}

export interface StoredCredential {
  id: string;
  type: string;
  userLabel?: string;
  createdDate: number;
  /** JSON text: {value, salt, additionalParameters} — secret, never returned. */
  secretData: string;
  /** JSON text: {hashIterations, algorithm, additionalParameters}. */
  credentialData: string;
  priority: number;
  temporary?: boolean;
}

export interface UserEntity {
  id: string;
  realmId: string;
  username: string;
  email?: string;
  firstName?: string;
  lastName?: string;
  emailVerified: boolean;
  enabled: boolean;
  createdTimestamp: number;
  attributes: Record<string, string[]>;
  requiredActions: string[];
  credentials: StoredCredential[];
  federatedIdentities: Array<{ identityProvider: string; userId: string; userName: string }>;
  serviceAccountClientId?: string;
  notBefore: number;
  federationLink?: string;
}

export interface GroupEntity {
  id: string;
  realmId: string;
  /** '' for a top-level group. */
  parentId: string;
  name: string;
  description?: string;
  attributes: Record<string, string[]>;
}

export interface ComponentEntity {
  id: string;
  realmId: string;
  name: string;
  providerId: string;
  providerType: string;
  parentId: string;
  subType?: string;
  config: Record<string, string[]>;
  /** Key material of key providers (RSA key pair, or a symmetric secret): never returned. */
  _keys?: RealmKeys;
  _secret?: { kid: string; value: string };
}

export interface OrganizationInvitation {
  id: string;
  email: string;
  firstName?: string;
  lastName?: string;
  userId?: string;
  status: 'PENDING' | 'EXPIRED';
  sentDate: number;
  expiresAt: number;
  inviteLink: string;
}

export interface OrganizationEntity {
  id: string;
  realmId: string;
  name: string;
  alias: string;
  enabled: boolean;
  description?: string;
  redirectUrl?: string;
  attributes: Record<string, string[]>;
  domains: Array<{ name: string; verified: boolean }>;
  identityProviders: string[];
  invitations: OrganizationInvitation[];
}

export interface IdentityProviderEntity {
  internalId: string;
  alias: string;
  displayName?: string;
  providerId: string;
  enabled: boolean;
  updateProfileFirstLoginMode: string;
  trustEmail: boolean;
  storeToken: boolean;
  addReadTokenRoleOnCreate: boolean;
  authenticateByDefault: boolean;
  linkOnly: boolean;
  hideOnLogin: boolean;
  firstBrokerLoginFlowAlias: string;
  postBrokerLoginFlowAlias?: string;
  organizationId?: string;
  config: Record<string, string>;
}

export interface IdentityProviderMapperEntity {
  id: string;
  name: string;
  identityProviderAlias: string;
  identityProviderMapper: string;
  config: Record<string, string>;
}
