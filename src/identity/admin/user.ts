// /admin/realms/{realm}/users/{id}: get, update, delete and the user's sub-resources (UserResource).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';
import { sendOrFail, type SmtpSettings } from '../email.js';
import { sign } from '../oidc/tokens.js';
import * as userConv from '../model/user.js';
import * as groupConv from '../model/group.js';
import { CredentialRepresentation, FederatedIdentityRepresentation, UserRepresentation } from '../model/schemas.js';
import { checkPasswordPolicy, parsePasswordPolicy } from '../oidc/password.js';
import { checkUserUnique, deleteUser } from '../managers.js';
import type { ClientEntity, GroupEntity, RealmEntity, StoredCredential, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { current, noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { groupRep } from './groups.js';
import { registerRoleMapper } from './role-mapper.js';
import { userAccess } from './users.js';
import { applyProfile, profileMetadata } from '../model/user-profile.js';
import { userOfPath } from './locate.js';

export function sessionRep(s: { id: string; username: string; userId: string; ipAddress: string; start: number; lastAccess: number; rememberMe: boolean; clients: Map<string, string> }) {
  return { id: s.id, username: s.username, userId: s.userId, ipAddress: s.ipAddress, start: s.start, lastAccess: s.lastAccess, rememberMe: s.rememberMe, clients: Object.fromEntries(s.clients), transientUser: false };
}

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;
  const locate = (ctx: AdminContext): UserEntity => userOfPath(store, ctx);
  const P = '/users/:userId';

  r.realm('GET', P, (ctx) => {
    ctx.auth.users.requireView();
    const u = locate(ctx);
    const rep: Record<string, unknown> = { ...userConv.toRepresentation(u), access: userAccess(ctx) };
    if (ctx.queryBool('userProfileMetadata', false)) rep.userProfileMetadata = profileMetadata(ctx.realm);
    return ok(rep);
  });

  r.realm('PUT', P, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    const rep = ctx.body(UserRepresentation);
    if (rep.username != null && rep.username.toLowerCase() !== u.username && ctx.realm.editUsernameAllowed === false && !ctx.realm.registrationEmailAsUsername) {
      // Keycloak lets admins rename users; only the read-only username of federated users is refused.
    }
    const creds: StoredCredential[] = [];
    const policy = parsePasswordPolicy(ctx.realm.passwordPolicy);
    for (const c of rep.credentials ?? []) {
      if ((c.type ?? 'password') === 'password' && c.value != null) {
        checkPasswordPolicy(policy, c.value, { username: rep.username ?? u.username, email: rep.email ?? u.email });
        const cred = await svc.hashForRealm(ctx.realm, c.value);
        if (c.temporary) cred.temporary = true;
        creds.push(cred);
      }
    }
    await ctx.write((tx, ev) => {
      const cur = tx.get<UserEntity>('users', u.id);
      if (!cur) throw ERR.userNotFound();
      const next = userConv.applyRepresentation(cur, rep);
      if (!next.username) throw errorMessage(400, 'error-user-attribute-required', { field: 'username' });
      next.attributes = applyProfile(current<RealmEntity>(tx, 'realms', ctx.realm.id), next, cur.attributes);
      checkUserUnique(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), next);
      if (creds.length) {
        next.credentials = [...next.credentials.filter((c) => c.type !== 'password'), ...creds];
        if (creds.some((c) => c.temporary) && !next.requiredActions.includes('UPDATE_PASSWORD')) next.requiredActions = [...next.requiredActions, 'UPDATE_PASSWORD'];
      }
      tx.put('users', u.id, next);
      ev.update('USER', `users/${u.id}`, userConv.stripSecrets(rep));
    });
    if (rep.enabled === false) svc.sessions.removeWhere((s) => s.userId === u.id);
    return noContent();
  });

  r.realm('DELETE', P, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    await ctx.write((tx, ev) => {
      const cur = tx.get<UserEntity>('users', u.id);
      if (!cur) throw ERR.userNotFound();
      deleteUser(tx, cur);
      ev.delete('USER', `users/${u.id}`);
    });
    svc.sessions.removeWhere((s) => s.userId === u.id);
    return noContent();
  });

  // ── credentials ──
  r.realm('PUT', `${P}/reset-password`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    const rep = ctx.body(CredentialRepresentation);
    if (rep.value == null || rep.value === '') throw errorMessage(400, 'Empty password');
    if (rep.type != null && rep.type !== 'password') throw errorMessage(400, 'Unsupported credential type');
    checkPasswordPolicy(parsePasswordPolicy(ctx.realm.passwordPolicy), rep.value, { username: u.username, email: u.email });
    const cred = await svc.hashForRealm(ctx.realm, rep.value);
    const temporary = rep.temporary ?? true;
    if (temporary) cred.temporary = true;
    await ctx.write((tx, ev) => {
      const cur = current<UserEntity>(tx, 'users', u.id);
      const old = cur.credentials.find((c) => c.type === 'password');
      if (old) {
        cred.id = old.id;
        if (old.userLabel !== undefined) cred.userLabel = old.userLabel;
      }
      const requiredActions = temporary ? [...new Set([...cur.requiredActions, 'UPDATE_PASSWORD'])] : cur.requiredActions.filter((a) => a !== 'UPDATE_PASSWORD');
      tx.put('users', u.id, { ...cur, credentials: [...cur.credentials.filter((c) => c.type !== 'password'), cred], requiredActions });
      ev.action('USER', `users/${u.id}/reset-password`, userConv.stripSecrets(rep));
    });
    return noContent();
  });

  r.realm('GET', `${P}/credentials`, (ctx) => {
    ctx.auth.users.requireView();
    const u = locate(ctx);
    return ok([...u.credentials].sort((a, b) => a.priority - b.priority).map(userConv.credentialToRepresentation));
  });
  r.realm('GET', `${P}/configured-user-storage-credential-types`, (ctx) => {
    ctx.auth.users.requireView();
    locate(ctx);
    return ok([]);
  });
  const credAction = (method: string, path: string, fn: (u: UserEntity, ctx: AdminContext) => UserEntity, op: 'delete' | 'action') =>
    r.realm(method, `${P}/credentials/:credId${path}`, async (ctx) => {
      ctx.auth.users.requireManage();
      const u = locate(ctx);
      if (!u.credentials.some((c) => c.id === ctx.param('credId'))) throw ERR.notFound('Credential not found');
      await ctx.write((tx, ev) => {
        const cur = current<UserEntity>(tx, 'users', u.id);
        tx.put('users', u.id, fn(cur, ctx));
        ev[op]('USER', `users/${u.id}/credentials/${ctx.param('credId')}${path}`);
      });
      return noContent();
    });
  credAction('DELETE', '', (u, ctx) => ({ ...u, credentials: u.credentials.filter((c) => c.id !== ctx.param('credId')) }), 'delete');
  credAction('PUT', '/userLabel', (u, ctx) => {
    const label = ctx.req.body.toString('utf8').trim();
    return { ...u, credentials: u.credentials.map((c) => (c.id === ctx.param('credId') ? { ...c, userLabel: label } : c)) };
  }, 'action');
  const reorder = (u: UserEntity, id: string, afterId: string | null): UserEntity => {
    const list = [...u.credentials].sort((a, b) => a.priority - b.priority);
    const moving = list.find((c) => c.id === id)!;
    const rest = list.filter((c) => c.id !== id);
    const idx = afterId === null ? 0 : rest.findIndex((c) => c.id === afterId) + 1;
    if (afterId !== null && idx === 0) throw ERR.notFound('Credential not found');
    rest.splice(idx, 0, moving);
    return { ...u, credentials: rest.map((c, i) => ({ ...c, priority: (i + 1) * 10 })) };
  };
  credAction('POST', '/moveToFirst', (u, ctx) => reorder(u, ctx.param('credId'), null), 'action');
  credAction('POST', '/moveAfter/:after', (u, ctx) => reorder(u, ctx.param('credId'), ctx.param('after')), 'action');

  r.realm('PUT', `${P}/remove-totp`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    await ctx.write((tx, ev) => {
      const cur = current<UserEntity>(tx, 'users', u.id);
      tx.put('users', u.id, { ...cur, credentials: cur.credentials.filter((c) => c.type !== 'otp') });
      ev.action('USER', `users/${u.id}/remove-totp`);
    });
    return noContent();
  });

  // ── groups ──
  const userGroups = (ctx: AdminContext, u: UserEntity): GroupEntity[] => {
    const search = ctx.query('search')?.toLowerCase();
    return repo
      .userGroupIds(store, u.id)
      .map((id) => store.get<GroupEntity>('groups', id))
      .filter((g): g is GroupEntity => !!g && (!search || g.name.toLowerCase().includes(search)))
      .sort((a, b) => (a.name < b.name ? -1 : 1));
  };
  r.realm('GET', `${P}/groups`, (ctx) => {
    ctx.auth.users.requireView();
    const u = locate(ctx);
    const brief = ctx.queryBool('briefRepresentation', true);
    return ok(page(userGroups(ctx, u), ctx.queryInt('first', 0), ctx.queryInt('max', 100)).map((g) => {
      const rep: groupConv.GroupRep = groupRep(store, g, brief);
      return rep;
    }));
  });
  r.realm('GET', `${P}/groups/count`, (ctx) => {
    ctx.auth.users.requireView();
    return ok({ count: userGroups(ctx, locate(ctx)).length });
  });
  r.realm('PUT', `${P}/groups/:groupId`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    const g = repo.groupInRealm(store, ctx.realm.id, ctx.param('groupId'));
    if (!g) throw ERR.notFound('Group not found');
    await ctx.write((tx, ev) => {
      if (tx.get('userGroups', [u.id, g.id]) !== undefined) return;
      tx.put('userGroups', [u.id, g.id], 1);
      ev.create('GROUP_MEMBERSHIP', `users/${u.id}/groups/${g.id}`, groupRep(tx, g, true));
    });
    return noContent();
  });
  r.realm('DELETE', `${P}/groups/:groupId`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    const g = repo.groupInRealm(store, ctx.realm.id, ctx.param('groupId'));
    if (!g) throw ERR.notFound('Group not found');
    await ctx.write((tx, ev) => {
      if (tx.get('userGroups', [u.id, g.id]) === undefined) return;
      tx.del('userGroups', [u.id, g.id]);
      ev.delete('GROUP_MEMBERSHIP', `users/${u.id}/groups/${g.id}`, groupRep(tx, g, true));
    });
    return noContent();
  });

  // ── sessions, consents, federated identities, misc ──
  r.realm('GET', `${P}/sessions`, (ctx) => {
    ctx.auth.users.requireView();
    const u = locate(ctx);
    return ok(svc.sessions.list((s) => s.userId === u.id && !s.offline).map(sessionRep));
  });
  r.realm('GET', `${P}/offline-sessions/:clientUuid`, (ctx) => {
    ctx.auth.users.requireView();
    const u = locate(ctx);
    const c = repo.clientInRealm(store, ctx.realm.id, ctx.param('clientUuid'));
    if (!c) throw ERR.clientNotFound();
    return ok(svc.sessions.list((s) => s.userId === u.id && s.offline && s.clients.has(c.id)).map(sessionRep));
  });
  r.realm('POST', `${P}/logout`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    svc.sessions.removeWhere((s) => s.userId === u.id);
    await ctx.write((tx, ev) => {
      const cur = current<UserEntity>(tx, 'users', u.id);
      tx.put('users', u.id, { ...cur, notBefore: Math.floor(Date.now() / 1000) });
      ev.action('USER', `users/${u.id}/logout`);
    });
    return noContent();
  });
  r.realm('GET', `${P}/consents`, (ctx) => {
    ctx.auth.users.requireView();
    locate(ctx);
    return ok([]);
  });
  r.realm('DELETE', `${P}/consents/:client`, (ctx) => {
    ctx.auth.users.requireManage();
    locate(ctx);
    throw ERR.notFound('Consent nor offline token not found');
  });
  // Impersonation (Keycloak ImpersonationService): a new session for the user, started on the
  // caller's behalf; the answer says where the user's account console is.
  r.realm('POST', `${P}/impersonation`, async (ctx) => {
    if (!ctx.auth.has('impersonation')) throw ERR.forbidden();
    const u = locate(ctx);
    if (u.serviceAccountClientId) throw errorMessage(400, 'Service accounts cannot be impersonated');
    const account = repo.clientByClientId(store, ctx.realm.id, 'account-console') ?? repo.clientByClientId(store, ctx.realm.id, 'account');
    const session = svc.sessions.create(ctx.realm.id, u.id, u.username, ctx.req.remoteAddress, account ?? { id: '', clientId: '' });
    session.notes = { IMPERSONATOR_ID: ctx.caller.user.id, IMPERSONATOR_USERNAME: ctx.caller.user.username };
    svc.userEvent(ctx.realm, { type: 'IMPERSONATE', userId: u.id, sessionId: session.id, ipAddress: ctx.req.remoteAddress, details: { impersonator_realm: ctx.caller.realm.realm, impersonator: ctx.caller.user.username } });
    await ctx.write((_tx, ev) => ev.action('USER', ctx.here(), { sessionId: session.id }));
    return ok({ sameRealm: ctx.caller.realm.id === ctx.realm.id, redirect: `${ctx.req.baseUrl}/realms/${encodeURIComponent(ctx.realm.realm)}/account`, sessionId: session.id });
  });
  r.realm('GET', `${P}/federated-identity`, (ctx) => {
    ctx.auth.users.requireView();
    return ok(locate(ctx).federatedIdentities);
  });
  r.realm('POST', `${P}/federated-identity/:provider`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    const provider = ctx.param('provider');
    const rep = ctx.body(FederatedIdentityRepresentation);
    if (u.federatedIdentities.some((f) => f.identityProvider === provider)) throw ERR.conflict('User is already linked with provider');
    await ctx.write((tx, ev) => {
      const cur = current<UserEntity>(tx, 'users', u.id);
      tx.put('users', u.id, { ...cur, federatedIdentities: [...cur.federatedIdentities, { identityProvider: provider, userId: rep.userId ?? '', userName: rep.userName ?? '' }] });
      ev.create('USER', `users/${u.id}/federated-identity/${provider}`, rep);
    });
    return noContent();
  });
  r.realm('DELETE', `${P}/federated-identity/:provider`, async (ctx) => {
    ctx.auth.users.requireManage();
    const u = locate(ctx);
    const provider = ctx.param('provider');
    if (!u.federatedIdentities.some((f) => f.identityProvider === provider)) throw ERR.notFound('Link not found');
    await ctx.write((tx, ev) => {
      const cur = current<UserEntity>(tx, 'users', u.id);
      tx.put('users', u.id, { ...cur, federatedIdentities: cur.federatedIdentities.filter((f) => f.identityProvider !== provider) });
      ev.delete('USER', `users/${u.id}/federated-identity/${provider}`);
    });
    return noContent();
  });
  r.realm('GET', `${P}/unmanagedAttributes`, (ctx) => {
    ctx.auth.users.requireView();
    return ok(locate(ctx).attributes);
  });

  // E-mails: sent through the realm's SMTP settings (nodemailer); the admin event is written once sent.
  const ActionList = z.array(z.string());
  const email = (path: string, what: string, actionsOf: (ctx: AdminContext) => string[]) =>
    r.realm('PUT', `${P}/${path}`, async (ctx) => {
      ctx.auth.users.requireManage();
      const u = locate(ctx);
      const actions = actionsOf(ctx);
      if (!u.enabled) throw errorMessage(400, 'User is disabled');
      if (!u.email) throw errorMessage(400, 'User email missing');
      const clientId = ctx.query('client_id');
      const redirectUri = ctx.query('redirect_uri');
      if (redirectUri && !clientId) throw errorMessage(400, 'Client id missing');
      const client = clientId ? repo.clientByClientId(store, ctx.realm.id, clientId) : undefined;
      if (clientId && !client) throw errorMessage(400, "Client doesn't exist");
      if (client && !client.enabled) throw errorMessage(400, 'Client is not enabled');
      if (redirectUri && client && !redirectAllowed(client, redirectUri)) throw errorMessage(400, 'Invalid redirect uri.');
      const known = new Set(ctx.realm._requiredActions.filter((a) => a.enabled).map((a) => a.alias));
      if (actions.some((a) => !known.has(a))) throw errorMessage(400, 'Provided invalid required actions');
      const lifespan = ctx.queryInt('lifespan', path === 'send-verify-email' ? 43200 : Number(ctx.realm.actionTokenGeneratedByAdminLifespan ?? 43200));
      const now = Math.floor(Date.now() / 1000);
      const key = await sign(store, ctx.realm, {
        exp: now + lifespan, iat: now, jti: randomUUID(), iss: `${ctx.req.baseUrl}/realms/${ctx.realm.realm}`, aud: `${ctx.req.baseUrl}/realms/${ctx.realm.realm}`,
        sub: u.id, typ: path === 'send-verify-email' ? 'verify-email' : 'execute-actions', azp: clientId ?? 'account', rqac: actions, ...(redirectUri ? { reduri: redirectUri } : {}), eml: u.email,
      });
      const link = `${ctx.req.baseUrl}/realms/${encodeURIComponent(ctx.realm.realm)}/login-actions/action-token?key=${key}&client_id=${encodeURIComponent(clientId ?? 'account')}`;
      const realmName = String(ctx.realm.displayName ?? ctx.realm.realm);
      const text = path === 'send-verify-email'
        ? `Someone has created a ${realmName} account with this email address. If this was you, click the link below to verify your email address\n\n${link}\n\nThis link will expire within ${Math.round(lifespan / 60)} minutes.`
        : `Your administrator has just requested that you update your ${realmName} account by performing the following action(s): ${actions.join(', ')}. Click on the link below to start this process.\n\n${link}\n\nThis link will expire within ${Math.round(lifespan / 60)} minutes.`;
      await sendOrFail(ctx.realm.smtpServer as SmtpSettings | undefined, { to: u.email, subject: path === 'send-verify-email' ? 'Verify email' : 'Update Your Account', text }, what);
      await ctx.write((_tx, ev) => ev.action('USER', ctx.here(), path === 'send-verify-email' ? undefined : actions));
      return noContent();
    });
  email('execute-actions-email', 'execute actions', (ctx) => (ctx.req.body.length ? ctx.body(ActionList) : []));
  email('send-verify-email', 'verify', () => ['VERIFY_EMAIL']);
  email('reset-password-email', 'execute actions', () => ['UPDATE_PASSWORD']);

  registerRoleMapper(r, P, {
    kind: 'users',
    locate: (ctx) => locate(ctx).id,
    requireView: (ctx) => ctx.auth.users.requireView(),
    requireManage: (ctx) => ctx.auth.users.requireManage(),
  });
  void ({} as ClientEntity);
}

/** Whether a redirect URI matches one of the client's (exact, or a trailing `*` wildcard; relative ones against rootUrl). */
export function redirectAllowed(c: ClientEntity, uri: string): boolean {
  return c.redirectUris.some((p) => {
    const full = p.startsWith('/') ? `${c.rootUrl ?? ''}${p}` : p;
    if (full === '*' || full === '+') return true;
    return full.endsWith('*') ? uri.startsWith(full.slice(0, -1)) : uri === full;
  });
}
