// Realm signing keys: one RSA key pair per realm (Keycloak's rsa-generated provider), kept in the
// realm entity; imported CryptoKeys are cached per kid.
import { importJWK, type CryptoKey } from 'jose';
import { generateKeyPair, randomBytes, type KeyObject } from 'node:crypto';
import type { RealmKeys } from '../store/entities.js';

function b64url(buf: Buffer): string {
  return buf.toString('base64url');
}

/** Generates a 2048-bit RSA key pair. Synchronous keygen takes ~50ms; done once per realm. */
export async function generateRealmKeys(): Promise<RealmKeys> {
  const { privateKey, publicKey } = await new Promise<{ privateKey: KeyObject; publicKey: KeyObject }>((resolve, reject) => {
    generateKeyPair('rsa', { modulusLength: 2048 }, (err, pub, priv) => (err ? reject(err) : resolve({ privateKey: priv, publicKey: pub })));
  });
  const privateJwk = privateKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const publicJwk = publicKey.export({ format: 'jwk' }) as Record<string, unknown>;
  const der = publicKey.export({ format: 'der', type: 'spki' }) as Buffer;
  return {
    kid: b64url(randomBytes(32)).slice(0, 43),
    privateJwk,
    publicJwk,
    publicKeyPem: der.toString('base64'),
    certificate: '',
    createdAt: Date.now(),
  };
}

const privCache = new Map<string, Promise<CryptoKey | Uint8Array>>();
const pubCache = new Map<string, Promise<CryptoKey | Uint8Array>>();

export function signingKey(keys: RealmKeys): Promise<CryptoKey | Uint8Array> {
  let k = privCache.get(keys.kid);
  if (!k) privCache.set(keys.kid, (k = importJWK({ ...keys.privateJwk, alg: 'RS256' }, 'RS256')));
  return k;
}

export function verificationKey(keys: RealmKeys): Promise<CryptoKey | Uint8Array> {
  let k = pubCache.get(keys.kid);
  if (!k) pubCache.set(keys.kid, (k = importJWK({ ...keys.publicJwk, alg: 'RS256' }, 'RS256')));
  return k;
}

export function publicJwks(keys: RealmKeys): { keys: Array<Record<string, unknown>> } {
  return { keys: [{ kid: keys.kid, kty: 'RSA', alg: 'RS256', use: 'sig', n: keys.publicJwk.n, e: keys.publicJwk.e }] };
}
