// /admin/realms/{realm}/groups: list, search, count, create or move to top level (GroupsResource).
import { ERR } from '../errors.js';
import * as groupConv from '../model/group.js';
import { GroupRepresentation } from '../model/schemas.js';
import { newGroup } from '../managers.js';
import type { ClientEntity, GroupEntity, RealmEntity, RoleEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { Reader } from '../store/repo.js';
import type { IdentityStore, Tx } from '../store/store.js';
import { current, noContent, ok, page, type AdminRoutes, type AdminContext, type AdminEventBuilder } from './context.js';

export function groupRoles(r: Reader, g: GroupEntity): { realmRoles: string[]; clientRoles: Record<string, string[]> } {
  const realmRoles: string[] = [];
  const clientRoles: Record<string, string[]> = {};
  for (const id of repo.roleMappingIds(r, g.id)) {
    const role = r.get<RoleEntity>('roles', id);
    if (!role) continue;
    if (!role.clientId) realmRoles.push(role.name);
    else {
      const c = r.get<ClientEntity>('clients', role.clientId);
      if (c) (clientRoles[c.clientId] ??= []).push(role.name);
    }
  }
  return { realmRoles, clientRoles };
}

export function groupRep(r: Reader, g: GroupEntity, brief: boolean, withSubGroups = false, access?: Record<string, boolean>): groupConv.GroupRep {
  const children = repo.groupChildren(r, g.realmId, g.id);
  const path = repo.groupPath(r, g);
  const rep = brief ? groupConv.toBriefRepresentation(g, path, children.length) : groupConv.toRepresentation(g, path, children.length, groupRoles(r, g));
  if (withSubGroups) rep.subGroups = children.map((c) => groupRep(r, c, brief, true));
  if (access) rep.access = access;
  return rep;
}

export function groupAccess(ctx: AdminContext): Record<string, boolean> {
  const view = ctx.auth.groups.canView();
  const manage = ctx.auth.groups.canManage();
  return { view, viewMembers: view, manageMembers: manage, manage, manageMembership: manage };
}

function matches(name: string, search: string, exact: boolean): boolean {
  return exact ? name === search : name.toLowerCase().includes(search.toLowerCase());
}

/** Groups whose subtree matches the search, with only the matching branches populated. */
function searchTree(r: Reader, g: GroupEntity, test: (g: GroupEntity) => boolean, brief: boolean): groupConv.GroupRep | undefined {
  const subs = repo.groupChildren(r, g.realmId, g.id).map((c) => searchTree(r, c, test, brief)).filter((x): x is groupConv.GroupRep => !!x);
  if (!test(g) && subs.length === 0) return undefined;
  const rep = groupRep(r, g, brief);
  rep.subGroups = subs;
  return rep;
}

function parseQ(q: string | undefined): Array<[string, string]> {
  if (!q) return [];
  return q.split(/\s+/).filter(Boolean).map((p) => {
    const i = p.indexOf(':');
    return i < 0 ? [p, ''] : [p.slice(0, i), p.slice(i + 1)];
  });
}

export function listGroups(ctx: AdminContext, store: IdentityStore, parentId: string): groupConv.GroupRep[] {
  const search = ctx.query('search');
  const q = parseQ(ctx.query('q'));
  const exact = ctx.queryBool('exact', false);
  const brief = ctx.queryBool('briefRepresentation', true);
  const first = ctx.queryInt('first', 0);
  const max = ctx.queryInt('max', parentId ? 10 : -1);
  const roots = repo.groupChildren(store, ctx.realm.id, parentId);
  let reps: groupConv.GroupRep[];
  if (search || q.length) {
    const test = (g: GroupEntity) =>
      (!search || matches(g.name, search, exact)) && q.every(([k, v]) => (g.attributes[k] ?? []).some((x) => (exact ? x === v : x.toLowerCase().includes(v.toLowerCase()))));
    reps = roots.map((g) => searchTree(store, g, test, brief)).filter((x): x is groupConv.GroupRep => !!x);
  } else {
    reps = roots.map((g) => groupRep(store, g, brief));
  }
  const access = groupAccess(ctx);
  return page(reps, first, max).map((g) => ({ ...g, access }));
}

/** Moves an existing group under a new parent (or to top level), with the sibling-name check. */
export function moveGroup(tx: Tx, g: GroupEntity, parentId: string, ev: AdminEventBuilder, realmName: string): GroupEntity {
  if (g.parentId === parentId) return g;
  if (parentId) {
    // cannot move under itself or a descendant
    let cur: GroupEntity | undefined = tx.get<GroupEntity>('groups', parentId);
    for (let i = 0; cur && i < 1000; i++) {
      if (cur.id === g.id) throw ERR.badRequest('Cannot move group to its own descendant');
      cur = cur.parentId ? tx.get<GroupEntity>('groups', cur.parentId) : undefined;
    }
  }
  if (repo.childByName(tx, g.realmId, parentId, g.name)) {
    throw ERR.conflict(parentId ? `Sibling group named '${g.name}' already exists.` : `Top level group named '${g.name}' already exists.`);
  }
  const next = { ...g, parentId };
  tx.put('groups', g.id, next);
  ev.update('GROUP', `groups/${g.id}`, { id: g.id, name: g.name, realm: realmName });
  return next;
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;

  r.realm('GET', '/groups', (ctx) => {
    ctx.auth.groups.requireQuery();
    return ok(listGroups(ctx, store, ''));
  });

  r.realm('GET', '/groups/count', (ctx) => {
    ctx.auth.groups.requireQuery();
    const search = ctx.query('search');
    const top = ctx.queryBool('top', false);
    const all: GroupEntity[] = [];
    for (const g of repo.groupChildren(store, ctx.realm.id, '')) {
      all.push(g);
      if (!top) all.push(...repo.descendants(store, g));
    }
    return ok({ count: search ? all.filter((g) => matches(g.name, search, false)).length : all.length });
  });

  r.realm('POST', '/groups', async (ctx) => {
    ctx.auth.groups.requireManage();
    const rep = ctx.body(GroupRepresentation);
    if (rep.id) {
      const existing = repo.groupInRealm(store, ctx.realm.id, rep.id);
      if (existing) {
        await ctx.write((tx, ev) => moveGroup(tx, current<GroupEntity>(tx, 'groups', existing.id), '', ev, ctx.realm.realm));
        return noContent();
      }
    }
    const g = await ctx.write((tx, ev) => {
      const made = newGroup(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), '', rep);
      ev.create('GROUP', `groups/${made.id}`, { ...rep, id: made.id });
      return made;
    });
    return ctx.created(g.id);
  });
}
