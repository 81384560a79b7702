// Realm-level client configuration resources: client policies and profiles (with the server's
// global ones), client types, clients initial access tokens, and the client description converter
// (Keycloak JSON, OIDC client metadata, SAML entity descriptors).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';
import type { RealmEntity } from '../store/entities.js';
import { sign } from '../oidc/tokens.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';

const Config = z.record(z.string(), z.unknown()).nullish();
const ProfileRep = z.object({
  name: z.string().nullish(),
  description: z.string().nullish(),
  executors: z.array(z.object({ executor: z.string().nullish(), configuration: Config })).nullish(),
});
const PolicyRep = z.object({
  name: z.string().nullish(),
  description: z.string().nullish(),
  enabled: z.boolean().nullish(),
  conditions: z.array(z.object({ condition: z.string().nullish(), configuration: Config })).nullish(),
  profiles: z.array(z.string()).nullish(),
});
const ProfilesRep = z.object({ profiles: z.array(ProfileRep).nullish(), globalProfiles: z.array(ProfileRep).nullish() });
const PoliciesRep = z.object({ policies: z.array(PolicyRep).nullish(), globalPolicies: z.array(PolicyRep).nullish() });
const ClientTypeRep = z.object({
  name: z.string().nullish(),
  provider: z.string().nullish(),
  parent: z.string().nullish(),
  config: z.record(z.string(), z.object({ applicable: z.boolean().nullish(), value: z.unknown() })).nullish(),
});
const ClientTypesRep = z.object({ 'client-types': z.array(ClientTypeRep).nullish(), 'global-client-types': z.array(ClientTypeRep).nullish() });
const InitialAccessCreate = z.object({ expiration: z.number().int().nullish(), count: z.number().int().nullish() });

export const EXECUTORS = [
  'secure-client-authenticator', 'holder-of-key-enforcer', 'secure-client-uris', 'secure-request-object', 'secure-response-type', 'secure-session',
  'secure-signature-algorithm', 'secure-signature-algorithm-signed-jwt', 'pkce-enforcer', 'consent-required', 'full-scope-disabled', 'client-disabled',
  'reject-implicit-grant', 'reject-resource-owner-password-credentials-grant', 'dpop-bind-enforcer', 'confidential-client', 'secure-par-content',
  'secure-ciba-signed-authentication-request', 'secure-ciba-session', 'secure-ciba-req-sig-algorithm', 'secure-log-out', 'suppress-refresh-token-rotation',
  'use-lightweight-access-token', 'registration-access-token-rotation-disabled', 'secure-redirect-uris-enforcer', 'reject-request-with-client-assertion-and-client-secret',
];
export const CONDITIONS = [
  'any-client', 'client-access-type', 'client-attributes', 'client-roles', 'client-scopes', 'client-type', 'client-updater-context',
  'client-updater-source-groups', 'client-updater-source-host', 'client-updater-source-roles', 'grant-type',
];

