// /admin/realms/{realm}/identity-provider: instances (list, create, get, update, delete), provider
// types, mappers and mapper types, import-config from an OIDC discovery document or a SAML
// descriptor (IdentityProvidersResource / IdentityProviderResource). Instances and mappers live on
// the realm entity; a client secret in a config is never returned (masked).
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERR, errorMessage } from '../errors.js';
import type { IdentityProviderEntity, IdentityProviderMapperEntity, RealmEntity, UserEntity } from '../store/entities.js';
import { noContent, ok, page, type AdminContext, type AdminRoutes } from './context.js';
import { convertClientDescription } from './client-policies.js';
import { parseForm } from './forms.js';

const MASK = '**********';
const SECRET_KEYS = ['clientSecret'];

export const IdentityProviderRepresentation = z.object({
  alias: z.string().nullish(),
  displayName: z.string().nullish(),
  internalId: z.string().nullish(),
  providerId: z.string().nullish(),
  enabled: z.boolean().nullish(),
  updateProfileFirstLoginMode: z.string().nullish(),
  trustEmail: z.boolean().nullish(),
  storeToken: z.boolean().nullish(),
  addReadTokenRoleOnCreate: z.boolean().nullish(),
  authenticateByDefault: z.boolean().nullish(),
  linkOnly: z.boolean().nullish(),
  hideOnLogin: z.boolean().nullish(),
  firstBrokerLoginFlowAlias: z.string().nullish(),
  postBrokerLoginFlowAlias: z.string().nullish(),
  organizationId: z.string().nullish(),
  config: z.record(z.string(), z.string().nullable()).nullish(),
});
const MapperRepresentation = z.object({
  id: z.string().nullish(),
  name: z.string().nullish(),
  identityProviderAlias: z.string().nullish(),
  identityProviderMapper: z.string().nullish(),
  config: z.record(z.string(), z.string().nullable()).nullish(),
});

