// /admin/realms/{realm}/groups/{id}: get, update, delete, children, members (GroupResource).
import type { HttpReply } from '../../http/types.js';
import { ERR } from '../errors.js';
import * as userConv from '../model/user.js';
import { GroupRepresentation } from '../model/schemas.js';
import * as groupConv from '../model/group.js';
import { deleteGroup, newGroup } from '../managers.js';
import type { GroupEntity, RealmEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { current, noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { groupAccess, groupRep, listGroups, moveGroup } from './groups.js';
import { registerRoleMapper } from './role-mapper.js';
import { groupOfPath } from './locate.js';

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  const locate = (ctx: AdminContext): GroupEntity => groupOfPath(store, ctx);

  r.realm('GET', '/groups/:groupId', (ctx) => {
    ctx.auth.groups.requireView();
    const g = locate(ctx);
    return ok(groupRep(store, g, false, false, groupAccess(ctx)));
  });

  r.realm('PUT', '/groups/:groupId', async (ctx) => {
    ctx.auth.groups.requireManage();
    const g = locate(ctx);
    const rep = ctx.body(GroupRepresentation);
    if (rep.name != null && !rep.name.trim()) throw ERR.badRequest('Group name is missing');
    await ctx.write((tx, ev) => {
      const cur = current<GroupEntity>(tx, 'groups', g.id);
      const next = groupConv.applyRepresentation(cur, rep);
      if (next.name !== cur.name && repo.childByName(tx, cur.realmId, cur.parentId, next.name)) {
        throw ERR.conflict(cur.parentId ? `Sibling group named '${next.name}' already exists.` : `Top level group named '${next.name}' already exists.`);
      }
      tx.put('groups', g.id, next);
      ev.update('GROUP', `groups/${g.id}`, rep);
    });
    return noContent();
  });

  r.realm('DELETE', '/groups/:groupId', async (ctx) => {
    ctx.auth.groups.requireManage();
    const g = locate(ctx);
    await ctx.write((tx, ev) => {
      deleteGroup(tx, current<GroupEntity>(tx, 'groups', g.id));
      ev.delete('GROUP', `groups/${g.id}`);
    });
    return noContent();
  });

  r.realm('GET', '/groups/:groupId/children', (ctx) => {
    ctx.auth.groups.requireView();
    const g = locate(ctx);
    return ok(listGroups(ctx, store, g.id));
  });

  r.realm('POST', '/groups/:groupId/children', async (ctx): Promise<HttpReply> => {
    ctx.auth.groups.requireManage();
    const parent = locate(ctx);
    const rep = ctx.body(GroupRepresentation);
    const existing = rep.id ? repo.groupInRealm(store, ctx.realm.id, rep.id) : undefined;
    if (existing) {
      const moved = await ctx.write((tx, ev) => moveGroup(tx, current<GroupEntity>(tx, 'groups', existing.id), parent.id, ev, ctx.realm.realm));
      return { status: 204, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(groupRep(store, moved, false)) };
    }
    const child = await ctx.write((tx, ev) => {
      const made = newGroup(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), parent.id, rep);
      ev.create('GROUP', `groups/${parent.id}/children/${made.id}`, { ...rep, id: made.id });
      return made;
    });
    return {
      status: 201,
      headers: { 'Content-Type': 'application/json', Location: `${ctx.req.baseUrl}/admin/realms/${encodeURIComponent(ctx.realm.realm)}/groups/${child.id}` },
      body: JSON.stringify(groupRep(store, child, false)),
    };
  });

  r.realm('GET', '/groups/:groupId/members', (ctx) => {
    ctx.auth.users.requireQuery();
    const g = locate(ctx);
    const brief = ctx.queryBool('briefRepresentation', false);
    const users = repo.groupMemberIds(store, g.id).map((id) => store.get<UserEntity>('users', id)).filter((u): u is UserEntity => !!u).sort((a, b) => (a.username < b.username ? -1 : 1));
    return ok(page(users, ctx.queryInt('first', 0), ctx.queryInt('max', 100)).map((u) => (brief ? userConv.toBriefRepresentation(u) : userConv.toRepresentation(u))));
  });

  r.realm('GET', '/groups/:groupId/management/permissions', (ctx) => {
    ctx.auth.groups.requireView();
    locate(ctx);
    return ok({ enabled: false });
  });
  r.realm('PUT', '/groups/:groupId/management/permissions', (ctx) => {
    ctx.auth.groups.requireManage();
    locate(ctx);
    return ok({ enabled: false });
  });

  registerRoleMapper(r, '/groups/:groupId', {
    kind: 'groups',
    locate: (ctx) => locate(ctx).id,
    requireView: (ctx) => ctx.auth.groups.requireView(),
    requireManage: (ctx) => ctx.auth.groups.requireManage(),
  });
}
