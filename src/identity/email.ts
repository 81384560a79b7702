// E-mail through the realm's smtpServer settings (Keycloak's DefaultEmailSenderProvider) with
// nodemailer: host, port, from, fromDisplayName, replyTo, replyToDisplayName, envelopeFrom, ssl,
// starttls, auth, user, password. A realm without a host (or from address) cannot send.
import nodemailer from 'nodemailer';
import { errorMessage } from './errors.js';

export type SmtpSettings = Record<string, string | undefined>;

export interface Mail {
  to: string;
  subject: string;
  text: string;
  html?: string;
}

const MASK = '**********';

/** Settings given to testSMTPConnection, with a masked password taken from the realm's. */
export function mergeSmtp(realmSmtp: SmtpSettings, given: SmtpSettings): SmtpSettings {
  const out = { ...given };
  if (out.password === MASK) out.password = realmSmtp.password;
  return out;
}

export function smtpConfigured(smtp: SmtpSettings | undefined): boolean {
  return !!smtp?.host && !!smtp.from;
}

/** Sends one message; rejects with the transport's error text. */
export async function sendMail(smtp: SmtpSettings, mail: Mail): Promise<void> {
  if (!smtp.host) throw new Error('SMTP host is not configured');
  if (!smtp.from) throw new Error('SMTP from address is not configured');
  const ssl = smtp.ssl === 'true';
  const starttls = smtp.starttls === 'true';
  const transport = nodemailer.createTransport({
    host: smtp.host,
    port: smtp.port ? Number(smtp.port) : ssl ? 465 : 25,
    secure: ssl,
    requireTLS: starttls,
    ignoreTLS: !ssl && !starttls,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 10_000,
    ...(smtp.auth === 'true' ? { auth: { user: smtp.user ?? '', pass: smtp.password ?? '' } } : {}),
  });
  try {
    await transport.sendMail({
      from: smtp.fromDisplayName ? { name: smtp.fromDisplayName, address: smtp.from } : smtp.from,
      ...(smtp.replyTo ? { replyTo: smtp.replyToDisplayName ? { name: smtp.replyToDisplayName, address: smtp.replyTo } : smtp.replyTo } : {}),
      ...(smtp.envelopeFrom ? { envelope: { from: smtp.envelopeFrom, to: mail.to } } : {}),
      to: mail.to,
      subject: mail.subject,
      text: mail.text,
      ...(mail.html ? { html: mail.html } : {}),
    });
  } finally {
    transport.close();
  }
}

/**
 * Sends for an admin endpoint: 500 with Keycloak's "Failed to send … email" body (plus the cause)
 * when the realm has no SMTP settings or the server refuses.
 */
export async function sendOrFail(smtp: SmtpSettings | undefined, mail: Mail, what: string): Promise<void> {
  if (!smtpConfigured(smtp)) throw errorMessage(500, `Failed to send ${what} email: the realm has no SMTP server configured (smtpServer.host and smtpServer.from)`);
  try {
    await sendMail(smtp!, mail);
  } catch (e) {
    throw errorMessage(500, `Failed to send ${what} email: ${(e as Error).message}`);
  }
}
