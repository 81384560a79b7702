// Role containers (Keycloak RoleContainerResource) for realm roles (/roles) and client roles
// (/clients/{id}/roles): list, create, get/update/delete by name, composites, users and groups
// holding the role. Roles by id (/roles-by-id) share the composite handling.
import { ERR, errorMessage } from '../errors.js';
import * as roleConv from '../model/role.js';
import * as userConv from '../model/user.js';
import { RoleList, RoleRepresentation } from '../model/schemas.js';
import { addComposites, deleteRole, newRole } from '../managers.js';
import type { ClientEntity, GroupEntity, RealmEntity, RoleEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { IdentityStore } from '../store/store.js';
import type { RoleAccess } from './permissions.js';
import { current, noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { groupRep } from './groups.js';
import { resolveRoles } from './role-mapper.js';
import { clientOfPath } from './locate.js';

interface Container {
  clientId: string;
  client?: ClientEntity;
  /** Event resource type and path prefix. */
  type: 'REALM_ROLE' | 'CLIENT_ROLE';
  path: string;
}

function realmContainer(): Container {
  return { clientId: '', type: 'REALM_ROLE', path: 'roles' };
}

export function clientContainer(store: IdentityStore, ctx: AdminContext): Container {
  const c = clientOfPath(store, ctx);
  return { clientId: c.id, client: c, type: 'CLIENT_ROLE', path: `clients/${c.id}/roles` };
}

function search(roles: RoleEntity[], s: string | undefined): RoleEntity[] {
  if (!s) return roles;
  const t = s.toLowerCase();
  return roles.filter((r) => r.name.toLowerCase().includes(t) || (r.description ?? '').toLowerCase().includes(t));
}

/** Composite sub-routes shared by roles-by-name and roles-by-id. */
/** Finds the role a path names once the caller holds `need` on it (or on its container): 403 before 404. */
type RoleLocator = (ctx: AdminContext, need: RoleAccess) => { role: RoleEntity; container: Container };

export function registerComposites(r: AdminRoutes, prefix: string, locate: RoleLocator, eventPath: (ctx: AdminContext, role: RoleEntity) => string): void {
  const store = r.svc.store;
  r.realm('GET', `${prefix}/composites`, (ctx) => {
    const { role } = locate(ctx, 'view');
    const kids = role.composites.map((id) => store.get<RoleEntity>('roles', id)).filter((x): x is RoleEntity => !!x);
    return ok(page(search(kids, ctx.query('search')), ctx.queryInt('first', 0), ctx.queryInt('max', -1)).map(roleConv.toBriefRepresentation));
  });
  r.realm('GET', `${prefix}/composites/realm`, (ctx) => {
    const { role } = locate(ctx, 'view');
    return ok(role.composites.map((id) => store.get<RoleEntity>('roles', id)).filter((x): x is RoleEntity => !!x && x.clientId === '').map(roleConv.toBriefRepresentation));
  });
  r.realm('GET', `${prefix}/composites/clients/:targetClient`, (ctx) => {
    const { role } = locate(ctx, 'view');
    const c = repo.clientInRealm(store, ctx.realm.id, ctx.param('targetClient'));
    if (!c) throw ERR.clientNotFound();
    return ok(role.composites.map((id) => store.get<RoleEntity>('roles', id)).filter((x): x is RoleEntity => !!x && x.clientId === c.id).map(roleConv.toBriefRepresentation));
  });
  r.realm('POST', `${prefix}/composites`, async (ctx) => {
    const { role } = locate(ctx, 'manage');
    const reps = ctx.body(RoleList);
    await ctx.write((tx, ev) => {
      const kids = reps.map((rep) => {
        const k = (rep.id ? tx.get<RoleEntity>('roles', rep.id) : undefined) ?? (rep.name ? repo.roleByName(tx, ctx.realm.id, rep.clientRole && rep.containerId ? rep.containerId : '', rep.name) : undefined);
        if (!k || k.realmId !== ctx.realm.id) throw ERR.notFound('Could not find composite role');
        return k;
      });
      addComposites(tx, current<RoleEntity>(tx, 'roles', role.id), kids.map((k) => k.id));
      ev.create(role.clientId ? 'CLIENT_ROLE' : 'REALM_ROLE', `${eventPath(ctx, role)}/composites`, kids.map(roleConv.toBriefRepresentation));
    });
    return noContent();
  });
  r.realm('DELETE', `${prefix}/composites`, async (ctx) => {
    const { role } = locate(ctx, 'manage');
    const reps = ctx.body(RoleList);
    await ctx.write((tx, ev) => {
      const ids = new Set(reps.map((rep) => {
        const k = (rep.id ? tx.get<RoleEntity>('roles', rep.id) : undefined) ?? (rep.name ? repo.roleByName(tx, ctx.realm.id, '', rep.name) : undefined);
        if (!k) throw ERR.notFound('Could not find composite role');
        return k.id;
      }));
      const cur = current<RoleEntity>(tx, 'roles', role.id);
      tx.put('roles', role.id, { ...cur, composites: cur.composites.filter((c) => !ids.has(c)) });
      ev.delete(role.clientId ? 'CLIENT_ROLE' : 'REALM_ROLE', `${eventPath(ctx, role)}/composites`, reps);
    });
    return noContent();
  });
}

function usersWithRole(store: IdentityStore, roleId: string): UserEntity[] {
  return repo
    .pairs(store, 'roleHolders', roleId)
    .map((id) => store.get<UserEntity>('users', id))
    .filter((u): u is UserEntity => !!u)
    .sort((a, b) => (a.username < b.username ? -1 : 1));
}
function groupsWithRole(store: IdentityStore, roleId: string): GroupEntity[] {
  return repo
    .pairs(store, 'roleHolders', roleId)
    .map((id) => store.get<GroupEntity>('groups', id))
    .filter((g): g is GroupEntity => !!g && 'parentId' in g)
    .sort((a, b) => (a.name < b.name ? -1 : 1));
}

export function registerRoleContainer(r: AdminRoutes, prefix: string, resolve: (ctx: AdminContext) => Container): void {
  const store = r.svc.store;
  const byName = `${prefix}/roles/:roleName`;

  const locate: RoleLocator = (ctx, need) => {
    const container = resolve(ctx);
    ctx.auth.roles.require(need, container.clientId);
    const role = repo.roleByName(store, ctx.realm.id, container.clientId, ctx.param('roleName'));
    if (!role) throw ERR.notFound('Could not find role');
    return { role, container };
  };

  r.realm('GET', `${prefix}/roles`, (ctx) => {
    const c = resolve(ctx);
    if (c.clientId) ctx.auth.clients.requireQuery();
    else ctx.auth.roles.requireList();
    const brief = ctx.queryBool('briefRepresentation', true);
    const roles = search(repo.listRoles(store, ctx.realm.id, c.clientId), ctx.query('search'));
    return ok(page(roles, ctx.queryInt('first', 0), ctx.queryInt('max', -1)).map(brief ? roleConv.toBriefRepresentation : roleConv.toRepresentation));
  });

  r.realm('POST', `${prefix}/roles`, async (ctx) => {
    const c = resolve(ctx);
    ctx.auth.roles.requireManage(c.clientId);
    const rep = ctx.body(RoleRepresentation);
    if (!rep.name?.trim()) throw errorMessage(400, 'Role name is missing');
    const role = await ctx.write((tx, ev) => {
      let made = newRole(tx, ctx.realm.id, c.clientId, rep);
      if (rep.composite && rep.composites) {
        const kids: string[] = [];
        for (const n of rep.composites.realm ?? []) {
          const k = repo.roleByName(tx, ctx.realm.id, '', n);
          if (!k) throw ERR.notFound(`Realm Role with name ${n} does not exist`);
          kids.push(k.id);
        }
        for (const [clientId, names] of Object.entries(rep.composites.client ?? {})) {
          const cl = repo.clientByClientId(tx, ctx.realm.id, clientId);
          if (!cl) throw ERR.notFound(`Client with client id ${clientId} does not exist`);
          for (const n of names) {
            const k = repo.roleByName(tx, ctx.realm.id, cl.id, n);
            if (!k) throw ERR.notFound(`Client Role with name ${n} does not exist`);
            kids.push(k.id);
          }
        }
        made = addComposites(tx, made, kids);
      }
      ev.create(c.type, `${c.path}/${made.name}`, { ...rep, id: made.id });
      return made;
    });
    return ctx.created(role.name);
  });

  r.realm('GET', byName, (ctx) => {
    const { role } = locate(ctx, 'view');
    return ok(roleConv.toRepresentation(role));
  });

  r.realm('PUT', byName, async (ctx) => {
    const { role, container } = locate(ctx, 'manage');
    const rep = ctx.body(RoleRepresentation);
    await ctx.write((tx, ev) => updateRole(tx, ctx, role, rep, container, ev));
    return noContent();
  });

  r.realm('DELETE', byName, async (ctx) => {
    const { role, container } = locate(ctx, 'manage');
    if (role.id === ctx.realm._defaultRoleId) throw errorMessage(400, `${role.name} is default role of the realm and cannot be removed.`);
    await ctx.write((tx, ev) => {
      deleteRole(tx, current<RoleEntity>(tx, 'roles', role.id));
      ev.delete(container.type, `${container.path}/${role.name}`);
    });
    return noContent();
  });

  registerComposites(r, byName, locate, (_ctx, role) => `${locate(_ctx, 'manage').container.path}/${role.name}`);

  r.realm('GET', `${byName}/users`, (ctx) => {
    const { role } = locate(ctx, 'view');
    ctx.auth.users.requireQuery();
    const brief = ctx.queryBool('briefRepresentation', false);
    const users = page(usersWithRole(store, role.id), ctx.queryInt('first', 0), ctx.queryInt('max', 100));
    return ok(users.map(brief ? userConv.toBriefRepresentation : userConv.toRepresentation));
  });
  r.realm('GET', `${byName}/groups`, (ctx) => {
    const { role } = locate(ctx, 'view');
    ctx.auth.groups.requireQuery();
    const brief = ctx.queryBool('briefRepresentation', true);
    return ok(page(groupsWithRole(store, role.id), ctx.queryInt('first', 0), ctx.queryInt('max', 100)).map((g) => groupRep(store, g, brief)));
  });
  r.realm('GET', `${byName}/management/permissions`, (ctx) => {
    const { role } = locate(ctx, 'view');
    return ok({ enabled: false });
  });
  r.realm('PUT', `${byName}/management/permissions`, (ctx) => {
    const { role } = locate(ctx, 'manage');
    return ok({ enabled: false });
  });
}

export function updateRole(tx: import('../store/store.js').Tx, ctx: AdminContext, role: RoleEntity, rep: RoleRepresentation, container: { type: string; path: string }, ev: import('./context.js').AdminEventBuilder): void {
  const cur = tx.get<RoleEntity>('roles', role.id);
  if (!cur) throw ERR.notFound('Could not find role');
  const next = roleConv.applyRepresentation(cur, rep);
  if (next.name !== cur.name && repo.roleByName(tx, ctx.realm.id, cur.clientId, next.name)) throw ERR.conflict(`Role with name ${next.name} already exists`);
  if (next.name !== cur.name && cur.id === ctx.realm._defaultRoleId) throw errorMessage(400, 'Cannot rename the default role');
  tx.put('roles', role.id, next);
  ev.update(container.type, `${container.path}/${cur.name}`, rep);
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  registerRoleContainer(r, '', () => realmContainer());
  registerRoleContainer(r, '/clients/:clientUuid', (ctx) => clientContainer(store, ctx));

  // ── roles by id ──
  const byId = '/roles-by-id/:roleId';
  const locate: RoleLocator = (ctx, need) => {
    const role = store.get<RoleEntity>('roles', ctx.param('roleId'));
    if (!role || role.realmId !== ctx.realm.id) {
      if (!ctx.auth.roles.canOnSome(need)) throw ERR.forbidden();
      throw ERR.notFound('Could not find role with id');
    }
    ctx.auth.roles.require(need, role.clientId);
    const client = role.clientId ? store.get<ClientEntity>('clients', role.clientId) : undefined;
    const container: Container = role.clientId ? { clientId: role.clientId, ...(client ? { client } : {}), type: 'CLIENT_ROLE', path: `roles-by-id` } : { clientId: '', type: 'REALM_ROLE', path: 'roles-by-id' };
    return { role, container };
  };
  r.realm('GET', byId, (ctx) => {
    const { role } = locate(ctx, 'view');
    return ok(roleConv.toRepresentation(role));
  });
  r.realm('PUT', byId, async (ctx) => {
    const { role, container } = locate(ctx, 'manage');
    const rep = ctx.body(RoleRepresentation);
    await ctx.write((tx, ev) => {
      const cur = current<RoleEntity>(tx, 'roles', role.id);
      const next = roleConv.applyRepresentation(cur, rep);
      if (next.name !== cur.name && repo.roleByName(tx, ctx.realm.id, cur.clientId, next.name)) throw ERR.conflict(`Role with name ${next.name} already exists`);
      tx.put('roles', role.id, next);
      ev.update(container.type, `roles-by-id/${role.id}`, rep);
    });
    return noContent();
  });
  r.realm('DELETE', byId, async (ctx) => {
    const { role, container } = locate(ctx, 'manage');
    if (role.id === ctx.realm._defaultRoleId) throw errorMessage(400, `${role.name} is default role of the realm and cannot be removed.`);
    await ctx.write((tx, ev) => {
      deleteRole(tx, current<RoleEntity>(tx, 'roles', role.id));
      ev.delete(container.type, `roles-by-id/${role.id}`);
    });
    return noContent();
  });
  registerComposites(r, byId, locate, (_ctx, role) => `roles-by-id/${role.id}`);
  r.realm('GET', `${byId}/management/permissions`, (ctx) => {
    locate(ctx, 'view');
    ctx.auth.roles.requireList();
    return ok({ enabled: false });
  });
  r.realm('PUT', `${byId}/management/permissions`, (ctx) => {
    const { role } = locate(ctx, 'manage');
    return ok({ enabled: false });
  });
  void resolveRoles;
  void ({} as RealmEntity);
}
