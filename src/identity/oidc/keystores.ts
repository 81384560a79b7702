// Key stores for client certificates: PKCS#12 (node-forge) and Java's JKS (written here: the
// format and its SHA-1 key protector are simple), plus reading PKCS#12/JKS/PEM/JWKS uploads.
import { createHash, randomBytes } from 'node:crypto';
import forge from 'node-forge';

const der = (cert: forge.pki.Certificate): Buffer => Buffer.from(forge.asn1.toDer(forge.pki.certificateToAsn1(cert)).getBytes(), 'binary');
export const certFromBase64 = (b64: string): forge.pki.Certificate => forge.pki.certificateFromAsn1(forge.asn1.fromDer(forge.util.decode64(b64)));
export const certToBase64 = (cert: forge.pki.Certificate): string => der(cert).toString('base64');

export interface KeyStoreEntry {
  alias: string;
  keyPem: string;
  certificate: string;
  /** Extra trusted certificates (e.g. the realm's) by alias. */
  trusted?: Array<{ alias: string; certificate: string }>;
}

export function pkcs12(entry: KeyStoreEntry, storePassword: string): Buffer {
  const key = forge.pki.privateKeyFromPem(entry.keyPem);
  const asn1 = forge.pkcs12.toPkcs12Asn1(key, [certFromBase64(entry.certificate)], storePassword, { friendlyName: entry.alias, algorithm: '3des' });
  return Buffer.from(forge.asn1.toDer(asn1).getBytes(), 'binary');
}

function utf(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const len = Buffer.alloc(2);
  len.writeUInt16BE(b.length);
  return Buffer.concat([len, b]);
}
const u32 = (n: number) => {
  const b = Buffer.alloc(4);
  b.writeUInt32BE(n);
  return b;
};
const u64 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigUInt64BE(BigInt(n));
  return b;
};
const pwBytes = (pw: string) => Buffer.from(pw, 'utf16le').swap16();

/** Sun's JKS key protector: XOR with a SHA-1 chain over (password, salt), plus an integrity hash. */
function protectKey(pkcs8: Buffer, password: string): Buffer {
  const pw = pwBytes(password);
  const salt = randomBytes(20);
  const out = Buffer.alloc(pkcs8.length);
  let digest = salt;
  for (let i = 0; i < pkcs8.length; i += 20) {
    digest = createHash('sha1').update(pw).update(digest).digest();
    for (let j = 0; j < 20 && i + j < pkcs8.length; j++) out[i + j] = pkcs8[i + j]! ^ digest[j]!;
  }
  const check = createHash('sha1').update(pw).update(pkcs8).digest();
  const encrypted = Buffer.concat([salt, out, check]);
  const asn1 = forge.asn1;
  const info = asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.SEQUENCE, true, [
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OID, false, asn1.oidToDer('1.3.6.1.4.1.42.2.17.1.1').getBytes()),
      asn1.create(asn1.Class.UNIVERSAL, asn1.Type.NULL, false, ''),
    ]),
    asn1.create(asn1.Class.UNIVERSAL, asn1.Type.OCTETSTRING, false, encrypted.toString('binary')),
  ]);
  return Buffer.from(asn1.toDer(info).getBytes(), 'binary');
}

export function jks(entry: KeyStoreEntry, storePassword: string, keyPassword: string): Buffer {
  const key = forge.pki.privateKeyFromPem(entry.keyPem);
  const pkcs8 = Buffer.from(forge.asn1.toDer(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(key))).getBytes(), 'binary');
  const now = Date.now();
  const certDer = Buffer.from(entry.certificate, 'base64');
  const parts: Buffer[] = [u32(0xfeedfeed), u32(2), u32(1 + (entry.trusted?.length ?? 0))];
  const protectedKey = protectKey(pkcs8, keyPassword);
  parts.push(u32(1), utf(entry.alias), u64(now), u32(protectedKey.length), protectedKey, u32(1), utf('X.509'), u32(certDer.length), certDer);
  for (const t of entry.trusted ?? []) {
    const d = Buffer.from(t.certificate, 'base64');
    parts.push(u32(2), utf(t.alias), u64(now), utf('X.509'), u32(d.length), d);
  }
  const body = Buffer.concat(parts);
  const digest = createHash('sha1').update(pwBytes(storePassword)).update(Buffer.from('Mighty Aphrodite', 'utf8')).update(body).digest();
  return Buffer.concat([body, digest]);
}

