// /admin/realms/{realm}/clients/{id}/certificates/{attr} (ClientAttributeCertificateResource): key
// info, generate, upload (key store / PEM / JWKS with key) and upload-certificate, download and
// generate-and-download as PKCS12 or JKS. The certificate goes to the client attribute
// `{attr}.certificate`; a private key is kept apart from the attributes and never returned by GET.
import { createPrivateKey, createPublicKey, X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { errorMessage } from '../errors.js';
import type { ClientEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import { generateRealmKeys } from '../oidc/keys.js';
import { jks, pkcs12, readJks, readPkcs12 } from '../oidc/keystores.js';
import { current, ok, type AdminContext, type AdminRoutes } from './context.js';
import { parseForm } from './forms.js';
import { clientOfPath } from './locate.js';

const KeyStoreConfig = z.object({
  realmCertificate: z.boolean().nullish(),
  storePassword: z.string().nullish(),
  keyPassword: z.string().nullish(),
  keyAlias: z.string().nullish(),
  realmAlias: z.string().nullish(),
  format: z.string().nullish(),
});

interface Info {
  certificate?: string;
  publicKey?: string;
  kid?: string;
}

function infoOf(c: ClientEntity, attr: string): Info {
  const a = c.attributes;
  return {
    ...(a[`${attr}.certificate`] ? { certificate: a[`${attr}.certificate`] } : {}),
    ...(a[`${attr}.public.key`] ? { publicKey: a[`${attr}.public.key`] } : {}),
    ...(a[`${attr}.kid`] ? { kid: a[`${attr}.kid`] } : {}),
  };
}

const publicKeyOfCert = (certB64: string): string => {
  const x = new X509Certificate(Buffer.from(certB64, 'base64'));
  return (x.publicKey.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64');
};

async function generated(clientId: string): Promise<{ certificate: string; keyPem: string; publicKey: string }> {
  const keys = await generateRealmKeys(clientId);
  const priv = createPrivateKey({ key: keys.privateJwk as never, format: 'jwk' });
  return { certificate: keys.certificate, keyPem: priv.export({ format: 'pem', type: 'pkcs8' }) as string, publicKey: keys.publicKeyPem };
}

export function register(r: AdminRoutes): void {
  const svc = r.svc;
  const store = svc.store;
  const P = '/clients/:clientUuid/certificates/:attr';
  const locate = (ctx: AdminContext): ClientEntity => clientOfPath(store, ctx);
  const save = (ctx: AdminContext, c: ClientEntity, attr: string, info: { certificate?: string; publicKey?: string; keyPem?: string }, event: string) =>
    ctx.write((tx, ev) => {
      const cur = current<ClientEntity>(tx, 'clients', c.id);
      const attributes = { ...cur.attributes };
      for (const k of ['certificate', 'public.key', 'kid']) delete attributes[`${attr}.${k}`];
      if (info.certificate) attributes[`${attr}.certificate`] = info.certificate;
      if (info.publicKey) attributes[`${attr}.public.key`] = info.publicKey;
      const certKeys = { ...(cur._certKeys ?? {}) };
      if (info.keyPem) certKeys[attr] = info.keyPem;
      else delete certKeys[attr];
      tx.put('clients', c.id, { ...cur, attributes, _certKeys: certKeys });
      ev.action('CLIENT', event, { ...(info.certificate ? { certificate: info.certificate } : {}), ...(info.publicKey ? { publicKey: info.publicKey } : {}) });
    });

  const keyStore = (ctx: AdminContext, c: ClientEntity, cfg: z.infer<typeof KeyStoreConfig>, keyPem: string, certificate: string) => {
    const format = cfg.format ?? 'JKS';
    if (!cfg.storePassword) throw errorMessage(400, 'Need to specify a store password for jks download');
    if (!cfg.keyPassword) throw errorMessage(400, 'Need to specify a key password for jks download');
    const alias = cfg.keyAlias ?? c.clientId;
    const trusted = cfg.realmCertificate ? [{ alias: cfg.realmAlias ?? ctx.realm.realm, certificate: svc.keyRing(ctx.realm).signing.certificate }] : [];
    let bytes: Buffer;
    if (format === 'PKCS12') bytes = pkcs12({ alias, keyPem, certificate }, cfg.storePassword);
    else if (format === 'JKS') bytes = jks({ alias, keyPem, certificate, trusted }, cfg.storePassword, cfg.keyPassword);
    else throw errorMessage(400, `Unsupported keystore format ${format}`);
    return { status: 200, headers: { 'Content-Type': 'application/octet-stream' }, body: new Uint8Array(bytes) };
  };

  r.realm('GET', P, (ctx) => {
    ctx.auth.clients.requireView();
    return ok(infoOf(locate(ctx), ctx.param('attr')));
  });

  r.realm('POST', `${P}/generate`, async (ctx) => {
    ctx.auth.clients.requireManage();
    const c = locate(ctx);
    const g = await generated(c.clientId);
    await save(ctx, c, ctx.param('attr'), g, ctx.here());
    return ok({ certificate: g.certificate, privateKey: g.keyPem.replace(/-----[^-]+-----|\s/g, '') });
  });

  r.realm('POST', `${P}/generate-and-download`, async (ctx) => {
    ctx.auth.clients.requireManage();
    const c = locate(ctx);
    const cfg = ctx.body(KeyStoreConfig);
    const g = await generated(c.clientId);
    const reply = keyStore(ctx, c, cfg, g.keyPem, g.certificate);
    // Only the certificate is kept; the private key leaves in the key store alone.
    await save(ctx, c, ctx.param('attr'), { certificate: g.certificate, publicKey: g.publicKey }, ctx.here());
    return reply;
  });

  r.realm('POST', `${P}/download`, (ctx) => {
    ctx.auth.clients.requireView();
    const c = locate(ctx);
    const cfg = ctx.body(KeyStoreConfig);
    const attr = ctx.param('attr');
    const keyPem = c._certKeys?.[attr];
    const cert = c.attributes[`${attr}.certificate`];
    if (!keyPem || !cert) throw errorMessage(400, 'keypair not generated for client');
    return keyStore(ctx, c, cfg, keyPem, cert);
  });

  const upload = (withKey: boolean) => async (ctx: AdminContext) => {
    ctx.auth.clients.requireManage();
    const c = locate(ctx);
    const form = parseForm(ctx.req);
    const format = form.get('keystoreFormat') ?? 'Certificate PEM';
    const file = form.file('file') ?? form.file();
    if (!file) throw errorMessage(400, 'No file was uploaded');
    let info: { certificate?: string; publicKey?: string; keyPem?: string };
    try {
      if (format === 'Certificate PEM') {
        const certificate = file.data.toString('utf8').replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
        info = { certificate, publicKey: publicKeyOfCert(certificate) };
      } else if (format === 'Public Key PEM') {
        const pub = createPublicKey(file.data.toString('utf8'));
        info = { publicKey: (pub.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64') };
      } else if (format === 'JSON Web Key Set') {
        const jwks = JSON.parse(file.data.toString('utf8')) as { keys?: Array<Record<string, unknown>> };
        const key = jwks.keys?.find((k) => k.use === 'sig' || k.use === undefined);
        if (!key) throw new Error('no signing key in the key set');
        const pub = createPublicKey({ key: key as never, format: 'jwk' });
        info = { publicKey: (pub.export({ format: 'der', type: 'spki' }) as Buffer).toString('base64'), ...(typeof key.x5c === 'object' ? { certificate: (key.x5c as string[])[0] } : {}) };
      } else if (format === 'PKCS12' || format === 'JKS') {
        const store = form.get('storePassword') ?? '';
        const read = format === 'PKCS12' ? readPkcs12(file.data, store) : readJks(file.data, store, form.get('keyPassword') ?? store, form.get('keyAlias'));
        if (!read.certificate) throw new Error('no certificate in the key store');
        info = { certificate: read.certificate, publicKey: publicKeyOfCert(read.certificate), ...(withKey && read.keyPem ? { keyPem: read.keyPem } : {}) };
      } else throw errorMessage(400, `Unsupported keystore format ${format}`);
    } catch (e) {
      if (e instanceof Error && 'reply' in e) throw e;
      throw errorMessage(400, `Could not read the uploaded ${format}: ${(e as Error).message}`);
    }
    await save(ctx, c, ctx.param('attr'), info, ctx.here());
    return ok({ ...(info.certificate ? { certificate: info.certificate } : {}), ...(info.publicKey ? { publicKey: info.publicKey } : {}) });
  };
  r.realm('POST', `${P}/upload`, upload(true));
  r.realm('POST', `${P}/upload-certificate`, upload(false));
}
