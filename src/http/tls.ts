// TLS for the HTTP front end: PEM files from --tls-cert/--tls-key, or with --tls-self-signed a
// certificate generated at start for local use (RSA 2048, valid a year, for localhost and the
// loopback addresses), logged with its SHA-256 fingerprint so a client can pin it.

import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import forge from 'node-forge';

export interface TlsMaterial {
  /** PEM certificate chain. */
  readonly cert: string;
  /** PEM private key. */
  readonly key: string;
}

interface TlsSettings {
  readonly tlsCert?: string;
  readonly tlsKey?: string;
  readonly tlsSelfSigned: boolean;
}

/** The certificate and key to serve, or undefined for plain HTTP. Throws naming a file it cannot read. */
export async function tlsOptions(settings: TlsSettings, logger: { info(obj: unknown, msg?: string): void }): Promise<TlsMaterial | undefined> {
  if (settings.tlsCert !== undefined && settings.tlsKey !== undefined) {
    const read = (path: string, what: string): string => {
      try {
        return readFileSync(path, 'utf8');
      } catch (e) {
        throw new Error(`cannot read the TLS ${what} ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
      }
    };
    return { cert: read(settings.tlsCert, 'certificate'), key: read(settings.tlsKey, 'key') };
  }
  if (!settings.tlsSelfSigned) return undefined;
  const material = await selfSignedCertificate(['localhost'], ['127.0.0.1', '::1']);
  logger.info({ sha256: certificateFingerprint(material.cert) }, 'TLS: serving a self-signed certificate generated at start');
  return material;
}

/** A self-signed certificate for the given DNS names and IP addresses. */
export async function selfSignedCertificate(dnsNames: readonly string[], ips: readonly string[]): Promise<TlsMaterial> {
  const keys = await new Promise<forge.pki.rsa.KeyPair>((resolve, reject) =>
    forge.pki.rsa.generateKeyPair({ bits: 2048, workers: -1 }, (err, pair) => (err ? reject(err) : resolve(pair))),
  );
  const cert = forge.pki.createCertificate();
  cert.publicKey = keys.publicKey;
  cert.serialNumber = `01${forge.util.bytesToHex(forge.random.getBytesSync(15))}`;
  cert.validity.notBefore = new Date(Date.now() - 60_000);
  cert.validity.notAfter = new Date(Date.now() + 365 * 24 * 3600 * 1000);
  const subject = [{ name: 'commonName', value: dnsNames[0] ?? 'localhost' }];
  cert.setSubject(subject);
  cert.setIssuer(subject);
  cert.setExtensions([
    { name: 'basicConstraints', cA: false },
    { name: 'keyUsage', digitalSignature: true, keyEncipherment: true },
    { name: 'extKeyUsage', serverAuth: true },
    { name: 'subjectAltName', altNames: [...dnsNames.map((value) => ({ type: 2, value })), ...ips.map((ip) => ({ type: 7, ip }))] },
  ]);
  cert.sign(keys.privateKey, forge.md.sha256.create());
  return { cert: forge.pki.certificateToPem(cert), key: forge.pki.privateKeyToPem(keys.privateKey) };
}

/** The SHA-256 fingerprint of a PEM certificate, as `AB:CD:…`. */
export function certificateFingerprint(pem: string): string {
  const der = Buffer.from(pem.replace(/-----[^-]+-----/gu, '').replace(/\s+/gu, ''), 'base64');
  return createHash('sha256').update(der).digest('hex').toUpperCase().match(/../gu)!.join(':');
}
