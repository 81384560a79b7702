// /admin/realms/{realm}: get, update (top level only), delete, and the realm-level sub-resources
// (default client scopes, default groups, group-by-path, keys, sessions, partial export/import).
import { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';
import { mergeSmtp, sendMail } from '../email.js';
import * as realmConv from '../model/realm.js';
import * as userConv from '../model/user.js';
import * as clientConv from '../model/client.js';
import * as groupConv from '../model/group.js';
import * as roleConv from '../model/role.js';
import * as scopeConv from '../model/client-scope.js';
import { PartialImportRepresentation, RealmRepresentation } from '../model/schemas.js';
import { deleteRealm, newClient, newRole, newUser, deleteUser, deleteClient, deleteRole, importGroup, deleteGroup, MASTER } from '../managers.js';
import type { ClientScopeEntity, GroupEntity, RealmEntity, RoleEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { publicJwks } from '../oidc/keys.js';
import { hashImportedUsers, realmRepresentation } from './realms.js';
import { current, noContent, ok, type AdminRoutes } from './context.js';
import { groupRep } from './groups.js';

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;

  r.realm('GET', '', (ctx) => {
    if (ctx.auth.realm.canView()) return ok(realmRepresentation(svc, ctx.realm));
    if (ctx.auth.isAdmin()) return ok({ id: ctx.realm.id, realm: ctx.realm.realm, ...(ctx.realm.displayName ? { displayName: ctx.realm.displayName } : {}) });
    throw ERR.forbidden();
  });

  r.realm('PUT', '', async (ctx) => {
    ctx.auth.realm.requireManage();
    const rep = ctx.body(RealmRepresentation);
    if (rep.realm != null && rep.realm !== ctx.realm.realm) {
      if (ctx.realm.realm === MASTER) throw ERR.badRequest('Cannot rename master realm');
      if (svc.realm(rep.realm)) throw ERR.conflict('Realm with same name exists');
    }
    await ctx.write((tx, ev) => {
      const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      const next = realmConv.applyRepresentation(cur, rep);
      tx.put('realms', cur.id, next);
      ev.update('REALM', '', realmConv.stripSecrets(rep, userConv.stripSecrets, clientConv.stripSecrets));
    });
    return noContent();
  });

  r.realm('DELETE', '', async (ctx) => {
    ctx.auth.realm.requireManage();
    if (ctx.realm.realm === MASTER) throw ERR.badRequest('Cannot delete master realm');
    await store.settle();
    await ctx.write((tx) => deleteRealm(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id)));
    for (const s of svc.sessions.list((x) => x.realmId === ctx.realm.id)) svc.sessions.remove(s.id);
    return noContent();
  });

  // ── default client scopes ──
  for (const [path, field, type] of [
    ['/default-default-client-scopes', '_defaultDefaultClientScopes', 'REALM_DEFAULT_CLIENT_SCOPE'],
    ['/default-optional-client-scopes', '_defaultOptionalClientScopes', 'REALM_OPTIONAL_CLIENT_SCOPE'],
  ] as const) {
    r.realm('GET', path, (ctx) => {
      ctx.auth.clientScopes.requireView();
      return ok(ctx.realm[field].map((id) => store.get<ClientScopeEntity>('clientScopes', id)).filter((s): s is ClientScopeEntity => !!s).map(scopeConv.toBriefRepresentation));
    });
    r.realm('PUT', `${path}/:scopeId`, async (ctx) => {
      ctx.auth.realm.requireManage();
      const scope = store.get<ClientScopeEntity>('clientScopes', ctx.param('scopeId'));
      if (!scope || scope.realmId !== ctx.realm.id) throw ERR.clientScopeNotFound();
      await ctx.write((tx, ev) => {
        const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
        const other = field === '_defaultDefaultClientScopes' ? '_defaultOptionalClientScopes' : '_defaultDefaultClientScopes';
        tx.put('realms', cur.id, { ...cur, [other]: cur[other].filter((i) => i !== scope.id), [field]: [...cur[field].filter((i) => i !== scope.id), scope.id] });
        ev.create(type, `${path.slice(1)}/${scope.id}`, scopeConv.toBriefRepresentation(scope));
      });
      return noContent();
    });
    r.realm('DELETE', `${path}/:scopeId`, async (ctx) => {
      ctx.auth.realm.requireManage();
      const id = ctx.param('scopeId');
      if (!ctx.realm[field].includes(id)) throw ERR.clientScopeNotFound();
      await ctx.write((tx, ev) => {
        const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
        tx.put('realms', cur.id, { ...cur, [field]: cur[field].filter((i) => i !== id) });
        ev.delete(type, `${path.slice(1)}/${id}`);
      });
      return noContent();
    });
  }

  // ── default groups ──
  r.realm('GET', '/default-groups', (ctx) => {
    ctx.auth.realm.requireView();
    return ok(ctx.realm._defaultGroups.map((id) => store.get<GroupEntity>('groups', id)).filter((g): g is GroupEntity => !!g).map((g) => groupRep(store, g, true)));
  });
  r.realm('PUT', '/default-groups/:groupId', async (ctx) => {
    ctx.auth.realm.requireManage();
    const g = repo.groupInRealm(store, ctx.realm.id, ctx.param('groupId'));
    if (!g) throw ERR.notFound('Group not found.');
    await ctx.write((tx, ev) => {
      const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      tx.put('realms', cur.id, { ...cur, _defaultGroups: [...cur._defaultGroups.filter((i) => i !== g.id), g.id] });
      ev.create('GROUP', `default-groups/${g.id}`, groupRep(store, g, true));
    });
    return noContent();
  });
  r.realm('DELETE', '/default-groups/:groupId', async (ctx) => {
    ctx.auth.realm.requireManage();
    const id = ctx.param('groupId');
    if (!ctx.realm._defaultGroups.includes(id)) throw ERR.notFound('Group not found.');
    await ctx.write((tx, ev) => {
      const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      tx.put('realms', cur.id, { ...cur, _defaultGroups: cur._defaultGroups.filter((i) => i !== id) });
      ev.delete('GROUP', `default-groups/${id}`);
    });
    return noContent();
  });

  r.realm('GET', '/group-by-path/*path', (ctx) => {
    ctx.auth.groups.requireView();
    const g = repo.groupByPath(store, ctx.realm.id, ctx.param('path'));
    if (!g) throw ERR.notFound('Group path does not exist');
    return ok(groupRep(store, g, false, true));
  });

  // ── keys, sessions ──
  r.realm('GET', '/keys', (ctx) => {
    ctx.auth.realm.requireView();
    const ring = svc.keyRing(ctx.realm);
    const active: Record<string, string> = {};
    for (const k of ring.keys) if (k.status === 'ACTIVE' && !(k.algorithm in active)) active[k.algorithm] = k.kid;
    if (!active.RS256) active.RS256 = ring.signing.kid;
    return ok({
      active,
      keys: ring.keys.map((k) => ({
        providerId: k.component.id, providerPriority: k.priority, kid: k.kid, status: k.status, type: k.type, algorithm: k.algorithm,
        ...(k.rsa ? { publicKey: k.rsa.publicKeyPem, certificate: k.rsa.certificate } : {}), use: k.use,
      })),
    });
  });
  void publicJwks;

  r.realm('POST', '/logout-all', async (ctx) => {
    ctx.auth.users.requireManage();
    svc.sessions.removeWhere((s) => s.realmId === ctx.realm.id);
    await ctx.write((tx, ev) => {
      const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      tx.put('realms', cur.id, { ...cur, notBefore: Math.floor(Date.now() / 1000) });
      ev.action('REALM', 'logout-all');
    });
    return ok({ successRequests: [], failedRequests: [] });
  });
  r.realm('POST', '/push-revocation', async (ctx) => {
    ctx.auth.realm.requireManage();
    await ctx.write((tx, ev) => {
      const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      tx.put('realms', cur.id, { ...cur });
      ev.action('REALM', 'push-revocation');
    });
    return ok({ successRequests: [], failedRequests: [] });
  });
  r.realm('DELETE', '/sessions/:session', async (ctx) => {
    ctx.auth.users.requireManage();
    const s = svc.sessions.get(ctx.param('session'));
    if (!s || s.realmId !== ctx.realm.id || s.offline !== ctx.queryBool('isOffline', false)) throw ERR.notFound('Sesssion not found');
    svc.sessions.remove(s.id);
    await ctx.write((_tx, ev) => ev.delete('USER_SESSION', ctx.here()));
    return noContent();
  });
  r.realm('GET', '/client-session-stats', (ctx) => {
    ctx.auth.realm.requireView();
    const counts = new Map<string, { id: string; clientId: string; active: number; offline: number }>();
    for (const s of svc.sessions.list((x) => x.realmId === ctx.realm.id)) {
      for (const [id, clientId] of s.clients) {
        const c = counts.get(id) ?? { id, clientId, active: 0, offline: 0 };
        if (s.offline) c.offline++;
        else c.active++;
        counts.set(id, c);
      }
    }
    return ok([...counts.values()].map((c) => ({ id: c.id, clientId: c.clientId, active: String(c.active), offline: String(c.offline) })));
  });
  r.realm('GET', '/users-management-permissions', (ctx) => {
    ctx.auth.realm.requireView();
    return ok({ enabled: false });
  });
  r.realm('PUT', '/users-management-permissions', (ctx) => {
    ctx.auth.realm.requireManage();
    const body = ctx.json() as { enabled?: boolean } | undefined;
    if (body?.enabled) throw ERR.badRequest('Fine-grained admin permissions are not enabled');
    return ok({ enabled: false });
  });
  // Sends a test message with the given settings (a masked password means the realm's) to the
  // logged-in admin's address (RealmAdminResource.testSMTPConnection).
  r.realm('POST', '/testSMTPConnection', async (ctx) => {
    ctx.auth.realm.requireManage();
    const ct = ctx.req.headers['content-type'] ?? '';
    let given: Record<string, string>;
    if (ct.startsWith('application/x-www-form-urlencoded')) {
      const cfg = new URLSearchParams(ctx.req.body.toString('utf8')).get('config');
      given = cfg ? (JSON.parse(cfg) as Record<string, string>) : {};
    } else given = Object.fromEntries(Object.entries(ctx.body(z.record(z.string(), z.unknown()))).filter(([, v]) => v != null).map(([k, v]) => [k, String(v)]));
    const to = ctx.caller.user.email;
    if (!to) throw errorMessage(400, 'Logged in user does not have an e-mail.');
    const settings = mergeSmtp((ctx.realm.smtpServer ?? {}) as Record<string, string>, given);
    try {
      await sendMail(settings, { to, subject: `[KEYCLOAK] - SMTP test message`, text: 'This is a test message' });
    } catch (e) {
      svc.logger.warn({ err: (e as Error).message }, 'identity: SMTP test failed');
      throw errorMessage(500, 'Failed to send email');
    }
    return noContent();
  });

  // Required actions that register credentials (Keycloak's CredentialRegistrator providers), enabled here.
  r.realm('GET', '/credential-registrators', (ctx) => {
    ctx.auth.realm.requireView();
    const registrators = ['CONFIGURE_TOTP', 'UPDATE_PASSWORD', 'webauthn-register', 'webauthn-register-passwordless', 'CONFIGURE_RECOVERY_AUTHN_CODES'];
    return ok(ctx.realm._requiredActions.filter((a) => a.enabled && registrators.includes(a.providerId)).map((a) => a.alias));
  });

  // ── partial export / import ──
  r.realm('POST', '/partial-export', (ctx) => {
    ctx.auth.realm.requireView();
    const exportClients = ctx.queryBool('exportClients', false);
    const exportGroupsAndRoles = ctx.queryBool('exportGroupsAndRoles', false);
    const realm = ctx.realm;
    const rep: Record<string, unknown> = realmConv.stripSecrets(realmRepresentation(svc, realm), userConv.stripSecrets, clientConv.stripSecrets);
    const scopeNames = (ids: string[]) => ids.map((id) => store.get<ClientScopeEntity>('clientScopes', id)?.name).filter((n): n is string => !!n);
    rep.clientScopes = repo.listClientScopes(store, realm.id).map(scopeConv.toRepresentation);
    rep.defaultDefaultClientScopes = scopeNames(realm._defaultDefaultClientScopes);
    rep.defaultOptionalClientScopes = scopeNames(realm._defaultOptionalClientScopes);
    rep.requiredActions = realm._requiredActions;
    if (exportClients) {
      rep.clients = repo.listClients(store, realm.id).map((c) => {
        const out = clientConv.toRepresentation(c, scopeNames);
        if (out.secret !== undefined || (!c.publicClient && !c.bearerOnly)) out.secret = '**********';
        return out;
      });
    }
    if (exportGroupsAndRoles) {
      const roleRep = (role: RoleEntity) => {
        const rr: Record<string, unknown> = { ...roleConv.toRepresentation(role) };
        if (role.composites.length) {
          const realmNames: string[] = [];
          const client: Record<string, string[]> = {};
          for (const id of role.composites) {
            const k = store.get<RoleEntity>('roles', id);
            if (!k) continue;
            if (!k.clientId) realmNames.push(k.name);
            else {
              const cid = store.get<{ clientId: string }>('clients', k.clientId)?.clientId ?? k.clientId;
              (client[cid] ??= []).push(k.name);
            }
          }
          rr.composites = { ...(realmNames.length ? { realm: realmNames } : {}), ...(Object.keys(client).length ? { client } : {}) };
        }
        return rr;
      };
      const clientRoles: Record<string, unknown[]> = {};
      for (const c of repo.listClients(store, realm.id)) clientRoles[c.clientId] = repo.listRoles(store, realm.id, c.id).map(roleRep);
      rep.roles = { realm: repo.listRoles(store, realm.id, '').map(roleRep), client: clientRoles };
      rep.groups = repo.groupChildren(store, realm.id, '').map((g) => groupRep(store, g, false, true));
    }
    return ok(rep);
  });

  r.realm('POST', '/partialImport', async (ctx) => {
    ctx.auth.realm.requireManage();
    const rep = ctx.body(PartialImportRepresentation);
    const policy = rep.ifResourceExists ?? rep.policy ?? 'FAIL';
    const creds = await hashImportedUsers(svc, ctx.realm.passwordPolicy, rep.users);
    const results: Array<{ action: string; resourceType: string; resourceName: string; id: string }> = [];
    const counts = { added: 0, overwritten: 0, skipped: 0 };
    const note = (action: 'ADDED' | 'OVERWRITTEN' | 'SKIPPED', resourceType: string, resourceName: string, id: string) => {
      results.push({ action, resourceType, resourceName, id });
      if (action === 'ADDED') counts.added++;
      else if (action === 'OVERWRITTEN') counts.overwritten++;
      else counts.skipped++;
    };
    await ctx.write((tx, ev) => {
      const realm = () => current<RealmEntity>(tx, 'realms', ctx.realm.id);
      const exists = (what: string, name: string) => {
        if (policy === 'FAIL') throw ERR.conflict(`${what} '${name}' already exists`);
        return policy;
      };
      for (const c of rep.clients ?? []) {
        const cur = c.clientId ? repo.clientByClientId(tx, ctx.realm.id, c.clientId) : undefined;
        if (cur && exists('Client', c.clientId!) === 'SKIP') { note('SKIPPED', 'CLIENT', cur.clientId, cur.id); continue; }
        if (cur) deleteClient(tx, cur);
        const made = newClient(tx, realm(), { ...c, id: cur?.id ?? c.id }, { keepId: true });
        note(cur ? 'OVERWRITTEN' : 'ADDED', 'CLIENT', made.clientId, made.id);
      }
      const roleSets: Array<[string, string, typeof rep.roles extends infer R ? any : never]> = [];
      for (const role of rep.roles?.realm ?? []) roleSets.push(['', 'REALM_ROLE', role]);
      for (const [clientId, list] of Object.entries(rep.roles?.client ?? {})) {
        const client = repo.clientByClientId(tx, ctx.realm.id, clientId);
        if (!client) throw ERR.badRequest(`Client '${clientId}' not found`);
        for (const role of list) roleSets.push([client.id, 'CLIENT_ROLE', role]);
      }
      for (const [cid, type, role] of roleSets) {
        const cur = repo.roleByName(tx, ctx.realm.id, cid, role.name ?? '');
        if (cur && exists('Role', role.name) === 'SKIP') { note('SKIPPED', type, cur.name, cur.id); continue; }
        if (cur) {
          tx.put('roles', cur.id, roleConv.applyRepresentation(cur, role));
          note('OVERWRITTEN', type, cur.name, cur.id);
        } else {
          const made = newRole(tx, ctx.realm.id, cid, role, { keepId: true });
          note('ADDED', type, made.name, made.id);
        }
      }
      for (const g of rep.groups ?? []) {
        const cur = g.name ? repo.childByName(tx, ctx.realm.id, '', g.name) : undefined;
        if (cur && exists('Group', g.name!) === 'SKIP') { note('SKIPPED', 'GROUP', cur.name, cur.id); continue; }
        if (cur) deleteGroup(tx, cur);
        const made = importGroup(tx, realm(), '', { ...g, id: cur?.id ?? g.id });
        note(cur ? 'OVERWRITTEN' : 'ADDED', 'GROUP', made.name, made.id);
      }
      (rep.users ?? []).forEach((u, i) => {
        const cur = u.username ? repo.userByUsername(tx, ctx.realm.id, u.username) : undefined;
        if (cur && exists('User', u.username!) === 'SKIP') { note('SKIPPED', 'USER', cur.username, cur.id); return; }
        if (cur) deleteUser(tx, cur);
        const made = newUser(tx, realm(), { ...u, id: cur?.id ?? u.id }, creds[i] ?? [], { keepId: true });
        note(cur ? 'OVERWRITTEN' : 'ADDED', 'USER', made.username, made.id);
      });
      if (results.length) ev.create('REALM', '', { ...counts, ifResourceExists: policy });
    });
    return ok({ ...counts, results });
  });
  void deleteRole;
  void groupConv;
}
