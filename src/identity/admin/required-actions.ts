// /admin/realms/{realm}/authentication: required actions (list, get, update, delete, register,
// unregistered, raise/lower priority, config and config description). They live on the realm
// entity; each change is one realm write with one REQUIRED_ACTION(_CONFIG) admin event.
import { z } from 'zod';
import { ERR, errorBody, errorMessage } from '../errors.js';
import type { RealmEntity, RequiredActionEntity } from '../store/entities.js';
import { MAX_AUTH_AGE, REQUIRED_ACTION_PROVIDERS } from '../model/authenticators.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';

const RequiredActionRepresentation = z.object({
  alias: z.string().nullish(),
  name: z.string().nullish(),
  providerId: z.string().nullish(),
  enabled: z.boolean().nullish(),
  defaultAction: z.boolean().nullish(),
  priority: z.number().int().nullish(),
  config: z.record(z.string(), z.string().nullable()).nullish(),
});
const RegisterRequiredAction = z.object({ providerId: z.string().nullish(), name: z.string().nullish() });
const RequiredActionConfig = z.object({ config: z.record(z.string(), z.string().nullable()).nullish() });

const sorted = (r: RealmEntity) => [...r._requiredActions].sort((a, b) => a.priority - b.priority || a.alias.localeCompare(b.alias));
const configurable = (providerId: string) => REQUIRED_ACTION_PROVIDERS.some(([id, , c]) => id === providerId && c);

export function requiredActionRep(a: RequiredActionEntity): Record<string, unknown> {
  return { alias: a.alias, name: a.name, providerId: a.providerId, enabled: a.enabled, defaultAction: a.defaultAction, priority: a.priority, config: a.config };
}

const clean = (m: Record<string, string | null> | null | undefined): Record<string, string> =>
  Object.fromEntries(Object.entries(m ?? {}).filter((e): e is [string, string] => e[1] != null));

