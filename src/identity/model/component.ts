// Component converter and catalog: the key providers (rsa-generated, rsa-enc-generated, rsa,
// hmac-generated, aes-generated) and client-registration policies a fresh realm gets
// (DefaultKeyProviders, DefaultClientRegistrationPolicies), and the realm's key ring built from them.
import { randomUUID } from 'node:crypto';
import type { ComponentEntity, RealmEntity, RealmKeys } from '../store/entities.js';
import type { Reader } from '../store/repo.js';
import { generateSecretKey, newKid } from '../oidc/keys.js';
import type { ConfigProperty } from './authenticators.js';

export const KEY_PROVIDER = 'org.keycloak.keys.KeyProvider';
export const REG_POLICY = 'org.keycloak.services.clientregistration.policy.ClientRegistrationPolicy';
const MASK = '**********';

interface ProviderInfo {
  id: string;
  type: string;
  helpText: string;
  properties: ConfigProperty[];
  /** Config keys never shown (replaced by the mask). */
  secret?: string[];
}

const p = (name: string, label: string, type: string, defaultValue?: unknown, extra: Partial<ConfigProperty> = {}): ConfigProperty => ({ name, label, helpText: '', type, ...(defaultValue !== undefined ? { defaultValue } : {}), ...extra });
const keyBase = [p('priority', 'Priority', 'String', '0'), p('enabled', 'Enabled', 'boolean', true), p('active', 'Active', 'boolean', true)];

export const COMPONENT_PROVIDERS: ProviderInfo[] = [
  { id: 'rsa-generated', type: KEY_PROVIDER, helpText: 'Generates RSA keys and creates a self-signed certificate', properties: [...keyBase, p('keySize', 'Key size', 'List', '2048', { options: ['1024', '2048', '3072', '4096'] }), p('algorithm', 'Algorithm', 'List', 'RS256', { options: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] })] },
  { id: 'rsa-enc-generated', type: KEY_PROVIDER, helpText: 'Generates RSA keys for key encryption and creates a self-signed certificate', properties: [...keyBase, p('keySize', 'Key size', 'List', '2048', { options: ['1024', '2048', '3072', '4096'] }), p('algorithm', 'Algorithm', 'List', 'RSA-OAEP', { options: ['RSA1_5', 'RSA-OAEP', 'RSA-OAEP-256'] })] },
  { id: 'rsa', type: KEY_PROVIDER, helpText: 'RSA signature key provider that can optionally generated a self-signed certificate', properties: [...keyBase, p('privateKey', 'Private RSA Key', 'file', undefined, { secret: true }), p('certificate', 'X509 Certificate', 'file'), p('algorithm', 'Algorithm', 'List', 'RS256')], secret: ['privateKey'] },
  { id: 'hmac-generated', type: KEY_PROVIDER, helpText: 'Generates HMAC secret key', properties: [...keyBase, p('secretSize', 'Secret size', 'List', '64'), p('algorithm', 'Algorithm', 'List', 'HS256', { options: ['HS256', 'HS384', 'HS512'] })] },
  { id: 'aes-generated', type: KEY_PROVIDER, helpText: 'Generates AES secret key', properties: [...keyBase, p('secretSize', 'Secret size', 'List', '16', { options: ['16', '24', '32'] })] },
  { id: 'trusted-hosts', type: REG_POLICY, helpText: 'Allowed hosts', properties: [p('trusted-hosts', 'Trusted Hosts', 'MultivaluedString'), p('host-sending-registration-request-must-match', 'Host Sending Client Registration Request Must Match', 'boolean', 'true'), p('client-uris-must-match', 'Client URIs Must Match', 'boolean', 'true')] },
  { id: 'consent-required', type: REG_POLICY, helpText: 'When present, then newly registered client will always have "consentRequired" switch enabled', properties: [] },
  { id: 'scope', type: REG_POLICY, helpText: 'When present, then newly registered client won\'t have full scope allowed', properties: [] },
  { id: 'max-clients', type: REG_POLICY, helpText: 'Allows to specify maximum number of clients', properties: [p('max-clients', 'Max Clients Per Realm', 'String', '200')] },
  { id: 'allowed-protocol-mappers', type: REG_POLICY, helpText: 'Allowed protocol mappers', properties: [p('allowed-protocol-mapper-types', 'Allowed Protocol Mappers', 'MultivaluedList')] },
  { id: 'allowed-client-templates', type: REG_POLICY, helpText: 'Allowed client scopes', properties: [p('allowed-client-scopes', 'Allowed Client Scopes', 'MultivaluedList'), p('allow-default-scopes', 'Allow Default Scopes', 'boolean', 'true')] },
  { id: 'client-disabled', type: REG_POLICY, helpText: 'When present, then newly registered client will be disabled and admin needs to manually enable them', properties: [] },
];
export const COMPONENT_PROVIDER_BY_ID = new Map(COMPONENT_PROVIDERS.map((x) => [x.id, x]));