export const IDP_PROVIDERS: Record<string, string> = {
  oidc: 'OpenID Connect v1.0', 'keycloak-oidc': 'Keycloak OpenID Connect', saml: 'SAML v2.0', google: 'Google', github: 'GitHub', facebook: 'Facebook',
  microsoft: 'Microsoft', gitlab: 'GitLab', bitbucket: 'BitBucket', twitter: 'Twitter', 'linkedin-openid-connect': 'LinkedIn', instagram: 'Instagram',
  paypal: 'PayPal', stackoverflow: 'StackOverflow', 'openshift-v4': 'Openshift v4',
};
const prop = (name: string, label: string, type: string) => ({ name, label, helpText: '', type });
const MAPPER_TYPES: Record<string, { id: string; name: string; category: string; helpText: string; properties: unknown[]; social?: boolean }> = {
  'hardcoded-user-session-attribute-idp-mapper': { id: 'hardcoded-user-session-attribute-idp-mapper', name: 'Hardcoded User Session Attribute', category: 'Attribute Importer', helpText: 'When user is imported from provider, hardcode a value to a specific user session attribute.', properties: [prop('attribute', 'User Session Attribute', 'String'), prop('attribute.value', 'User Session Attribute Value', 'String')] },
  'hardcoded-attribute-idp-mapper': { id: 'hardcoded-attribute-idp-mapper', name: 'Hardcoded Attribute', category: 'Attribute Importer', helpText: 'When user is imported from provider, hardcode a value to a specific user attribute.', properties: [prop('attribute', 'User Attribute', 'UserProfileAttributeList'), prop('attribute.value', 'User Attribute Value', 'String')] },
  'oidc-hardcoded-role-idp-mapper': { id: 'oidc-hardcoded-role-idp-mapper', name: 'Hardcoded Role', category: 'Role Importer', helpText: 'When user is imported from provider, hardcode a role mapping for it.', properties: [prop('role', 'Role', 'Role')] },
  'oidc-hardcoded-group-idp-mapper': { id: 'oidc-hardcoded-group-idp-mapper', name: 'Hardcoded Group', category: 'Group Importer', helpText: 'When user is imported from provider, hardcode a group mapping for it.', properties: [prop('group', 'Group', 'Group')] },
  'oidc-user-attribute-idp-mapper': { id: 'oidc-user-attribute-idp-mapper', name: 'Attribute Importer', category: 'Attribute Importer', helpText: 'Import declared claim if it exists in ID, access token or the claim set returned by the user profile endpoint into the specified user property or attribute.', properties: [prop('claim', 'Claim', 'String'), prop('user.attribute', 'User Attribute Name', 'UserProfileAttributeList')] },
  'oidc-role-idp-mapper': { id: 'oidc-role-idp-mapper', name: 'Claim to Role', category: 'Role Importer', helpText: 'If a claim exists, grant the user the specified realm or client role.', properties: [prop('claim', 'Claim', 'String'), prop('claim.value', 'Claim Value', 'String'), prop('role', 'Role', 'Role')] },
  'oidc-username-idp-mapper': { id: 'oidc-username-idp-mapper', name: 'Username Template Importer', category: 'Preprocessor', helpText: 'Format the username to import.', properties: [prop('template', 'Template', 'String')] },
  'saml-user-attribute-idp-mapper': { id: 'saml-user-attribute-idp-mapper', name: 'Attribute Importer', category: 'Attribute Importer', helpText: 'Import declared saml attribute if it exists in assertion into the specified user property or attribute.', properties: [prop('attribute.name', 'Attribute Name', 'String'), prop('user.attribute', 'User Attribute Name', 'UserProfileAttributeList')] },
  'github-user-attribute-mapper': { id: 'github-user-attribute-mapper', name: 'Attribute Importer', category: 'Attribute Importer', helpText: 'Import user profile information if it exists in Github JSON data into the specified user attribute.', properties: [prop('jsonField', 'Social Profile JSON Field Path', 'String'), prop('userAttribute', 'User Attribute Name', 'UserProfileAttributeList')], social: true },
};
function mapperTypesFor(providerId: string) {
  const oidc = providerId === 'oidc' || providerId === 'keycloak-oidc';
  return Object.fromEntries(Object.entries(MAPPER_TYPES).filter(([id, t]) => {
    if (id.startsWith('hardcoded') || id === 'oidc-hardcoded-role-idp-mapper' || id === 'oidc-hardcoded-group-idp-mapper') return true;
    if (id.startsWith('oidc-')) return oidc;
    if (id.startsWith('saml-')) return providerId === 'saml';
    return t.social === true && providerId === 'github';
  }));
}

const clean = (m: Record<string, string | null> | null | undefined) => Object.fromEntries(Object.entries(m ?? {}).filter((e): e is [string, string] => e[1] != null));

export function idpRep(i: IdentityProviderEntity): Record<string, unknown> {
  const config = { ...i.config };
  for (const k of SECRET_KEYS) if (config[k] && !config[k]!.startsWith('${vault.')) config[k] = MASK;
  return {
    alias: i.alias, ...(i.displayName !== undefined ? { displayName: i.displayName } : {}), internalId: i.internalId, providerId: i.providerId, enabled: i.enabled,
    updateProfileFirstLoginMode: i.updateProfileFirstLoginMode, trustEmail: i.trustEmail, storeToken: i.storeToken, addReadTokenRoleOnCreate: i.addReadTokenRoleOnCreate,
    authenticateByDefault: i.authenticateByDefault, linkOnly: i.linkOnly, hideOnLogin: i.hideOnLogin, firstBrokerLoginFlowAlias: i.firstBrokerLoginFlowAlias,
    ...(i.postBrokerLoginFlowAlias ? { postBrokerLoginFlowAlias: i.postBrokerLoginFlowAlias } : {}), ...(i.organizationId ? { organizationId: i.organizationId } : {}), config,
  };
}
const stripRep = (rep: z.infer<typeof IdentityProviderRepresentation>) => {
  const config = { ...(rep.config ?? {}) };
  for (const k of SECRET_KEYS) if (config[k]) config[k] = MASK;
  return { ...rep, config };
};

