// Identity providers (instances, mappers, import-config) and the user profile (UPConfig applied on
// user create/update, unmanaged attribute policy), via @keycloak/keycloak-admin-client.
import type KcAdminClient from '@keycloak/keycloak-admin-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminClientFor, startIdentity, type Harness } from './identity-harness.js';
import { eventsOf, failure } from './identity-harness.js';

let h: Harness;
let kc: KcAdminClient;
const R = 'idp';
const events = (fn: () => Promise<unknown>) => eventsOf(kc, R, fn);

beforeAll(async () => {
  h = await startIdentity();
  kc = await adminClientFor(h, { realm: R, enabled: true, adminEventsEnabled: true, adminEventsDetailsEnabled: true });
});
afterAll(async () => {
  await h?.close();
});

describe('identity providers', () => {
  it('creates, reads (secret masked), updates and deletes instances with one event each', async () => {
    let res: { id: string } = { id: '' };
    const ev = await events(async () => {
      res = await kc.identityProviders.create({ alias: 'corp', providerId: 'oidc', displayName: 'Corp', config: { clientId: 'kc', clientSecret: 's3cret', authorizationUrl: 'https://corp/auth', tokenUrl: 'https://corp/token' } });
    });
    expect(res).toEqual({ id: 'corp' });
    expect(ev).toMatchObject([{ operationType: 'CREATE', resourceType: 'IDENTITY_PROVIDER', resourcePath: 'identity-provider/instances/corp' }]);
    expect(ev[0]!.representation).not.toContain('s3cret');
    const got = await kc.identityProviders.findOne({ alias: 'corp' });
    expect(got).toMatchObject({ alias: 'corp', providerId: 'oidc', enabled: true, firstBrokerLoginFlowAlias: 'first broker login', config: { clientId: 'kc', clientSecret: '**********' } });
    expect(await kc.identityProviders.find()).toHaveLength(1);
    const none = await events(async () => {
      expect(await failure(kc.identityProviders.create({ alias: 'corp', providerId: 'oidc' }))).toEqual({ status: 409, data: { errorMessage: 'Identity Provider corp already exists' } });
      expect((await failure(kc.identityProviders.create({ alias: 'x', providerId: 'nope' }))).status).toBe(400);
      expect((await failure(kc.identityProviders.create({ alias: 'y', providerId: 'oidc', config: { tokenUrl: 'javascript:alert(1)' } }))).status).toBe(400);
      expect(await kc.identityProviders.findOne({ alias: 'ghost' })).toBeNull();
    });
    expect(none).toHaveLength(0);
    await kc.identityProviders.update({ alias: 'corp' }, { ...got!, displayName: 'Corp 2', config: { ...got!.config } });
    const again = await kc.identityProviders.findOne({ alias: 'corp' });
    expect(again?.displayName).toBe('Corp 2');
    // The masked secret sent back is kept: check through the stored entity.
    expect(h.svc.realm(R)!._identityProviders![0]!.config.clientSecret).toBe('s3cret');
    expect(await kc.identityProviders.findFactory({ providerId: 'github' })).toEqual({ id: 'github', name: 'GitHub' });
  });

  it('manages mappers', async () => {
    const types = await kc.identityProviders.findMapperTypes({ alias: 'corp' });
    expect(Object.keys(types)).toContain('oidc-user-attribute-idp-mapper');
    const { id } = await kc.identityProviders.createMapper({ alias: 'corp', identityProviderMapper: { name: 'dept', identityProviderAlias: 'corp', identityProviderMapper: 'oidc-user-attribute-idp-mapper', config: { claim: 'dept', 'user.attribute': 'dept' } } });
    expect(await kc.identityProviders.findOneMapper({ alias: 'corp', id })).toMatchObject({ name: 'dept', config: { claim: 'dept' } });
    await kc.identityProviders.updateMapper({ alias: 'corp', id }, { name: 'dept', identityProviderAlias: 'corp', identityProviderMapper: 'oidc-user-attribute-idp-mapper', config: { claim: 'department' } });
    expect((await kc.identityProviders.findMappers({ alias: 'corp' }))[0]!.config).toEqual({ claim: 'department' });
    expect((await failure(kc.identityProviders.createMapper({ alias: 'corp', identityProviderMapper: { name: 'bad', identityProviderMapper: 'saml-user-attribute-idp-mapper' } }))).status).toBe(400);
    const ev = await events(() => kc.identityProviders.delMapper({ alias: 'corp', id }));
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'IDENTITY_PROVIDER_MAPPER' }]);
  });

  it('imports config from an OIDC discovery document', async () => {
    const cfg = await kc.identityProviders.importFromUrl({ providerId: 'oidc', fromUrl: `${h.baseUrl}/realms/master/.well-known/openid-configuration` });
    expect(cfg).toMatchObject({ issuer: `${h.baseUrl}/realms/master`, tokenUrl: `${h.baseUrl}/realms/master/protocol/openid-connect/token`, jwksUrl: `${h.baseUrl}/realms/master/protocol/openid-connect/certs`, useJwksUrl: 'true' });
    expect((await failure(kc.identityProviders.importFromUrl({ providerId: 'oidc', fromUrl: `${h.baseUrl}/nowhere` }))).status).toBe(400);
    const ev = await events(() => kc.identityProviders.del({ alias: 'corp' }));
    expect(ev).toMatchObject([{ operationType: 'DELETE', resourceType: 'IDENTITY_PROVIDER' }]);
    expect(await kc.identityProviders.find()).toEqual([]);
  });
});