export function toRepresentation(c: ComponentEntity): Record<string, unknown> {
  const secret = new Set(COMPONENT_PROVIDER_BY_ID.get(c.providerId)?.secret ?? []);
  const config: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(c.config)) config[k] = secret.has(k) ? [MASK] : v;
  if (c._keys && c.providerId !== 'rsa') {
    config.privateKey = [MASK];
    if (c._keys.certificate) config.certificate = [c._keys.certificate];
  }
  if (c._secret) {
    config.kid = [c._secret.kid];
    config.secret = [MASK];
  }
  return { id: c.id, name: c.name, providerId: c.providerId, providerType: c.providerType, parentId: c.parentId, ...(c.subType !== undefined ? { subType: c.subType } : {}), config };
}

/** Merges an update's config, keeping secrets sent back masked. */
export function mergeConfig(old: Record<string, string[]>, next: Record<string, string[]>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of Object.entries(next)) out[k] = v.length === 1 && v[0] === MASK && old[k] ? old[k]! : v;
  delete out.privateKey;
  delete out.secret;
  delete out.kid;
  if (old.privateKey && next.privateKey?.[0] === MASK) out.privateKey = old.privateKey;
  else if (next.privateKey) out.privateKey = next.privateKey;
  return out;
}

export const first = (c: ComponentEntity, k: string, d = ''): string => c.config[k]?.[0] ?? d;

export function listComponents(r: Reader, realmId: string): ComponentEntity[] {
  return r.range('componentByRealm', [realmId]).map((e) => r.get<ComponentEntity>('components', e.value as string)!).filter(Boolean);
}

/** The components a fresh realm gets: four key providers (priority 100) and the registration policies. */
export function defaultComponents(realm: { id: string }, keys: RealmKeys, encKeys: RealmKeys): ComponentEntity[] {
  const key = (name: string, providerId: string, config: Record<string, string[]>, extra: Partial<ComponentEntity>): ComponentEntity => ({
    id: randomUUID(), realmId: realm.id, name, providerId, providerType: KEY_PROVIDER, parentId: realm.id, config: { priority: ['100'], ...config }, ...extra,
  });
  const policy = (name: string, providerId: string, subType: string, config: Record<string, string[]> = {}): ComponentEntity => ({
    id: randomUUID(), realmId: realm.id, name, providerId, providerType: REG_POLICY, parentId: realm.id, subType, config,
  });
  const mapperTypes = ['oidc-sha256-pairwise-sub-mapper', 'oidc-usermodel-property-mapper', 'saml-user-property-mapper', 'oidc-address-mapper', 'oidc-full-name-mapper', 'saml-role-list-mapper', 'oidc-usermodel-attribute-mapper', 'saml-user-attribute-mapper'];
  return [
    key('rsa-generated', 'rsa-generated', {}, { _keys: keys }),
    key('rsa-enc-generated', 'rsa-enc-generated', { algorithm: ['RSA-OAEP'] }, { _keys: encKeys }),
    key('hmac-generated-hs512', 'hmac-generated', { algorithm: ['HS512'] }, { _secret: { kid: randomUUID(), value: generateSecretKey(64) } }),
    key('aes-generated', 'aes-generated', {}, { _secret: { kid: randomUUID(), value: generateSecretKey(16) } }),
    policy('Trusted Hosts', 'trusted-hosts', 'anonymous', { 'host-sending-registration-request-must-match': ['true'], 'client-uris-must-match': ['true'] }),
    policy('Consent Required', 'consent-required', 'anonymous'),
    policy('Full Scope Disabled', 'scope', 'anonymous'),
    policy('Max Clients Limit', 'max-clients', 'anonymous', { 'max-clients': ['200'] }),
    policy('Allowed Protocol Mapper Types', 'allowed-protocol-mappers', 'anonymous', { 'allowed-protocol-mapper-types': mapperTypes }),
    policy('Allowed Client Scopes', 'allowed-client-templates', 'anonymous', { 'allow-default-scopes': ['true'] }),
    policy('Allowed Protocol Mapper Types', 'allowed-protocol-mappers', 'authenticated', { 'allowed-protocol-mapper-types': mapperTypes }),
    policy('Allowed Client Scopes', 'allowed-client-templates', 'authenticated', { 'allow-default-scopes': ['true'] }),
  ];
}

