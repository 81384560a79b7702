// /admin/realms/{realm}/users: create, list/search, count (UsersResource).
import { ERR } from '../errors.js';
import * as userConv from '../model/user.js';
import { UserRepresentation } from '../model/schemas.js';
import { checkPasswordPolicy, parsePasswordPolicy } from '../oidc/password.js';
import { newUser } from '../managers.js';
import type { RealmEntity, StoredCredential, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { IdentityStore } from '../store/store.js';
import type { IdentityService } from '../service.js';
import { current, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { UPConfig, applyProfile, checkConfig, profileMetadata, profileOf } from '../model/user-profile.js';

function like(value: string | undefined, pattern: string, exact: boolean): boolean {
  if (value === undefined) return false;
  const v = value.toLowerCase();
  const p = pattern.toLowerCase();
  if (exact) return v === p;
  if (p.includes('*')) {
    const re = new RegExp('^' + p.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    return re.test(v);
  }
  return v.includes(p);
}

/** The users matching the query parameters Keycloak's user search takes, in username order. */
export function searchUsers(ctx: AdminContext, store: IdentityStore): UserEntity[] {
  const q = (n: string) => ctx.query(n);
  const exact = ctx.queryBool('exact', false);
  const search = q('search')?.trim();
  const filters: Array<(u: UserEntity) => boolean> = [];
  let candidates: UserEntity[] | undefined;
  const username = q('username');
  const email = q('email');
  if (username !== undefined && exact) {
    const u = repo.userByUsername(store, ctx.realm.id, username);
    candidates = u ? [u] : [];
  } else if (email !== undefined && exact) {
    candidates = repo.usersByEmail(store, ctx.realm.id, email);
  }
  if (search) {
    if (search.startsWith('id:')) {
      const u = repo.userInRealm(store, ctx.realm.id, search.slice(3).trim());
      candidates = u ? [u] : [];
    } else {
      const quoted = /^".*"$/.test(search);
      const term = quoted ? search.slice(1, -1) : search;
      const ex = quoted || exact;
      filters.push((u) => like(u.username, term, ex) || like(u.email, term, ex) || like(u.firstName, term, ex) || like(u.lastName, term, ex));
    }
  }
  for (const f of ['username', 'email', 'firstName', 'lastName'] as const) {
    const v = q(f);
    if (v !== undefined && v !== '') filters.push((u) => like(u[f], v, exact));
  }
  const enabled = q('enabled');
  if (enabled !== undefined && enabled !== '') filters.push((u) => u.enabled === (enabled === 'true'));
  const ev = q('emailVerified');
  if (ev !== undefined && ev !== '') filters.push((u) => u.emailVerified === (ev === 'true'));
  const idp = q('idpAlias');
  if (idp) {
    const idpUser = q('idpUserId');
    filters.push((u) => u.federatedIdentities.some((f) => f.identityProvider === idp && (!idpUser || f.userId === idpUser)));
  }
  const qq = q('q');
  if (qq) {
    for (const part of qq.split(/\s+/).filter(Boolean)) {
      const i = part.indexOf(':');
      const k = i < 0 ? part : part.slice(0, i);
      const v = i < 0 ? '' : part.slice(i + 1);
      filters.push((u) => (u.attributes[k] ?? []).some((x) => (exact ? x === v : x.toLowerCase().includes(v.toLowerCase()))));
    }
  }
  const list =
    candidates ??
    store
      .range('userByUsername', [ctx.realm.id])
      .map((e) => store.get<UserEntity>('users', e.value as string))
      .filter((u): u is UserEntity => !!u);
  const includeServiceAccounts = candidates !== undefined;
  return list.filter((u) => (includeServiceAccounts || !u.serviceAccountClientId) && filters.every((f) => f(u)));
}

export function userAccess(ctx: AdminContext): Record<string, boolean> {
  const manage = ctx.auth.users.canManage();
  return { manageGroupMembership: manage, view: ctx.auth.users.canView(), mapRoles: manage, impersonate: ctx.auth.has('impersonation'), manage };
}

export async function credentialsFor(svc: IdentityService, realm: RealmEntity, rep: UserRepresentation, username: string): Promise<StoredCredential[]> {
  const out: StoredCredential[] = [];
  const policy = parsePasswordPolicy(realm.passwordPolicy);
  for (const c of rep.credentials ?? []) {
    if ((c.type ?? 'password') !== 'password' || c.value == null) continue;
    checkPasswordPolicy(policy, c.value, { username, email: rep.email ?? undefined });
    const cred = await svc.hashForRealm(realm, c.value);
    if (c.temporary) cred.temporary = true;
    if (c.userLabel != null) cred.userLabel = c.userLabel;
    out.push(cred);
  }
  return out;
}

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;

  r.realm('POST', '/users', async (ctx) => {
    ctx.auth.users.requireManage();
    const rep = ctx.body(UserRepresentation);
    const username = (rep.username ?? '').trim();
    if (!username) throw ERR.badRequest('error-user-attribute-required');
    // Fail fast on conflicts before paying for password hashing (checked again in the write).
    if (repo.userByUsername(store, ctx.realm.id, username)) throw ERR.conflict('User exists with same username');
    const creds = await credentialsFor(svc, ctx.realm, rep, username);
    const user = await ctx.write((tx, ev) => {
      const realm = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      const made = newUser(tx, realm, { ...rep, id: null }, creds, { keepId: false });
      const u = { ...made, attributes: applyProfile(realm, made, {}) };
      if (creds.some((c) => c.temporary) && !u.requiredActions.includes('UPDATE_PASSWORD')) u.requiredActions = [...u.requiredActions, 'UPDATE_PASSWORD'];
      tx.put('users', u.id, u);
      ev.create('USER', `users/${u.id}`, userConv.stripSecrets(rep));
      return u;
    });
    return ctx.created(user.id);
  });

  r.realm('GET', '/users', (ctx) => {
    ctx.auth.users.requireQuery();
    const brief = ctx.queryBool('briefRepresentation', false);
    const users = page(searchUsers(ctx, store), ctx.queryInt('first', 0), ctx.queryInt('max', 100));
    const access = userAccess(ctx);
    return ok(users.map((u) => (brief ? userConv.toBriefRepresentation(u) : { ...userConv.toRepresentation(u), access })));
  });

  r.realm('GET', '/users/count', (ctx) => {
    ctx.auth.users.requireQuery();
    return ok(searchUsers(ctx, store).length);
  });

  // ── user profile (UPConfig) ──
  r.realm('GET', '/users/profile', (ctx) => {
    ctx.auth.realm.requireView();
    return ok(profileOf(ctx.realm));
  });
  r.realm('GET', '/users/profile/metadata', (ctx) => {
    ctx.auth.users.requireView();
    return ok(profileMetadata(ctx.realm));
  });
  r.realm('PUT', '/users/profile', async (ctx) => {
    ctx.auth.realm.requireManage();
    const cfg = ctx.body(UPConfig);
    checkConfig(cfg);
    const stored = Object.fromEntries(Object.entries(cfg).filter(([, v]) => v != null)) as UPConfig;
    await ctx.updateRealm((cur, ev) => {
      ev.update('USER_PROFILE', ctx.here(), stored);
      return { next: { ...cur, _userProfile: stored } };
    });
    return ok(stored);
  });
}

export const USER_PROFILE_METADATA = () => ({
  attributes: ['username', 'email', 'firstName', 'lastName'].map((name) => ({ name, displayName: `\${${name}}`, required: name === 'username', readOnly: false, validators: {}, multivalued: false })),
  groups: [{ name: 'user-metadata', displayHeader: 'User metadata', displayDescription: 'Attributes, which refer to user metadata' }],
});
