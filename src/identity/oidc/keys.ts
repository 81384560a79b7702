// Realm keys. Each realm's key providers are components (rsa-generated, rsa-enc-generated,
// hmac-generated-hs512, aes-generated, or imported `rsa`), whose key material is kept in the
// component entity and never leaves through a converter. Tokens are signed with the active RS256
// key of highest priority; any enabled key verifies (by kid). Imported CryptoKeys are cached per kid.
import { importJWK, type CryptoKey } from 'jose';
import { createPrivateKey, createPublicKey, generateKeyPair, generateKeyPairSync, randomBytes, type KeyObject } from 'node:crypto';
import forge from 'node-forge';
import type { RealmKeys } from '../store/entities.js';

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

export function newKid(): string {
  return b64url(randomBytes(32)).slice(0, 43);
}

/** A self-signed X.509 certificate (base64 DER) for an RSA key pair, like Keycloak's generated keys. */
export function selfSignedCertificate(privateKey: KeyObject, publicKey: KeyObject, cn: string, validDays = 3650): string {
  const fPriv = forge.pki.privateKeyFromPem(privateKey.export({ format: 'pem', type: 'pkcs1' }) as string);
  const fPub = forge.pki.publicKeyFromPem(publicKey.export({ format: 'pem', type: 'spki' }) as string);
  const cert = forge.pki.createCertificate();
  cert.publicKey = fPub;
  cert.serialNumber = '01' + randomBytes(8).toString('hex');
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + validDays * 86_400_000);
  const attrs = [{ name: 'commonName', value: cn }];
  cert.setSubject(attrs);
  cert.setIssuer(attrs);
  cert.sign(fPriv, forge.md.sha256.create());
  return Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary').toString('base64');
}

export function keysFromKeyObjects(privateKey: KeyObject, publicKey: KeyObject, cn: string): RealmKeys {
  const privateJwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const publicJwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const der = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
  return { kid: newKid(), privateJwk, publicJwk, publicKeyPem: der.toString('base64'), certificate: selfSignedCertificate(privateKey, publicKey, cn), createdAt: Date.now() };
}

/** Generates an RSA key pair (default 2048 bits) off the event loop, with a self-signed certificate. */
export async function generateRealmKeys(cn = 'realm', modulusLength = 2048): Promise<RealmKeys> {
  const { privateKey, publicKey } = await new Promise<{ privateKey: KeyObject; publicKey: KeyObject }>((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength }, (err, pub, priv) => (err ? reject(err) : resolve({ privateKey: priv, publicKey: pub })));
  });
  return keysFromKeyObjects(privateKey, publicKey, cn);
}

export function generateRealmKeysSync(cn = 'realm', modulusLength = 2048): RealmKeys {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength });
  return keysFromKeyObjects(privateKey, publicKey, cn);
}

/** An imported RSA key (the `rsa` provider): PEM private key, optional certificate. */
export function importRsaKeys(privatePem: string, certificate: string | undefined, cn: string): RealmKeys {
  const pem = privatePem.includes('BEGIN') ? privatePem : `-----BEGIN PRIVATE KEY-----\n${privatePem}\n-----END PRIVATE KEY-----`;
  let privateKey: KeyObject;
  try {
    privateKey = createPrivateKey(pem);
  } catch {
    privateKey = createPrivateKey(pem.replace('BEGIN PRIVATE KEY', 'BEGIN RSA PRIVATE KEY').replace('END PRIVATE KEY', 'END RSA PRIVATE KEY'));
  }
  const publicKey = createPublicKey(privateKey);
  const keys = keysFromKeyObjects(privateKey, publicKey, cn);
  if (certificate) keys.certificate = certificate.replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
  return keys;
}

export function generateSecretKey(bytes: number): string {
  return b64url(randomBytes(bytes));
}

const privCache = new Map<string, Promise<CryptoKey | Uint8Array>>();
const pubCache = new Map<string, Promise<CryptoKey | Uint8Array>>();

export function signingKey(keys: RealmKeys, alg = 'RS256'): Promise<CryptoKey | Uint8Array> {
  const id = `${keys.kid}|${alg}`;
  let k = privCache.get(id);
  if (!k) privCache.set(id, (k = importJWK({ ...keys.privateJwk, alg }, alg)));
  return k;
}

export function verificationKey(keys: RealmKeys, alg = 'RS256'): Promise<CryptoKey | Uint8Array> {
  const id = `${keys.kid}|${alg}`;
  let k = pubCache.get(id);
  if (!k) pubCache.set(id, (k = importJWK({ ...keys.publicJwk, alg }, alg)));
  return k;
}

export interface Jwk {
  kid: string;
  kty: string;
  alg: string;
  use: string;
  n: unknown;
  e: unknown;
  x5c?: string[];
}

export function jwk(keys: RealmKeys, alg: string, use: 'sig' | 'enc'): Jwk {
  return { kid: keys.kid, kty: 'RSA', alg, use, n: keys.publicJwk.n, e: keys.publicJwk.e, ...(keys.certificate ? { x5c: [keys.certificate] } : {}) };
}

export function publicJwks(keys: RealmKeys): { keys: Jwk[] } {
  return { keys: [jwk(keys, 'RS256', 'sig')] };
}