function apply(realm: RealmEntity, rep: z.infer<typeof IdentityProviderRepresentation>, cur?: IdentityProviderEntity): IdentityProviderEntity {
  const alias = (rep.alias ?? cur?.alias ?? '').trim();
  if (!alias) throw errorMessage(400, 'Identity Provider alias is missing');
  if (!/^[A-Za-z0-9._~-]+$/.test(alias)) throw errorMessage(400, 'Invalid identity provider alias');
  const providerId = rep.providerId ?? cur?.providerId;
  if (!providerId || !IDP_PROVIDERS[providerId]) throw errorMessage(400, `Invalid identity provider id [${providerId ?? ''}]`);
  const config = rep.config != null ? clean(rep.config) : { ...(cur?.config ?? {}) };
  for (const k of SECRET_KEYS) if (config[k] === MASK) {
    if (cur?.config[k] !== undefined) config[k] = cur.config[k]!;
    else delete config[k];
  }
  for (const k of ['authorizationUrl', 'tokenUrl', 'userInfoUrl', 'jwksUrl', 'logoutUrl', 'singleSignOnServiceUrl']) {
    const v = config[k];
    if (v) {
      try {
        const u = new URL(v);
        if (!['http:', 'https:'].includes(u.protocol)) throw new Error();
      } catch {
        throw errorMessage(400, `Invalid URL for ${k}`, { field: k });
      }
    }
  }
  const flow = rep.firstBrokerLoginFlowAlias ?? cur?.firstBrokerLoginFlowAlias ?? 'first broker login';
  if (flow && !realm._flows.some((f) => f.alias === flow)) throw errorMessage(400, `No available authentication flow with alias: ${flow}`);
  const e: IdentityProviderEntity = {
    internalId: cur?.internalId ?? randomUUID(),
    alias,
    providerId,
    enabled: rep.enabled ?? cur?.enabled ?? true,
    updateProfileFirstLoginMode: rep.updateProfileFirstLoginMode ?? cur?.updateProfileFirstLoginMode ?? 'on',
    trustEmail: rep.trustEmail ?? cur?.trustEmail ?? false,
    storeToken: rep.storeToken ?? cur?.storeToken ?? false,
    addReadTokenRoleOnCreate: rep.addReadTokenRoleOnCreate ?? cur?.addReadTokenRoleOnCreate ?? false,
    authenticateByDefault: rep.authenticateByDefault ?? cur?.authenticateByDefault ?? false,
    linkOnly: rep.linkOnly ?? cur?.linkOnly ?? false,
    hideOnLogin: rep.hideOnLogin ?? cur?.hideOnLogin ?? false,
    firstBrokerLoginFlowAlias: flow,
    config,
  };
  const displayName = rep.displayName !== undefined ? rep.displayName : cur?.displayName;
  if (displayName != null) e.displayName = displayName;
  const post = rep.postBrokerLoginFlowAlias !== undefined ? rep.postBrokerLoginFlowAlias : cur?.postBrokerLoginFlowAlias;
  if (post) e.postBrokerLoginFlowAlias = post;
  if (cur?.organizationId) e.organizationId = cur.organizationId;
  return e;
}

/** Config from an OIDC discovery document (the keys Keycloak's OIDC provider takes). */
function fromDiscovery(doc: Record<string, unknown>): Record<string, string> {
  const s = (k: string) => (typeof doc[k] === 'string' ? (doc[k] as string) : undefined);
  const out: Record<string, string | undefined> = {
    authorizationUrl: s('authorization_endpoint'), tokenUrl: s('token_endpoint'), userInfoUrl: s('userinfo_endpoint'), logoutUrl: s('end_session_endpoint'),
    issuer: s('issuer'), jwksUrl: s('jwks_uri'), validateSignature: 'true', useJwksUrl: s('jwks_uri') ? 'true' : 'false',
    tokenIntrospectionUrl: s('introspection_endpoint'), metadataDescriptorUrl: undefined,
  };
  if (!out.authorizationUrl || !out.tokenUrl) throw errorMessage(400, 'Invalid OpenID Connect discovery document: missing authorization or token endpoint');
  return Object.fromEntries(Object.entries(out).filter((e): e is [string, string] => e[1] !== undefined));
}