describe('user profile', () => {
  it('validates users against the profile and applies the unmanaged attribute policy', async () => {
    const cfg = await kc.users.getProfile();
    expect(cfg.attributes?.map((a) => a.name)).toEqual(['username', 'email', 'firstName', 'lastName']);
    const attrs = [
      ...cfg.attributes!.filter((a) => a.name !== 'lastName'),
      { name: 'lastName', displayName: '${lastName}', required: { roles: ['admin', 'user'] }, permissions: { view: ['admin'], edit: ['admin'] }, validations: { length: { max: 10 } } },
      { name: 'dept', displayName: 'Department', validations: { options: { options: ['sales', 'ops'] } }, permissions: { view: ['admin'], edit: ['admin'] } },
    ];
    const ev = await events(() => kc.users.updateProfile({ ...cfg, attributes: attrs, unmanagedAttributePolicy: undefined }));
    expect(ev).toMatchObject([{ operationType: 'UPDATE', resourceType: 'USER_PROFILE' }]);
    const none = await events(async () => {
      expect(await failure(kc.users.create({ username: 'pat', enabled: true }))).toMatchObject({ status: 400, data: { field: 'lastName', errorMessage: 'error-user-attribute-required' } });
      expect(await failure(kc.users.create({ username: 'pat', lastName: 'Way too long a name' }))).toMatchObject({ status: 400, data: { field: 'lastName', errorMessage: 'error-invalid-length' } });
      expect(await failure(kc.users.create({ username: 'pat', lastName: 'Ok', email: 'nope' }))).toMatchObject({ status: 400, data: { field: 'email', errorMessage: 'error-invalid-email' } });
      expect(await failure(kc.users.create({ username: 'pat', lastName: 'Ok', attributes: { dept: ['hr'] } }))).toMatchObject({ status: 400, data: { field: 'dept' } });
      expect((await failure(kc.users.updateProfile({ attributes: [{ name: 'bad name!' }] }))).status).toBe(400);
    });
    expect(none).toHaveLength(0);
    expect(await kc.users.find({ username: 'pat' })).toEqual([]);
    // Unmanaged attributes are dropped while the policy is off.
    const { id } = await kc.users.create({ username: 'pat', lastName: 'Ok', attributes: { dept: ['ops'], shoe: ['42'] } });
    expect((await kc.users.findOne({ id }))?.attributes).toEqual({ dept: ['ops'] });
    const meta = (await kc.users.findOne({ id, userProfileMetadata: true }))?.userProfileMetadata;
    expect(meta?.attributes?.find((a) => a.name === 'lastName')?.required).toBe(true);
    expect((await failure(kc.users.update({ id }, { username: 'pat', lastName: '' }))).status).toBe(400);
    await kc.users.updateProfile({ ...(await kc.users.getProfile()), unmanagedAttributePolicy: 'ENABLED' as never });
    await kc.users.update({ id }, { username: 'pat', lastName: 'Ok', attributes: { dept: ['ops'], shoe: ['43'] } });
    expect((await kc.users.findOne({ id }))?.attributes).toEqual({ dept: ['ops'], shoe: ['43'] });
  });
});
