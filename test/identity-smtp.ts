// Test helper (not a test file): a real SMTP server on loopback (smtp-server) that keeps every message.
import { SMTPServer } from 'smtp-server';
import type { AddressInfo } from 'node:net';

export interface Received {
  from: string;
  to: string[];
  data: string;
}

export interface Smtp {
  port: number;
  messages: Received[];
  /** Waits for the n-th message (1-based) to arrive. */
  waitFor(n: number): Promise<Received>;
  close(): Promise<void>;
}

export async function startSmtp(opts: { user?: string; password?: string } = {}): Promise<Smtp> {
  const messages: Received[] = [];
  const server = new SMTPServer({
    secure: false,
    disabledCommands: opts.user ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !opts.user,
    allowInsecureAuth: true,
    logger: false,
    onAuth(auth, _session, cb) {
      if (auth.username === opts.user && auth.password === opts.password) cb(null, { user: auth.username });
      else cb(new Error('Invalid username or password'));
    },
    onData(stream, session, cb) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        messages.push({ from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '', to: session.envelope.rcptTo.map((r) => r.address), data: Buffer.concat(chunks).toString('utf8') });
        cb();
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as AddressInfo).port;
  return {
    port,
    messages,
    async waitFor(n) {
      for (let i = 0; i < 200 && messages.length < n; i++) await new Promise((r) => setTimeout(r, 10));
      if (messages.length < n) throw new Error(`expected ${n} messages, got ${messages.length}`);
      return messages[n - 1]!;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