/** Reads a JKS store's first private key entry (PKCS#8 PEM) and certificate. */
export function readJks(buf: Buffer, storePassword: string, keyPassword: string, alias?: string): { keyPem?: string; certificate?: string } {
  if (buf.readUInt32BE(0) !== 0xfeedfeed) throw new Error('not a JKS key store');
  const body = buf.subarray(0, buf.length - 20);
  const digest = createHash('sha1').update(pwBytes(storePassword)).update(Buffer.from('Mighty Aphrodite', 'utf8')).update(body).digest();
  if (!digest.equals(buf.subarray(buf.length - 20))) throw new Error('Keystore was tampered with, or password was incorrect');
  let p = 8;
  const count = buf.readUInt32BE(p);
  p += 4;
  const readUtf = () => {
    const n = buf.readUInt16BE(p);
    const s = buf.subarray(p + 2, p + 2 + n).toString('utf8');
    p += 2 + n;
    return s;
  };
  let result: { keyPem?: string; certificate?: string } = {};
  for (let i = 0; i < count; i++) {
    const tag = buf.readUInt32BE(p);
    p += 4;
    const a = readUtf();
    p += 8;
    if (tag === 1) {
      const len = buf.readUInt32BE(p);
      const info = buf.subarray(p + 4, p + 4 + len);
      p += 4 + len;
      const chain = buf.readUInt32BE(p);
      p += 4;
      let cert: string | undefined;
      for (let c = 0; c < chain; c++) {
        readUtf();
        const n = buf.readUInt32BE(p);
        if (c === 0) cert = buf.subarray(p + 4, p + 4 + n).toString('base64');
        p += 4 + n;
      }
      if (!result.keyPem && (alias === undefined || a === alias)) {
        const seq = forge.asn1.fromDer(info.toString('binary'));
        const enc = Buffer.from((seq.value as forge.asn1.Asn1[])[1]!.value as string, 'binary');
        const salt = enc.subarray(0, 20);
        const data = enc.subarray(20, enc.length - 20);
        const pw = pwBytes(keyPassword);
        const plain = Buffer.alloc(data.length);
        let d = salt;
        for (let k = 0; k < data.length; k += 20) {
          d = createHash('sha1').update(pw).update(d).digest();
          for (let j = 0; j < 20 && k + j < data.length; j++) plain[k + j] = data[k + j]! ^ d[j]!;
        }
        if (!createHash('sha1').update(pw).update(plain).digest().equals(enc.subarray(enc.length - 20))) throw new Error('Cannot recover key');
        result = { keyPem: `-----BEGIN PRIVATE KEY-----\n${plain.toString('base64').replace(/(.{64})/g, '$1\n')}\n-----END PRIVATE KEY-----\n`, ...(cert ? { certificate: cert } : {}) };
      }
    } else {
      readUtf();
      const n = buf.readUInt32BE(p);
      if (!result.certificate && alias !== undefined && a === alias) result.certificate = buf.subarray(p + 4, p + 4 + n).toString('base64');
      p += 4 + n;
    }
  }
  return result;
}

export function readPkcs12(buf: Buffer, storePassword: string): { keyPem?: string; certificate?: string } {
  const p12 = forge.pkcs12.pkcs12FromAsn1(forge.asn1.fromDer(buf.toString('binary')), storePassword);
  const keyBag = (p12.getBags({ bagType: forge.pki.oids.pkcs8ShroudedKeyBag! })[forge.pki.oids.pkcs8ShroudedKeyBag!] ?? [])[0];
  const certBag = (p12.getBags({ bagType: forge.pki.oids.certBag! })[forge.pki.oids.certBag!] ?? [])[0];
  return {
    ...(keyBag?.key ? { keyPem: forge.pki.privateKeyInfoToPem(forge.pki.wrapRsaPrivateKey(forge.pki.privateKeyToAsn1(keyBag.key))) } : {}),
    ...(certBag?.cert ? { certificate: certToBase64(certBag.cert) } : {}),
  };
}
