// Brute-force protection end to end (locked out through the token endpoint, cleared through the
// admin API) and sessions made by the token endpoint (user, client and offline; list, count,
// delete, logout, logout-all; idle and max lifespans on refresh).
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClientFor, startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'sess';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);
const ids: Record<string, string> = {};

async function login(username: string, password: string, extra = ''): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=password&client_id=admin-cli&username=${username}&password=${password}${extra}`,
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}
async function refresh(token: string): Promise<{ status: number; body: Record<string, string> }> {
  const res = await fetch(`${h.baseUrl}/realms/${R}/protocol/openid-connect/token`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: `grant_type=refresh_token&client_id=admin-cli&refresh_token=${token}`,
  });
  return { status: res.status, body: (await res.json()) as Record<string, string> };
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

beforeAll(async () => {
  h = await startIdentity();
  kc = await adminClientFor(h, {
    realm: R,
    enabled: true,
    adminEventsEnabled: true,
    bruteForceProtected: true,
    failureFactor: 3,
    waitIncrementSeconds: 60,
    quickLoginCheckMilliSeconds: 0,
    passwordPolicy: 'hashIterations(1000)',
    users: ['eve', 'fay', 'gus', 'hal'].map((u) => ({ username: u, enabled: true, credentials: [{ type: 'password', value: `pw-${u}` }] })),
  });
  for (const u of await kc.users.find()) ids[u.username!] = u.id!;
});
afterAll(async () => {
  await h?.close();
});

describe('attack detection', () => {
  it('locks a user out through the token endpoint and clears it through the API', async () => {
    expect(await kc.attackDetection.findOne({ id: ids.eve! })).toEqual({ numFailures: 0, disabled: false, lastIPFailure: 'n/a', lastFailure: 0 });
    for (let i = 0; i < 3; i++) expect((await login('eve', 'wrong')).status).toBe(401);
    const status = await kc.attackDetection.findOne({ id: ids.eve! });
    expect(status).toMatchObject({ numFailures: 3, disabled: true, lastIPFailure: '127.0.0.1', numTemporaryLockouts: 1 });
    expect((status as { failedLoginNotBefore: number }).failedLoginNotBefore).toBeGreaterThan(Date.now() / 1000 + 50);
    // The right password is refused while locked, with the same answer as a wrong one.
    expect(await login('eve', 'pw-eve')).toEqual({ status: 401, body: { error: 'invalid_grant', error_description: 'Invalid user credentials' } });
    const ev = await events(() => kc.attackDetection.del({ id: ids.eve! }));
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'USER_LOGIN_FAILURE', resourcePath: `attack-detection/brute-force/users/${ids.eve}` }]);
    expect((await kc.attackDetection.findOne({ id: ids.eve! }))).toMatchObject({ disabled: false, numFailures: 0 });
    expect((await login('eve', 'pw-eve')).status).toBe(200);
    expect(await kc.attackDetection.findOne({ id: 'ghost' })).toBeNull();
  });

  it('permanently disables a user and re-enables on clear-all', async () => {
    await kc.realms.update({ realm: R }, { permanentLockout: true, maxTemporaryLockouts: 0, failureFactor: 2 });
    await login('fay', 'x');
    await login('fay', 'y');
    expect((await kc.users.findOne({ id: ids.fay! }))?.enabled).toBe(false);
    expect((await login('fay', 'pw-fay')).status).toBe(400);
    expect(await kc.attackDetection.findOne({ id: ids.fay! })).toMatchObject({ disabled: true });
    const ev = await events(() => kc.attackDetection.delAll());
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'USER_LOGIN_FAILURE', resourcePath: 'attack-detection/brute-force/users' }]);
    expect((await kc.users.findOne({ id: ids.fay! }))?.enabled).toBe(true);
    expect((await login('fay', 'pw-fay')).status).toBe(200);
    await kc.realms.update({ realm: R }, { bruteForceProtected: false, permanentLockout: false });
  });
});

describe('sessions', () => {
  it('lists and counts user, client and offline sessions', async () => {
    const a = await login('gus', 'pw-gus');
    await login('gus', 'pw-gus');
    const off = await login('gus', 'pw-gus', '&scope=offline_access');
    expect(off.status).toBe(200);
    expect(JSON.parse(Buffer.from(off.body.refresh_token!.split('.')[1]!, 'base64url').toString()).typ).toBe('Offline');
    const sessions = await kc.users.listSessions({ id: ids.gus! });
    expect(sessions).toHaveLength(2);
    expect(sessions[0]).toMatchObject({ username: 'gus', userId: ids.gus, ipAddress: '127.0.0.1', clients: expect.objectContaining({}) });
    const cli = (await kc.clients.find({ clientId: 'admin-cli' }))[0]!;
    expect(await kc.clients.getSessionCount({ id: cli.id! })).toEqual({ count: expect.any(Number) });
    expect((await kc.clients.listSessions({ id: cli.id!, first: 0, max: 1 }))).toHaveLength(1);
    expect(await kc.clients.getOfflineSessionCount({ id: cli.id! })).toEqual({ count: 1 });
    expect(await kc.clients.listOfflineSessions({ id: cli.id! })).toHaveLength(1);
    expect(await kc.users.listOfflineSessions({ id: ids.gus!, clientId: cli.id! })).toHaveLength(1);
    const stats = await kc.realms.getClientSessionStats({ realm: R });
    expect(stats.find((s) => s.clientId === 'admin-cli')).toMatchObject({ offline: '1' });

    // Deleting the offline session needs isOffline=true.
    const offSid = off.body.session_state!;
    expect(await kc.realms.deleteSession({ realm: R, session: offSid, isOffline: false }).catch((e) => e.response.status)).toBe(404);
    const ev = await events(() => kc.realms.deleteSession({ realm: R, session: offSid, isOffline: true }));
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'USER_SESSION' }]);
    expect((await refresh(off.body.refresh_token!)).status).toBe(400);

    const ev2 = await events(() => kc.realms.removeSession({ realm: R, sessionId: a.body.session_state! }));
    expect(ev2).toHaveLength(1);
    expect(await kc.users.listSessions({ id: ids.gus! })).toHaveLength(1);
    await kc.users.logout({ id: ids.gus! });
    expect(await kc.users.listSessions({ id: ids.gus! })).toHaveLength(0);
  });

  it('ends every session with logout-all', async () => {
    const t = await login('hal', 'pw-hal');
    const ev = await events(() => kc.realms.logoutAll({ realm: R }));
    expect(ev).toMatchObject([{ operationType: 'ACTION' }]);
    expect((await refresh(t.body.refresh_token!)).status).toBe(400);
  });

  it('enforces idle and max session lifespans on refresh', async () => {
    await kc.realms.update({ realm: R }, { ssoSessionIdleTimeout: 1, ssoSessionMaxLifespan: 3600 });
    const t = await login('hal', 'pw-hal');
    await sleep(1300);
    expect(await refresh(t.body.refresh_token!)).toMatchObject({ status: 400, body: { error: 'invalid_grant' } });
    await kc.realms.update({ realm: R }, { ssoSessionIdleTimeout: 3600, ssoSessionMaxLifespan: 3 });
    // Timed from before the login: a busy machine (the whole suite on 2 cores) may take a while to answer.
    const loginStarted = Date.now();
    const t2 = await login('hal', 'pw-hal');
    await sleep(500);
    const ok1 = await refresh(t2.body.refresh_token!);
    expect(ok1.status).toBe(200);
    await sleep(Math.max(0, loginStarted + 3300 - Date.now()));
    expect((await refresh(ok1.body.refresh_token!)).status).toBe(400);
    expect((await failure(kc.realms.deleteSession({ realm: R, session: 'ghost', isOffline: false }))).status).toBe(404);
  });
});