const GLOBAL_PROFILES = [
  { name: 'fapi-1-baseline', description: 'Client profile, which enforce clients to conform \'Financial-grade API Security Profile 1.0 - Part 1: Baseline\' specification.', executors: [{ executor: 'secure-session', configuration: {} }, { executor: 'pkce-enforcer', configuration: { 'auto-configure': 'false' } }, { executor: 'secure-client-authenticator', configuration: { 'allowed-client-authenticators': ['client-jwt', 'client-x509', 'client-secret-jwt'], 'default-client-authenticator': 'client-jwt' } }, { executor: 'secure-redirect-uris-enforcer', configuration: {} }, { executor: 'consent-required', configuration: { 'auto-configure': 'false' } }, { executor: 'full-scope-disabled', configuration: { 'auto-configure': 'true' } }] },
  { name: 'fapi-1-advanced', description: 'Client profile, which enforce clients to conform \'Financial-grade API Security Profile 1.0 - Part 2: Advanced\' specification.', executors: [{ executor: 'secure-session', configuration: {} }, { executor: 'confidential-client', configuration: {} }, { executor: 'secure-client-authenticator', configuration: { 'allowed-client-authenticators': ['client-jwt', 'client-x509'], 'default-client-authenticator': 'client-jwt' } }, { executor: 'holder-of-key-enforcer', configuration: { 'auto-configure': 'true' } }, { executor: 'secure-signature-algorithm', configuration: { 'default-algorithm': 'PS256' } }, { executor: 'secure-request-object', configuration: { 'verify-nbf': 'true' } }] },
  { name: 'fapi-2-security-profile', description: 'Client profile, which enforce clients to conform \'FAPI 2.0 Security Profile\' specification.', executors: [{ executor: 'secure-session', configuration: {} }, { executor: 'pkce-enforcer', configuration: { 'auto-configure': 'false' } }, { executor: 'confidential-client', configuration: {} }, { executor: 'secure-par-content', configuration: {} }, { executor: 'reject-implicit-grant', configuration: { 'auto-configure': 'false' } }] },
  { name: 'oauth-2-1-for-confidential-client', description: 'Client profile, which enforce confidential clients to conform \'OAuth 2.1\' specification.', executors: [{ executor: 'reject-implicit-grant', configuration: { 'auto-configure': 'true' } }, { executor: 'reject-resource-owner-password-credentials-grant', configuration: { 'auto-configure': 'true' } }, { executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } }] },
  { name: 'oauth-2-1-for-public-client', description: 'Client profile, which enforce public clients to conform \'OAuth 2.1\' specification.', executors: [{ executor: 'reject-implicit-grant', configuration: { 'auto-configure': 'true' } }, { executor: 'reject-resource-owner-password-credentials-grant', configuration: { 'auto-configure': 'true' } }, { executor: 'pkce-enforcer', configuration: { 'auto-configure': 'true' } }] },
];
const GLOBAL_CLIENT_TYPES = [
  { name: 'sla', provider: 'default', config: { standardFlowEnabled: { applicable: true, value: true }, directAccessGrantsEnabled: { applicable: true, value: false }, serviceAccountsEnabled: { applicable: false }, publicClient: { applicable: true, value: false } } },
  { name: 'service-account', provider: 'default', config: { standardFlowEnabled: { applicable: true, value: false }, directAccessGrantsEnabled: { applicable: true, value: false }, serviceAccountsEnabled: { applicable: true, value: true }, publicClient: { applicable: true, value: false }, bearerOnly: { applicable: false } } },
];

type Profile = z.infer<typeof ProfileRep>;
type Policy = z.infer<typeof PolicyRep>;
const strip = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v != null)) as T;

interface InitialAccess {
  id: string;
  timestamp: number;
  expiration: number;
  count: number;
  remainingCount: number;
}

