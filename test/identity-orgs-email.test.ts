// Organizations, e-mails (execute-actions, verify, reset-password, invitations, testSMTPConnection)
// through a real SMTP server on loopback, and impersonation, via @keycloak/keycloak-admin-client.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClientFor, startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';
import { startSmtp, type Smtp } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
let smtp: Smtp;
const R = 'orgs';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);
const users: Record<string, string> = {};

beforeAll(async () => {
  [h, smtp] = await Promise.all([startIdentity(), startSmtp({ user: 'mailer', password: 'mail-pw' })]);
  kc = await adminClientFor(h, {
    realm: R,
    enabled: true,
    adminEventsEnabled: true,
    users: ['ann', 'bob', 'cat', 'dan'].map((u, i) => ({ username: u, email: `${u}@ex${i % 2}.org`, firstName: u.toUpperCase(), enabled: true })),
  });
  for (const u of await kc.users.find()) users[u.username!] = u.id!;
});
afterAll(async () => {
  await h?.close();
  await smtp?.close();
});

describe('organizations', () => {
  it('answers 404 while the realm flag is off', async () => {
    const r = await failure(kc.organizations.find());
    expect(r).toEqual({ status: 404, data: { errorMessage: 'Organizations not enabled for this realm.' } });
    expect((await failure(kc.organizations.create({ name: 'x' }))).status).toBe(404);
    await kc.realms.update({ realm: R }, { organizationsEnabled: true });
  });

  it('creates, finds, updates and deletes with one event each; bad input changes nothing', async () => {
    let id = '';
    const ev = await events(async () => {
      ({ id } = await kc.organizations.create({ name: 'Acme', alias: 'acme', domains: [{ name: 'acme.org', verified: false }], attributes: { tier: ['gold'] } }));
    });
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'ORGANIZATION', resourcePath: `organizations/${id}` }]);
    expect(await kc.organizations.findOne({ id })).toMatchObject({ id, name: 'Acme', alias: 'acme', enabled: true, domains: [{ name: 'acme.org', verified: false }], attributes: { tier: ['gold'] } });
    await kc.organizations.create({ name: 'Beta', domains: [{ name: 'beta.io' }] });
    expect((await kc.organizations.find({ search: 'acme' })).map((o) => o.name)).toEqual(['Acme']);
    expect((await kc.organizations.find({ search: 'beta.io', exact: true })).map((o) => o.alias)).toEqual(['Beta']);
    expect((await kc.organizations.find({ max: 1 }))).toHaveLength(1);
    const none = await events(async () => {
      expect(await failure(kc.organizations.create({ name: 'Acme' }))).toEqual({ status: 409, data: { errorMessage: 'A organization with the same name already exists.' } });
      expect((await failure(kc.organizations.create({ name: 'Gamma', domains: [{ name: 'acme.org' }] }))).status).toBe(409);
      expect((await failure(kc.organizations.create({ name: 'Delta', domains: [{ name: 'not a domain' }] }))).status).toBe(400);
      expect((await failure(kc.organizations.create({ alias: 'x' }))).status).toBe(400);
      expect((await failure(kc.organizations.updateById({ id }, { name: 'Acme', alias: 'other' }))).status).toBe(400);
      expect(await failure(kc.organizations.findOne({ id: 'nope' }))).toEqual({ status: 404, data: { errorMessage: 'Organization not found.' } });
    });
    expect(none).toHaveLength(0);
    const evU = await events(() => kc.organizations.updateById({ id }, { name: 'Acme Inc', description: 'rockets', domains: [{ name: 'acme.org', verified: true }] }));
    expect(evU).toMatchObject([{ operationType: 'UPDATE', resourceType: 'ORGANIZATION' }]);
    expect(await kc.organizations.findOne({ id })).toMatchObject({ name: 'Acme Inc', alias: 'acme', description: 'rockets', domains: [{ name: 'acme.org', verified: true }] });
  });

  it('adds, lists, counts, gets and removes members', async () => {
    const org = (await kc.organizations.find({ search: 'acme' }))[0]!;
    const ev = await events(() => kc.organizations.addMember({ orgId: org.id!, userId: users.ann! }));
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'ORGANIZATION_MEMBERSHIP', resourcePath: `organizations/${org.id}/members/${users.ann}` }]);
    // Quotes and whitespace around the id are accepted.
    const res = await fetch(`${h.baseUrl}/admin/realms/${R}/organizations/${org.id}/members`, { method: 'POST', headers: { Authorization: `Bearer ${kc.accessToken}`, 'Content-Type': 'application/json' }, body: `  "${users.bob}"\n` });
    expect(res.status).toBe(201);
    expect(res.headers.get('location')).toMatch(new RegExp(`/members/${users.bob}$`));
    await kc.organizations.addMember({ orgId: org.id!, userId: users.cat! });
    const none = await events(async () => {
      expect((await failure(kc.organizations.addMember({ orgId: org.id!, userId: users.ann! }))).status).toBe(409);
      expect((await failure(kc.organizations.addMember({ orgId: org.id!, userId: 'ghost' }))).status).toBe(400);
      expect((await failure(kc.organizations.delMember({ orgId: org.id!, userId: users.dan! }))).status).toBe(404);
    });
    expect(none).toHaveLength(0);
    expect((await kc.organizations.listMembers({ orgId: org.id! })).map((m) => [m.username, (m as { membershipType?: string }).membershipType])).toEqual([['ann', 'UNMANAGED'], ['bob', 'UNMANAGED'], ['cat', 'UNMANAGED']]);
    expect((await kc.organizations.listMembers({ orgId: org.id!, search: 'ex1.org' })).map((m) => m.username)).toEqual(['bob']);
    expect((await kc.organizations.listMembers({ orgId: org.id!, search: 'ANN', exact: true })).map((m) => m.username)).toEqual(['ann']);
    expect((await kc.organizations.listMembers({ orgId: org.id!, first: 1, max: 1 })).map((m) => m.username)).toEqual(['bob']);
    expect(await kc.organizations.listMembers({ orgId: org.id!, membershipType: 'MANAGED' })).toEqual([]);
    const count = await fetch(`${h.baseUrl}/admin/realms/${R}/organizations/${org.id}/members/count`, { headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(await count.json()).toBe(3);
    expect(await kc.organizations.getMember({ orgId: org.id!, userId: users.ann! })).toMatchObject({ username: 'ann', membershipType: 'UNMANAGED' });
    expect((await kc.organizations.memberOrganizations({ userId: users.ann! })).map((o) => o.name)).toEqual(['Acme Inc']);
    const evD = await events(() => kc.organizations.delMember({ orgId: org.id!, userId: users.cat! }));
    expect(evD).toMatchObject([{ operationType: 'DELETE', resourceType: 'ORGANIZATION_MEMBERSHIP' }]);
    expect(await kc.users.findOne({ id: users.cat! })).not.toBeNull();
  });

  it('invites existing and new users by e-mail through the realm SMTP server', async () => {
    const org = (await kc.organizations.find({ search: 'beta' }))[0]!;
    const form = (fields: Record<string, string>) => {
      const f = new FormData();
      for (const [k, v] of Object.entries(fields)) f.append(k, v);
      return f;
    };
    // No SMTP settings yet: 500 with a clear message, no event.
    const none = await events(async () => {
      const r = await failure(kc.organizations.invite({ orgId: org.id! }, form({ email: 'new@beta.io' })));
      expect(r.status).toBe(500);
      expect((r.data as { errorMessage: string }).errorMessage).toMatch(/no SMTP server configured/);
    });
    expect(none).toHaveLength(0);
    await kc.realms.update({ realm: R }, { smtpServer: { host: '127.0.0.1', port: String(smtp.port), from: 'idp@orgs.test', fromDisplayName: 'Orgs', auth: 'true', user: 'mailer', password: 'mail-pw' } });
    const sent = smtp.messages.length;
    const ev = await events(() => kc.organizations.invite({ orgId: org.id! }, form({ email: 'new@beta.io', firstName: 'Nu', lastName: 'Person' })));
    expect(ev).toMatchObject([{ operationType: 'ACTION', resourceType: 'ORGANIZATION_MEMBERSHIP' }]);
    const m1 = await smtp.waitFor(sent + 1);
    expect(m1.to).toEqual(['new@beta.io']);
    expect(m1.data).toMatch(/registrations/);
    await kc.organizations.inviteExistingUser({ orgId: org.id! }, form({ id: users.dan! }));
    const m2 = await smtp.waitFor(sent + 2);
    expect(m2.to).toEqual(['dan@ex1.org']);
    expect(m2.data).toMatch(/action-token/);
    const invitations = await kc.organizations.listInvitations({ orgId: org.id! });
    expect(invitations.map((i) => i.email).sort()).toEqual(['dan@ex1.org', 'new@beta.io']);
  });

  it('deletes an organization with its memberships', async () => {
    const org = (await kc.organizations.find({ search: 'acme' }))[0]!;
    const ev = await events(() => kc.organizations.delById({ id: org.id! }));
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'ORGANIZATION' }]);
    expect(await kc.organizations.memberOrganizations({ userId: users.ann! })).toEqual([]);
    expect(await kc.users.findOne({ id: users.ann! })).not.toBeNull();
  });
});

