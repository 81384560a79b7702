// User converter. Credentials' secret data and any `value` never leave through here.
import type { StoredCredential, UserEntity } from '../store/entities.js';
import { cleanMultiMap } from './common.js';
import type { CredentialRepresentation, UserRepresentation } from './schemas.js';

export interface UserRep {
  id: string;
  username: string;
  firstName?: string;
  lastName?: string;
  email?: string;
  emailVerified: boolean;
  attributes?: Record<string, string[]>;
  createdTimestamp: number;
  enabled: boolean;
  totp?: boolean;
  federationLink?: string;
  serviceAccountClientId?: string;
  disableableCredentialTypes?: string[];
  requiredActions?: string[];
  notBefore?: number;
  access?: Record<string, boolean>;
}

export function toBriefRepresentation(u: UserEntity): UserRep {
  const rep: UserRep = { id: u.id, username: u.username } as UserRep;
  if (u.firstName !== undefined) rep.firstName = u.firstName;
  if (u.lastName !== undefined) rep.lastName = u.lastName;
  if (u.email !== undefined) rep.email = u.email;
  rep.emailVerified = u.emailVerified;
  rep.createdTimestamp = u.createdTimestamp;
  rep.enabled = u.enabled;
  if (u.federationLink) rep.federationLink = u.federationLink;
  if (u.serviceAccountClientId) rep.serviceAccountClientId = u.serviceAccountClientId;
  return rep;
}

export function toRepresentation(u: UserEntity): UserRep {
  const rep = toBriefRepresentation(u);
  if (Object.keys(u.attributes).length) rep.attributes = u.attributes;
  rep.totp = u.credentials.some((c) => c.type === 'otp');
  rep.disableableCredentialTypes = [];
  rep.requiredActions = u.requiredActions;
  rep.notBefore = u.notBefore;
  return rep;
}

/** Applies the profile fields of a representation (not credentials, roles or groups). */
export function applyRepresentation(u: UserEntity, rep: UserRepresentation): UserEntity {
  const next: UserEntity = { ...u };
  if (rep.username != null) next.username = rep.username.toLowerCase();
  for (const f of ['firstName', 'lastName'] as const) {
    const v = rep[f];
    if (v !== undefined) {
      if (v === null || v === '') delete next[f];
      else next[f] = v;
    }
  }
  if (rep.email !== undefined) {
    if (rep.email === null || rep.email === '') delete next.email;
    else next.email = rep.email.toLowerCase();
  }
  if (rep.emailVerified != null) next.emailVerified = rep.emailVerified;
  if (rep.enabled != null) next.enabled = rep.enabled;
  if (rep.attributes != null) next.attributes = cleanMultiMap(rep.attributes);
  if (rep.requiredActions != null) next.requiredActions = [...new Set(rep.requiredActions)];
  if (rep.federationLink != null) next.federationLink = rep.federationLink;
  if (rep.notBefore != null) next.notBefore = rep.notBefore;
  return next;
}

export function credentialToRepresentation(c: StoredCredential): CredentialRepresentation {
  const rep: CredentialRepresentation = { id: c.id, type: c.type };
  if (c.userLabel !== undefined) rep.userLabel = c.userLabel;
  rep.createdDate = c.createdDate;
  rep.credentialData = c.credentialData;
  return rep;
}

const SECRET_CREDENTIAL_FIELDS = ['value', 'secretData', 'hashedSaltedValue', 'salt'] as const;

/** The one place secrets are removed from user and credential representations (replies and log). */
export function stripSecrets<T>(rep: T): T {
  if (rep === null || typeof rep !== 'object') return rep;
  const out: Record<string, unknown> = { ...(rep as Record<string, unknown>) };
  if (Array.isArray(out.credentials)) {
    out.credentials = (out.credentials as Array<Record<string, unknown>>).map((c) => {
      const copy = { ...c };
      for (const f of SECRET_CREDENTIAL_FIELDS) delete copy[f];
      return copy;
    });
  }
  for (const f of SECRET_CREDENTIAL_FIELDS) delete out[f];
  return out as T;
}
