// Protocol mappers under every owner (client scopes, client templates, clients): Keycloak
// ProtocolMappersResource. The owner hands over how to load and store itself.
import { ERR } from '../errors.js';
import { mapperFromRepresentation, mapperToRepresentation } from '../model/client-scope.js';
import { ProtocolMapperRepresentation } from '../model/schemas.js';
import type { ProtocolMapperEntity } from '../store/entities.js';
import type { Tx } from '../store/store.js';
import { z } from 'zod';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';

export interface MapperOwner {
  id: string;
  protocol: string;
  protocolMappers: ProtocolMapperEntity[];
}

export interface MapperOwnerOptions {
  locate(ctx: AdminContext): MapperOwner;
  table: 'clients' | 'clientScopes';
  eventPath(ctx: AdminContext, owner: MapperOwner): string;
  requireView(ctx: AdminContext): void;
  requireManage(ctx: AdminContext): void;
}

export function registerProtocolMappers(r: AdminRoutes, prefix: string, o: MapperOwnerOptions): void {
  const base = `${prefix}/protocol-mappers`;
  const save = (tx: Tx, owner: MapperOwner, mappers: ProtocolMapperEntity[]) => {
    const cur = tx.get<MapperOwner>(o.table, owner.id);
    if (!cur) throw ERR.notFound('Could not find client');
    tx.put(o.table, owner.id, { ...cur, protocolMappers: mappers });
  };
  const add = (owner: MapperOwner, list: ProtocolMapperEntity[], rep: ProtocolMapperRepresentation): ProtocolMapperEntity => {
    if (!rep.name) throw ERR.badRequest('Protocol mapper name is missing');
    const m = mapperFromRepresentation(rep, owner.protocol);
    if (list.some((x) => x.name === m.name && x.protocol === m.protocol)) throw ERR.conflict(`Protocol mapper exists with same name`);
    list.push(m);
    return m;
  };

  r.realm('GET', `${base}/models`, (ctx) => {
    o.requireView(ctx);
    return ok(o.locate(ctx).protocolMappers.map(mapperToRepresentation));
  });
  r.realm('GET', `${base}/models/:mapperId`, (ctx) => {
    o.requireView(ctx);
    const m = o.locate(ctx).protocolMappers.find((x) => x.id === ctx.param('mapperId'));
    if (!m) throw ERR.mapperNotFound();
    return ok(mapperToRepresentation(m));
  });
  r.realm('GET', `${base}/protocol/:protocol`, (ctx) => {
    o.requireView(ctx);
    return ok(o.locate(ctx).protocolMappers.filter((x) => x.protocol === ctx.param('protocol')).map(mapperToRepresentation));
  });
  r.realm('POST', `${base}/models`, async (ctx) => {
    o.requireManage(ctx);
    const owner = o.locate(ctx);
    const rep = ctx.body(ProtocolMapperRepresentation);
    const m = await ctx.write((tx, ev) => {
      const list = [...(tx.get<MapperOwner>(o.table, owner.id)?.protocolMappers ?? [])];
      const made = add(owner, list, rep);
      save(tx, owner, list);
      ev.create('PROTOCOL_MAPPER', `${o.eventPath(ctx, owner)}/protocol-mappers/models/${made.id}`, { ...rep, id: made.id });
      return made;
    });
    return ctx.created(m.id);
  });
  r.realm('POST', `${base}/add-models`, async (ctx) => {
    o.requireManage(ctx);
    const owner = o.locate(ctx);
    const reps = ctx.body(z.array(ProtocolMapperRepresentation));
    await ctx.write((tx, ev) => {
      const list = [...(tx.get<MapperOwner>(o.table, owner.id)?.protocolMappers ?? [])];
      for (const rep of reps) add(owner, list, rep);
      save(tx, owner, list);
      ev.create('PROTOCOL_MAPPER', `${o.eventPath(ctx, owner)}/protocol-mappers/add-models`, reps);
    });
    return noContent();
  });
  r.realm('PUT', `${base}/models/:mapperId`, async (ctx) => {
    o.requireManage(ctx);
    const owner = o.locate(ctx);
    const rep = ctx.body(ProtocolMapperRepresentation);
    const id = ctx.param('mapperId');
    if (!owner.protocolMappers.some((x) => x.id === id)) throw ERR.mapperNotFound();
    await ctx.write((tx, ev) => {
      const list = (tx.get<MapperOwner>(o.table, owner.id)?.protocolMappers ?? []).map((x) => {
        if (x.id !== id) return x;
        const next = { ...x };
        if (rep.name != null) next.name = rep.name;
        if (rep.config != null) next.config = Object.fromEntries(Object.entries(rep.config).filter(([, v]) => v !== null)) as Record<string, string>;
        if (rep.consentRequired != null) next.consentRequired = rep.consentRequired;
        if (rep.consentText != null) next.consentText = rep.consentText;
        return next;
      });
      save(tx, owner, list);
      ev.update('PROTOCOL_MAPPER', `${o.eventPath(ctx, owner)}/protocol-mappers/models/${id}`, rep);
    });
    return noContent();
  });
  r.realm('DELETE', `${base}/models/:mapperId`, async (ctx) => {
    o.requireManage(ctx);
    const owner = o.locate(ctx);
    const id = ctx.param('mapperId');
    if (!owner.protocolMappers.some((x) => x.id === id)) throw ERR.mapperNotFound();
    await ctx.write((tx, ev) => {
      save(tx, owner, (tx.get<MapperOwner>(o.table, owner.id)?.protocolMappers ?? []).filter((x) => x.id !== id));
      ev.delete('PROTOCOL_MAPPER', `${o.eventPath(ctx, owner)}/protocol-mappers/models/${id}`);
    });
    return noContent();
  });
}
