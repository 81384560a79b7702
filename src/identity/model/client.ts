// Client converter. The client secret is a secret: it leaves only through /client-secret.
import type { ClientEntity } from '../store/entities.js';
import { cleanStrMap } from './common.js';
import { mapperToRepresentation } from './client-scope.js';
import type { ClientRepresentation } from './schemas.js';

const SCALARS = [
  'clientId', 'name', 'description', 'type', 'rootUrl', 'adminUrl', 'baseUrl', 'surrogateAuthRequired', 'enabled', 'alwaysDisplayInConsole',
  'clientAuthenticatorType', 'notBefore', 'bearerOnly', 'consentRequired', 'standardFlowEnabled', 'implicitFlowEnabled',
  'directAccessGrantsEnabled', 'serviceAccountsEnabled', 'authorizationServicesEnabled', 'publicClient', 'frontchannelLogout', 'protocol',
  'fullScopeAllowed', 'nodeReRegistrationTimeout',
] as const;

export function toRepresentation(c: ClientEntity, scopeNames: (ids: string[]) => string[]): Record<string, unknown> {
  const rep: Record<string, unknown> = { id: c.id };
  for (const f of SCALARS) if (c[f] !== undefined) rep[f] = c[f];
  rep.redirectUris = c.redirectUris;
  rep.webOrigins = c.webOrigins;
  rep.attributes = c.attributes;
  rep.authenticationFlowBindingOverrides = c.authenticationFlowBindingOverrides;
  if (c.registeredNodes && Object.keys(c.registeredNodes).length) rep.registeredNodes = c.registeredNodes;
  if (c.protocolMappers.length) rep.protocolMappers = c.protocolMappers.map(mapperToRepresentation);
  rep.defaultClientScopes = scopeNames(c.defaultClientScopeIds);
  rep.optionalClientScopes = scopeNames(c.optionalClientScopeIds);
  return rep;
}

export function toBriefRepresentation(c: ClientEntity): Record<string, unknown> {
  return { id: c.id, clientId: c.clientId, ...(c.name !== undefined ? { name: c.name } : {}) };
}

/** Applies a representation's top-level fields (not mappers, scopes, secret). */
export function applyRepresentation(c: ClientEntity, rep: ClientRepresentation): ClientEntity {
  const next: ClientEntity = { ...c };
  const src = rep as Record<string, unknown>;
  const dst = next as unknown as Record<string, unknown>;
  for (const f of SCALARS) if (src[f] !== undefined && src[f] !== null) dst[f] = src[f];
  if (rep.redirectUris != null) next.redirectUris = rep.redirectUris;
  if (rep.webOrigins != null) next.webOrigins = rep.webOrigins;
  if (rep.attributes != null) next.attributes = { ...next.attributes, ...cleanStrMap(rep.attributes) };
  if (rep.authenticationFlowBindingOverrides != null) next.authenticationFlowBindingOverrides = cleanStrMap(rep.authenticationFlowBindingOverrides);
  if (rep.registeredNodes != null) next.registeredNodes = rep.registeredNodes;
  if (next.bearerOnly || next.publicClient) delete next.secret;
  return next;
}

/** The one place client secrets are removed (replies and the event log). */
export function stripSecrets<T>(rep: T): T {
  if (rep === null || typeof rep !== 'object') return rep;
  const out = { ...(rep as Record<string, unknown>) };
  delete out.secret;
  delete out.registrationAccessToken;
  if (out.attributes && typeof out.attributes === 'object') {
    const attrs = { ...(out.attributes as Record<string, unknown>) };
    delete attrs['client.secret.rotated'];
    out.attributes = attrs;
  }
  return out as T;
}