export function register(r: AdminRoutes): void {
  const B = '/identity-provider';
  const view = (ctx: AdminContext) => ctx.auth.identityProviders.requireView();
  const manage = (ctx: AdminContext) => ctx.auth.identityProviders.requireManage();
  const idps = (realm: RealmEntity) => realm._identityProviders ?? [];
  const mappers = (realm: RealmEntity) => realm._identityProviderMappers ?? [];
  const locate = (ctx: AdminContext): IdentityProviderEntity => {
    const i = idps(ctx.realm).find((x) => x.alias === ctx.param('alias'));
    if (!i) throw ERR.notFound('Could not find identity provider');
    return i;
  };

  r.realm('GET', `${B}/instances`, (ctx) => {
    view(ctx);
    const search = ctx.query('search');
    let list = idps(ctx.realm);
    if (search) {
      const s = search.toLowerCase();
      list = list.filter((i) => (s.startsWith('"') && s.endsWith('"') ? i.alias.toLowerCase() === s.slice(1, -1) : i.alias.toLowerCase().includes(s.replace(/\*/g, ''))));
    }
    if (ctx.queryBool('realmOnly', false)) list = list.filter((i) => !i.organizationId);
    const brief = ctx.queryBool('briefRepresentation', false);
    return ok(page(list, ctx.queryInt('first', 0), ctx.queryInt('max', -1)).map((i) => (brief ? { alias: i.alias, displayName: i.displayName, internalId: i.internalId, providerId: i.providerId, enabled: i.enabled } : idpRep(i))));
  });
  r.realm('POST', `${B}/instances`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(IdentityProviderRepresentation);
    const e = apply(ctx.realm, rep);
    if (idps(ctx.realm).some((i) => i.alias === e.alias)) throw ERR.conflict(`Identity Provider ${e.alias} already exists`);
    await ctx.updateRealm((cur, ev) => {
      if (idps(cur).some((i) => i.alias === e.alias)) throw ERR.conflict(`Identity Provider ${e.alias} already exists`);
      ev.create('IDENTITY_PROVIDER', ctx.here(e.alias), stripRep(rep));
      return { next: { ...cur, _identityProviders: [...idps(cur), e] } };
    });
    return ctx.created(e.alias);
  });
  r.realm('GET', `${B}/instances/:alias`, (ctx) => (view(ctx), ok(idpRep(locate(ctx)))));
  r.realm('PUT', `${B}/instances/:alias`, async (ctx) => {
    manage(ctx);
    const old = locate(ctx);
    const rep = ctx.body(IdentityProviderRepresentation);
    const e = apply(ctx.realm, rep, old);
    if (e.alias !== old.alias && idps(ctx.realm).some((i) => i.alias === e.alias)) throw ERR.conflict(`Identity Provider ${e.alias} already exists`);
    await ctx.updateRealm((cur, ev, tx) => {
      if (e.alias !== old.alias) {
        // Mappers, user links and organization links follow a renamed alias.
        for (const u of tx.range('userByUsername', [cur.id])) {
          const user = tx.get<UserEntity>('users', u.value as string);
          if (user?.federatedIdentities.some((f) => f.identityProvider === old.alias)) tx.put('users', user.id, { ...user, federatedIdentities: user.federatedIdentities.map((f) => (f.identityProvider === old.alias ? { ...f, identityProvider: e.alias } : f)) });
        }
      }
      ev.update('IDENTITY_PROVIDER', ctx.here(), stripRep(rep));
      return {
        next: {
          ...cur,
          _identityProviders: idps(cur).map((i) => (i.alias === old.alias ? e : i)),
          _identityProviderMappers: mappers(cur).map((m) => (m.identityProviderAlias === old.alias ? { ...m, identityProviderAlias: e.alias } : m)),
        },
      };
    });
    return noContent();
  });
  r.realm('DELETE', `${B}/instances/:alias`, async (ctx) => {
    manage(ctx);
    const old = locate(ctx);
    await ctx.updateRealm((cur, ev, tx) => {
      for (const u of tx.range('userByUsername', [cur.id])) {
        const user = tx.get<UserEntity>('users', u.value as string);
        if (user?.federatedIdentities.some((f) => f.identityProvider === old.alias)) tx.put('users', user.id, { ...user, federatedIdentities: user.federatedIdentities.filter((f) => f.identityProvider !== old.alias) });
      }
      if (old.organizationId) {
        const org = tx.get<{ identityProviders: string[] }>('organizations', old.organizationId);
        if (org) tx.put('organizations', old.organizationId, { ...org, identityProviders: org.identityProviders.filter((a) => a !== old.alias) });
      }
      ev.delete('IDENTITY_PROVIDER', ctx.here());
      return { next: { ...cur, _identityProviders: idps(cur).filter((i) => i.alias !== old.alias), _identityProviderMappers: mappers(cur).filter((m) => m.identityProviderAlias !== old.alias) } };
    });
    return noContent();
  });
  r.realm('GET', `${B}/providers/:providerId`, (ctx) => {
    view(ctx);
    const id = ctx.param('providerId');
    if (!IDP_PROVIDERS[id]) throw ERR.notFound('Could not find identity provider factory');
    return ok({ id, name: IDP_PROVIDERS[id] });
  });
  r.realm('GET', `${B}/instances/:alias/mapper-types`, (ctx) => (view(ctx), ok(mapperTypesFor(locate(ctx).providerId))));
  r.realm('GET', `${B}/instances/:alias/management/permissions`, (ctx) => (view(ctx), locate(ctx), ok({ enabled: false })));
  r.realm('PUT', `${B}/instances/:alias/management/permissions`, (ctx) => (manage(ctx), locate(ctx), ok({ enabled: false })));
  r.realm('GET', `${B}/instances/:alias/reload-keys`, (ctx) => (manage(ctx), ok(!!locate(ctx).config.jwksUrl)));

  // ── mappers ──
  const checkMapper = (idp: IdentityProviderEntity, rep: z.infer<typeof MapperRepresentation>) => {
    if (!rep.name) throw errorMessage(400, 'Mapper name is missing');
    if (!rep.identityProviderMapper || !mapperTypesFor(idp.providerId)[rep.identityProviderMapper]) throw errorMessage(400, `Unknown identity provider mapper type: ${rep.identityProviderMapper ?? ''}`);
  };
  r.realm('GET', `${B}/instances/:alias/mappers`, (ctx) => {
    view(ctx);
    const idp = locate(ctx);
    return ok(mappers(ctx.realm).filter((m) => m.identityProviderAlias === idp.alias));
  });
  r.realm('POST', `${B}/instances/:alias/mappers`, async (ctx) => {
    manage(ctx);
    const idp = locate(ctx);
    const rep = ctx.body(MapperRepresentation);
    checkMapper(idp, rep);
    if (mappers(ctx.realm).some((m) => m.identityProviderAlias === idp.alias && m.name === rep.name)) throw ERR.conflict(`IDP mapper name must be unique per IDP`);
    const m: IdentityProviderMapperEntity = { id: randomUUID(), name: rep.name!, identityProviderAlias: idp.alias, identityProviderMapper: rep.identityProviderMapper!, config: clean(rep.config) };
    await ctx.updateRealm((cur, ev) => {
      ev.create('IDENTITY_PROVIDER_MAPPER', ctx.here(m.id), m);
      return { next: { ...cur, _identityProviderMappers: [...mappers(cur), m] } };
    });
    return ctx.created(m.id);
  });
  const locateMapper = (ctx: AdminContext) => {
    const idp = locate(ctx);
    const m = mappers(ctx.realm).find((x) => x.id === ctx.param('id') && x.identityProviderAlias === idp.alias);
    if (!m) throw ERR.notFound('Model not found');
    return { idp, m };
  };
  r.realm('GET', `${B}/instances/:alias/mappers/:id`, (ctx) => (view(ctx), ok(locateMapper(ctx).m)));
  r.realm('PUT', `${B}/instances/:alias/mappers/:id`, async (ctx) => {
    manage(ctx);
    const { idp, m } = locateMapper(ctx);
    const rep = ctx.body(MapperRepresentation);
    checkMapper(idp, { ...rep, name: rep.name ?? m.name, identityProviderMapper: rep.identityProviderMapper ?? m.identityProviderMapper });
    const next = { ...m, name: rep.name ?? m.name, identityProviderMapper: rep.identityProviderMapper ?? m.identityProviderMapper, config: rep.config != null ? clean(rep.config) : m.config };
    await ctx.updateRealm((cur, ev) => {
      ev.update('IDENTITY_PROVIDER_MAPPER', ctx.here(), next);
      return { next: { ...cur, _identityProviderMappers: mappers(cur).map((x) => (x.id === m.id ? next : x)) } };
    });
    return noContent();
  });
  r.realm('DELETE', `${B}/instances/:alias/mappers/:id`, async (ctx) => {
    manage(ctx);
    const { m } = locateMapper(ctx);
    await ctx.updateRealm((cur, ev) => {
      ev.delete('IDENTITY_PROVIDER_MAPPER', ctx.here());
      return { next: { ...cur, _identityProviderMappers: mappers(cur).filter((x) => x.id !== m.id) } };
    });
    return noContent();
  });

  // ── import-config: {providerId, fromUrl} JSON, or a multipart file ──
  r.realm('POST', `${B}/import-config`, async (ctx) => {
    manage(ctx);
    const ct = ctx.req.headers['content-type'] ?? '';
    let providerId: string | undefined;
    let text: string;
    if (ct.startsWith('multipart/form-data')) {
      const form = parseForm(ctx.req);
      providerId = form.get('providerId');
      const file = form.file();
      if (!file) throw errorMessage(400, 'No file was uploaded');
      text = file.data.toString('utf8');
    } else {
      const body = ctx.body(z.object({ providerId: z.string().nullish(), fromUrl: z.string().nullish() }));
      providerId = body.providerId ?? undefined;
      if (!body.fromUrl) throw errorMessage(400, 'fromUrl is missing');
      let res: Response;
      try {
        const u = new URL(body.fromUrl);
        if (!['http:', 'https:'].includes(u.protocol)) throw new Error('bad scheme');
        res = await fetch(u, { signal: AbortSignal.timeout(10_000) });
      } catch (e) {
        throw errorMessage(400, `Could not fetch the configuration from ${body.fromUrl}: ${(e as Error).message}`);
      }
      if (!res.ok) throw errorMessage(400, `Could not fetch the configuration from ${body.fromUrl}: HTTP ${res.status}`);
      text = await res.text();
    }
    if (!providerId || !IDP_PROVIDERS[providerId]) throw errorMessage(400, `Invalid identity provider id [${providerId ?? ''}]`);
    if (providerId === 'saml') {
      const t = text.trim();
      const sso = /<(?:\w+:)?SingleSignOnService[^>]*?Location="([^"]+)"/.exec(t)?.[1];
      const slo = /<(?:\w+:)?SingleLogoutService[^>]*?Location="([^"]+)"/.exec(t)?.[1];
      const entity = /entityID="([^"]+)"/.exec(t)?.[1];
      const cert = /<(?:\w+:)?X509Certificate>([^<]+)</.exec(t)?.[1];
      if (!sso || !entity) throw errorMessage(400, 'Invalid SAML entity descriptor');
      void convertClientDescription;
      return ok({ singleSignOnServiceUrl: sso, ...(slo ? { singleLogoutServiceUrl: slo } : {}), idpEntityId: entity, ...(cert ? { signingCertificate: cert.replace(/\s/g, ''), validateSignature: 'true' } : {}), postBindingResponse: 'true', postBindingAuthnRequest: 'true' });
    }
    let doc: Record<string, unknown>;
    try {
      doc = JSON.parse(text) as Record<string, unknown>;
    } catch {
      throw errorMessage(400, 'Invalid OpenID Connect discovery document');
    }
    return ok(fromDiscovery(doc));
  });
}
