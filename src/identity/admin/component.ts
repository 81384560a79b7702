// /admin/realms/{realm}/components/{id}: get, update, delete and sub-component types.
import { ERR } from '../errors.js';
import type { ComponentEntity } from '../store/entities.js';
import { mergeConfig, toRepresentation } from '../model/component.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';
import { ComponentRepresentation, checkProvider, cleanConfig, keyMaterial } from './components.js';

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  const P = '/components/:id';
  const locate = (ctx: AdminContext): ComponentEntity => {
    const c = store.get<ComponentEntity>('components', ctx.param('id'));
    if (!c || c.realmId !== ctx.realm.id) throw ERR.notFound('Could not find component');
    return c;
  };

  r.realm('GET', P, (ctx) => {
    ctx.auth.realm.requireView();
    return ok(toRepresentation(locate(ctx)));
  });

  r.realm('PUT', P, async (ctx) => {
    ctx.auth.realm.requireManage();
    const c = locate(ctx);
    const rep = ctx.body(ComponentRepresentation);
    const providerId = rep.providerId ?? c.providerId;
    checkProvider({ ...rep, providerId, providerType: rep.providerType ?? c.providerType });
    const config = rep.config != null ? mergeConfig(c.config, cleanConfig(rep.config)) : c.config;
    const material = await keyMaterial(providerId, config, ctx.realm.realm, c);
    delete config.privateKey;
    await ctx.write((tx, ev) => {
      const cur = tx.get<ComponentEntity>('components', c.id);
      if (!cur) throw ERR.notFound('Could not find component');
      const next: ComponentEntity = {
        ...cur,
        name: rep.name ?? cur.name,
        providerId,
        parentId: rep.parentId ?? cur.parentId,
        config,
        ...(rep.subType != null ? { subType: rep.subType } : {}),
        ...material,
      };
      tx.put('components', c.id, next);
      ev.update('COMPONENT', ctx.here(), toRepresentation(next));
    });
    return noContent();
  });

  r.realm('DELETE', P, async (ctx) => {
    ctx.auth.realm.requireManage();
    const c = locate(ctx);
    await ctx.write((tx, ev) => {
      // Sub-components (e.g. mappers of a storage provider) go with their parent.
      for (const e of tx.range('componentByRealm', [ctx.realm.id])) {
        const sub = tx.get<ComponentEntity>('components', e.value as string);
        if (sub && sub.parentId === c.id) tx.del('components', sub.id);
      }
      tx.del('components', c.id);
      ev.delete('COMPONENT', ctx.here());
    });
    return noContent();
  });

  r.realm('GET', `${P}/sub-component-types`, (ctx) => {
    ctx.auth.realm.requireView();
    locate(ctx);
    return ok([]);
  });
}