describe('e-mail actions and SMTP test', () => {
  it('sends execute-actions, verify and reset-password e-mails with one ACTION event each', async () => {
    const sent = smtp.messages.length;
    const ev = await events(() => kc.users.executeActionsEmail({ id: users.ann!, actions: ['UPDATE_PASSWORD', 'VERIFY_EMAIL'], lifespan: 600 }));
    expect(ev).toMatchObject([{ operationType: 'ACTION', resourceType: 'USER', resourcePath: `users/${users.ann}/execute-actions-email` }]);
    const m = await smtp.waitFor(sent + 1);
    expect(m.to).toEqual(['ann@ex0.org']);
    expect(m.from).toBe('idp@orgs.test');
    expect(m.data).toMatch(/UPDATE_PASSWORD, VERIFY_EMAIL/);
    await kc.users.sendVerifyEmail({ id: users.bob! });
    expect((await smtp.waitFor(sent + 2)).to).toEqual(['bob@ex1.org']);
    const r = await fetch(`${h.baseUrl}/admin/realms/${R}/users/${users.cat}/reset-password-email`, { method: 'PUT', headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(r.status).toBe(204);
    expect((await smtp.waitFor(sent + 3)).to).toEqual(['cat@ex0.org']);

    const none = await events(async () => {
      expect((await failure(kc.users.executeActionsEmail({ id: users.ann!, actions: ['NOPE'] }))).status).toBe(400);
      expect((await failure(kc.users.executeActionsEmail({ id: users.ann!, actions: [], clientId: 'ghost' }))).status).toBe(400);
      expect((await failure(kc.users.executeActionsEmail({ id: users.ann!, actions: [], clientId: 'account', redirectUri: 'https://evil.example/' }))).status).toBe(400);
    });
    expect(none).toHaveLength(0);
    expect(smtp.messages.length).toBe(sent + 3);
  });

  it('tests SMTP settings as the logged-in admin', async () => {
    const admin = (await kc.users.find({ realm: 'master', username: 'admin', exact: true }))[0]!;
    expect((await failure(kc.realms.testSMTPConnection({ realm: R }, { host: '127.0.0.1', port: String(smtp.port), from: 'x@y.z' })))).toMatchObject({ status: 400 });
    await kc.users.update({ realm: 'master', id: admin.id! }, { email: 'root@master.test' });
    const sent = smtp.messages.length;
    await kc.realms.testSMTPConnection({ realm: R }, { host: '127.0.0.1', port: String(smtp.port), from: 'x@y.z', auth: 'true', user: 'mailer', password: '**********' });
    expect((await smtp.waitFor(sent + 1)).to).toEqual(['root@master.test']);
    const bad = await failure(kc.realms.testSMTPConnection({ realm: R }, { host: '127.0.0.1', port: String(smtp.port), from: 'x@y.z', auth: 'true', user: 'mailer', password: 'wrong' }));
    expect(bad).toEqual({ status: 500, data: { errorMessage: 'Failed to send email' } });
  });
});

describe('impersonation', () => {
  it('starts a session for the user and writes one ACTION event', async () => {
    let res: Record<string, unknown> = {};
    const ev = await events(async () => {
      res = await kc.users.impersonation({ id: users.bob! }, { user: users.bob!, realm: R });
    });
    expect(res).toMatchObject({ sameRealm: false, redirect: `${h.baseUrl}/realms/${R}/account` });
    expect(ev).toMatchObject([{ operationType: 'ACTION', resourceType: 'USER', resourcePath: `users/${users.bob}/impersonation` }]);
    expect((await kc.users.listSessions({ id: users.bob! })).length).toBe(1);
  });
});
