// /admin/realms/{realm}/clients: list with filters, create (ClientsResource).
import { ERR } from '../errors.js';
import * as clientConv from '../model/client.js';
import { ClientRepresentation } from '../model/schemas.js';
import { newClient } from '../managers.js';
import type { ClientEntity, ClientScopeEntity, RealmEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { IdentityStore } from '../store/store.js';
import { current, ok, page, type AdminContext, type AdminRoutes } from './context.js';

export const scopeNamesOf = (store: IdentityStore) => (ids: string[]) =>
  ids.map((id) => store.get<ClientScopeEntity>('clientScopes', id)?.name).filter((n): n is string => !!n);

export function clientRep(ctx: AdminContext, store: IdentityStore, c: ClientEntity): Record<string, unknown> {
  const rep = clientConv.stripSecrets(clientConv.toRepresentation(c, scopeNamesOf(store)));
  const manage = ctx.auth.clients.canManage();
  rep.access = { view: ctx.auth.clients.canView(), configure: manage, manage };
  return rep;
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;

  r.realm('GET', '/clients', (ctx) => {
    ctx.auth.clients.requireQuery();
    const clientId = ctx.query('clientId');
    const search = ctx.queryBool('search', false);
    const q = ctx.query('q');
    let list: ClientEntity[];
    if (clientId && !search) {
      const c = repo.clientByClientId(store, ctx.realm.id, clientId);
      list = c ? [c] : [];
    } else {
      list = repo.listClients(store, ctx.realm.id);
      if (clientId) list = list.filter((c) => c.clientId.toLowerCase().includes(clientId.toLowerCase()));
    }
    if (q) {
      const pairs = q.split(/\s+/).filter(Boolean).map((p) => [p.slice(0, p.indexOf(':') < 0 ? p.length : p.indexOf(':')), p.indexOf(':') < 0 ? '' : p.slice(p.indexOf(':') + 1)] as const);
      list = list.filter((c) => pairs.every(([k, v]) => c.attributes[k] === v));
    }
    const canView = ctx.auth.clients.canView();
    if (ctx.queryBool('viewableOnly', false) && !canView) list = [];
    const paged = page(list, ctx.queryInt('first', 0), ctx.queryInt('max', -1));
    return ok(paged.map((c) => (canView ? clientRep(ctx, store, c) : clientConv.toBriefRepresentation(c))));
  });

  r.realm('POST', '/clients', async (ctx) => {
    if (!ctx.auth.canCreateClient()) throw ERR.forbidden();
    const rep = ctx.body(ClientRepresentation);
    if (!rep.clientId?.trim()) throw ERR.badRequest('Client id is missing');
    const c = await ctx.write((tx, ev) => {
      const made = newClient(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), { ...rep }, { keepId: true });
      ev.create('CLIENT', `clients/${made.id}`, clientConv.stripSecrets({ ...rep, id: made.id }));
      return made;
    });
    return ctx.created(c.id);
  });
}
