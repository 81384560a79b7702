// /admin/realms/{realm}/organizations: list, count, create, and a user's organizations
// (OrganizationsResource). Everything answers 404 "Organizations not enabled for this realm." while
// the realm's organizationsEnabled flag is off.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';
import type { OrganizationEntity, RealmEntity } from '../store/entities.js';
import type { Reader } from '../store/repo.js';
import * as repo from '../store/repo.js';
import * as orgConv from '../model/organization.js';
import { cleanMultiMap } from '../model/common.js';
import { id, name } from '../model/schemas.js';
import { current, ok, page, type AdminContext, type AdminRoutes } from './context.js';

export const OrganizationRepresentation = z.object({
  id: id(),
  name: name(),
  alias: name(),
  enabled: z.boolean().nullish(),
  description: z.string().nullish(),
  redirectUrl: z.string().nullish(),
  attributes: z.record(z.string(), z.array(z.string()).nullable()).nullish(),
  domains: z.array(z.object({ name: z.string().nullish(), verified: z.boolean().nullish() })).nullish(),
});
export type OrganizationRepresentation = z.infer<typeof OrganizationRepresentation>;

export function requireOrganizations(ctx: AdminContext): void {
  if (ctx.realm.organizationsEnabled !== true) throw errorMessage(404, 'Organizations not enabled for this realm.');
}

export const listOrganizations = (r: Reader, realmId: string): OrganizationEntity[] =>
  r.range('orgByRealmName', [realmId]).map((e) => r.get<OrganizationEntity>('organizations', e.value as string)!).filter(Boolean);

export const organizationsOfUser = (r: Reader, userId: string): OrganizationEntity[] =>
  r.range('memberOrgs', [userId]).map((e) => r.get<OrganizationEntity>('organizations', (e.key as string[])[1]!)!).filter(Boolean);

const DOMAIN = /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,}$/i;

/** Validates a representation against the realm's organizations; returns the entity to store. */
export function checkOrganization(tx: Reader, realm: RealmEntity, rep: OrganizationRepresentation, cur?: OrganizationEntity): OrganizationEntity {
  const name = (rep.name ?? cur?.name ?? '').trim();
  if (!name) throw errorMessage(400, 'Name can not be null');
  const alias = (rep.alias ?? cur?.alias ?? name).trim();
  if (cur && rep.alias != null && rep.alias !== cur.alias) throw errorMessage(400, 'Cannot change the alias');
  if (!/^[A-Za-z0-9._~-]+$/.test(alias.replace(/ /g, '-')) ) throw errorMessage(400, 'Alias contains invalid characters');
  const others = listOrganizations(tx, realm.id).filter((o) => o.id !== cur?.id);
  if (others.some((o) => o.name === name)) throw errorMessage(409, 'A organization with the same name already exists.');
  if (others.some((o) => o.alias === alias)) throw errorMessage(409, 'A organization with the same alias already exists.');
  const domains: Array<{ name: string; verified: boolean }> = [];
  for (const d of rep.domains ?? cur?.domains ?? []) {
    const dn = (d.name ?? '').trim().toLowerCase();
    if (!DOMAIN.test(dn)) throw errorMessage(400, `The domain name ${d.name ?? ''} is invalid`);
    if (domains.some((x) => x.name === dn)) continue;
    if (others.some((o) => o.domains.some((x) => x.name === dn))) throw errorMessage(409, `Domain ${dn} is already linked to another organization in realm ${realm.realm}`);
    domains.push({ name: dn, verified: d.verified ?? false });
  }
  const o: OrganizationEntity = {
    id: cur?.id ?? randomUUID(),
    realmId: realm.id,
    name,
    alias,
    enabled: rep.enabled ?? cur?.enabled ?? true,
    attributes: rep.attributes != null ? cleanMultiMap(rep.attributes) : (cur?.attributes ?? {}),
    domains,
    identityProviders: cur?.identityProviders ?? [],
    invitations: cur?.invitations ?? [],
  };
  const description = rep.description !== undefined ? rep.description : cur?.description;
  if (description != null) o.description = description;
  const redirectUrl = rep.redirectUrl !== undefined ? rep.redirectUrl : cur?.redirectUrl;
  if (redirectUrl != null && redirectUrl !== '') o.redirectUrl = redirectUrl;
  return o;
}

function matches(o: OrganizationEntity, search: string, exact: boolean): boolean {
  const s = search.toLowerCase();
  const names = [o.name, ...o.domains.map((d) => d.name)].map((x) => x.toLowerCase());
  return exact ? names.includes(s) : names.some((x) => x.includes(s));
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  const filtered = (ctx: AdminContext) => {
    const search = ctx.query('search');
    const exact = ctx.queryBool('exact', false);
    const q = ctx.query('q');
    let list = listOrganizations(store, ctx.realm.id);
    if (search) list = list.filter((o) => matches(o, search, exact));
    if (q) {
      for (const part of q.split(/\s+/).filter(Boolean)) {
        const i = part.indexOf(':');
        const k = i < 0 ? part : part.slice(0, i);
        const v = i < 0 ? '' : part.slice(i + 1);
        list = list.filter((o) => (o.attributes[k] ?? []).includes(v));
      }
    }
    return list;
  };

  r.realm('GET', '/organizations', (ctx) => {
    requireOrganizations(ctx);
    ctx.auth.realm.requireView();
    const brief = ctx.queryBool('briefRepresentation', true);
    return ok(page(filtered(ctx), ctx.queryInt('first', 0), ctx.queryInt('max', 10)).map((o) => (brief ? orgConv.toBriefRepresentation(o) : orgConv.toRepresentation(o))));
  });
  r.realm('GET', '/organizations/count', (ctx) => {
    requireOrganizations(ctx);
    ctx.auth.realm.requireView();
    return ok(filtered(ctx).length);
  });

  r.realm('POST', '/organizations', async (ctx) => {
    requireOrganizations(ctx);
    ctx.auth.realm.requireManage();
    if (ctx.req.body.length === 0 || ctx.req.body.toString().trim() === 'null') throw errorMessage(400, 'Organization cannot be null.');
    const rep = ctx.body(OrganizationRepresentation);
    const org = await ctx.write((tx, ev) => {
      const o = checkOrganization(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), { ...rep, id: null });
      tx.put('organizations', o.id, o);
      ev.create('ORGANIZATION', ctx.here(o.id), orgConv.toRepresentation(o));
      return o;
    });
    return ctx.created(org.id);
  });

  r.realm('GET', '/organizations/members/:userId/organizations', (ctx) => {
    requireOrganizations(ctx);
    ctx.auth.realm.requireView();
    const u = repo.userInRealm(store, ctx.realm.id, ctx.param('userId'));
    if (!u) throw ERR.userNotFound();
    const brief = ctx.queryBool('briefRepresentation', true);
    return ok(organizationsOfUser(store, u.id).map((o) => (brief ? orgConv.toBriefRepresentation(o) : orgConv.toRepresentation(o))));
  });
}
