// Scope mappings of clients and client scopes (Keycloak ScopeMappedResource): which roles the owner
// may put into tokens.
import { ERR } from '../errors.js';
import * as roleConv from '../model/role.js';
import { RoleList } from '../model/schemas.js';
import type { ClientEntity, RoleEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';
import { resolveRoles } from './role-mapper.js';

export interface ScopeOwnerOptions {
  locate(ctx: AdminContext): string;
  eventPath(ctx: AdminContext, ownerId: string): string;
  requireView(ctx: AdminContext): void;
  requireManage(ctx: AdminContext): void;
}

export function registerScopeMappings(r: AdminRoutes, prefix: string, o: ScopeOwnerOptions): void {
  const store = r.svc.store;
  const base = `${prefix}/scope-mappings`;
  const mapped = (ownerId: string, clientId: string) =>
    repo.pairs(store, 'scopeMappings', ownerId).map((id) => store.get<RoleEntity>('roles', id)).filter((x): x is RoleEntity => !!x && x.clientId === clientId).sort((a, b) => (a.name < b.name ? -1 : 1));

  r.realm('GET', base, (ctx) => {
    o.requireView(ctx);
    const id = o.locate(ctx);
    const realmMappings = mapped(id, '').map(roleConv.toBriefRepresentation);
    const clientMappings: Record<string, { id: string; client: string; mappings: unknown[] }> = {};
    for (const rid of repo.pairs(store, 'scopeMappings', id)) {
      const role = store.get<RoleEntity>('roles', rid);
      if (!role?.clientId) continue;
      const c = store.get<ClientEntity>('clients', role.clientId);
      if (c) (clientMappings[c.clientId] ??= { id: c.id, client: c.clientId, mappings: [] }).mappings.push(roleConv.toBriefRepresentation(role));
    }
    return ok({ ...(realmMappings.length ? { realmMappings } : {}), ...(Object.keys(clientMappings).length ? { clientMappings } : {}) });
  });

  for (const [kind, sub] of [['realm', '/realm'], ['client', '/clients/:roleClient']] as const) {
    const path = `${base}${sub}`;
    const container = (ctx: AdminContext) => {
      if (kind === 'realm') return '';
      const c = repo.clientInRealm(store, ctx.realm.id, ctx.param('roleClient'));
      if (!c) throw ERR.clientNotFound();
      return c.id;
    };
    const type = kind === 'realm' ? 'REALM_SCOPE_MAPPING' : 'CLIENT_SCOPE_MAPPING';
    r.realm('GET', path, (ctx) => {
      o.requireView(ctx);
      return ok(mapped(o.locate(ctx), container(ctx)).map(roleConv.toBriefRepresentation));
    });
    r.realm('GET', `${path}/available`, (ctx) => {
      o.requireView(ctx);
      const id = o.locate(ctx);
      const cid = container(ctx);
      const have = new Set(repo.pairs(store, 'scopeMappings', id));
      return ok(repo.listRoles(store, ctx.realm.id, cid).filter((x) => !have.has(x.id)).map(roleConv.toBriefRepresentation));
    });
    r.realm('GET', `${path}/composite`, (ctx) => {
      o.requireView(ctx);
      const id = o.locate(ctx);
      const cid = container(ctx);
      const brief = ctx.queryBool('briefRepresentation', true);
      const all = repo.expandRoles(store, repo.pairs(store, 'scopeMappings', id));
      return ok(repo.listRoles(store, ctx.realm.id, cid).filter((x) => all.has(x.id)).map(brief ? roleConv.toBriefRepresentation : roleConv.toRepresentation));
    });
    r.realm('POST', path, async (ctx) => {
      o.requireManage(ctx);
      const id = o.locate(ctx);
      const cid = container(ctx);
      const reps = ctx.body(RoleList);
      await ctx.write((tx, ev) => {
        const roles = resolveRoles(tx, ctx.realm.id, cid, reps);
        for (const role of roles) tx.put('scopeMappings', [id, role.id], 1);
        ev.create(type, `${o.eventPath(ctx, id)}/scope-mappings${kind === 'realm' ? '/realm' : `/clients/${cid}`}`, roles.map(roleConv.toBriefRepresentation));
      });
      return noContent();
    });
    r.realm('DELETE', path, async (ctx) => {
      o.requireManage(ctx);
      const id = o.locate(ctx);
      const cid = container(ctx);
      const raw = ctx.json();
      await ctx.write((tx, ev) => {
        const roles = raw == null ? mapped(id, cid) : resolveRoles(tx, ctx.realm.id, cid, ctx.body(RoleList));
        for (const role of roles) tx.del('scopeMappings', [id, role.id]);
        if (roles.length) ev.delete(type, `${o.eventPath(ctx, id)}/scope-mappings${kind === 'realm' ? '/realm' : `/clients/${cid}`}`, roles.map(roleConv.toBriefRepresentation));
      });
      return noContent();
    });
  }
}
