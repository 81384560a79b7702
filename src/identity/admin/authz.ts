// /admin/realms/{realm}/clients/{id}/authz/resource-server (Keycloak's authorization services admin
// API): settings, import/export, resources, scopes, policies and permissions with search and
// dependent/associated lookups, provider lists, and policy/permission evaluation. The resource
// server is one entity; every change rewrites it in one write with one admin event.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';
import type { ClientEntity, GroupEntity, RoleEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { Reader } from '../store/repo.js';
import {
  POLICY_PROVIDERS, PERMISSION_PROVIDERS, TIME_KEYS, evaluate, identityFor, isPermission, policyRep, resourceRep, scopeRep, typedPolicyRep,
  type AuthzPolicy, type AuthzResource, type AuthzScope, type ResourceServerEntity,
} from '../model/authz.js';
import { noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { clientOfPath } from './locate.js';

const Any = z.record(z.string(), z.unknown());
const STRATEGIES = ['UNANIMOUS', 'AFFIRMATIVE', 'CONSENSUS'] as const;
type Strategy = (typeof STRATEGIES)[number];

const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const list = (v: unknown): unknown[] => (Array.isArray(v) ? v : typeof v === 'string' ? (() => {
  try {
    const x = JSON.parse(v);
    return Array.isArray(x) ? x : [v];
  } catch {
    return [v];
  }
})() : []);

function findByIdOrName<T extends { id: string; name: string }>(items: T[], ref: unknown): T | undefined {
  if (typeof ref === 'string') return items.find((x) => x.id === ref) ?? items.find((x) => x.name === ref);
  if (typeof ref !== 'object' || ref === null) return undefined;
  const o = ref as Record<string, unknown>;
  const id = str(o.id) ?? str(o._id);
  const name = str(o.name);
  return (id !== undefined ? items.find((x) => x.id === id) : undefined) ?? (name !== undefined ? items.find((x) => x.name === name) : undefined);
}

/** Builds a policy entity from Keycloak's typed or generic (config) representation. */
function policyFrom(r: Reader, realmId: string, rs: ResourceServerEntity, type: string, rep: Record<string, unknown>, cur?: AuthzPolicy): AuthzPolicy {
  const name = (str(rep.name) ?? cur?.name ?? '').trim();
  if (!name) throw errorMessage(400, 'Policy name is missing');
  if (rs.policies.some((p) => p.name === name && p.id !== cur?.id)) throw errorMessage(409, `Policy with name [${name}] already exists`);
  if (type === 'js') throw errorMessage(400, 'JavaScript policies are not supported by this server');
  if (![...POLICY_PROVIDERS, ...PERMISSION_PROVIDERS].some((p) => p.type === type)) throw errorMessage(400, `Unknown policy type [${type}]`);
  const cfg = (rep.config && typeof rep.config === 'object' ? rep.config : {}) as Record<string, unknown>;
  const field = (k: string) => rep[k] ?? cfg[k];
  const logic = str(rep.logic) ?? cur?.logic ?? 'POSITIVE';
  if (logic !== 'POSITIVE' && logic !== 'NEGATIVE') throw errorMessage(400, `Invalid logic ${logic}`);
  const decisionStrategy = str(rep.decisionStrategy) ?? cur?.decisionStrategy ?? 'UNANIMOUS';
  if (!STRATEGIES.includes(decisionStrategy as Strategy)) throw errorMessage(400, `Invalid decision strategy ${decisionStrategy}`);
  const ref = <T extends { id: string; name: string }>(items: T[], refs: unknown, what: string): string[] =>
    list(refs).map((x) => {
      const found = findByIdOrName(items, x);
      if (!found) throw errorMessage(400, `${what} [${typeof x === 'string' ? x : JSON.stringify(x)}] does not exist`);
      return found.id;
    });
  const p: AuthzPolicy = {
    id: cur?.id ?? (str(rep.id) && !rs.policies.some((x) => x.id === rep.id) ? (rep.id as string) : randomUUID()),
    name,
    type,
    logic,
    decisionStrategy: decisionStrategy as Strategy,
    resourceIds: field('resources') !== undefined ? ref(rs.resources, field('resources'), 'Resource') : (cur?.resourceIds ?? []),
    scopeIds: field('scopes') !== undefined ? ref(rs.scopes, field('scopes'), 'Scope') : (cur?.scopeIds ?? []),
    policyIds: (field('policies') ?? cfg.applyPolicies) !== undefined ? ref(rs.policies.filter((x) => x.id !== cur?.id), field('policies') ?? cfg.applyPolicies, 'Policy') : (cur?.policyIds ?? []),
    config: {},
  };
  const description = rep.description !== undefined ? str(rep.description) : cur?.description;
  if (description != null) p.description = description;
  const keep = (k: string) => (cur?.config[k] !== undefined ? cur.config[k] : undefined);
  switch (type) {
    case 'role': {
      const roles = field('roles') !== undefined ? list(field('roles')) : JSON.parse(keep('roles') ?? '[]');
      const out = (roles as unknown[]).map((x) => {
        const o = (typeof x === 'string' ? { id: x } : x) as { id?: string; required?: boolean };
        const id = o.id ?? '';
        let role = r.get<RoleEntity>('roles', id);
        if (!role || role.realmId !== realmId) {
          const slash = id.indexOf('/');
          role = slash > 0 ? (() => {
            const c = repo.clientByClientId(r, realmId, id.slice(0, slash));
            return c ? repo.roleByName(r, realmId, c.id, id.slice(slash + 1)) : undefined;
          })() : repo.roleByName(r, realmId, '', id);
        }
        if (!role) throw errorMessage(400, `Role with id [${id}] not found`);
        return { id: role.id, required: o.required ?? false };
      });
      if (out.length === 0) throw errorMessage(400, 'You must provide at least one role');
      p.config.roles = JSON.stringify(out);
      if (field('fetchRoles') !== undefined) p.config.fetchRoles = String(field('fetchRoles'));
      break;
    }
    case 'user': {
      const users = field('users') !== undefined ? list(field('users')) : JSON.parse(keep('users') ?? '[]');
      p.config.users = JSON.stringify((users as string[]).map((u) => {
        const found = repo.userInRealm(r, realmId, u) ?? repo.userByUsername(r, realmId, u);
        if (!found) throw errorMessage(400, `User [${u}] does not exist`);
        return found.id;
      }));
      break;
    }
    case 'client': {
      const clients = field('clients') !== undefined ? list(field('clients')) : JSON.parse(keep('clients') ?? '[]');
      p.config.clients = JSON.stringify((clients as string[]).map((c) => {
        const found = repo.clientInRealm(r, realmId, c) ?? repo.clientByClientId(r, realmId, c);
        if (!found) throw errorMessage(400, `Client [${c}] does not exist`);
        return found.id;
      }));
      break;
    }
    case 'group': {
      const groups = field('groups') !== undefined ? list(field('groups')) : JSON.parse(keep('groups') ?? '[]');
      p.config.groups = JSON.stringify((groups as Array<{ id?: string; path?: string; extendChildren?: boolean }>).map((g) => {
        const found = (g.id ? repo.groupInRealm(r, realmId, g.id) : undefined) ?? (g.path ? repo.groupByPath(r, realmId, g.path) : undefined);
        if (!found) throw errorMessage(400, `Group [${g.id ?? g.path ?? ''}] does not exist`);
        return { id: found.id, path: repo.groupPath(r, found), extendChildren: g.extendChildren ?? false };
      }));
      if (str(field('groupsClaim'))) p.config.groupsClaim = str(field('groupsClaim'))!;
      break;
    }
    case 'client-scope':
      p.config.clientScopes = JSON.stringify(list(field('clientScopes') ?? JSON.parse(keep('clientScopes') ?? '[]')));
      break;
    case 'regex':
      p.config.targetClaim = str(field('targetClaim')) ?? keep('targetClaim') ?? '';
      p.config.pattern = str(field('pattern')) ?? keep('pattern') ?? '';
      try {
        new RegExp(p.config.pattern);
      } catch {
        throw errorMessage(400, 'Invalid regular expression');
      }
      break;
    case 'time': {
      for (const k of TIME_KEYS) {
        const v = field(k) ?? keep(k);
        if (v !== undefined && v !== null && v !== '') p.config[k] = String(v);
      }
      for (const k of ['notBefore', 'notOnOrAfter']) if (p.config[k] && Number.isNaN(Date.parse(p.config[k]!.replace(' ', 'T')))) throw errorMessage(400, `Invalid date for ${k}; expected yyyy-MM-dd HH:mm:ss`);
      if (!TIME_KEYS.some((k) => p.config[k] !== undefined)) throw errorMessage(400, 'You must provide at least one time condition');
      break;
    }
    case 'resource': {
      const rt = str(field('resourceType')) ?? str(cfg.defaultResourceType) ?? keep('defaultResourceType');
      if (rt) p.config.defaultResourceType = rt;
      break;
    }
    default:
      break;
  }
  return p;
}

function resourceFrom(r: Reader, realmId: string, rs: ResourceServerEntity, rep: Record<string, unknown>, cur?: AuthzResource): { resource: AuthzResource; newScopes: AuthzScope[] } {
  const name = (str(rep.name) ?? cur?.name ?? '').trim();
  if (!name) throw errorMessage(400, 'Resource name is missing');
  const ownerRef = rep.owner;
  let ownerId = cur?.ownerId ?? rs.clientId;
  if (ownerRef !== undefined && ownerRef !== null) {
    const o = typeof ownerRef === 'string' ? { id: ownerRef, name: ownerRef } : (ownerRef as { id?: string; name?: string });
    const key = o.id ?? o.name ?? '';
    const found = repo.userInRealm(r, realmId, key) ?? repo.userByUsername(r, realmId, o.name ?? key) ?? repo.clientInRealm(r, realmId, key) ?? repo.clientByClientId(r, realmId, o.name ?? key);
    if (!found) throw errorMessage(400, `Owner [${key}] does not exist`);
    ownerId = found.id;
  }
  if (rs.resources.some((x) => x.name === name && x.ownerId === ownerId && x.id !== cur?.id)) throw errorMessage(409, `Resource with name [${name}] already exists.`);
  const newScopes: AuthzScope[] = [];
  const scopeIds = rep.scopes !== undefined ? list(rep.scopes).map((s) => {
    const found = findByIdOrName([...rs.scopes, ...newScopes], s);
    if (found) return found.id;
    const sname = typeof s === 'string' ? s : str((s as Record<string, unknown>).name);
    if (!sname) throw errorMessage(400, 'Scope name is missing');
    const made = { id: randomUUID(), name: sname };
    newScopes.push(made);
    return made.id;
  }) : (cur?.scopeIds ?? []);
  const uris = rep.uris !== undefined ? (list(rep.uris) as string[]) : rep.uri !== undefined ? [String(rep.uri)] : (cur?.uris ?? []);
  const attributes = rep.attributes && typeof rep.attributes === 'object' ? Object.fromEntries(Object.entries(rep.attributes as Record<string, unknown>).map(([k, v]) => [k, list(v).map(String)])) : (cur?.attributes ?? {});
  const resource: AuthzResource = {
    id: cur?.id ?? (str(rep._id) && !rs.resources.some((x) => x.id === rep._id) ? (rep._id as string) : randomUUID()),
    name, uris, ownerId, ownerManagedAccess: rep.ownerManagedAccess === undefined ? (cur?.ownerManagedAccess ?? false) : rep.ownerManagedAccess === true, attributes, scopeIds: [...new Set(scopeIds)],
  };
  const displayName = rep.displayName !== undefined ? str(rep.displayName) : cur?.displayName;
  if (displayName != null) resource.displayName = displayName;
  const type = rep.type !== undefined ? str(rep.type) : cur?.type;
  if (type != null && type !== '') resource.type = type;
  const icon = rep.icon_uri !== undefined ? str(rep.icon_uri) : cur?.iconUri;
  if (icon != null) resource.iconUri = icon;
  return { resource, newScopes };
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  const P = '/clients/:clientUuid/authz/resource-server';
  const canView = (ctx: AdminContext) => ctx.auth.has('view-authorization', 'manage-authorization', 'view-clients', 'manage-clients');
  const view = (ctx: AdminContext) => {
    if (!canView(ctx)) throw ERR.forbidden();
  };
  const manage = (ctx: AdminContext) => {
    if (!ctx.auth.has('manage-authorization', 'manage-clients')) throw ERR.forbidden();
  };
  const locate = (ctx: AdminContext): { client: ClientEntity; rs: ResourceServerEntity } => {
    const client = clientOfPath(store, ctx);
    const rs = store.get<ResourceServerEntity>('resourceServers', client.id);
    if (!rs) throw ERR.notFound('Resource server not found');
    return { client, rs };
  };
  /** One write replacing the resource server with fn's result. */
  const change = <T>(ctx: AdminContext, fn: (rs: ResourceServerEntity, ev: import('./context.js').AdminEventBuilder) => { next: ResourceServerEntity; result: T }) =>
    ctx.write((tx, ev) => {
      const id = ctx.param('clientUuid');
      const cur = tx.get<ResourceServerEntity>('resourceServers', id);
      if (!cur) throw ERR.notFound('Resource server not found');
      const { next, result } = fn(cur, ev);
      tx.put('resourceServers', id, next);
      return result;
    });
  const settingsRep = (client: ClientEntity, rs: ResourceServerEntity) => ({
    id: rs.id, clientId: client.id, name: client.clientId, allowRemoteResourceManagement: rs.allowRemoteResourceManagement,
    policyEnforcementMode: rs.policyEnforcementMode, decisionStrategy: rs.decisionStrategy,
  });

  // ── settings, export, import ──
  r.realm('GET', P, (ctx) => {
    view(ctx);
    const { client, rs } = locate(ctx);
    return ok(settingsRep(client, rs));
  });
  const Settings = z.object({
    allowRemoteResourceManagement: z.boolean().nullish(),
    policyEnforcementMode: z.enum(['ENFORCING', 'PERMISSIVE', 'DISABLED']).nullish(),
    decisionStrategy: z.enum(STRATEGIES).nullish(),
  });
  r.realm('PUT', P, async (ctx) => {
    manage(ctx);
    locate(ctx);
    const rep = ctx.body(Settings);
    await change(ctx, (rs, ev) => {
      ev.update('AUTHORIZATION_RESOURCE_SERVER', ctx.here(), rep);
      return {
        next: {
          ...rs,
          ...(rep.allowRemoteResourceManagement != null ? { allowRemoteResourceManagement: rep.allowRemoteResourceManagement } : {}),
          ...(rep.policyEnforcementMode != null ? { policyEnforcementMode: rep.policyEnforcementMode } : {}),
          ...(rep.decisionStrategy != null ? { decisionStrategy: rep.decisionStrategy } : {}),
        },
        result: undefined,
      };
    });
    return noContent();
  });
  r.realm('GET', `${P}/settings`, (ctx) => {
    view(ctx);
    const { client, rs } = locate(ctx);
    const names = <T extends { id: string; name: string }>(items: T[], ids: string[]) => JSON.stringify(ids.map((id) => items.find((x) => x.id === id)?.name).filter(Boolean));
    return ok({
      ...settingsRep(client, rs),
      resources: rs.resources.map((x) => resourceRep(store, rs, x)),
      policies: rs.policies.map((p) => {
        const rep = policyRep(p) as { config: Record<string, string> };
        if (p.resourceIds.length) rep.config.resources = names(rs.resources, p.resourceIds);
        if (p.scopeIds.length) rep.config.scopes = names(rs.scopes, p.scopeIds);
        if (p.policyIds.length) rep.config.applyPolicies = names(rs.policies, p.policyIds);
        const { id: _id, ...rest } = rep as Record<string, unknown>;
        void _id;
        return rest;
      }),
      scopes: rs.scopes.map(scopeRep),
    });
  });
  r.realm('POST', `${P}/import`, async (ctx) => {
    manage(ctx);
    locate(ctx);
    const rep = ctx.body(Any);
    await change(ctx, (rs0, ev) => {
      let rs: ResourceServerEntity = { ...rs0, resources: [...rs0.resources], scopes: [...rs0.scopes], policies: [...rs0.policies] };
      const s = Settings.safeParse(rep);
      if (s.success) rs = { ...rs, ...Object.fromEntries(Object.entries(s.data).filter(([, v]) => v != null)) };
      for (const sc of list(rep.scopes) as Array<Record<string, unknown>>) {
        const name = str(sc.name);
        if (name && !rs.scopes.some((x) => x.name === name)) rs.scopes.push({ id: randomUUID(), name, ...(str(sc.displayName) ? { displayName: str(sc.displayName)! } : {}) });
      }
      for (const res of list(rep.resources) as Array<Record<string, unknown>>) {
        const existing = rs.resources.find((x) => x.name === res.name);
        const { resource, newScopes } = resourceFrom(store, ctx.realm.id, rs, { ...res, _id: undefined }, existing);
        rs.scopes.push(...newScopes);
        rs.resources = existing ? rs.resources.map((x) => (x.id === existing.id ? resource : x)) : [...rs.resources, resource];
      }
      // Policies may refer to ones later in the list: non-permissions first, then permissions.
      const policies = list(rep.policies) as Array<Record<string, unknown>>;
      for (const pass of [false, true]) {
        for (const pr of policies) {
          const type = str(pr.type) ?? '';
          if ((type === 'resource' || type === 'scope') !== pass) continue;
          const existing = rs.policies.find((x) => x.name === pr.name);
          const p = policyFrom(store, ctx.realm.id, rs, type, { ...pr, id: undefined }, existing);
          rs.policies = existing ? rs.policies.map((x) => (x.id === existing.id ? p : x)) : [...rs.policies, p];
        }
      }
      ev.update('AUTHORIZATION_RESOURCE_SERVER', ctx.here(), { resources: list(rep.resources).length, scopes: list(rep.scopes).length, policies: policies.length });
      return { next: rs, result: undefined };
    });
    return noContent();
  });

  // ── scopes ──
  const scopeList = (ctx: AdminContext, rs: ResourceServerEntity) => {
    const name = ctx.query('name')?.toLowerCase();
    return rs.scopes.filter((s) => !name || s.name.toLowerCase().includes(name));
  };
  r.realm('GET', `${P}/scope`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    return ok(page(scopeList(ctx, rs), ctx.queryInt('first', 0), ctx.queryInt('max', -1)).map(scopeRep));
  });
  r.realm('GET', `${P}/scope/search`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const s = rs.scopes.find((x) => x.name === ctx.query('name'));
    return s ? ok(scopeRep(s)) : noContent();
  });
  const ScopeRep = z.object({ id: z.string().nullish(), name: z.string().nullish(), displayName: z.string().nullish(), iconUri: z.string().nullish() });
  r.realm('POST', `${P}/scope`, async (ctx) => {
    manage(ctx);
    locate(ctx);
    const rep = ctx.body(ScopeRep);
    const s = await change(ctx, (rs, ev) => {
      const name = rep.name?.trim();
      if (!name) throw errorMessage(400, 'Scope name is missing');
      if (rs.scopes.some((x) => x.name === name)) throw errorMessage(409, `Scope with name [${name}] already exists.`);
      const scope: AuthzScope = { id: randomUUID(), name, ...(rep.displayName ? { displayName: rep.displayName } : {}), ...(rep.iconUri ? { iconUri: rep.iconUri } : {}) };
      ev.create('AUTHORIZATION_SCOPE', ctx.here(scope.id), scopeRep(scope));
      return { next: { ...rs, scopes: [...rs.scopes, scope] }, result: scope };
    });
    return ctx.created(s.id, scopeRep(s));
  });
  const mustScope = (rs: ResourceServerEntity, id: string) => {
    const s = rs.scopes.find((x) => x.id === id);
    if (!s) throw ERR.notFound('Scope not found');
    return s;
  };
  r.realm('GET', `${P}/scope/:scopeId`, (ctx) => (view(ctx), ok(scopeRep(mustScope(locate(ctx).rs, ctx.param('scopeId'))))));
  r.realm('PUT', `${P}/scope/:scopeId`, async (ctx) => {
    manage(ctx);
    const s = mustScope(locate(ctx).rs, ctx.param('scopeId'));
    const rep = ctx.body(ScopeRep);
    await change(ctx, (rs, ev) => {
      const name = rep.name?.trim() || s.name;
      if (rs.scopes.some((x) => x.name === name && x.id !== s.id)) throw errorMessage(409, `Scope with name [${name}] already exists.`);
      const next: AuthzScope = { id: s.id, name, ...(rep.displayName != null ? { displayName: rep.displayName } : {}), ...(rep.iconUri != null ? { iconUri: rep.iconUri } : {}) };
      ev.update('AUTHORIZATION_SCOPE', ctx.here(), scopeRep(next));
      return { next: { ...rs, scopes: rs.scopes.map((x) => (x.id === s.id ? next : x)) }, result: undefined };
    });
    return noContent();
  });
  r.realm('DELETE', `${P}/scope/:scopeId`, async (ctx) => {
    manage(ctx);
    const s = mustScope(locate(ctx).rs, ctx.param('scopeId'));
    await change(ctx, (rs, ev) => {
      ev.delete('AUTHORIZATION_SCOPE', ctx.here());
      return {
        next: {
          ...rs,
          scopes: rs.scopes.filter((x) => x.id !== s.id),
          resources: rs.resources.map((x) => ({ ...x, scopeIds: x.scopeIds.filter((i) => i !== s.id) })),
          // A scope permission left without scopes goes too (Keycloak).
          policies: rs.policies.filter((p) => !(p.type === 'scope' && p.scopeIds.length === 1 && p.scopeIds[0] === s.id)).map((p) => ({ ...p, scopeIds: p.scopeIds.filter((i) => i !== s.id) })),
        },
        result: undefined,
      };
    });
    return noContent();
  });
  r.realm('GET', `${P}/scope/:scopeId/resources`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const s = mustScope(rs, ctx.param('scopeId'));
    return ok(rs.resources.filter((x) => x.scopeIds.includes(s.id)).map((x) => ({ _id: x.id, name: x.name })));
  });
  r.realm('GET', `${P}/scope/:scopeId/permissions`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const s = mustScope(rs, ctx.param('scopeId'));
    return ok(rs.policies.filter((p) => isPermission(p) && p.scopeIds.includes(s.id)).map(policyRep));
  });

  // ── resources ──
  r.realm('GET', `${P}/resource`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const q = (n: string) => ctx.query(n)?.toLowerCase();
    const exact = ctx.queryBool('exactName', false);
    const name = q('name');
    const deep = ctx.queryBool('deep', true);
    const scope = q('scope');
    let items = rs.resources.filter((x) =>
      (!name || (exact ? x.name.toLowerCase() === name : x.name.toLowerCase().includes(name))) &&
      (!q('type') || (x.type ?? '').toLowerCase().includes(q('type')!)) &&
      (!q('uri') || x.uris.some((u) => u.toLowerCase().includes(q('uri')!))) &&
      (!q('owner') || x.ownerId === ctx.query('owner') || (store.get<UserEntity>('users', x.ownerId)?.username ?? store.get<ClientEntity>('clients', x.ownerId)?.clientId) === ctx.query('owner')) &&
      (!scope || x.scopeIds.some((id) => rs.scopes.find((s) => s.id === id)?.name.toLowerCase().includes(scope))));
    items = page(items, ctx.queryInt('first', 0), ctx.queryInt('max', -1));
    return ok(items.map((x) => (deep ? resourceRep(store, rs, x) : { _id: x.id, name: x.name })));
  });
  r.realm('GET', `${P}/resource/search`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const x = rs.resources.find((y) => y.name === ctx.query('name'));
    return x ? ok(resourceRep(store, rs, x)) : noContent();
  });
  r.realm('POST', `${P}/resource`, async (ctx) => {
    manage(ctx);
    locate(ctx);
    const rep = ctx.body(Any);
    const made = await change(ctx, (rs, ev) => {
      const { resource, newScopes } = resourceFrom(store, ctx.realm.id, rs, rep);
      const next = { ...rs, scopes: [...rs.scopes, ...newScopes], resources: [...rs.resources, resource] };
      const out = resourceRep(store, next, resource);
      ev.create('AUTHORIZATION_RESOURCE', ctx.here(resource.id), out);
      return { next, result: out };
    });
    return ctx.created(made._id as string, made);
  });
  const mustResource = (rs: ResourceServerEntity, id: string) => {
    const x = rs.resources.find((y) => y.id === id) ?? rs.resources.find((y) => y.name === id);
    if (!x) throw ERR.notFound('Resource not found');
    return x;
  };
  r.realm('GET', `${P}/resource/:resourceId`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    return ok(resourceRep(store, rs, mustResource(rs, ctx.param('resourceId'))));
  });
  r.realm('PUT', `${P}/resource/:resourceId`, async (ctx) => {
    manage(ctx);
    const cur = mustResource(locate(ctx).rs, ctx.param('resourceId'));
    const rep = ctx.body(Any);
    await change(ctx, (rs, ev) => {
      const { resource, newScopes } = resourceFrom(store, ctx.realm.id, rs, rep, cur);
      const next = { ...rs, scopes: [...rs.scopes, ...newScopes], resources: rs.resources.map((x) => (x.id === cur.id ? resource : x)) };
      ev.update('AUTHORIZATION_RESOURCE', ctx.here(), resourceRep(store, next, resource));
      return { next, result: undefined };
    });
    return noContent();
  });
  r.realm('DELETE', `${P}/resource/:resourceId`, async (ctx) => {
    manage(ctx);
    const cur = mustResource(locate(ctx).rs, ctx.param('resourceId'));
    await change(ctx, (rs, ev) => {
      ev.delete('AUTHORIZATION_RESOURCE', ctx.here());
      const policies = rs.policies
        .filter((p) => !(p.type === 'resource' && p.resourceIds.length === 1 && p.resourceIds[0] === cur.id && !p.config.defaultResourceType))
        .map((p) => ({ ...p, resourceIds: p.resourceIds.filter((i) => i !== cur.id) }));
      return { next: { ...rs, resources: rs.resources.filter((x) => x.id !== cur.id), policies }, result: undefined };
    });
    return noContent();
  });
  r.realm('GET', `${P}/resource/:resourceId/scopes`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const x = mustResource(rs, ctx.param('resourceId'));
    return ok(x.scopeIds.map((id) => rs.scopes.find((s) => s.id === id)).filter((s): s is AuthzScope => !!s).map(scopeRep));
  });
  r.realm('GET', `${P}/resource/:resourceId/permissions`, (ctx) => {
    view(ctx);
    const { rs } = locate(ctx);
    const x = mustResource(rs, ctx.param('resourceId'));
    return ok(rs.policies.filter((p) => isPermission(p) && (p.resourceIds.includes(x.id) || (!!x.type && p.config.defaultResourceType === x.type))).map(policyRep));
  });
  r.realm('GET', `${P}/resource/:resourceId/attributes`, (ctx) => {
    view(ctx);
    return ok(mustResource(locate(ctx).rs, ctx.param('resourceId')).attributes);
  });

  // ── policies and permissions (the same store; permissions are resource/scope policies) ──
  for (const kind of ['policy', 'permission'] as const) {
    const B = `${P}/${kind}`;
    const inKind = (p: AuthzPolicy) => (kind === 'permission' ? isPermission(p) : true);
    const resourceType = (kind === 'permission' ? 'AUTHORIZATION_POLICY' : 'AUTHORIZATION_POLICY');
    r.realm('GET', B, (ctx) => {
      view(ctx);
      const { rs } = locate(ctx);
      const q = (n: string) => ctx.query(n);
      const name = q('name')?.toLowerCase();
      const permission = q('permission');
      const res = q('resource');
      const scope = q('scope');
      let items = rs.policies.filter((p) => inKind(p) &&
        (!name || p.name.toLowerCase().includes(name)) &&
        (!q('type') || p.type === q('type')) &&
        (!q('policyId') || p.policyIds.includes(q('policyId')!)) &&
        (permission === undefined || permission === '' || isPermission(p) === (permission === 'true')) &&
        (!res || p.resourceIds.some((id) => id === res || rs.resources.find((x) => x.id === id)?.name.toLowerCase().includes(res.toLowerCase()))) &&
        (!scope || p.scopeIds.some((id) => id === scope || rs.scopes.find((x) => x.id === id)?.name.toLowerCase().includes(scope.toLowerCase()))));
      items = page(items, ctx.queryInt('first', 0), ctx.queryInt('max', -1));
      return ok(items.map(policyRep));
    });
    r.realm('GET', `${B}/search`, (ctx) => {
      view(ctx);
      const { rs } = locate(ctx);
      const name = ctx.query('name');
      if (!name) throw errorMessage(400, 'Query parameter name is missing');
      const p = rs.policies.find((x) => x.name === name && inKind(x));
      return p ? ok(policyRep(p)) : noContent();
    });
    r.realm('GET', `${B}/providers`, (ctx) => (view(ctx), locate(ctx), ok(kind === 'permission' ? PERMISSION_PROVIDERS : [...POLICY_PROVIDERS, ...PERMISSION_PROVIDERS])));
    r.realm('POST', `${B}/evaluate`, (ctx) => (view(ctx), evaluateRoute(ctx)));
    const create = async (ctx: AdminContext, type: string) => {
      manage(ctx);
      locate(ctx);
      if (kind === 'permission' && type !== 'resource' && type !== 'scope') throw errorMessage(400, `Unknown permission type [${type}]`);
      const rep = ctx.body(Any);
      const p = await change(ctx, (rs, ev) => {
        const made = policyFrom(store, ctx.realm.id, rs, type, rep);
        ev.create(resourceType, ctx.here(made.id), typedPolicyRep(made));
        return { next: { ...rs, policies: [...rs.policies, made] }, result: made };
      });
      return ctx.created(p.id, { ...typedPolicyRep(p), ...(p.policyIds.length ? { policies: p.policyIds } : {}) });
    };
    r.realm('POST', `${B}/:type`, (ctx) => create(ctx, ctx.param('type')));
    // The generic form: the type is in the body.
    r.realm('POST', B, (ctx) => {
      manage(ctx);
      const type = (ctx.json() as { type?: unknown } | undefined)?.type;
      if (typeof type !== 'string' || !type) throw errorMessage(400, 'Policy type is missing');
      return create(ctx, type);
    });
    const mustPolicy = (rs: ResourceServerEntity, id: string, type?: string) => {
      const p = rs.policies.find((x) => x.id === id && inKind(x) && (type === undefined || x.type === type));
      if (!p) throw ERR.notFound(kind === 'permission' ? 'Permission not found' : 'Policy not found');
      return p;
    };
    r.realm('GET', `${B}/:type/:id`, (ctx) => {
      view(ctx);
      return ok(typedPolicyRep(mustPolicy(locate(ctx).rs, ctx.param('id'), ctx.param('type'))));
    });
    r.realm('PUT', `${B}/:type/:id`, async (ctx) => {
      manage(ctx);
      const cur = mustPolicy(locate(ctx).rs, ctx.param('id'), ctx.param('type'));
      const rep = ctx.body(Any);
      await change(ctx, (rs, ev) => {
        const next = policyFrom(store, ctx.realm.id, rs, cur.type, rep, cur);
        ev.update(resourceType, ctx.here(), typedPolicyRep(next));
        return { next: { ...rs, policies: rs.policies.map((x) => (x.id === cur.id ? next : x)) }, result: undefined };
      });
      return noContent();
    });
    const del = async (ctx: AdminContext) => {
      manage(ctx);
      const cur = mustPolicy(locate(ctx).rs, ctx.param('id'));
      await change(ctx, (rs, ev) => {
        ev.delete(resourceType, ctx.here());
        return { next: { ...rs, policies: rs.policies.filter((x) => x.id !== cur.id).map((x) => ({ ...x, policyIds: x.policyIds.filter((i) => i !== cur.id) })) }, result: undefined };
      });
      return noContent();
    };
    r.realm('DELETE', `${B}/:type/:id`, del);
    r.realm('DELETE', `${B}/:id`, del);
    r.realm('GET', `${B}/:id`, (ctx) => (view(ctx), ok(policyRep(mustPolicy(locate(ctx).rs, ctx.param('id'))))));
    r.realm('GET', `${B}/:id/dependentPolicies`, (ctx) => {
      view(ctx);
      const { rs } = locate(ctx);
      const p = mustPolicy(rs, ctx.param('id'));
      return ok(rs.policies.filter((x) => x.policyIds.includes(p.id)).map((x) => ({ id: x.id, name: x.name, type: x.type, ...(x.description ? { description: x.description } : {}) })));
    });
    r.realm('GET', `${B}/:id/associatedPolicies`, (ctx) => {
      view(ctx);
      const { rs } = locate(ctx);
      const p = mustPolicy(rs, ctx.param('id'));
      return ok(p.policyIds.map((id) => rs.policies.find((x) => x.id === id)).filter((x): x is AuthzPolicy => !!x).map(policyRep));
    });
    r.realm('GET', `${B}/:id/resources`, (ctx) => {
      view(ctx);
      const { rs } = locate(ctx);
      const p = mustPolicy(rs, ctx.param('id'));
      return ok(p.resourceIds.map((id) => rs.resources.find((x) => x.id === id)).filter((x): x is AuthzResource => !!x).map((x) => ({ _id: x.id, name: x.name })));
    });
    r.realm('GET', `${B}/:id/scopes`, (ctx) => {
      view(ctx);
      const { rs } = locate(ctx);
      const p = mustPolicy(rs, ctx.param('id'));
      return ok(p.scopeIds.map((id) => rs.scopes.find((x) => x.id === id)).filter((x): x is AuthzScope => !!x).map(scopeRep));
    });
  }

  // ── evaluation ──
  const EvalRequest = z.object({
    context: z.record(z.string(), z.unknown()).nullish(),
    resources: z.array(z.record(z.string(), z.unknown())).nullish(),
    resourceType: z.string().nullish(),
    clientId: z.string().nullish(),
    userId: z.string().nullish(),
    roleIds: z.array(z.string()).nullish(),
    entitlements: z.boolean().nullish(),
  });
  function evaluateRoute(ctx: AdminContext) {
    const { rs } = locate(ctx);
    const req = ctx.body(EvalRequest);
    const user = req.userId ? repo.userInRealm(store, ctx.realm.id, req.userId) ?? repo.userByUsername(store, ctx.realm.id, req.userId) : undefined;
    if (req.userId && !user) throw errorMessage(400, `User [${req.userId}] does not exist`);
    const client = req.clientId ? repo.clientInRealm(store, ctx.realm.id, req.clientId) ?? repo.clientByClientId(store, ctx.realm.id, req.clientId) : undefined;
    if (req.clientId && !client) throw errorMessage(400, `Client [${req.clientId}] does not exist`);
    const roleIds = (req.roleIds ?? []).map((x) => (store.get<RoleEntity>('roles', x) ?? repo.roleByName(store, ctx.realm.id, '', x))?.id).filter((x): x is string => !!x);
    const identity = identityFor(store, user, roleIds, client?.id);
    const requested: Array<{ resource: AuthzResource; scopes: AuthzScope[] }> = [];
    const reqs = req.resources ?? [];
    if (reqs.length === 0 || reqs.every((x) => !x._id && !x.name)) {
      const scopeNames = reqs.flatMap((x) => list(x.scopes).map((s) => (typeof s === 'string' ? s : str((s as Record<string, unknown>).name)))).filter(Boolean);
      for (const res of rs.resources) requested.push({ resource: res, scopes: scopeNames.length ? res.scopeIds.map((id) => rs.scopes.find((s) => s.id === id)!).filter((s) => s && scopeNames.includes(s.name)) : [] });
    } else {
      for (const x of reqs) {
        const res = findByIdOrName(rs.resources, x._id ?? x.name);
        if (!res) throw errorMessage(400, `Resource [${String(x._id ?? x.name)}] does not exist`);
        const scopes = list(x.scopes).map((s) => findByIdOrName(rs.scopes, s)).filter((s): s is AuthzScope => !!s);
        requested.push({ resource: res, scopes });
      }
    }
    const results = evaluate(store, rs, identity, requested);
    const policyResultRep = (pr: import('../model/authz.js').PolicyResult): Record<string, unknown> => ({
      policy: { ...policyRep(pr.policy), resources: pr.policy.resourceIds.map((id) => rs.resources.find((x) => x.id === id)?.name).filter(Boolean), scopes: pr.policy.scopeIds.map((id) => rs.scopes.find((x) => x.id === id)?.name).filter(Boolean) },
      status: pr.status,
      associatedPolicies: pr.associated.map(policyResultRep),
      scopes: pr.policy.scopeIds.map((id) => rs.scopes.find((x) => x.id === id)?.name).filter(Boolean),
    });
    const out = results.map((x) => ({
      resource: { _id: x.resource.id, name: x.resource.name },
      scopes: [...x.allowedScopes, ...x.deniedScopes].map(scopeRep),
      policies: x.policies.map(policyResultRep),
      status: x.status,
      allowedScopes: x.allowedScopes.map(scopeRep),
      deniedScopes: x.deniedScopes.map(scopeRep),
    }));
    const status = out.some((x) => x.status === 'PERMIT') ? 'PERMIT' : 'DENY';
    const granted = results.filter((x) => x.status === 'PERMIT');
    return ok({
      results: out,
      entitlements: req.entitlements ?? false,
      status,
      rpt: { authorization: { permissions: granted.map((x) => ({ rsid: x.resource.id, rsname: x.resource.name, ...(x.allowedScopes.length ? { scopes: x.allowedScopes.map((s) => s.name) } : {}) })) } },
    });
  }
  void ({} as GroupEntity);
}
