// /admin/realms/{realm}/client-scopes (and the legacy /client-templates twin): collection and item,
// with protocol mappers and scope mappings (ClientScopesResource / ClientScopeResource).
import { ERR } from '../errors.js';
import * as scopeConv from '../model/client-scope.js';
import { ClientScopeRepresentation } from '../model/schemas.js';
import { deleteClientScope, newClientScope } from '../managers.js';
import type { ClientEntity, ClientScopeEntity, RealmEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { current, noContent, ok, type AdminContext, type AdminRoutes } from './context.js';
import { registerProtocolMappers } from './protocol-mappers.js';
import { registerScopeMappings } from './scope-mappings.js';

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  for (const base of ['/client-scopes', '/client-templates']) {
    const locate = (ctx: AdminContext): ClientScopeEntity => {
      const s = store.get<ClientScopeEntity>('clientScopes', ctx.param('scopeId'));
      if (!s || s.realmId !== ctx.realm.id) throw ERR.clientScopeNotFound();
      return s;
    };
    r.realm('GET', base, (ctx) => {
      ctx.auth.clientScopes.requireView();
      return ok(repo.listClientScopes(store, ctx.realm.id).map(scopeConv.toRepresentation));
    });
    r.realm('POST', base, async (ctx) => {
      ctx.auth.clientScopes.requireManage();
      const rep = ctx.body(ClientScopeRepresentation);
      if (rep.name != null && /\s/.test(rep.name)) throw ERR.badRequest('Unexpected name "' + rep.name + '" for ClientScope');
      const s = await ctx.write((tx, ev) => {
        const made = newClientScope(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), rep);
        ev.create('CLIENT_SCOPE', `client-scopes/${made.id}`, { ...rep, id: made.id });
        return made;
      });
      return ctx.created(s.id);
    });
    r.realm('GET', `${base}/:scopeId`, (ctx) => {
      ctx.auth.clientScopes.requireView();
      return ok(scopeConv.toRepresentation(locate(ctx)));
    });
    r.realm('PUT', `${base}/:scopeId`, async (ctx) => {
      ctx.auth.clientScopes.requireManage();
      const s = locate(ctx);
      const rep = ctx.body(ClientScopeRepresentation);
      await ctx.write((tx, ev) => {
        const cur = current<ClientScopeEntity>(tx, 'clientScopes', s.id);
        const next = scopeConv.applyRepresentation(cur, rep);
        if (next.name !== cur.name && repo.clientScopeByName(tx, ctx.realm.id, next.name)) throw ERR.conflict(`Client Scope ${next.name} already exists`);
        tx.put('clientScopes', s.id, next);
        ev.update('CLIENT_SCOPE', `client-scopes/${s.id}`, rep);
      });
      return noContent();
    });
    r.realm('DELETE', `${base}/:scopeId`, async (ctx) => {
      ctx.auth.clientScopes.requireManage();
      const s = locate(ctx);
      const inUse = repo.listClients(store, ctx.realm.id).find((c: ClientEntity) => c.defaultClientScopeIds.includes(s.id) || c.optionalClientScopeIds.includes(s.id));
      void inUse; // Keycloak 26 removes the scope from clients that use it.
      await ctx.write((tx, ev) => {
        deleteClientScope(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), current<ClientScopeEntity>(tx, 'clientScopes', s.id));
        ev.delete('CLIENT_SCOPE', `client-scopes/${s.id}`);
      });
      return noContent();
    });
    registerProtocolMappers(r, `${base}/:scopeId`, {
      locate,
      table: 'clientScopes',
      eventPath: (_ctx, owner) => `client-scopes/${owner.id}`,
      requireView: (ctx) => ctx.auth.clientScopes.requireView(),
      requireManage: (ctx) => ctx.auth.clientScopes.requireManage(),
    });
    registerScopeMappings(r, `${base}/:scopeId`, {
      locate: (ctx) => locate(ctx).id,
      eventPath: (_ctx, id) => `client-scopes/${id}`,
      requireView: (ctx) => ctx.auth.clientScopes.requireView(),
      requireManage: (ctx) => ctx.auth.clientScopes.requireManage(),
    });
  }
}
