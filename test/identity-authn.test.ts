// Authentication management and required actions through @keycloak/keycloak-admin-client, with the
// admin events each change writes (exactly one) and each failure does not write.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClientFor, startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'authn';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);

beforeAll(async () => {
  h = await startIdentity();
  kc = await adminClientFor(h, { realm: R, enabled: true, adminEventsEnabled: true, adminEventsDetailsEnabled: true });
});
afterAll(async () => {
  await h?.close();
});

describe('authentication flows', () => {
  it('lists built-in top-level flows in creation order without saml ecp', async () => {
    const flows = await kc.authenticationManagement.getFlows();
    expect(flows.map((f) => f.alias)).toEqual(['browser', 'direct grant', 'registration', 'reset credentials', 'clients', 'first broker login', 'docker auth']);
    expect(flows.every((f) => f.builtIn && f.topLevel)).toBe(true);
    const browser = await kc.authenticationManagement.getFlow({ flowId: flows[0]!.id! });
    expect(browser.authenticationExecutions?.map((e) => e.authenticator ?? e.flowAlias)).toEqual(['auth-cookie', 'auth-spnego', 'identity-provider-redirector', 'Organization', 'forms']);
    const execs = await kc.authenticationManagement.getExecutions({ flow: 'browser' });
    const forms = execs.find((e) => e.displayName === 'forms')!;
    expect(forms).toMatchObject({ level: 0, index: 4, authenticationFlow: true, requirement: 'ALTERNATIVE' });
    const otp = execs.find((e) => e.displayName === 'Browser - Conditional OTP')!;
    expect(otp).toMatchObject({ level: 1, index: 1, requirement: 'CONDITIONAL' });
    expect(execs.find((e) => e.providerId === 'auth-otp-form')).toMatchObject({ level: 2, index: 1, displayName: 'OTP Form' });
  });

  it('creates, updates, copies and deletes flows with one event each; refuses built-ins and duplicates', async () => {
    let id = '';
    const ev1 = await events(async () => {
      ({ id } = await kc.authenticationManagement.createFlow({ alias: 'my flow', providerId: 'basic-flow', topLevel: true, builtIn: false }));
    });
    expect(ev1).toHaveLength(1);
    expect(ev1[0]).toMatchObject({ operationType: 'CREATE', resourceType: 'AUTH_FLOW', resourcePath: `authentication/flows/${id}` });
    expect(await kc.authenticationManagement.getFlow({ flowId: id })).toMatchObject({ alias: 'my flow', builtIn: false, topLevel: true, description: '' });

    const none = await events(async () => {
      const dup = await failure(kc.authenticationManagement.createFlow({ alias: 'my flow', providerId: 'basic-flow', topLevel: true, builtIn: false }));
      expect(dup).toEqual({ status: 409, data: { errorMessage: 'Flow my flow already exists' } });
      const builtin = (await kc.authenticationManagement.getFlows()).find((f) => f.alias === 'browser')!;
      expect((await failure(kc.authenticationManagement.deleteFlow({ flowId: builtin.id! }))).status).toBe(400);
      expect((await failure(kc.authenticationManagement.addExecutionToFlow({ flow: 'browser', provider: 'auth-otp-form' }))).status).toBe(400);
      expect((await failure(kc.authenticationManagement.addExecutionToFlow({ flow: 'my flow', provider: 'no-such' }))).status).toBe(400);
      expect((await failure(kc.authenticationManagement.getFlow({ flowId: 'nope' }))).status).toBe(404);
    });
    expect(none).toHaveLength(0);

    const ev2 = await events(() => kc.authenticationManagement.updateFlow({ flowId: id }, { alias: 'my flow 2', description: 'd', providerId: 'basic-flow', topLevel: true }));
    expect(ev2).toMatchObject([{ operationType: 'UPDATE', resourceType: 'AUTH_FLOW' }]);
    expect((await kc.authenticationManagement.getFlow({ flowId: id })).alias).toBe('my flow 2');

    const ev3 = await events(() => kc.authenticationManagement.copyFlow({ flow: 'browser', newName: 'browser copy' }));
    expect(ev3).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTH_FLOW' }]);
    const copied = (await kc.authenticationManagement.getFlows()).find((f) => f.alias === 'browser copy')!;
    expect(copied.builtIn).toBe(false);
    const copiedExecs = await kc.authenticationManagement.getExecutions({ flow: 'browser copy' });
    expect(copiedExecs.map((e) => e.displayName)).toContain('browser copy forms');

    const ev4 = await events(() => kc.authenticationManagement.deleteFlow({ flowId: copied.id! }));
    expect(ev4).toMatchObject([{ operationType: 'DELETE', resourceType: 'AUTH_FLOW' }]);
    expect((await kc.authenticationManagement.getFlows()).map((f) => f.alias)).not.toContain('browser copy');
  });

  it('adds executions and sub-flows, updates requirements, reorders, configures and deletes', async () => {
    await kc.authenticationManagement.createFlow({ alias: 'exec flow', providerId: 'basic-flow', topLevel: true, builtIn: false });
    const evA = await events(async () => {
      const a = await kc.authenticationManagement.addExecutionToFlow({ flow: 'exec flow', provider: 'auth-username-password-form' });
      expect(a.id).toMatch(/^[0-9a-f-]{36}$/);
    });
    expect(evA).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTH_EXECUTION' }]);
    await kc.authenticationManagement.addExecutionToFlow({ flow: 'exec flow', provider: 'auth-otp-form' });
    const evF = await events(() => kc.authenticationManagement.addFlowToFlow({ flow: 'exec flow', alias: 'nested', type: 'basic-flow', provider: 'registration-page-form', description: 'sub' }));
    expect(evF).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTH_EXECUTION_FLOW' }]);
    await kc.authenticationManagement.addExecutionToFlow({ flow: 'nested', provider: 'conditional-user-role' });

    let execs = await kc.authenticationManagement.getExecutions({ flow: 'exec flow' });
    expect(execs.map((e) => [e.displayName, e.level, e.index, e.requirement])).toEqual([
      ['Username Password Form', 0, 0, 'REQUIRED'],
      ['OTP Form', 0, 1, 'DISABLED'],
      ['nested', 0, 2, 'DISABLED'],
      ['Condition - user role', 1, 0, 'DISABLED'],
    ]);
    const otp = execs[1]!;
    const evU = await events(() => kc.authenticationManagement.updateExecution({ flow: 'exec flow' }, { ...otp, requirement: 'ALTERNATIVE' }));
    expect(evU).toMatchObject([{ operationType: 'UPDATE', resourceType: 'AUTH_EXECUTION' }]);
    const evR = await events(() => kc.authenticationManagement.raisePriorityExecution({ id: otp.id! }));
    expect(evR).toHaveLength(1);
    execs = await kc.authenticationManagement.getExecutions({ flow: 'exec flow' });
    expect(execs.map((e) => e.displayName)).toEqual(['OTP Form', 'Username Password Form', 'nested', 'Condition - user role']);
    expect(execs[0]!.requirement).toBe('ALTERNATIVE');
    await kc.authenticationManagement.lowerPriorityExecution({ id: otp.id! });
    execs = await kc.authenticationManagement.getExecutions({ flow: 'exec flow' });
    expect(execs[1]!.displayName).toBe('OTP Form');

    // Configs on a configurable execution.
    const role = execs.find((e) => e.providerId === 'conditional-user-role')!;
    expect(role.configurable).toBe(true);
    let cfgId = '';
    const evC = await events(async () => {
      ({ id: cfgId } = await kc.authenticationManagement.createConfig({ id: role.id!, alias: 'needs admin', config: { condUserRole: 'admin' } }));
    });
    expect(evC).toMatchObject([{ operationType: 'CREATE', resourceType: 'AUTHENTICATOR_CONFIG' }]);
    expect(await kc.authenticationManagement.getConfig({ id: cfgId })).toEqual({ id: cfgId, alias: 'needs admin', config: { condUserRole: 'admin' } });
    execs = await kc.authenticationManagement.getExecutions({ flow: 'exec flow' });
    expect(execs.find((e) => e.id === role.id)).toMatchObject({ alias: 'needs admin', authenticationConfig: cfgId });
    await kc.authenticationManagement.updateConfig({ id: cfgId, alias: 'needs admin', config: { condUserRole: 'x', negate: 'true' } });
    expect((await kc.authenticationManagement.getConfig({ id: cfgId })).config).toEqual({ condUserRole: 'x', negate: 'true' });
    const desc = await kc.authenticationManagement.getConfigDescription({ providerId: 'conditional-user-role' });
    expect(desc.properties?.map((p) => p.name)).toEqual(['condUserRole', 'negate']);
    const evD = await events(() => kc.authenticationManagement.delConfig({ id: cfgId }));
    expect(evD).toMatchObject([{ operationType: 'DELETE', resourceType: 'AUTHENTICATOR_CONFIG' }]);
    expect((await failure(kc.authenticationManagement.getConfig({ id: cfgId }))).status).toBe(404);

    const evX = await events(() => kc.authenticationManagement.delExecution({ id: execs.find((e) => e.displayName === 'nested')!.id! }));
    expect(evX).toMatchObject([{ operationType: 'DELETE', resourceType: 'AUTH_EXECUTION' }]);
    execs = await kc.authenticationManagement.getExecutions({ flow: 'exec flow' });
    expect(execs.map((e) => e.displayName)).toEqual(['Username Password Form', 'OTP Form']);
  });

  it('serves the provider lists', async () => {
    const auths = await kc.authenticationManagement.getAuthenticatorProviders();
    expect(auths.map((p) => p.id)).toContain('auth-otp-form');
    expect((await kc.authenticationManagement.getClientAuthenticatorProviders()).map((p) => p.id)).toEqual(['client-secret', 'client-jwt', 'client-secret-jwt', 'client-x509']);
    expect((await kc.authenticationManagement.getFormActionProviders()).map((p) => p.id)).toContain('registration-recaptcha-action');
    expect((await kc.authenticationManagement.getFormProviders()).map((p) => p.id)).toEqual(['registration-page-form']);
    const per = await fetch(`${h.baseUrl}/admin/realms/${R}/authentication/per-client-config-description`, { headers: { Authorization: `Bearer ${kc.accessToken}` } });
    expect(Object.keys(await per.json())).toContain('client-jwt');
  });
});

