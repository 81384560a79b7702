// /admin/realms/{realm}/components: list with name/parent/type filters and create (ComponentResource
// collection), plus the client-registration policy provider list. Key providers generate or import
// their key material before the write opens; the key then signs tokens once it is the active one.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import type { ComponentEntity, RealmEntity, RealmKeys } from '../store/entities.js';
import { COMPONENT_PROVIDERS, COMPONENT_PROVIDER_BY_ID, KEY_PROVIDER, REG_POLICY, listComponents, toRepresentation } from '../model/component.js';
import { generateRealmKeys, generateSecretKey, importRsaKeys } from '../oidc/keys.js';
import { id, name } from '../model/schemas.js';
import { ok, type AdminContext, type AdminRoutes } from './context.js';

export const ComponentRepresentation = z.object({
  id: id(),
  name: name(),
  providerId: name(),
  providerType: name(),
  parentId: id(),
  subType: name(),
  config: z.record(z.string(), z.array(z.string()).nullable()).nullish(),
});
export type ComponentRepresentation = z.infer<typeof ComponentRepresentation>;

export const cleanConfig = (c: Record<string, string[] | null> | null | undefined): Record<string, string[]> =>
  Object.fromEntries(Object.entries(c ?? {}).filter((e): e is [string, string[]] => e[1] != null));

/** Checks a key provider's settings and makes its key material (async: RSA generation). */
export async function keyMaterial(providerId: string, config: Record<string, string[]>, realmName: string, previous?: ComponentEntity): Promise<Pick<ComponentEntity, '_keys' | '_secret'>> {
  const one = (k: string) => config[k]?.[0];
  const priority = one('priority');
  if (priority !== undefined && !/^-?\d+$/.test(priority)) throw errorMessage(400, "'Priority' should be a number");
  switch (providerId) {
    case 'rsa-generated':
    case 'rsa-enc-generated': {
      const size = Number(one('keySize') ?? '2048');
      if (![1024, 2048, 3072, 4096].includes(size)) throw errorMessage(400, "'Key size' should be 1024, 2048, 3072 or 4096");
      const algorithm = one('algorithm');
      const algs = providerId === 'rsa-generated' ? ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'] : ['RSA1_5', 'RSA-OAEP', 'RSA-OAEP-256'];
      if (algorithm !== undefined && !algs.includes(algorithm)) throw errorMessage(400, `'Algorithm' should be one of ${algs.join(', ')}`);
      const prevSize = previous?.config.keySize?.[0] ?? '2048';
      if (previous?._keys && String(size) === prevSize) return { _keys: previous._keys };
      return { _keys: await generateRealmKeys(realmName, size) };
    }
    case 'rsa': {
      const pem = one('privateKey');
      if (!pem || pem === '**********') {
        if (previous?._keys) return { _keys: previous._keys };
        throw errorMessage(400, "'Private RSA Key' is required");
      }
      try {
        return { _keys: importRsaKeys(pem, one('certificate'), realmName) };
      } catch {
        throw errorMessage(400, 'Failed to decode private key');
      }
    }
    case 'hmac-generated':
    case 'aes-generated': {
      const size = Number(one('secretSize') ?? (providerId === 'aes-generated' ? '16' : '64'));
      const sizes = providerId === 'aes-generated' ? [16, 24, 32] : [16, 24, 32, 64, 128, 256, 512];
      if (!sizes.includes(size)) throw errorMessage(400, `'Secret size' should be one of ${sizes.join(', ')}`);
      if (previous?._secret && String(size) === (previous.config.secretSize?.[0] ?? String(size))) return { _secret: previous._secret };
      return { _secret: { kid: randomUUID(), value: generateSecretKey(size) } };
    }
    default:
      return {};
  }
}

export function checkProvider(rep: ComponentRepresentation): void {
  if (!rep.providerId) throw errorMessage(400, 'Provider id is missing');
  const known = COMPONENT_PROVIDER_BY_ID.get(rep.providerId);
  if ((rep.providerType === KEY_PROVIDER || rep.providerType === REG_POLICY) && (!known || known.type !== rep.providerType)) {
    throw errorMessage(400, `Provider ${rep.providerId} of type ${rep.providerType} not found`);
  }
}

export function register(r: AdminRoutes): void {
  const store = r.svc.store;

  r.realm('GET', '/components', (ctx) => {
    ctx.auth.realm.requireView();
    const parent = ctx.query('parent');
    const type = ctx.query('type');
    const name = ctx.query('name');
    let list = listComponents(store, ctx.realm.id);
    if (parent !== undefined || type !== undefined) list = list.filter((c) => c.parentId === (parent ?? ctx.realm.id));
    if (type !== undefined) list = list.filter((c) => c.providerType === type);
    if (name !== undefined) list = list.filter((c) => c.name === name);
    return ok(list.map(toRepresentation));
  });

  r.realm('POST', '/components', async (ctx: AdminContext) => {
    ctx.auth.realm.requireManage();
    const rep = ctx.body(ComponentRepresentation);
    checkProvider(rep);
    const config = cleanConfig(rep.config);
    const material: { _keys?: RealmKeys; _secret?: { kid: string; value: string } } = await keyMaterial(rep.providerId!, config, ctx.realm.realm);
    delete config.privateKey;
    const c: ComponentEntity = {
      id: rep.id && !store.get('components', rep.id) ? rep.id : randomUUID(),
      realmId: ctx.realm.id,
      name: rep.name ?? rep.providerId!,
      providerId: rep.providerId!,
      providerType: rep.providerType ?? '',
      parentId: rep.parentId ?? ctx.realm.id,
      config,
      ...(rep.subType != null ? { subType: rep.subType } : {}),
      ...material,
    };
    await ctx.write((tx, ev) => {
      if (!tx.get<RealmEntity>('realms', ctx.realm.id)) throw errorMessage(404, 'Realm not found.');
      tx.put('components', c.id, c);
      ev.create('COMPONENT', ctx.here(c.id), toRepresentation(c));
    });
    return ctx.created(c.id);
  });

  r.realm('GET', '/client-registration-policy/providers', (ctx) => {
    ctx.auth.realm.requireView();
    return ok(COMPONENT_PROVIDERS.filter((p) => p.type === REG_POLICY).map((p) => ({ id: p.id, helpText: p.helpText, properties: p.properties })));
  });
}
