// /admin/realms: list and create (RealmsAdminResource).
import { ERR } from '../errors.js';
import * as realmConv from '../model/realm.js';
import * as roleConv from '../model/role.js';
import { RealmRepresentation, type UserRepresentation } from '../model/schemas.js';
import { randomUUID } from 'node:crypto';
import { checkPasswordPolicy, hashPassword, parsePasswordPolicy } from '../oidc/password.js';
import { generateRealmKeys } from '../oidc/keys.js';
import { createRealm } from '../managers.js';
import type { RealmEntity, RoleEntity, StoredCredential } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { IdentityService } from '../service.js';
import { RealmAuth, canCreateRealm, callerRealmRoles } from './permissions.js';
import { ok, type AdminRoutes } from './context.js';

export function realmRepresentation(svc: IdentityService, r: RealmEntity): Record<string, unknown> {
  const dr = svc.store.get<RoleEntity>('roles', r._defaultRoleId);
  return realmConv.toRepresentation(r, dr ? roleConv.toBriefRepresentation(dr) : undefined);
}

/** Hashes the passwords of users in an imported representation before the write opens. */
export async function hashImportedUsers(_svc: IdentityService, policyText: unknown, users: UserRepresentation[] | null | undefined): Promise<StoredCredential[][]> {
  const policy = parsePasswordPolicy(policyText);
  return Promise.all(
    (users ?? []).map(async (u) => {
      const out: StoredCredential[] = [];
      for (const c of u.credentials ?? []) {
        if ((c.type ?? 'password') !== 'password') continue;
        if (c.value != null) {
          const cred = await hashPassword(c.value, policy);
          if (c.temporary) cred.temporary = true;
          out.push(cred);
        } else if (c.secretData && c.credentialData) {
          out.push({ id: c.id ?? randomUUID(), type: 'password', createdDate: c.createdDate ?? Date.now(), secretData: c.secretData, credentialData: c.credentialData, priority: c.priority ?? 10 });
        }
      }
      return out;
    }),
  );
}

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  r.root('GET', '/admin/realms', (ctx) => {
    const brief = ctx.queryBool('briefRepresentation', false);
    const out: unknown[] = [];
    for (const realm of repo.listRealms(svc.store).sort((a, b) => (a.realm === 'master' ? -1 : b.realm === 'master' ? 1 : a.realm.localeCompare(b.realm)))) {
      const auth = new RealmAuth(svc.store, ctx.caller, realm);
      if (!brief && auth.realm.canView()) out.push(realmRepresentation(svc, realm));
      else if (auth.isAdmin()) out.push(brief ? realmConv.toBriefRepresentation(realm) : { id: realm.id, realm: realm.realm, ...(realm.displayName ? { displayName: realm.displayName } : {}) });
    }
    if (out.length === 0) throw ERR.forbidden();
    return ok(out);
  });

  r.root('POST', '/admin/realms', async (ctx) => {
    if (!canCreateRealm(svc.store, ctx.caller)) throw ERR.forbidden();
    const rep = ctx.body(RealmRepresentation);
    if (!rep.realm || !String(rep.realm).trim()) throw ERR.badRequest('Realm name cannot be empty');
    if (svc.realm(String(rep.realm))) throw ERR.conflict('Conflict detected. See logs for details');
    const policy = parsePasswordPolicy(rep.passwordPolicy);
    for (const u of rep.users ?? []) for (const c of u.credentials ?? []) if (c.value != null) checkPasswordPolicy(policy, c.value, { username: u.username ?? '', email: u.email ?? undefined });
    const creds = await hashImportedUsers(svc, rep.passwordPolicy, rep.users);
    const [keys, encKeys] = await Promise.all([generateRealmKeys(String(rep.realm)), generateRealmKeys(String(rep.realm))]);
    const isAdmin = callerRealmRoles(svc.store, ctx.caller.user).has('admin');
    const realm = await svc.store.write(
      { realmId: ctx.caller.realm.id, clientId: ctx.caller.client?.id ?? '', userId: ctx.caller.user.id, ipAddress: ctx.req.remoteAddress },
      (tx) => createRealm(tx, { rep, keys, encKeys, userCredentials: creds, creator: { userId: ctx.caller.user.id, isAdmin } }),
    );
    return { status: 201, headers: { Location: `${ctx.req.baseUrl}/admin/realms/${encodeURIComponent(realm.realm)}` } };
  });
}
