// /admin/realms/{realm}/organizations/{id}: get, update, delete; members (add by id, list with
// search/exact/first/max/membershipType, count, get, remove, organizations of a member);
// invitations of existing and new users by e-mail; linked identity providers.
import { randomUUID } from 'node:crypto';
import { ERR, errorMessage } from '../errors.js';
import type { IdentityProviderEntity, OrganizationEntity, RealmEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import * as orgConv from '../model/organization.js';
import { deleteUser } from '../managers.js';
import { sendOrFail, type SmtpSettings } from '../email.js';
import { sign } from '../oidc/tokens.js';
import { current, noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { OrganizationRepresentation, checkOrganization, organizationsOfUser, requireOrganizations } from './organizations.js';
import { parseForm } from './forms.js';

interface Membership {
  membershipType: 'MANAGED' | 'UNMANAGED';
}

function like(v: string | undefined, s: string, exact: boolean): boolean {
  if (v === undefined) return false;
  return exact ? v.toLowerCase() === s.toLowerCase() : v.toLowerCase().includes(s.toLowerCase());
}

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;
  const P = '/organizations/:orgId';
  const locate = (ctx: AdminContext): OrganizationEntity => {
    requireOrganizations(ctx);
    const o = store.get<OrganizationEntity>('organizations', ctx.param('orgId'));
    if (!o || o.realmId !== ctx.realm.id) throw errorMessage(404, 'Organization not found.');
    return o;
  };
  const view = (ctx: AdminContext) => ctx.auth.realm.requireView();
  const manage = (ctx: AdminContext) => ctx.auth.realm.requireManage();
  const members = (o: OrganizationEntity): Array<{ user: UserEntity; membership: Membership }> =>
    store
      .range('orgMembers', [o.id])
      .map((e) => ({ user: store.get<UserEntity>('users', (e.key as string[])[1]!)!, membership: e.value as Membership }))
      .filter((m) => !!m.user)
      .sort((a, b) => (a.user.username < b.user.username ? -1 : 1));

  r.realm('GET', P, (ctx) => {
    view(ctx);
    return ok(orgConv.toRepresentation(locate(ctx)));
  });
  r.realm('PUT', P, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const rep = ctx.body(OrganizationRepresentation);
    await ctx.write((tx, ev) => {
      const cur = current<OrganizationEntity>(tx, 'organizations', o.id);
      const next = checkOrganization(tx, current<RealmEntity>(tx, 'realms', ctx.realm.id), rep, cur);
      tx.put('organizations', o.id, next);
      ev.update('ORGANIZATION', ctx.here(), orgConv.toRepresentation(next));
    });
    return noContent();
  });
  r.realm('DELETE', P, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    await ctx.write((tx, ev) => {
      for (const e of tx.range('orgMembers', [o.id])) {
        const uid = (e.key as string[])[1]!;
        tx.del('orgMembers', [o.id, uid]);
        const u = tx.get<UserEntity>('users', uid);
        if (u && (e.value as Membership).membershipType === 'MANAGED') deleteUser(tx, u);
      }
      tx.del('organizations', o.id);
      ev.delete('ORGANIZATION', ctx.here());
    });
    return noContent();
  });

  // ── members ──
  r.realm('POST', `${P}/members`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const id = ctx.req.body.toString('utf8').trim().replace(/^"(.*)"$/, '$1').trim();
    const u = id ? repo.userInRealm(store, ctx.realm.id, id) : undefined;
    if (!u) throw errorMessage(400, 'User does not exist');
    await ctx.write((tx, ev) => {
      if (tx.get('orgMembers', [o.id, u.id]) !== undefined) throw errorMessage(409, 'User is already a member of the organization.');
      tx.put('orgMembers', [o.id, u.id], { membershipType: 'UNMANAGED' } satisfies Membership);
      ev.create('ORGANIZATION_MEMBERSHIP', ctx.here(u.id), orgConv.memberRepresentation(u, 'UNMANAGED'));
    });
    return ctx.created(u.id);
  });
  const filteredMembers = (ctx: AdminContext, o: OrganizationEntity) => {
    const search = ctx.query('search');
    const exact = ctx.queryBool('exact', false);
    const type = ctx.query('membershipType')?.toUpperCase();
    return members(o).filter(({ user: u, membership }) =>
      (!search || like(u.username, search, exact) || like(u.email, search, exact) || like(u.firstName, search, exact) || like(u.lastName, search, exact)) &&
      (!type || membership.membershipType === type));
  };
  r.realm('GET', `${P}/members`, (ctx) => {
    view(ctx);
    const o = locate(ctx);
    return ok(page(filteredMembers(ctx, o), ctx.queryInt('first', 0), ctx.queryInt('max', 10)).map((m) => orgConv.memberRepresentation(m.user, m.membership.membershipType)));
  });
  r.realm('GET', `${P}/members/count`, (ctx) => {
    view(ctx);
    return ok(filteredMembers(ctx, locate(ctx)).length);
  });
  const locateMember = (ctx: AdminContext, o: OrganizationEntity) => {
    const uid = ctx.param('memberId');
    const m = store.get<Membership>('orgMembers', [o.id, uid]);
    const u = repo.userInRealm(store, ctx.realm.id, uid);
    if (!m || !u) throw errorMessage(404, `User [${uid}] is not member of the organization`);
    return { user: u, membership: m };
  };
  r.realm('GET', `${P}/members/:memberId`, (ctx) => {
    view(ctx);
    const { user, membership } = locateMember(ctx, locate(ctx));
    return ok(orgConv.memberRepresentation(user, membership.membershipType));
  });
  r.realm('DELETE', `${P}/members/:memberId`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const { user, membership } = locateMember(ctx, o);
    await ctx.write((tx, ev) => {
      tx.del('orgMembers', [o.id, user.id]);
      if (membership.membershipType === 'MANAGED') deleteUser(tx, current<UserEntity>(tx, 'users', user.id));
      ev.delete('ORGANIZATION_MEMBERSHIP', ctx.here());
    });
    if (membership.membershipType === 'MANAGED') svc.sessions.removeWhere((s) => s.userId === user.id);
    return noContent();
  });
  r.realm('GET', `${P}/members/:memberId/organizations`, (ctx) => {
    view(ctx);
    locate(ctx);
    const u = repo.userInRealm(store, ctx.realm.id, ctx.param('memberId'));
    if (!u) throw ERR.userNotFound();
    const brief = ctx.queryBool('briefRepresentation', true);
    return ok(organizationsOfUser(store, u.id).map((x) => (brief ? orgConv.toBriefRepresentation(x) : orgConv.toRepresentation(x))));
  });

  // ── invitations ──
  const invite = async (ctx: AdminContext, o: OrganizationEntity, email: string, user: UserEntity | undefined, firstName?: string, lastName?: string) => {
    if (user && store.get('orgMembers', [o.id, user.id]) !== undefined) throw errorMessage(409, 'User already a member of the organization');
    const lifespan = Number(ctx.realm.actionTokenGeneratedByAdminLifespan ?? 43200);
    const now = Math.floor(Date.now() / 1000);
    const iss = `${ctx.req.baseUrl}/realms/${ctx.realm.realm}`;
    const token = await sign(store, ctx.realm, { exp: now + lifespan, iat: now, jti: randomUUID(), iss, aud: iss, typ: 'ORGIVT', org_id: o.id, eml: email, ...(user ? { sub: user.id } : {}) });
    const link = user
      ? `${iss}/login-actions/action-token?key=${token}&client_id=account-console`
      : `${iss}/protocol/openid-connect/registrations?client_id=account-console&response_type=code&token=${token}`;
    const text = user
      ? `You were invited to join the ${o.name} organization. Click the link below to join.\n\n${link}\n\nThis link will expire within ${Math.round(lifespan / 60)} minutes.`
      : `You were invited to join the ${o.name} organization. Click the link below to create your account and join.\n\n${link}\n\nThis link will expire within ${Math.round(lifespan / 60)} minutes.`;
    await sendOrFail(ctx.realm.smtpServer as SmtpSettings | undefined, { to: email, subject: `Invitation to join the ${o.name} organization`, text }, 'invitation');
    await ctx.write((tx, ev) => {
      const cur = current<OrganizationEntity>(tx, 'organizations', o.id);
      const inv = {
        id: randomUUID(), email, status: 'PENDING' as const, sentDate: Date.now(), expiresAt: Date.now() + lifespan * 1000, inviteLink: link,
        ...(firstName ? { firstName } : {}), ...(lastName ? { lastName } : {}), ...(user ? { userId: user.id } : {}),
      };
      tx.put('organizations', o.id, { ...cur, invitations: [...cur.invitations.filter((i) => i.email !== email), inv] });
      ev.action('ORGANIZATION_MEMBERSHIP', ctx.here(), { email, ...(user ? { userId: user.id } : {}) });
    });
    return noContent();
  };
  r.realm('POST', `${P}/members/invite-existing-user`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const id = parseForm(ctx.req).get('id')?.trim();
    const u = id ? repo.userInRealm(store, ctx.realm.id, id) : undefined;
    if (!u) throw errorMessage(400, 'User does not exist');
    if (!u.email) throw errorMessage(400, 'User email missing');
    return invite(ctx, o, u.email, u);
  });
  r.realm('POST', `${P}/members/invite-user`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const form = parseForm(ctx.req);
    const email = form.get('email')?.trim().toLowerCase();
    if (!email) throw errorMessage(400, 'To invite a member you need to provide an email');
    if (!/^[^@\s]+@[^@\s]+$/.test(email)) throw errorMessage(400, 'Invalid email address');
    const existing = repo.usersByEmail(store, ctx.realm.id, email)[0];
    return invite(ctx, o, email, existing, form.get('firstName'), form.get('lastName'));
  });
  r.realm('GET', `${P}/invitations`, (ctx) => {
    view(ctx);
    const o = locate(ctx);
    const now = Date.now();
    return ok(page(o.invitations.map((i) => ({ ...i, organizationId: o.id, status: i.expiresAt < now ? 'EXPIRED' : i.status })), ctx.queryInt('first', 0), ctx.queryInt('max', 10)));
  });
  r.realm('GET', `${P}/invitations/:invitationId`, (ctx) => {
    view(ctx);
    const inv = locate(ctx).invitations.find((i) => i.id === ctx.param('invitationId'));
    if (!inv) throw errorMessage(404, 'Invitation not found');
    return ok(inv);
  });
  r.realm('DELETE', `${P}/invitations/:invitationId`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    if (!o.invitations.some((i) => i.id === ctx.param('invitationId'))) throw errorMessage(404, 'Invitation not found');
    await ctx.write((tx, ev) => {
      const cur = current<OrganizationEntity>(tx, 'organizations', o.id);
      tx.put('organizations', o.id, { ...cur, invitations: cur.invitations.filter((i) => i.id !== ctx.param('invitationId')) });
      ev.delete('ORGANIZATION_MEMBERSHIP', ctx.here());
    });
    return noContent();
  });

  // ── identity providers ──
  const idps = (realm: RealmEntity): IdentityProviderEntity[] => realm._identityProviders ?? [];
  r.realm('GET', `${P}/identity-providers`, (ctx) => {
    view(ctx);
    const o = locate(ctx);
    return ok(idps(ctx.realm).filter((i) => o.identityProviders.includes(i.alias)).map((i) => ({ alias: i.alias, internalId: i.internalId, providerId: i.providerId, enabled: i.enabled, organizationId: o.id, config: i.config })));
  });
  r.realm('POST', `${P}/identity-providers`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const alias = ctx.req.body.toString('utf8').trim().replace(/^"(.*)"$/, '$1').trim();
    const idp = idps(ctx.realm).find((i) => i.alias === alias);
    if (!idp) throw errorMessage(400, 'Identity provider not found with the given alias');
    if (idp.organizationId && idp.organizationId !== o.id) throw errorMessage(409, 'Identity provider already associated to a different organization');
    await ctx.write((tx, ev) => {
      const cur = current<OrganizationEntity>(tx, 'organizations', o.id);
      tx.put('organizations', o.id, { ...cur, identityProviders: [...new Set([...cur.identityProviders, alias])] });
      const realm = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      tx.put('realms', realm.id, { ...realm, _identityProviders: idps(realm).map((i) => (i.alias === alias ? { ...i, organizationId: o.id } : i)) });
      ev.create('ORGANIZATION', ctx.here(alias), { alias });
    });
    return noContent();
  });
  r.realm('DELETE', `${P}/identity-providers/:alias`, async (ctx) => {
    manage(ctx);
    const o = locate(ctx);
    const alias = ctx.param('alias');
    if (!o.identityProviders.includes(alias)) throw errorMessage(404, 'Identity provider not associated with the organization');
    await ctx.write((tx, ev) => {
      const cur = current<OrganizationEntity>(tx, 'organizations', o.id);
      tx.put('organizations', o.id, { ...cur, identityProviders: cur.identityProviders.filter((a) => a !== alias) });
      const realm = current<RealmEntity>(tx, 'realms', ctx.realm.id);
      tx.put('realms', realm.id, { ...realm, _identityProviders: idps(realm).map((i) => (i.alias === alias ? (({ organizationId: _o, ...rest }) => rest)(i) : i)) });
      ev.delete('ORGANIZATION', ctx.here());
    });
    return noContent();
  });
}