export interface RingKey {
  component: ComponentEntity;
  kid: string;
  type: 'RSA' | 'OCT';
  algorithm: string;
  use: 'SIG' | 'ENC';
  status: 'ACTIVE' | 'PASSIVE' | 'DISABLED';
  priority: number;
  rsa?: RealmKeys;
}

export interface KeyRing {
  keys: RingKey[];
  /** The RSA key tokens are signed with: active, enabled, RS256, highest priority. */
  signing: RealmKeys;
  byKid: Map<string, RealmKeys>;
}

function ringKeys(r: Reader, realm: RealmEntity): RingKey[] {
  const out: RingKey[] = [];
  for (const c of listComponents(r, realm.id)) {
    if (c.providerType !== KEY_PROVIDER) continue;
    const enabled = first(c, 'enabled', 'true') !== 'false';
    const active = first(c, 'active', 'true') !== 'false';
    const status = !enabled ? 'DISABLED' : active ? 'ACTIVE' : 'PASSIVE';
    const priority = Number(first(c, 'priority', '0')) || 0;
    if (c._keys) {
      const enc = c.providerId === 'rsa-enc-generated';
      out.push({ component: c, kid: c._keys.kid, type: 'RSA', algorithm: first(c, 'algorithm', enc ? 'RSA-OAEP' : 'RS256'), use: enc ? 'ENC' : 'SIG', status, priority, rsa: c._keys });
    } else if (c._secret) {
      const aes = c.providerId === 'aes-generated';
      out.push({ component: c, kid: c._secret.kid, type: 'OCT', algorithm: aes ? 'AES' : first(c, 'algorithm', 'HS256'), use: aes ? 'ENC' : 'SIG', status, priority });
    }
  }
  // Highest priority first; signature keys before encryption keys, RSA before secrets at equal priority.
  const rank = (k: RingKey) => (k.use === 'SIG' ? 0 : 2) + (k.type === 'RSA' ? 0 : 1);
  return out.sort((a, b) => b.priority - a.priority || rank(a) - rank(b) || a.kid.localeCompare(b.kid));
}

const ringCache = new Map<string, { version: number; ring: KeyRing }>();

/** The realm's keys; with `version` (the store's), cached until the next write. */
export function keyRing(r: Reader, realm: RealmEntity, version?: number): KeyRing {
  if (version !== undefined) {
    const hit = ringCache.get(realm.id);
    if (hit && hit.version === version) return hit.ring;
  }
  const keys = ringKeys(r, realm);
  const signing = keys.find((k) => k.rsa && k.use === 'SIG' && k.status === 'ACTIVE' && k.algorithm === 'RS256')?.rsa ?? realm._keys;
  const byKid = new Map<string, RealmKeys>();
  for (const k of keys) if (k.rsa && k.use === 'SIG' && k.status !== 'DISABLED') byKid.set(k.kid, k.rsa);
  // With no active RS256 provider the realm falls back to its bootstrap key (Keycloak's fallback key).
  if (signing === realm._keys) byKid.set(realm._keys.kid, realm._keys);
  const ring = { keys, signing, byKid };
  if (version !== undefined) {
    if (ringCache.size > 1000) ringCache.clear();
    ringCache.set(realm.id, { version, ring });
  }
  return ring;
}

export { newKid };
