// /admin/realms/{realm}/clients/{id}: get, update, delete and the client's sub-resources
// (ClientResource): secrets, service account, client scopes, sessions, nodes, evaluate-scopes.
import { ERR, errorMessage } from '../errors.js';
import * as clientConv from '../model/client.js';
import * as roleConv from '../model/role.js';
import * as userConv from '../model/user.js';
import { mapperToRepresentation } from '../model/client-scope.js';
import { ClientRepresentation } from '../model/schemas.js';
import { deleteClient, ensureServiceAccount, generateSecret, syncResourceServer } from '../managers.js';
import type { ClientEntity, ClientScopeEntity, RealmEntity, RoleEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { issueTokens, resolveScopes, rolesInScope, userinfoClaims } from '../oidc/tokens.js';
import { decodeJwt } from 'jose';
import { current, noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { clientRep, scopeNamesOf } from './clients.js';
import { registerProtocolMappers } from './protocol-mappers.js';
import { registerScopeMappings } from './scope-mappings.js';
import { sessionRep } from './user.js';
import { clientOfPath } from './locate.js';

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;
  const P = '/clients/:clientUuid';
  const locate = (ctx: AdminContext): ClientEntity => clientOfPath(store, ctx);
  const view = (ctx: AdminContext) => ctx.auth.clients.requireView();
  const manage = (ctx: AdminContext) => ctx.auth.clients.requireManage();

  r.realm('GET', P, (ctx) => {
    view(ctx);
    return ok(clientRep(ctx, store, locate(ctx)));
  });

  r.realm('PUT', P, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    const rep = ctx.body(ClientRepresentation);
    await ctx.write((tx, ev) => {
      const cur = current<ClientEntity>(tx, 'clients', c.id);
      const next = clientConv.applyRepresentation(cur, rep);
      if (next.clientId !== cur.clientId && repo.clientByClientId(tx, ctx.realm.id, next.clientId)) throw ERR.conflict(`Client ${next.clientId} already exists`);
      if (rep.secret != null && !next.publicClient && !next.bearerOnly) next.secret = rep.secret;
      if (!next.publicClient && !next.bearerOnly && !next.secret && next.clientAuthenticatorType === 'client-secret') next.secret = generateSecret();
      if (rep.defaultClientScopes != null) next.defaultClientScopeIds = rep.defaultClientScopes.map((n) => repo.clientScopeByName(tx, ctx.realm.id, n)?.id).filter((x): x is string => !!x);
      if (rep.optionalClientScopes != null) next.optionalClientScopeIds = rep.optionalClientScopes.map((n) => repo.clientScopeByName(tx, ctx.realm.id, n)?.id).filter((x): x is string => !!x);
      if (next.authorizationServicesEnabled) {
        if (next.publicClient || next.bearerOnly) throw errorMessage(400, 'Authorization services require a confidential client');
        next.serviceAccountsEnabled = true;
      }
      tx.put('clients', c.id, next);
      const realm = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      if (next.serviceAccountsEnabled) ensureServiceAccount(tx, realm, next);
      syncResourceServer(tx, realm, next);
      ev.update('CLIENT', `clients/${c.id}`, clientConv.stripSecrets(rep));
    });
    return noContent();
  });

  r.realm('DELETE', P, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    if (c.attributes['realm_client'] === 'true' && ['realm-management', 'broker'].includes(c.clientId)) {
      // Keycloak refuses to delete the realm's management client.
      if (c.clientId === 'realm-management') throw errorMessage(400, 'Cannot delete the realm-management client');
    }
    await ctx.write((tx, ev) => {
      deleteClient(tx, current<ClientEntity>(tx, 'clients', c.id));
      ev.delete('CLIENT', `clients/${c.id}`);
    });
    return noContent();
  });

  // ── secrets ──
  r.realm('GET', `${P}/client-secret`, (ctx) => {
    view(ctx);
    const c = locate(ctx);
    return ok({ type: 'secret', ...(c.secret ? { value: c.secret } : {}) });
  });
  r.realm('POST', `${P}/client-secret`, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    if (c.publicClient || c.bearerOnly) throw errorMessage(400, 'Client is not confidential');
    const secret = generateSecret();
    await ctx.write((tx, ev) => {
      const cur = current<ClientEntity>(tx, 'clients', c.id);
      const next: ClientEntity = { ...cur, secret };
      if (cur.secret) next._rotatedSecret = cur.secret;
      tx.put('clients', c.id, next);
      ev.action('CLIENT', `clients/${c.id}/client-secret`);
    });
    return ok({ type: 'secret', value: secret });
  });
  r.realm('GET', `${P}/client-secret/rotated`, (ctx) => {
    view(ctx);
    const c = locate(ctx);
    if (!c._rotatedSecret) throw ERR.notFound('Client does not have a rotated secret');
    return ok({ type: 'secret', value: c._rotatedSecret });
  });
  r.realm('DELETE', `${P}/client-secret/rotated`, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    await ctx.write((tx, ev) => {
      const cur = current<ClientEntity>(tx, 'clients', c.id);
      if (!cur._rotatedSecret) return;
      const { _rotatedSecret: _r, ...rest } = cur;
      void _r;
      tx.put('clients', c.id, rest);
      ev.delete('CLIENT', `clients/${c.id}/client-secret/rotated`);
    });
    return noContent();
  });
  r.realm('POST', `${P}/registration-access-token`, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    const token = generateSecret() + generateSecret();
    await ctx.write((tx, ev) => {
      tx.put('clients', c.id, { ...current<ClientEntity>(tx, 'clients', c.id), _registrationAccessToken: token });
      ev.action('CLIENT', `clients/${c.id}/registration-access-token`);
    });
    return ok({ ...clientRep(ctx, store, { ...c }), registrationAccessToken: token });
  });

  r.realm('GET', `${P}/service-account-user`, (ctx) => {
    view(ctx);
    const c = locate(ctx);
    const id = store.lookup('userByServiceAccountClient', [c.id]);
    const u = id ? store.get<UserEntity>('users', id) : undefined;
    if (!c.serviceAccountsEnabled || !u) throw errorMessage(400, 'Service account not enabled for the client \'' + c.clientId + '\'');
    return ok(userConv.toRepresentation(u));
  });

  // ── client scopes of the client ──
  for (const [path, field, type] of [
    ['default-client-scopes', 'defaultClientScopeIds', 'CLIENT_SCOPE_CLIENT_MAPPING'],
    ['optional-client-scopes', 'optionalClientScopeIds', 'CLIENT_SCOPE_CLIENT_MAPPING'],
  ] as const) {
    r.realm('GET', `${P}/${path}`, (ctx) => {
      view(ctx);
      const c = locate(ctx);
      return ok(c[field].map((id) => store.get<ClientScopeEntity>('clientScopes', id)).filter((s): s is ClientScopeEntity => !!s).map((s) => ({ id: s.id, name: s.name })));
    });
    r.realm('PUT', `${P}/${path}/:scopeId`, async (ctx) => {
      manage(ctx);
      const c = locate(ctx);
      const s = store.get<ClientScopeEntity>('clientScopes', ctx.param('scopeId'));
      if (!s || s.realmId !== ctx.realm.id) throw ERR.clientScopeNotFound();
      if (s.protocol !== c.protocol) throw errorMessage(400, `Protocol of client scope '${s.name}' does not match the protocol of the client`);
      await ctx.write((tx, ev) => {
        const cur = current<ClientEntity>(tx, 'clients', c.id);
        if (cur.defaultClientScopeIds.includes(s.id) || cur.optionalClientScopeIds.includes(s.id)) {
          if (cur[field].includes(s.id)) return;
          throw ERR.conflict(`Client scope ${s.name} is already assigned to the client`);
        }
        tx.put('clients', c.id, { ...cur, [field]: [...cur[field], s.id] });
        ev.update(type, `clients/${c.id}/${path}/${s.id}`, { id: s.id, name: s.name });
      });
      return noContent();
    });
    r.realm('DELETE', `${P}/${path}/:scopeId`, async (ctx) => {
      manage(ctx);
      const c = locate(ctx);
      const id = ctx.param('scopeId');
      if (!store.get('clientScopes', id)) throw ERR.clientScopeNotFound();
      await ctx.write((tx, ev) => {
        const cur = current<ClientEntity>(tx, 'clients', c.id);
        if (!cur[field].includes(id)) return;
        tx.put('clients', c.id, { ...cur, [field]: cur[field].filter((x) => x !== id) });
        ev.delete(type, `clients/${c.id}/${path}/${id}`);
      });
      return noContent();
    });
  }

  // ── sessions ──
  const sessionsOf = (c: ClientEntity, offline: boolean) => svc.sessions.list((s) => s.clients.has(c.id) && s.offline === offline);
  r.realm('GET', `${P}/session-count`, (ctx) => {
    view(ctx);
    return ok({ count: sessionsOf(locate(ctx), false).length });
  });
  r.realm('GET', `${P}/offline-session-count`, (ctx) => {
    view(ctx);
    return ok({ count: sessionsOf(locate(ctx), true).length });
  });
  r.realm('GET', `${P}/user-sessions`, (ctx) => {
    view(ctx);
    return ok(page(sessionsOf(locate(ctx), false), ctx.queryInt('first', 0), ctx.queryInt('max', 100)).map(sessionRep));
  });
  r.realm('GET', `${P}/offline-sessions`, (ctx) => {
    view(ctx);
    return ok(page(sessionsOf(locate(ctx), true), ctx.queryInt('first', 0), ctx.queryInt('max', 100)).map(sessionRep));
  });

  // ── cluster nodes, revocation, permissions, installation ──
  r.realm('POST', `${P}/nodes`, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    const body = ctx.json() as { node?: string } | undefined;
    const node = body?.node;
    if (!node) throw errorMessage(400, 'Node not provided');
    await ctx.write((tx, ev) => {
      const cur = current<ClientEntity>(tx, 'clients', c.id);
      tx.put('clients', c.id, { ...cur, registeredNodes: { ...(cur.registeredNodes ?? {}), [node]: Math.floor(Date.now() / 1000) } });
      ev.create('CLUSTER_NODE', `clients/${c.id}/nodes/${node}`);
    });
    return noContent();
  });
  r.realm('DELETE', `${P}/nodes/:node`, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    const node = ctx.param('node');
    if (!c.registeredNodes || !(node in c.registeredNodes)) throw ERR.notFound('Client does not have node ');
    await ctx.write((tx, ev) => {
      const cur = current<ClientEntity>(tx, 'clients', c.id);
      const nodes = { ...(cur.registeredNodes ?? {}) };
      delete nodes[node];
      tx.put('clients', c.id, { ...cur, registeredNodes: nodes });
      ev.delete('CLUSTER_NODE', `clients/${c.id}/nodes/${node}`);
    });
    return noContent();
  });
  r.realm('GET', `${P}/test-nodes-available`, (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    return ok({ successRequests: [], failedRequests: Object.keys(c.registeredNodes ?? {}) });
  });
  r.realm('POST', `${P}/push-revocation`, async (ctx) => {
    manage(ctx);
    const c = locate(ctx);
    await ctx.write((tx, ev) => {
      tx.put('clients', c.id, { ...current<ClientEntity>(tx, 'clients', c.id), notBefore: Math.floor(Date.now() / 1000) });
      ev.action('CLIENT', `clients/${c.id}/push-revocation`);
    });
    return ok({ successRequests: [], failedRequests: [] });
  });
  r.realm('GET', `${P}/management/permissions`, (ctx) => {
    view(ctx);
    locate(ctx);
    return ok({ enabled: false });
  });
  r.realm('PUT', `${P}/management/permissions`, (ctx) => {
    manage(ctx);
    locate(ctx);
    return ok({ enabled: false });
  });
  r.realm('GET', `${P}/installation/providers/:providerId`, (ctx) => {
    view(ctx);
    const c = locate(ctx);
    if (ctx.param('providerId') !== 'keycloak-oidc-keycloak-json') throw ERR.notFound('Unknown Provider');
    return ok({
      realm: ctx.realm.realm,
      'auth-server-url': `${ctx.req.baseUrl}/`,
      'ssl-required': ctx.realm.sslRequired,
      resource: c.clientId,
      ...(c.publicClient ? { 'public-client': true } : { credentials: { secret: c.secret } }),
      'confidential-port': 0,
    });
  });

  // ── evaluate-scopes ──
  const evalScopes = (ctx: AdminContext) => resolveScopes(store, locate(ctx), ctx.query('scope'));
  r.realm('GET', `${P}/evaluate-scopes/protocol-mappers`, (ctx) => {
    view(ctx);
    const c = locate(ctx);
    const { scopes } = evalScopes(ctx);
    const out = [];
    for (const s of scopes) for (const m of s.protocolMappers) out.push({ mapperId: m.id, mapperName: m.name, containerId: s.id, containerName: s.name, containerType: 'client-scope', protocolMapper: m.protocolMapper });
    for (const m of c.protocolMappers) out.push({ mapperId: m.id, mapperName: m.name, containerId: c.id, containerName: c.clientId, containerType: 'client', protocolMapper: m.protocolMapper });
    return ok(out);
  });
  r.realm('GET', `${P}/evaluate-scopes/scope-mappings/:container/:kind`, (ctx) => {
    view(ctx);
    const c = locate(ctx);
    const kind = ctx.param('kind');
    if (kind !== 'granted' && kind !== 'not-granted') throw ERR.routeNotFound();
    const containerParam = ctx.param('container');
    const cid = containerParam === ctx.realm.realm || containerParam === ctx.realm.id ? '' : repo.clientInRealm(store, ctx.realm.id, containerParam)?.id;
    if (cid === undefined) throw ERR.notFound('No realm or client with given id');
    const { scopes } = evalScopes(ctx);
    let granted: Set<string>;
    if (c.fullScopeAllowed) granted = new Set(repo.listRoles(store, ctx.realm.id, cid).map((x) => x.id));
    else {
      const ids = [...repo.pairs(store, 'scopeMappings', c.id), ...scopes.flatMap((s) => repo.pairs(store, 'scopeMappings', s.id))];
      granted = repo.expandRoles(store, ids);
    }
    const roles = repo.listRoles(store, ctx.realm.id, cid).filter((x) => granted.has(x.id) === (kind === 'granted'));
    return ok(roles.map(roleConv.toBriefRepresentation));
  });
  const example = (which: 'access' | 'id' | 'userinfo') => async (ctx: AdminContext) => {
    view(ctx);
    const c = locate(ctx);
    const userId = ctx.query('userId');
    const user = userId ? repo.userInRealm(store, ctx.realm.id, userId) : undefined;
    if (!user) throw ERR.notFound('No user found');
    const scopes = resolveScopes(store, c, `${which === 'id' ? 'openid ' : ''}${ctx.query('scope') ?? ''}`);
    const roles = rolesInScope(store, c, scopes.scopes, user);
    const fakeSession = { id: 'example', realmId: ctx.realm.id, userId: user.id, username: user.username, ipAddress: '', start: Date.now(), lastAccess: Date.now(), clients: new Map([[c.id, c.clientId]]), offline: false, rememberMe: false };
    const input = { realm: ctx.realm, client: c, user, session: fakeSession, roles, clientIdOf: (id: string) => store.get<ClientEntity>('clients', id)?.clientId };
    if (which === 'userinfo') return ok(userinfoClaims(input, scopes.scopes));
    const tokens = await issueTokens(store, { ...input, issuer: `${ctx.req.baseUrl}/realms/${ctx.realm.realm}`, scopes, refresh: false });
    return ok(decodeJwt(which === 'access' ? tokens.access_token : tokens.id_token!));
  };
  r.realm('GET', `${P}/evaluate-scopes/generate-example-access-token`, example('access'));
  r.realm('GET', `${P}/evaluate-scopes/generate-example-id-token`, example('id'));
  r.realm('GET', `${P}/evaluate-scopes/generate-example-userinfo`, example('userinfo'));

  registerProtocolMappers(r, P, {
    locate,
    table: 'clients',
    eventPath: (_ctx, owner) => `clients/${owner.id}`,
    requireView: view,
    requireManage: manage,
  });
  registerScopeMappings(r, P, {
    locate: (ctx) => locate(ctx).id,
    eventPath: (_ctx, id) => `clients/${id}`,
    requireView: view,
    requireManage: manage,
  });
  void mapperToRepresentation;
  void scopeNamesOf;
  void ({} as RoleEntity);
}
