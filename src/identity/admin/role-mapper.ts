// Role mappings shared by users and groups (Keycloak RoleMapperResource): the parent passes how to
// find the holder and its requireView/requireManage checks.
import { ERR } from '../errors.js';
import * as roleConv from '../model/role.js';
import { RoleList, type RoleRepresentation } from '../model/schemas.js';
import type { ClientEntity, GroupEntity, RoleEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { Reader } from '../store/repo.js';
import type { Tx } from '../store/store.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';

export interface RoleMapperOptions {
  kind: 'users' | 'groups';
  locate(ctx: AdminContext): string;
  requireView(ctx: AdminContext): void;
  requireManage(ctx: AdminContext): void;
}

function effective(r: Reader, kind: 'users' | 'groups', holderId: string): Set<string> {
  if (kind === 'users') return repo.effectiveUserRoleIds(r, holderId);
  const g = r.get<GroupEntity>('groups', holderId);
  return g ? repo.effectiveGroupRoleIds(r, g) : new Set();
}

function rolesOf(r: Reader, ids: Iterable<string>, clientId: string): RoleEntity[] {
  const out: RoleEntity[] = [];
  for (const id of ids) {
    const role = r.get<RoleEntity>('roles', id);
    if (role && role.clientId === clientId) out.push(role);
  }
  return out.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** Resolves role representations (by id, else by name) in a container; 404 when one is missing. */
export function resolveRoles(r: Reader, realmId: string, clientId: string, reps: RoleRepresentation[]): RoleEntity[] {
  return reps.map((rep) => {
    let role = rep.id ? r.get<RoleEntity>('roles', rep.id) : undefined;
    if (!role && rep.name) role = repo.roleByName(r, realmId, clientId, rep.name);
    if (!role || role.realmId !== realmId) throw ERR.notFound(clientId ? 'Role not found' : 'Role not found');
    if (role.clientId !== clientId) throw ERR.notFound('Role not found');
    return role;
  });
}

export function registerRoleMapper(r: AdminRoutes, prefix: string, o: RoleMapperOptions): void {
  const store = r.svc.store;
  const base = `${prefix}/role-mappings`;

  r.realm('GET', base, (ctx) => {
    o.requireView(ctx);
    const id = o.locate(ctx);
    const direct = repo.roleMappingIds(store, id);
    const realmMappings = rolesOf(store, direct, '').map(roleConv.toBriefRepresentation);
    const clientMappings: Record<string, { id: string; client: string; mappings: unknown[] }> = {};
    for (const rid of direct) {
      const role = store.get<RoleEntity>('roles', rid);
      if (!role || !role.clientId) continue;
      const c = store.get<ClientEntity>('clients', role.clientId);
      if (!c) continue;
      (clientMappings[c.clientId] ??= { id: c.id, client: c.clientId, mappings: [] }).mappings.push(roleConv.toBriefRepresentation(role));
    }
    return ok({ ...(realmMappings.length ? { realmMappings } : {}), ...(Object.keys(clientMappings).length ? { clientMappings } : {}) });
  });

  const container = (ctx: AdminContext, kind: 'realm' | 'client'): { clientId: string; client?: ClientEntity } => {
    if (kind === 'realm') return { clientId: '' };
    const c = repo.clientInRealm(store, ctx.realm.id, ctx.param('client'));
    if (!c) throw ERR.clientNotFound();
    return { clientId: c.id, client: c };
  };

  for (const [kind, sub] of [['realm', '/realm'], ['client', '/clients/:client']] as const) {
    const path = `${base}${sub}`;
    const eventType = kind === 'realm' ? 'REALM_ROLE_MAPPING' : 'CLIENT_ROLE_MAPPING';
    const eventPath = (ctx: AdminContext, id: string) => `${o.kind}/${id}/role-mappings/${kind === 'realm' ? 'realm' : `clients/${ctx.param('client')}`}`;

    r.realm('GET', path, (ctx) => {
      o.requireView(ctx);
      const id = o.locate(ctx);
      const { clientId } = container(ctx, kind);
      return ok(rolesOf(store, repo.roleMappingIds(store, id), clientId).map(roleConv.toBriefRepresentation));
    });
    r.realm('GET', `${path}/available`, (ctx) => {
      o.requireView(ctx);
      const id = o.locate(ctx);
      const { clientId } = container(ctx, kind);
      const eff = effective(store, o.kind, id);
      return ok(repo.listRoles(store, ctx.realm.id, clientId).filter((role) => !eff.has(role.id)).map(roleConv.toBriefRepresentation));
    });
    r.realm('GET', `${path}/composite`, (ctx) => {
      o.requireView(ctx);
      const id = o.locate(ctx);
      const { clientId } = container(ctx, kind);
      const brief = ctx.queryBool('briefRepresentation', true);
      return ok(rolesOf(store, effective(store, o.kind, id), clientId).map(brief ? roleConv.toBriefRepresentation : roleConv.toRepresentation));
    });
    r.realm('POST', path, async (ctx) => {
      o.requireManage(ctx);
      const id = o.locate(ctx);
      const { clientId } = container(ctx, kind);
      const reps = ctx.body(RoleList);
      await ctx.write((tx: Tx, ev) => {
        const roles = resolveRoles(tx, ctx.realm.id, clientId, reps);
        for (const role of roles) tx.put('roleMappings', [id, role.id], 1);
        ev.create(eventType, eventPath(ctx, id), roles.map(roleConv.toBriefRepresentation));
      });
      return noContent();
    });
    r.realm('DELETE', path, async (ctx) => {
      o.requireManage(ctx);
      const id = o.locate(ctx);
      const { clientId } = container(ctx, kind);
      const raw = ctx.json();
      const reps = raw === undefined || raw === null ? undefined : ctx.body(RoleList);
      await ctx.write((tx: Tx, ev) => {
        const roles = reps ? resolveRoles(tx, ctx.realm.id, clientId, reps) : rolesOf(tx, repo.roleMappingIds(tx, id), clientId);
        for (const role of roles) {
          if (!reps) tx.del('roleMappings', [id, role.id]);
          else if (tx.get('roleMappings', [id, role.id]) !== undefined) tx.del('roleMappings', [id, role.id]);
        }
        if (roles.length) ev.delete(eventType, eventPath(ctx, id), roles.map(roleConv.toBriefRepresentation));
      });
      return noContent();
    });
  }
}