describe('required actions', () => {
  it('lists, updates, reorders, deletes and registers with one event each', async () => {
    const list = await kc.authenticationManagement.getRequiredActions();
    expect(list.map((a) => a.alias).slice(0, 3)).toEqual(['CONFIGURE_TOTP', 'TERMS_AND_CONDITIONS', 'UPDATE_PASSWORD']);
    expect(await kc.authenticationManagement.getRequiredActionForAlias({ alias: 'nope' })).toBeNull();

    const evU = await events(() => kc.authenticationManagement.updateRequiredAction({ alias: 'TERMS_AND_CONDITIONS' }, { ...list[1]!, enabled: true, defaultAction: true }));
    expect(evU).toMatchObject([{ operationType: 'UPDATE', resourceType: 'REQUIRED_ACTION', resourcePath: 'authentication/required-actions/TERMS_AND_CONDITIONS' }]);
    expect(await kc.authenticationManagement.getRequiredActionForAlias({ alias: 'TERMS_AND_CONDITIONS' })).toMatchObject({ enabled: true, defaultAction: true });

    await kc.authenticationManagement.raiseRequiredActionPriority({ alias: 'UPDATE_PASSWORD' });
    let order = (await kc.authenticationManagement.getRequiredActions()).map((a) => a.alias);
    expect(order.slice(0, 3)).toEqual(['CONFIGURE_TOTP', 'UPDATE_PASSWORD', 'TERMS_AND_CONDITIONS']);
    await kc.authenticationManagement.lowerRequiredActionPriority({ alias: 'CONFIGURE_TOTP' });
    order = (await kc.authenticationManagement.getRequiredActions()).map((a) => a.alias);
    expect(order.slice(0, 2)).toEqual(['UPDATE_PASSWORD', 'CONFIGURE_TOTP']);

    expect((await kc.authenticationManagement.getUnregisteredRequiredActions()).map((a) => a.providerId)).toContain('UPDATE_EMAIL');
    const evR = await events(() => kc.authenticationManagement.registerRequiredAction({ providerId: 'UPDATE_EMAIL', name: 'Update Email' }));
    expect(evR).toMatchObject([{ operationType: 'CREATE', resourceType: 'REQUIRED_ACTION' }]);
    expect((await kc.authenticationManagement.getUnregisteredRequiredActions()).map((a) => a.providerId)).not.toContain('UPDATE_EMAIL');
    const none = await events(async () => {
      expect((await failure(kc.authenticationManagement.registerRequiredAction({ providerId: 'UPDATE_EMAIL', name: 'x' }))).status).toBe(409);
      expect((await failure(kc.authenticationManagement.registerRequiredAction({ providerId: 'bogus', name: 'x' }))).status).toBe(400);
      expect((await failure(kc.authenticationManagement.deleteRequiredAction({ alias: 'bogus' }))).status).toBe(404);
    });
    expect(none).toHaveLength(0);

    const evD = await events(() => kc.authenticationManagement.deleteRequiredAction({ alias: 'UPDATE_EMAIL' }));
    expect(evD).toMatchObject([{ operationType: 'DELETE', resourceType: 'REQUIRED_ACTION' }]);
  });

  it('configures a configurable required action', async () => {
    const desc = await kc.authenticationManagement.getRequiredActionConfigDescription({ alias: 'UPDATE_PASSWORD' });
    expect(desc.properties?.map((p) => p.name)).toEqual(['max_auth_age']);
    const ev = await events(() => kc.authenticationManagement.updateRequiredActionConfig({ alias: 'UPDATE_PASSWORD' }, { config: { max_auth_age: '600' } }));
    expect(ev).toMatchObject([{ operationType: 'UPDATE', resourceType: 'REQUIRED_ACTION_CONFIG' }]);
    expect(await kc.authenticationManagement.getRequiredActionConfig({ alias: 'UPDATE_PASSWORD' })).toEqual({ config: { max_auth_age: '600' } });
    const bad = await events(async () => {
      expect((await failure(kc.authenticationManagement.updateRequiredActionConfig({ alias: 'UPDATE_PASSWORD' }, { config: { max_auth_age: 'soon' } }))).status).toBe(400);
    });
    expect(bad).toHaveLength(0);
    await kc.authenticationManagement.removeRequiredActionConfig({ alias: 'UPDATE_PASSWORD' });
    expect(await kc.authenticationManagement.getRequiredActionConfig({ alias: 'UPDATE_PASSWORD' })).toEqual({ config: {} });
  });
});