export function register(r: AdminRoutes): void {
  const A = '/authentication';
  const view = (ctx: AdminContext) => ctx.auth.realm.requireView();
  const manage = (ctx: AdminContext) => ctx.auth.realm.requireManage();
  const must = (realm: RealmEntity, alias: string) => {
    const a = realm._requiredActions.find((x) => x.alias === alias);
    if (!a) throw ERR.notFound('Failed to find required action');
    return a;
  };
  const replace = (cur: RealmEntity, alias: string, f: (a: RequiredActionEntity) => RequiredActionEntity): RealmEntity => ({
    ...cur,
    _requiredActions: cur._requiredActions.map((a) => (a.alias === alias ? f(a) : a)),
  });

  r.realm('GET', `${A}/required-actions`, (ctx) => (view(ctx), ok(sorted(ctx.realm).map(requiredActionRep))));
  r.realm('GET', `${A}/required-actions/:alias`, (ctx) => (view(ctx), ok(requiredActionRep(must(ctx.realm, ctx.param('alias'))))));
  r.realm('PUT', `${A}/required-actions/:alias`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(RequiredActionRepresentation);
    const a = must(ctx.realm, ctx.param('alias'));
    await ctx.updateRealm((cur, ev) => {
      ev.update('REQUIRED_ACTION', ctx.here(), rep);
      return {
        next: replace(cur, a.alias, (x) => ({
          ...x,
          ...(rep.name != null ? { name: rep.name } : {}),
          ...(rep.enabled != null ? { enabled: rep.enabled } : {}),
          ...(rep.defaultAction != null ? { defaultAction: rep.defaultAction } : {}),
          ...(rep.priority != null ? { priority: rep.priority } : {}),
          ...(rep.config != null ? { config: clean(rep.config) } : {}),
        })),
      };
    });
    return noContent();
  });
  r.realm('DELETE', `${A}/required-actions/:alias`, async (ctx) => {
    manage(ctx);
    const a = must(ctx.realm, ctx.param('alias'));
    await ctx.updateRealm((cur, ev) => {
      ev.delete('REQUIRED_ACTION', ctx.here());
      return { next: { ...cur, _requiredActions: cur._requiredActions.filter((x) => x.alias !== a.alias) } };
    });
    return noContent();
  });
  r.realm('GET', `${A}/unregistered-required-actions`, (ctx) => {
    view(ctx);
    const have = new Set(ctx.realm._requiredActions.map((a) => a.providerId));
    return ok(REQUIRED_ACTION_PROVIDERS.filter(([id]) => !have.has(id)).map(([providerId, name]) => ({ providerId, name })));
  });
  r.realm('POST', `${A}/register-required-action`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(RegisterRequiredAction);
    const def = REQUIRED_ACTION_PROVIDERS.find(([id]) => id === rep.providerId);
    if (!rep.providerId || !def) throw errorBody(400, `No provider found for providerId: ${rep.providerId ?? ''}`);
    if (ctx.realm._requiredActions.some((a) => a.alias === rep.providerId)) throw ERR.conflict(`Required action ${rep.providerId} already registered`);
    await ctx.updateRealm((cur, ev) => {
      const last = sorted(cur).at(-1)?.priority ?? 0;
      const action: RequiredActionEntity = { alias: def[0], name: rep.name ?? def[1], providerId: def[0], enabled: true, defaultAction: false, priority: last + 10, config: {} };
      ev.create('REQUIRED_ACTION', ctx.here(), rep);
      return { next: { ...cur, _requiredActions: [...cur._requiredActions, action] } };
    });
    return noContent();
  });
  for (const dir of ['raise', 'lower'] as const) {
    r.realm('POST', `${A}/required-actions/:alias/${dir}-priority`, async (ctx) => {
      manage(ctx);
      const a = must(ctx.realm, ctx.param('alias'));
      const list = sorted(ctx.realm);
      const i = list.findIndex((x) => x.alias === a.alias);
      const j = dir === 'raise' ? i - 1 : i + 1;
      if (j < 0 || j >= list.length) return noContent();
      const other = list[j]!;
      await ctx.updateRealm((cur, ev) => {
        ev.update('REQUIRED_ACTION', ctx.here());
        return {
          next: {
            ...cur,
            _requiredActions: cur._requiredActions.map((x) => (x.alias === a.alias ? { ...x, priority: other.priority } : x.alias === other.alias ? { ...x, priority: a.priority } : x)),
          },
        };
      });
      return noContent();
    });
  }

  // ── configuration ──
  const mustConfigurable = (ctx: AdminContext) => {
    const a = must(ctx.realm, ctx.param('alias'));
    if (!configurable(a.providerId)) throw errorMessage(400, `Required action '${a.alias}' does not support configuration`);
    return a;
  };
  r.realm('GET', `${A}/required-actions/:alias/config-description`, (ctx) => {
    view(ctx);
    mustConfigurable(ctx);
    return ok({ properties: [MAX_AUTH_AGE] });
  });
  r.realm('GET', `${A}/required-actions/:alias/config`, (ctx) => {
    view(ctx);
    return ok({ config: mustConfigurable(ctx).config });
  });
  r.realm('PUT', `${A}/required-actions/:alias/config`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(RequiredActionConfig);
    const a = mustConfigurable(ctx);
    const config = clean(rep.config);
    const age = config.max_auth_age;
    if (age !== undefined && !/^\d+$/.test(age)) throw errorMessage(400, 'Invalid value for max_auth_age', { field: 'max_auth_age' });
    await ctx.updateRealm((cur, ev) => {
      ev.update('REQUIRED_ACTION_CONFIG', ctx.here(), rep);
      return { next: replace(cur, a.alias, (x) => ({ ...x, config })) };
    });
    return noContent();
  });
  r.realm('DELETE', `${A}/required-actions/:alias/config`, async (ctx) => {
    manage(ctx);
    const a = mustConfigurable(ctx);
    await ctx.updateRealm((cur, ev) => {
      ev.delete('REQUIRED_ACTION_CONFIG', ctx.here());
      return { next: replace(cur, a.alias, (x) => ({ ...x, config: {} })) };
    });
    return noContent();
  });
}
