// The OpenID Connect face of a realm: token endpoint (password, client_credentials,
// refresh_token), JWKS, discovery document, userinfo, logout, and the published realm info.
import { decodeJwt, jwtVerify } from 'jose';
import { json, noContent, type HttpReply, type HttpRequest, type RouteRegistry } from '../../http/types.js';
import { HttpError } from '../../http/types.js';
import type { IdentityService } from '../service.js';
import type { ClientEntity, RealmEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { jwk } from './keys.js';
import { issueTokens, resolveScopes, rolesInScope, userinfoClaims } from './tokens.js';

const oauthError = (status: number, error: string, description?: string): HttpError =>
  new HttpError(status, json(status, description === undefined ? { error } : { error, error_description: description }, { 'Cache-Control': 'no-store', Pragma: 'no-cache' }));

function form(req: HttpRequest): URLSearchParams {
  const ct = req.headers['content-type'] ?? '';
  if (!ct.toLowerCase().startsWith('application/x-www-form-urlencoded')) throw oauthError(400, 'invalid_request', 'Content-Type must be application/x-www-form-urlencoded');
  return new URLSearchParams(req.body.toString('utf8'));
}

/** Idle and max lifespans (SSO or offline, per the realm) of a session being refreshed. */
export function sessionAlive(realm: RealmEntity, s: { offline: boolean; start: number; lastAccess: number; rememberMe: boolean }, now = Date.now()): boolean {
  const sec = (k: string, d: number) => (Number.isFinite(Number(realm[k])) ? Number(realm[k]) : d) * 1000;
  if (s.offline) {
    if (now - s.lastAccess > sec('offlineSessionIdleTimeout', 2592000)) return false;
    return !(realm.offlineSessionMaxLifespanEnabled === true && now - s.start > sec('offlineSessionMaxLifespan', 5184000));
  }
  const idle = s.rememberMe && sec('ssoSessionIdleTimeoutRememberMe', 0) > 0 ? sec('ssoSessionIdleTimeoutRememberMe', 0) : sec('ssoSessionIdleTimeout', 1800);
  const max = s.rememberMe && sec('ssoSessionMaxLifespanRememberMe', 0) > 0 ? sec('ssoSessionMaxLifespanRememberMe', 0) : sec('ssoSessionMaxLifespan', 36000);
  return now - s.lastAccess <= idle && now - s.start <= max;
}

export function issuerOf(req: HttpRequest, realm: RealmEntity): string {
  return `${req.baseUrl}/realms/${encodeURIComponent(realm.realm)}`;
}

export function registerOidcRoutes(registry: RouteRegistry, svc: IdentityService): void {
  const store = svc.store;
  const wrap = (h: (req: HttpRequest, realm: RealmEntity) => Promise<HttpReply> | HttpReply) => async (req: HttpRequest): Promise<HttpReply> => {
    try {
      const realm = svc.realm(req.params.realm ?? '');
      if (!realm) throw new HttpError(404, json(404, { error: 'Realm does not exist' }));
      return await h(req, realm);
    } catch (error) {
      if (error instanceof HttpError) return error.reply;
      svc.logger.error({ err: error, path: req.path }, 'identity oidc request failed');
      return json(500, { error: 'unknown_error', error_description: 'For more on this error consult the server log.' });
    }
  };

  /** Client authentication: client_id/client_secret in the form or HTTP basic (RFC 6749 §2.3.1). */
  const authenticateClient = (req: HttpRequest, realm: RealmEntity, f: URLSearchParams): ClientEntity => {
    let clientId = f.get('client_id') ?? undefined;
    let secret = f.get('client_secret') ?? undefined;
    const h = req.headers['authorization'];
    if (h && /^basic\s+/i.test(h)) {
      const text = Buffer.from(h.replace(/^basic\s+/i, ''), 'base64').toString('utf8');
      const i = text.indexOf(':');
      if (i > 0) {
        clientId = decodeURIComponent(text.slice(0, i).replace(/\+/g, ' '));
        secret = decodeURIComponent(text.slice(i + 1).replace(/\+/g, ' '));
      }
    }
    if (!clientId) throw oauthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
    const client = repo.clientByClientId(store, realm.id, clientId);
    if (!client) throw oauthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
    if (!client.enabled) throw oauthError(401, 'invalid_client', 'Invalid client or Invalid client credentials');
    if (client.bearerOnly) throw oauthError(400, 'invalid_client', 'Bearer-only not allowed');
    if (!client.publicClient) {
      const ok = secret !== undefined && (secret === client.secret || (client._rotatedSecret !== undefined && secret === client._rotatedSecret));
      if (!ok) throw oauthError(401, 'unauthorized_client', 'Invalid client or Invalid client credentials');
    }
    return client;
  };

  const clientIdOf = (id: string) => store.get<ClientEntity>('clients', id)?.clientId;

  const grant = async (req: HttpRequest, realm: RealmEntity, client: ClientEntity, user: UserEntity, scopeParam: string | undefined, refresh: boolean, existingSession?: string) => {
    const scopes = resolveScopes(store, client, scopeParam);
    let session = existingSession ? svc.sessions.get(existingSession) : undefined;
    if (!session) session = svc.sessions.create(realm.id, user.id, user.username, req.remoteAddress, client, scopes.offline);
    else {
      session.clients.set(client.id, client.clientId);
      svc.sessions.touch(session);
    }
    const roles = rolesInScope(store, client, scopes.scopes, user);
    return issueTokens(store, { realm, client, user, session, roles, clientIdOf, issuer: issuerOf(req, realm), scopes, refresh });
  };

  registry.add('POST', '/realms/:realm/protocol/openid-connect/token', wrap(async (req, realm) => {
    const f = form(req);
    const grantType = f.get('grant_type');
    if (!grantType) throw oauthError(400, 'invalid_request', 'Missing form parameter: grant_type');
    if (!['password', 'client_credentials', 'refresh_token'].includes(grantType)) throw oauthError(400, 'unsupported_grant_type', 'Unsupported grant_type');
    if (realm.enabled === false) throw oauthError(400, 'invalid_request', 'Realm not enabled');
    const client = authenticateClient(req, realm, f);
    const ip = req.remoteAddress;
    const scope = f.get('scope') ?? undefined;
    if (grantType === 'password') {
      if (!client.directAccessGrantsEnabled) throw oauthError(400, 'unauthorized_client', 'Client not allowed for direct access grants');
      const username = f.get('username') ?? '';
      const user = svc.findLoginUser(realm, username);
      const fail = (error: string) => {
        svc.userEvent(realm, { type: 'LOGIN_ERROR', clientId: client.clientId, userId: user?.id, ipAddress: ip, error, details: { grant_type: 'password', username } });
      };
      if (!user) {
        fail('user_not_found');
        throw oauthError(401, 'invalid_grant', 'Invalid user credentials');
      }
      if (svc.bruteForce.isTemporarilyDisabled(realm, user.id)) {
        // Counted like any failure; the answer does not reveal the lockout (Keycloak).
        await svc.loginFailed(realm, user, ip);
        fail('user_temporarily_disabled');
        throw oauthError(401, 'invalid_grant', 'Invalid user credentials');
      }
      if (!(await svc.checkPassword(user, f.get('password') ?? ''))) {
        const outcome = user.enabled ? await svc.loginFailed(realm, user, ip) : 'none';
        fail(outcome === 'temporary' ? 'user_temporarily_disabled' : 'invalid_user_credentials');
        throw oauthError(401, 'invalid_grant', 'Invalid user credentials');
      }
      if (!user.enabled) {
        fail('user_disabled');
        throw oauthError(400, 'invalid_grant', 'Account disabled');
      }
      svc.bruteForce.success(realm, user.id);
      if (user.requiredActions.length) {
        fail('resolve_required_actions');
        throw oauthError(400, 'invalid_grant', 'Account is not fully set up');
      }
      const tokens = await grant(req, realm, client, user, scope, true);
      svc.userEvent(realm, { type: 'LOGIN', clientId: client.clientId, userId: user.id, sessionId: tokens.session_state, ipAddress: ip, details: { grant_type: 'password', username: user.username } });
      return json(200, tokens, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    }
    if (grantType === 'client_credentials') {
      if (client.publicClient) throw oauthError(401, 'unauthorized_client', 'Public client not allowed to retrieve service account');
      if (!client.serviceAccountsEnabled) throw oauthError(401, 'unauthorized_client', 'Client not enabled to retrieve service account');
      const uid = store.lookup('userByServiceAccountClient', [client.id]);
      const user = uid ? store.get<UserEntity>('users', uid) : undefined;
      if (!user || !user.enabled) throw oauthError(400, 'invalid_request', 'User not found or disabled');
      const useRefresh = client.attributes['client_credentials.use_refresh_token'] === 'true';
      const tokens = await grant(req, realm, client, user, scope, useRefresh);
      svc.userEvent(realm, { type: 'CLIENT_LOGIN', clientId: client.clientId, userId: user.id, ipAddress: ip, details: { grant_type: 'client_credentials' } });
      return json(200, tokens, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
    }
    // refresh_token
    const rt = f.get('refresh_token');
    if (!rt) throw oauthError(400, 'invalid_request', 'Missing form parameter: refresh_token');
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(rt, svc.verifier(realm), { algorithms: ['RS256'] }));
    } catch {
      svc.userEvent(realm, { type: 'REFRESH_TOKEN_ERROR', clientId: client.clientId, ipAddress: ip, error: 'invalid_token' });
      throw oauthError(400, 'invalid_grant', 'Invalid refresh token');
    }
    if ((claims.typ !== 'Refresh' && claims.typ !== 'Offline') || claims.azp !== client.clientId) throw oauthError(400, 'invalid_grant', 'Invalid refresh token');
    const sid = claims.sid as string | undefined;
    const session = sid ? svc.sessions.get(sid) : undefined;
    if (!session) throw oauthError(400, 'invalid_grant', 'Session not active');
    if (!sessionAlive(realm, session)) {
      svc.sessions.remove(session.id);
      throw oauthError(400, 'invalid_grant', session.offline ? 'Offline session not active' : 'Session not active');
    }
    const user = repo.userInRealm(store, realm.id, String(claims.sub));
    if (!user || !user.enabled) throw oauthError(400, 'invalid_grant', 'Invalid refresh token');
    const tokens = await grant(req, realm, client, user, (claims.scope as string | undefined) ?? scope, true, session.id);
    svc.userEvent(realm, { type: 'REFRESH_TOKEN', clientId: client.clientId, userId: user.id, sessionId: session.id, ipAddress: ip });
    return json(200, tokens, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
  }));

  registry.add('POST', '/realms/:realm/protocol/openid-connect/logout', wrap(async (req, realm) => {
    const f = form(req);
    const client = authenticateClient(req, realm, f);
    const rt = f.get('refresh_token');
    if (!rt) throw oauthError(400, 'invalid_request', 'No refresh token');
    let claims;
    try {
      ({ payload: claims } = await jwtVerify(rt, svc.verifier(realm), { algorithms: ['RS256'] }));
    } catch {
      throw oauthError(400, 'invalid_grant', 'Invalid refresh token');
    }
    if (claims.azp !== client.clientId) throw oauthError(400, 'invalid_grant', 'Invalid refresh token');
    const sid = claims.sid as string | undefined;
    if (sid) svc.sessions.remove(sid);
    svc.userEvent(realm, { type: 'LOGOUT', clientId: client.clientId, userId: String(claims.sub), sessionId: sid, ipAddress: req.remoteAddress });
    return noContent();
  }));

  const userinfo = wrap(async (req, realm) => {
    const h = req.headers['authorization'];
    let token = h && /^bearer\s+/i.test(h) ? h.replace(/^bearer\s+/i, '').trim() : undefined;
    if (!token && req.method === 'POST' && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) token = new URLSearchParams(req.body.toString('utf8')).get('access_token') ?? undefined;
    const unauthorized = () => new HttpError(401, json(401, { error: 'invalid_token', error_description: 'Token verification failed' }, { 'WWW-Authenticate': `Bearer realm="${realm.realm}", error="invalid_token", error_description="Token verification failed"` }));
    if (!token) throw unauthorized();
    const v = await svc.verifyAccessToken(token);
    if (!v || v.realm.id !== realm.id || !v.client) throw unauthorized();
    const scopes = resolveScopes(store, v.client, v.claims.scope);
    const session = v.session ?? { id: '', realmId: realm.id, userId: v.user.id, username: v.user.username, ipAddress: '', start: Date.now(), lastAccess: Date.now(), clients: new Map(), offline: false, rememberMe: false };
    const roles = rolesInScope(store, v.client, scopes.scopes, v.user);
    return json(200, userinfoClaims({ realm, client: v.client, user: v.user, session, roles, clientIdOf }, scopes.scopes));
  });
  registry.add('GET', '/realms/:realm/protocol/openid-connect/userinfo', userinfo);
  registry.add('POST', '/realms/:realm/protocol/openid-connect/userinfo', userinfo);

  registry.add('GET', '/realms/:realm/protocol/openid-connect/certs', wrap((_req, realm) => {
    const ring = svc.keyRing(realm);
    const keys = ring.keys.filter((k) => k.rsa && k.status !== 'DISABLED').map((k) => jwk(k.rsa!, k.algorithm, k.use === 'SIG' ? 'sig' : 'enc'));
    if (!keys.some((k) => k.kid === ring.signing.kid)) keys.unshift(jwk(ring.signing, 'RS256', 'sig'));
    return json(200, { keys }, { 'Cache-Control': 'no-cache' });
  }));

  registry.add('GET', '/realms/:realm/.well-known/openid-configuration', wrap((req, realm) => {
    const iss = issuerOf(req, realm);
    const p = `${iss}/protocol/openid-connect`;
    return json(200, {
      issuer: iss,
      authorization_endpoint: `${p}/auth`,
      token_endpoint: `${p}/token`,
      introspection_endpoint: `${p}/token/introspect`,
      userinfo_endpoint: `${p}/userinfo`,
      end_session_endpoint: `${p}/logout`,
      jwks_uri: `${p}/certs`,
      grant_types_supported: ['password', 'client_credentials', 'refresh_token'],
      response_types_supported: ['code', 'none', 'id_token', 'token', 'id_token token', 'code id_token', 'code token', 'code id_token token'],
      subject_types_supported: ['public', 'pairwise'],
      id_token_signing_alg_values_supported: ['RS256'],
      userinfo_signing_alg_values_supported: ['RS256', 'none'],
      token_endpoint_auth_methods_supported: ['client_secret_basic', 'client_secret_post'],
      claims_supported: ['aud', 'sub', 'iss', 'auth_time', 'name', 'given_name', 'family_name', 'preferred_username', 'email', 'acr'],
      scopes_supported: ['openid', ...repo.listClientScopes(store, realm.id).filter((s) => s.protocol === 'openid-connect').map((s) => s.name)],
      code_challenge_methods_supported: ['plain', 'S256'],
    });
  }));

  registry.add('GET', '/realms/:realm', wrap((req, realm) => {
    const iss = issuerOf(req, realm);
    return json(200, {
      realm: realm.realm,
      public_key: svc.keyRing(realm).signing.publicKeyPem,
      'token-service': `${iss}/protocol/openid-connect`,
      'account-service': `${iss}/account`,
      'tokens-not-before': Number(realm.notBefore ?? 0),
    });
  }));
  void decodeJwt;
}
