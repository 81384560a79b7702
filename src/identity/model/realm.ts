// Realm converter: the realm's own top-level settings. Keys, internal lists (`_…`) and nested
// collections never appear in a realm representation from here.
import type { RealmEntity } from '../store/entities.js';
import {
  REALM_BOOL_FIELDS,
  REALM_INT_FIELDS,
  REALM_LIST_FIELDS,
  REALM_LONG_FIELDS,
  REALM_MAP_FIELDS,
  REALM_STRING_FIELDS,
  type RealmRepresentation,
} from './schemas.js';
import type { RoleRep } from './role.js';
import { KEYCLOAK_VERSION } from './defaults.js';

const SETTINGS: readonly string[] = [
  ...REALM_INT_FIELDS, ...REALM_LONG_FIELDS, ...REALM_BOOL_FIELDS, ...REALM_STRING_FIELDS, ...REALM_LIST_FIELDS, ...REALM_MAP_FIELDS,
].filter((f) => f !== 'realm' && f !== 'keycloakVersion');

export function toRepresentation(r: RealmEntity, defaultRole: RoleRep | undefined): Record<string, unknown> {
  const rep: Record<string, unknown> = { id: r.id, realm: r.realm };
  for (const f of SETTINGS) if (r[f] !== undefined) rep[f] = r[f];
  if (defaultRole) rep.defaultRole = defaultRole;
  rep.keycloakVersion = KEYCLOAK_VERSION;
  return rep;
}

export function toBriefRepresentation(r: RealmEntity): Record<string, unknown> {
  return { id: r.id, realm: r.realm, ...(r.displayName !== undefined ? { displayName: r.displayName } : {}), enabled: r.enabled };
}

/** Applies top-level settings only (users, roles, clients in the representation are ignored). */
export function applyRepresentation(r: RealmEntity, rep: RealmRepresentation): RealmEntity {
  const next: RealmEntity = { ...r };
  const src = rep as Record<string, unknown>;
  for (const f of SETTINGS) if (src[f] !== undefined && src[f] !== null) next[f] = src[f];
  if (rep.realm != null) next.realm = rep.realm;
  return next;
}

const SECRET_REALM_FIELDS = ['privateKey', 'codeSecret', 'certificate', 'publicKey'] as const;

/** Removes secrets from a realm representation, recursing into nested users and clients. */
export function stripSecrets<T>(rep: T, stripUser: (u: unknown) => unknown, stripClient: (c: unknown) => unknown): T {
  if (rep === null || typeof rep !== 'object') return rep;
  const out = { ...(rep as Record<string, unknown>) };
  for (const f of SECRET_REALM_FIELDS) delete out[f];
  if (Array.isArray(out.users)) out.users = out.users.map(stripUser);
  if (Array.isArray(out.clients)) out.clients = out.clients.map(stripClient);
  if (out.smtpServer && typeof out.smtpServer === 'object') {
    const smtp = { ...(out.smtpServer as Record<string, unknown>) };
    if (smtp.password) smtp.password = '**********';
    out.smtpServer = smtp;
  }
  return out as T;
}
