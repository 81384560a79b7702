// Events: admin events read from the write-ahead log (filtered like Keycloak's AdminEventQuery),
// user events recorded by the token endpoint, and the realm's events configuration.
import { ERR } from '../errors.js';
import { RealmEventsConfigRepresentation } from '../model/schemas.js';
import type { RealmEntity } from '../store/entities.js';
import type { LogRecord } from '../store/store.js';
import { current, noContent, ok, type AdminContext, type AdminRoutes } from './context.js';

function parseDate(v: string | undefined, end: boolean): number | undefined {
  if (!v) return undefined;
  if (/^\d+$/.test(v)) return Number(v);
  const t = Date.parse(`${v}T00:00:00.000Z`);
  if (Number.isNaN(t)) throw ERR.badRequest('Invalid value for \'Date(From|To)\', expected format is yyyy-MM-dd');
  return end ? t + 86_400_000 - 1 : t;
}

export function adminEventRep(realmId: string, rec: LogRecord): Record<string, unknown> {
  const rep: Record<string, unknown> = {
    id: rec.id,
    time: rec.time,
    realmId,
    authDetails: rec.authDetails ?? {},
    operationType: rec.operationType,
    resourceType: rec.resourceType,
    resourcePath: rec.resourcePath,
  };
  if (rec.details && rec.representation !== undefined) rep.representation = rec.representation;
  return rep;
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;

  r.realm('GET', '/events/config', (ctx) => {
    ctx.auth.events.requireView();
    const x = ctx.realm;
    return ok({
      eventsEnabled: x.eventsEnabled ?? false,
      ...(x.eventsExpiration != null ? { eventsExpiration: x.eventsExpiration } : {}),
      eventsListeners: x.eventsListeners ?? [],
      enabledEventTypes: x.enabledEventTypes ?? [],
      adminEventsEnabled: x.adminEventsEnabled,
      adminEventsDetailsEnabled: x.adminEventsDetailsEnabled,
    });
  });
  r.realm('PUT', '/events/config', async (ctx) => {
    ctx.auth.events.requireManage();
    const rep = ctx.body(RealmEventsConfigRepresentation);
    await ctx.write((tx, ev) => {
      const cur = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      const next: RealmEntity = { ...cur };
      for (const [k, v] of Object.entries(rep)) if (v !== undefined && v !== null) next[k] = v;
      tx.put('realms', cur.id, next);
      ev.update('REALM', 'events/config', rep);
    });
    return noContent();
  });

  r.realm('GET', '/admin-events', (ctx) => {
    ctx.auth.events.requireView();
    const q = (n: string) => ctx.query(n);
    const all = (n: string) => ctx.req.query.getAll(n).flatMap((v) => v.split(',')).filter(Boolean);
    const ops = new Set(all('operationTypes'));
    const types = new Set(all('resourceTypes'));
    const from = parseDate(q('dateFrom'), false);
    const to = parseDate(q('dateTo'), true);
    const pathPattern = q('resourcePath');
    const pathRe = pathPattern ? new RegExp('^' + pathPattern.split('*').map((s) => s.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$') : undefined;
    const asc = q('direction') === 'asc';
    const first = Math.max(0, ctx.queryInt('first', 0));
    const max = ctx.queryInt('max', 100);
    const expiration = Number(ctx.realm.adminEventsExpiration ?? 0);
    const notBefore = expiration > 0 ? Date.now() - expiration * 1000 : 0;
    const out: unknown[] = [];
    let skipped = 0;
    for (const seq of store.adminEventSeqs(ctx.realm.id, !asc)) {
      const rec = store.logRecord(seq);
      if (!rec || rec.time < notBefore) continue;
      const a = rec.authDetails;
      if (ops.size && !ops.has(rec.operationType)) continue;
      if (types.size && !types.has(rec.resourceType)) continue;
      if (from !== undefined && rec.time < from) continue;
      if (to !== undefined && rec.time > to) continue;
      if (pathRe && !pathRe.test(rec.resourcePath)) continue;
      if (q('authRealm') && a?.realmId !== q('authRealm')) continue;
      if (q('authClient') && a?.clientId !== q('authClient')) continue;
      if (q('authUser') && a?.userId !== q('authUser')) continue;
      if (q('authIpAddress') && a?.ipAddress !== q('authIpAddress')) continue;
      if (skipped < first) {
        skipped++;
        continue;
      }
      out.push(adminEventRep(ctx.realm.id, rec));
      if (max >= 0 && out.length >= max) break;
    }
    return ok(out);
  });
  r.realm('DELETE', '/admin-events', async (ctx) => {
    ctx.auth.events.requireManage();
    await ctx.write((tx) => tx.apply(['!clearAdminEvents', ctx.realm.id]));
    return noContent();
  });

  const userEvents = (ctx: AdminContext) => {
    const q = (n: string) => ctx.query(n);
    const types = new Set(ctx.req.query.getAll('type').flatMap((v) => v.split(',')).filter(Boolean));
    const from = parseDate(q('dateFrom'), false);
    const to = parseDate(q('dateTo'), true);
    const asc = q('direction') === 'asc';
    const expiration = Number(ctx.realm.eventsExpiration ?? 0);
    const notBefore = expiration > 0 ? Date.now() - expiration * 1000 : 0;
    const list = store.range('userEvents', [ctx.realm.id], { reverse: !asc }).map((e) => e.value as Record<string, unknown>);
    return list.filter(
      (e) =>
        (e.time as number) >= notBefore &&
        (!types.size || types.has(e.type as string)) &&
        (from === undefined || (e.time as number) >= from) &&
        (to === undefined || (e.time as number) <= to) &&
        (!q('client') || e.clientId === q('client')) &&
        (!q('user') || e.userId === q('user')) &&
        (!q('ipAddress') || e.ipAddress === q('ipAddress')),
    );
  };
  r.realm('GET', '/events', (ctx) => {
    ctx.auth.events.requireView();
    const first = Math.max(0, ctx.queryInt('first', 0));
    const max = ctx.queryInt('max', 100);
    const list = userEvents(ctx);
    return ok(max >= 0 ? list.slice(first, first + max) : list.slice(first));
  });
  r.realm('DELETE', '/events', async (ctx) => {
    ctx.auth.events.requireManage();
    const db = store.db('userEvents');
    const keys = Array.from(db.getKeys({ start: [ctx.realm.id], end: [ctx.realm.id + '\u0000'] }));
    await store.root.batch(() => {
      for (const key of keys) db.remove(key);
    });
    return noContent();
  });
}