/** Parses a client description: Keycloak JSON, OIDC client metadata, or a SAML EntityDescriptor. */
export function convertClientDescription(text: string): Record<string, unknown> {
  const t = text.trim();
  if (t.startsWith('{')) {
    let o: Record<string, unknown>;
    try {
      o = JSON.parse(t) as Record<string, unknown>;
    } catch {
      throw errorMessage(400, 'Unsupported format');
    }
    if (typeof o.clientId === 'string') return o;
    if ('redirect_uris' in o || 'client_name' in o || 'client_id' in o) {
      const grants = (o.grant_types as string[] | undefined) ?? ['authorization_code'];
      const method = o.token_endpoint_auth_method as string | undefined;
      return strip({
        clientId: (o.client_id as string | undefined) ?? randomUUID(),
        name: o.client_name as string | undefined,
        protocol: 'openid-connect',
        redirectUris: (o.redirect_uris as string[] | undefined) ?? [],
        baseUrl: o.client_uri as string | undefined,
        publicClient: method === 'none',
        clientAuthenticatorType: method === 'private_key_jwt' ? 'client-jwt' : method === 'client_secret_jwt' ? 'client-secret-jwt' : method === 'tls_client_auth' ? 'client-x509' : 'client-secret',
        standardFlowEnabled: grants.includes('authorization_code'),
        implicitFlowEnabled: grants.includes('implicit'),
        directAccessGrantsEnabled: grants.includes('password'),
        serviceAccountsEnabled: grants.includes('client_credentials'),
        attributes: strip({ 'post.logout.redirect.uris': ((o.post_logout_redirect_uris as string[] | undefined) ?? []).join('##') || undefined, logoUri: o.logo_uri as string | undefined, policyUri: o.policy_uri as string | undefined, tosUri: o.tos_uri as string | undefined }),
      });
    }
    throw errorMessage(400, 'Unsupported format');
  }
  if (t.startsWith('<') && /EntityDescriptor/.test(t)) {
    const entityId = /entityID="([^"]+)"/.exec(t)?.[1];
    if (!entityId) throw errorMessage(400, 'Unsupported format');
    const acs = [...t.matchAll(/<(?:\w+:)?AssertionConsumerService[^>]*?Binding="([^"]+)"[^>]*?Location="([^"]+)"/g)];
    const slo = [...t.matchAll(/<(?:\w+:)?SingleLogoutService[^>]*?Binding="([^"]+)"[^>]*?Location="([^"]+)"/g)];
    const attrs: Record<string, string> = {};
    const bindingName = (b: string) => (b.endsWith('HTTP-POST') ? 'post' : b.endsWith('HTTP-Redirect') ? 'redirect' : b.endsWith('SOAP') ? 'soap' : b.endsWith('HTTP-Artifact') ? 'artifact' : 'post');
    for (const [, b, loc] of acs) attrs[`saml_assertion_consumer_url_${bindingName(b!)}`] ??= loc!;
    for (const [, b, loc] of slo) attrs[`saml_single_logout_service_url_${bindingName(b!)}`] ??= loc!;
    const signed = /AuthnRequestsSigned="true"/.test(t);
    attrs['saml.client.signature'] = String(signed);
    attrs['saml.authnstatement'] = 'true';
    return { clientId: entityId, protocol: 'saml', redirectUris: [...new Set(acs.map((m) => m[2]!))], attributes: attrs, frontchannelLogout: true };
  }
  throw errorMessage(400, 'Unsupported format');
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;
  const view = (ctx: AdminContext) => ctx.auth.realm.requireView();
  const manage = (ctx: AdminContext) => ctx.auth.realm.requireManage();
  const profiles = (realm: RealmEntity) => (realm._clientProfiles ?? []) as Profile[];
  const policies = (realm: RealmEntity) => (realm._clientPolicies ?? []) as Policy[];

  // ── profiles ──
  r.realm('GET', '/client-policies/profiles', (ctx) => {
    view(ctx);
    return ok({ profiles: profiles(ctx.realm), ...(ctx.queryBool('include-global-profiles', false) ? { globalProfiles: GLOBAL_PROFILES } : {}) });
  });
  r.realm('PUT', '/client-policies/profiles', async (ctx) => {
    manage(ctx);
    const rep = ctx.body(ProfilesRep);
    const list = (rep.profiles ?? []).map(strip);
    const names = new Set<string>();
    for (const p of list) {
      if (!p.name) throw errorMessage(400, 'invalid client profile: the name is missing');
      if (names.has(p.name) || GLOBAL_PROFILES.some((g) => g.name === p.name)) throw errorMessage(400, `invalid client profile: duplicated name ${p.name}`);
      names.add(p.name);
      for (const e of p.executors ?? []) if (!e.executor || !EXECUTORS.includes(e.executor)) throw errorMessage(400, `invalid client profile: no executor provider ${e.executor ?? ''}`);
    }
    // Policies may only refer to existing profiles.
    const known = new Set([...names, ...GLOBAL_PROFILES.map((g) => g.name)]);
    for (const pol of policies(ctx.realm)) for (const pn of pol.profiles ?? []) if (!known.has(pn)) throw errorMessage(400, `invalid client profile: profile ${pn} is used by policy ${pol.name ?? ''}`);
    await ctx.updateRealm((cur, ev) => {
      ev.update('REALM', ctx.here(), { profiles: list });
      return { next: { ...cur, _clientProfiles: list } };
    });
    return noContent();
  });

  // ── policies ──
  r.realm('GET', '/client-policies/policies', (ctx) => {
    view(ctx);
    return ok({ policies: policies(ctx.realm), ...(ctx.queryBool('include-global-policies', false) ? { globalPolicies: [] } : {}) });
  });
  r.realm('PUT', '/client-policies/policies', async (ctx) => {
    manage(ctx);
    const rep = ctx.body(PoliciesRep);
    const list = (rep.policies ?? []).map((p) => strip({ ...p, enabled: p.enabled ?? false }));
    const known = new Set([...profiles(ctx.realm).map((p) => p.name), ...GLOBAL_PROFILES.map((g) => g.name)]);
    const names = new Set<string>();
    for (const p of list) {
      if (!p.name) throw errorMessage(400, 'invalid client policy: the name is missing');
      if (names.has(p.name)) throw errorMessage(400, `invalid client policy: duplicated name ${p.name}`);
      names.add(p.name);
      for (const c of p.conditions ?? []) if (!c.condition || !CONDITIONS.includes(c.condition)) throw errorMessage(400, `invalid client policy: no condition provider ${c.condition ?? ''}`);
      for (const pn of p.profiles ?? []) if (!known.has(pn)) throw errorMessage(400, `invalid client policy: no profile ${pn}`);
    }
    await ctx.updateRealm((cur, ev) => {
      ev.update('REALM', ctx.here(), { policies: list });
      return { next: { ...cur, _clientPolicies: list } };
    });
    return noContent();
  });

  // ── client types ──
  r.realm('GET', '/client-types', (ctx) => {
    view(ctx);
    return ok({ 'client-types': ctx.realm._clientTypes ?? [], 'global-client-types': GLOBAL_CLIENT_TYPES });
  });
  r.realm('PUT', '/client-types', async (ctx) => {
    manage(ctx);
    const rep = ctx.body(ClientTypesRep);
    const list = (rep['client-types'] ?? []).map(strip);
    const names = new Set<string>();
    for (const t of list) {
      if (!t.name) throw errorMessage(400, 'Client type name is missing');
      if (names.has(t.name) || GLOBAL_CLIENT_TYPES.some((g) => g.name === t.name)) throw errorMessage(400, `Duplicated client type name '${t.name}'`);
      if ((t.provider ?? 'default') !== 'default') throw errorMessage(400, `Unknown client type provider '${t.provider}'`);
      if (t.parent && !GLOBAL_CLIENT_TYPES.some((g) => g.name === t.parent) && !list.some((x) => x.name === t.parent)) throw errorMessage(400, `Unknown parent client type '${t.parent}'`);
      names.add(t.name);
    }
    await ctx.updateRealm((cur, ev) => {
      ev.update('REALM', ctx.here(), { 'client-types': list });
      return { next: { ...cur, _clientTypes: list } };
    });
    return noContent();
  });

  // ── clients initial access ──
  const initial = (realm: RealmEntity) => (realm._clientInitialAccess ?? []) as InitialAccess[];
  r.realm('GET', '/clients-initial-access', (ctx) => {
    ctx.auth.clients.requireView();
    const now = Math.floor(Date.now() / 1000);
    return ok(initial(ctx.realm).filter((a) => a.expiration === 0 || a.timestamp + a.expiration > now));
  });
  r.realm('POST', '/clients-initial-access', async (ctx) => {
    ctx.auth.clients.requireManage();
    const rep = ctx.body(InitialAccessCreate);
    const expiration = rep.expiration ?? 0;
    const count = rep.count ?? 1;
    if (expiration < 0) throw errorMessage(400, 'Invalid value for expiration');
    if (count < 0) throw errorMessage(400, 'Invalid value for count');
    const a: InitialAccess = { id: randomUUID(), timestamp: Math.floor(Date.now() / 1000), expiration, count, remainingCount: count };
    const iss = `${ctx.req.baseUrl}/realms/${ctx.realm.realm}`;
    const token = await sign(store, ctx.realm, { jti: a.id, iat: a.timestamp, ...(expiration ? { exp: a.timestamp + expiration } : {}), iss, aud: iss, typ: 'InitialAccessToken' });
    await ctx.updateRealm((cur, ev) => {
      ev.create('CLIENT_INITIAL_ACCESS_MODEL', ctx.here(a.id), a);
      return { next: { ...cur, _clientInitialAccess: [...initial(cur), a] } };
    });
    return { status: 201, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...a, token }) };
  });
  r.realm('DELETE', '/clients-initial-access/:id', async (ctx) => {
    ctx.auth.clients.requireManage();
    const id = ctx.param('id');
    if (!initial(ctx.realm).some((a) => a.id === id)) throw ERR.notFound('Client initial access not found');
    await ctx.updateRealm((cur, ev) => {
      ev.delete('CLIENT_INITIAL_ACCESS_MODEL', ctx.here());
      return { next: { ...cur, _clientInitialAccess: initial(cur).filter((a) => a.id !== id) } };
    });
    return noContent();
  });

  r.realm('POST', '/client-description-converter', (ctx) => {
    ctx.auth.clients.requireManage();
    return ok(convertClientDescription(ctx.req.body.toString('utf8')));
  });
}
