// Token contents: scopes in effect for a client, roles in scope, protocol mappers applied to the
// access token, ID token and userinfo, then RS256 signing with the realm key.
import { randomUUID } from 'node:crypto';
import { SignJWT } from 'jose';
import type { ClientEntity, ClientScopeEntity, ProtocolMapperEntity, RealmEntity, RoleEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { Reader } from '../store/repo.js';
import { signingKey } from './keys.js';
import { keyRing } from '../model/component.js';
import type { UserSession } from './sessions.js';

export interface ScopeSet {
  scopes: ClientScopeEntity[];
  /** The `scope` string of the token response. */
  scopeParam: string;
  openid: boolean;
  offline: boolean;
}

export function resolveScopes(r: Reader, client: ClientEntity, requested: string | undefined): ScopeSet {
  const req = new Set((requested ?? '').split(/\s+/).filter(Boolean));
  const scopes: ClientScopeEntity[] = [];
  for (const id of client.defaultClientScopeIds) {
    const s = r.get<ClientScopeEntity>('clientScopes', id);
    if (s) scopes.push(s);
  }
  for (const id of client.optionalClientScopeIds) {
    const s = r.get<ClientScopeEntity>('clientScopes', id);
    if (s && req.has(s.name)) scopes.push(s);
  }
  const names = scopes.filter((s) => s.attributes['include.in.token.scope'] !== 'false').map((s) => s.name).sort();
  const openid = req.has('openid');
  return { scopes, scopeParam: [...(openid ? ['openid'] : []), ...names].join(' '), openid, offline: req.has('offline_access') && scopes.some((s) => s.name === 'offline_access') };
}

/** The user's effective roles limited to what the client may put in tokens (full scope or scope mappings). */
export function rolesInScope(r: Reader, client: ClientEntity, scopes: ClientScopeEntity[], user: UserEntity): RoleEntity[] {
  const effective = repo.effectiveUserRoleIds(r, user.id);
  let allowed: Set<string> | undefined;
  if (!client.fullScopeAllowed) {
    const ids = [...repo.pairs(r, 'scopeMappings', client.id)];
    for (const s of scopes) ids.push(...repo.pairs(r, 'scopeMappings', s.id));
    // A client's own roles are always in scope.
    for (const role of repo.listRoles(r, client.realmId, client.id)) ids.push(role.id);
    allowed = repo.expandRoles(r, ids);
  }
  const out: RoleEntity[] = [];
  for (const id of effective) {
    if (allowed && !allowed.has(id)) continue;
    const role = r.get<RoleEntity>('roles', id);
    if (role) out.push(role);
  }
  return out;
}

type Claims = Record<string, unknown>;
type Target = 'access' | 'id' | 'userinfo';

function setClaim(claims: Claims, path: string, value: unknown): void {
  const parts = path.split(/(?<!\\)\./).map((p) => p.replace(/\\\./g, '.'));
  let cur = claims;
  for (let i = 0; i < parts.length - 1; i++) {
    const p = parts[i]!;
    if (typeof cur[p] !== 'object' || cur[p] === null) cur[p] = {};
    cur = cur[p] as Claims;
  }
  cur[parts[parts.length - 1]!] = value;
}

function convert(value: string, type: string | undefined): unknown {
  if (type === 'boolean') return value === 'true';
  if (type === 'long' || type === 'int') return Number(value);
  return value;
}

function applies(m: ProtocolMapperEntity, target: Target): boolean {
  const key = target === 'access' ? 'access.token.claim' : target === 'id' ? 'id.token.claim' : 'userinfo.token.claim';
  return m.config[key] === 'true';
}

function userValue(user: UserEntity, attr: string): unknown {
  switch (attr) {
    case 'username': return user.username;
    case 'email': return user.email;
    case 'firstName': return user.firstName;
    case 'lastName': return user.lastName;
    case 'emailVerified': return user.emailVerified;
    case 'enabled': return user.enabled;
    case 'id': return user.id;
    default: return user.attributes[attr]?.[0];
  }
}

export interface MapperInput {
  realm: RealmEntity;
  client: ClientEntity;
  user: UserEntity;
  session: UserSession;
  roles: RoleEntity[];
  clientIdOf: (id: string) => string | undefined;
}

export function applyMappers(claims: Claims, mappers: ProtocolMapperEntity[], target: Target, input: MapperInput): void {
  const { user, client, roles } = input;
  for (const m of mappers) {
    if (m.protocol !== 'openid-connect') continue;
    const claim = m.config['claim.name'];
    switch (m.protocolMapper) {
      case 'oidc-usermodel-attribute-mapper':
      case 'oidc-usermodel-property-mapper': {
        if (!applies(m, target) || !claim) break;
        const v = userValue(user, m.config['user.attribute'] ?? '');
        if (v === undefined || v === null) break;
        setClaim(claims, claim, typeof v === 'string' ? convert(v, m.config['jsonType.label']) : v);
        break;
      }
      case 'oidc-full-name-mapper': {
        if (!applies(m, target)) break;
        const name = [user.firstName, user.lastName].filter(Boolean).join(' ');
        if (name) claims.name = name;
        break;
      }
      case 'oidc-usermodel-realm-role-mapper': {
        if (!applies(m, target) || !claim) break;
        const names = roles.filter((r) => r.clientId === '').map((r) => r.name);
        if (names.length) setClaim(claims, claim, names);
        break;
      }
      case 'oidc-usermodel-client-role-mapper': {
        if (!applies(m, target) || !claim) break;
        const by = new Map<string, string[]>();
        for (const r of roles) {
          if (!r.clientId) continue;
          const cid = input.clientIdOf(r.clientId);
          if (!cid) continue;
          (by.get(cid) ?? by.set(cid, []).get(cid)!).push(r.name);
        }
        for (const [cid, names] of by) setClaim(claims, claim.replace('${client_id}', cid.replace(/\./g, '\\.')), names);
        break;
      }
      case 'oidc-audience-resolve-mapper': {
        if (target !== 'access') break;
        const aud = new Set<string>();
        for (const r of roles) {
          if (!r.clientId || r.clientId === client.id) continue;
          const cid = input.clientIdOf(r.clientId);
          if (cid) aud.add(cid);
        }
        if (aud.size) claims.aud = [...aud];
        break;
      }
      case 'oidc-allowed-origins-mapper': {
        if (target !== 'access') break;
        const origins = client.webOrigins.filter((o) => o !== '+' && o !== '-');
        if (origins.length) claims['allowed-origins'] = origins;
        break;
      }
      case 'oidc-usersessionmodel-note-mapper': {
        if (!applies(m, target) || !claim) break;
        if (m.config['user.session.note'] === 'AUTH_TIME') setClaim(claims, claim, Math.floor(input.session.start / 1000));
        break;
      }
      case 'oidc-sub-mapper':
        if (target === 'access') claims.sub = user.id;
        break;
      case 'oidc-acr-mapper':
        if (applies(m, target)) claims.acr = '1';
        break;
      case 'oidc-hardcoded-claim-mapper':
        if (applies(m, target) && claim) setClaim(claims, claim, convert(m.config['claim.value'] ?? '', m.config['jsonType.label']));
        break;
      default:
        break;
    }
  }
}

export function mappersFor(client: ClientEntity, scopes: ClientScopeEntity[]): ProtocolMapperEntity[] {
  return [...scopes.flatMap((s) => s.protocolMappers), ...client.protocolMappers];
}

export async function sign(r: Reader, realm: RealmEntity, claims: Claims, typ = 'JWT'): Promise<string> {
  const keys = keyRing(r, realm, (r as { version?: number }).version).signing;
  const key = await signingKey(keys);
  return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', typ, kid: keys.kid }).sign(key);
}

export interface TokenResponse {
  access_token: string;
  expires_in: number;
  refresh_expires_in: number;
  refresh_token?: string;
  token_type: 'Bearer';
  id_token?: string;
  'not-before-policy': number;
  session_state?: string;
  scope: string;
}

export interface IssueInput extends MapperInput {
  issuer: string;
  scopes: ScopeSet;
  refresh: boolean;
}

export async function issueTokens(r: Reader, input: IssueInput): Promise<TokenResponse> {
  const { realm, client, user, session, issuer, scopes } = input;
  const now = Math.floor(Date.now() / 1000);
  const lifespan = Number(realm.accessTokenLifespan ?? 300);
  const lightweight = client.attributes['client.use.lightweight.access.token.enabled'] === 'true';
  const mappers = mappersFor(client, scopes.scopes);
  const access: Claims = {
    exp: now + lifespan,
    iat: now,
    jti: randomUUID(),
    iss: issuer,
    sub: user.id,
    typ: 'Bearer',
    azp: client.clientId,
    sid: session.id,
    scope: scopes.scopeParam,
  };
  if (!lightweight) {
    access.acr = '1';
    applyMappers(access, mappers, 'access', input);
  }
  const out: TokenResponse = {
    access_token: await sign(r, realm, access),
    expires_in: lifespan,
    refresh_expires_in: 0,
    token_type: 'Bearer',
    'not-before-policy': Number(realm.notBefore ?? 0),
    scope: scopes.scopeParam,
  };
  if (input.refresh) {
    const idle = scopes.offline ? Number(realm.offlineSessionIdleTimeout ?? 2592000) : Number(realm.ssoSessionIdleTimeout ?? 1800);
    const max = Number(realm.ssoSessionMaxLifespan ?? 36000);
    const exp = scopes.offline ? now + idle : Math.min(now + idle, Math.floor(session.start / 1000) + max);
    out.refresh_expires_in = scopes.offline ? 0 : exp - now;
    out.refresh_token = await sign(r, realm, {
      exp: scopes.offline ? undefined : exp,
      iat: now,
      jti: randomUUID(),
      iss: issuer,
      aud: issuer,
      sub: user.id,
      typ: scopes.offline ? 'Offline' : 'Refresh',
      azp: client.clientId,
      sid: session.id,
      scope: scopes.scopeParam,
    });
    out.session_state = session.id;
  }
  if (scopes.openid) {
    const id: Claims = { exp: now + lifespan, iat: now, jti: randomUUID(), iss: issuer, aud: client.clientId, sub: user.id, typ: 'ID', azp: client.clientId, sid: session.id, acr: '1' };
    applyMappers(id, mappers, 'id', input);
    out.id_token = await sign(r, realm, id);
  }
  return out;
}

export function userinfoClaims(input: MapperInput, scopes: ClientScopeEntity[]): Claims {
  const claims: Claims = { sub: input.user.id };
  applyMappers(claims, mappersFor(input.client, scopes), 'userinfo', input);
  return claims;
}
