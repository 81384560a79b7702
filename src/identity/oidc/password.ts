// Password hashing as Keycloak stores it: PBKDF2 (default pbkdf2-sha512, 210,000 iterations, 16-byte
// salt, 512-bit key) computed by crypto.pbkdf2 on libuv's thread pool, off the event loop.
// Successful verifications are remembered in memory for a few minutes, keyed by an HMAC under a
// per-process random key, so repeated logins of one user do not pay the KDF each time.
import { createHmac, pbkdf2, randomBytes, randomUUID, timingSafeEqual } from 'node:crypto';
import type { StoredCredential } from '../store/entities.js';
import { errorMessage } from '../errors.js';

export const DEFAULT_ITERATIONS: Record<string, number> = { 'pbkdf2-sha512': 210_000, 'pbkdf2-sha256': 600_000, pbkdf2: 1_300_000 };
const DIGEST: Record<string, { digest: string; keyLen: number }> = {
  'pbkdf2-sha512': { digest: 'sha512', keyLen: 64 },
  'pbkdf2-sha256': { digest: 'sha256', keyLen: 64 },
  pbkdf2: { digest: 'sha1', keyLen: 64 },
};

function derive(password: string, salt: Buffer, iterations: number, algorithm: string): Promise<Buffer> {
  const d = DIGEST[algorithm] ?? DIGEST['pbkdf2-sha512']!;
  return new Promise((resolve, reject) => pbkdf2(password, salt, iterations, d.keyLen, d.digest, (err, key) => (err ? reject(err) : resolve(key))));
}

export interface PasswordPolicy {
  hashAlgorithm: string;
  hashIterations: number;
  rules: Array<[string, string | undefined]>;
}

export function parsePasswordPolicy(text: unknown): PasswordPolicy {
  const policy: PasswordPolicy = { hashAlgorithm: 'pbkdf2-sha512', hashIterations: 0, rules: [] };
  if (typeof text !== 'string' || !text.trim()) return policy;
  for (const part of text.split(/\s+and\s+/)) {
    const m = /^\s*([A-Za-z]+)\s*(?:\((.*)\))?\s*$/.exec(part);
    if (!m) continue;
    const [, name, arg] = m;
    if (name === 'hashAlgorithm' && arg) policy.hashAlgorithm = arg;
    else if (name === 'hashIterations' && arg) policy.hashIterations = Number(arg);
    else policy.rules.push([name!, arg]);
  }
  return policy;
}

/** Throws Keycloak's 400 when the password breaks a rule of the realm's policy. */
export function checkPasswordPolicy(policy: PasswordPolicy, password: string, user: { username: string; email?: string | undefined }): void {
  const fail = (key: string, ...params: unknown[]) => {
    throw errorMessage(400, 'Password policy not met. See logs for details', { params: [key, ...params] });
  };
  for (const [name, arg] of policy.rules) {
    const n = arg === undefined ? 1 : Number(arg);
    const count = (re: RegExp) => (password.match(re) ?? []).length;
    switch (name) {
      case 'length': if ([...password].length < (arg === undefined ? 8 : n)) fail('invalidPasswordMinLengthMessage', n); break;
      case 'maxLength': if ([...password].length > (arg === undefined ? 64 : n)) fail('invalidPasswordMaxLengthMessage', n); break;
      case 'digits': if (count(/[0-9]/g) < n) fail('invalidPasswordMinDigitsMessage', n); break;
      case 'lowerCase': if (count(/[a-z]/g) < n) fail('invalidPasswordMinLowerCaseCharsMessage', n); break;
      case 'upperCase': if (count(/[A-Z]/g) < n) fail('invalidPasswordMinUpperCaseCharsMessage', n); break;
      case 'specialChars': if (count(/[^A-Za-z0-9]/g) < n) fail('invalidPasswordMinSpecialCharsMessage', n); break;
      case 'notUsername': if (password.toLowerCase() === user.username.toLowerCase()) fail('invalidPasswordNotUsernameMessage'); break;
      case 'notEmail': if (user.email && password.toLowerCase() === user.email.toLowerCase()) fail('invalidPasswordNotEmailMessage'); break;
      case 'regexPattern': if (arg && !new RegExp(`^(?:${arg})$`).test(password)) fail('invalidPasswordRegexPatternMessage', arg); break;
      default: break;
    }
  }
}

export async function hashPassword(password: string, policy: PasswordPolicy): Promise<StoredCredential> {
  const algorithm = DIGEST[policy.hashAlgorithm] ? policy.hashAlgorithm : 'pbkdf2-sha512';
  const iterations = policy.hashIterations > 0 ? policy.hashIterations : DEFAULT_ITERATIONS[algorithm]!;
  const salt = randomBytes(16);
  const key = await derive(password, salt, iterations, algorithm);
  return {
    id: randomUUID(),
    type: 'password',
    createdDate: Date.now(),
    secretData: JSON.stringify({ value: key.toString('base64'), salt: salt.toString('base64'), additionalParameters: {} }),
    credentialData: JSON.stringify({ hashIterations: iterations, algorithm, additionalParameters: {} }),
    priority: 10,
  };
}

const cacheKey = randomBytes(32);
const verified = new Map<string, number>();
const VERIFIED_TTL_MS = 5 * 60_000;

export async function verifyPassword(cred: StoredCredential, password: string): Promise<boolean> {
  const tag = createHmac('sha256', cacheKey).update(cred.id).update('\0').update(cred.secretData).update('\0').update(password).digest('base64');
  const until = verified.get(tag);
  if (until !== undefined && until > Date.now()) return true;
  const secret = JSON.parse(cred.secretData) as { value: string; salt: string };
  const data = JSON.parse(cred.credentialData) as { hashIterations: number; algorithm: string };
  const expected = Buffer.from(secret.value, 'base64');
  const got = await derive(password, Buffer.from(secret.salt, 'base64'), data.hashIterations, data.algorithm);
  const ok = got.length === expected.length && timingSafeEqual(got, expected);
  if (ok) {
    if (verified.size > 10_000) verified.clear();
    verified.set(tag, Date.now() + VERIFIED_TTL_MS);
  }
  return ok;
}
