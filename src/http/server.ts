// The HTTP/1.1 front end, on node:net: listening, the connection timeouts' sweep and graceful
// close. Each connection (connection.ts) parses its requests itself (request-head.ts,
// chunked-decoder.ts): a request is read completely (Content-Length or chunked, any Content-Type),
// handed to the router as a plain HttpRequest, and answered in one write (reply-head.ts), never
// after the client has gone. Requests on a connection are answered in order (pipelined ones wait
// their turn). Handlers never see sockets.
//
// Why not node:http: for the statement protocol's traffic (a POST with a body, a GET, ~1 KB JSON
// answers) node:http cost the server thread 52 µs a request where a node:net server with the same
// replies costs 31 µs (mock servers under the bench's load, 2026-11-22): its IncomingMessage and
// ServerResponse streams, events and per-request socket timers are most of a trivial statement's
// cost. uWebSockets.js (12 µs) refuses absolute-form targets (`DELETE http://host/v1/statement/…`,
// how presto-client cancels) before JavaScript sees them; llhttp in node:http and this parser
// accept them.
//
// Replies carry the handler's headers plus what the server writes itself (`Date`,
// `Content-Length`, `Connection`, `Keep-Alive`); `Connection: close` when the connection closes
// (413, a request it cannot parse, shutdown, or the client asked). Timeouts are checked by one
// sweep a second, not by a timer per request: an idle keep-alive connection closes after 10 s, a
// request head must arrive within 20 s (slow-loris guard) and a whole request within 120 s (408).
import net from 'node:net';
import tls from 'node:tls';
import type { TlsMaterial } from './tls.js';
import type { Router } from './router.js';
import { acceptWithSharedReadBuffer } from './accept.js';
import { Connection, type ConnectionTimeouts, type RequestRecorder, type ServerContext } from './connection.js';
import { silentLogger, type Logger } from '../util/logger.js';

export type { ConnectionTimeouts, RequestRecorder } from './connection.js';

export interface ListenOptions {
  /** Interface to bind; default `0.0.0.0`. */
  readonly host?: string;
  /** Port to bind; 0 (the default) picks a free one, reported as `HttpServer.port`. */
  readonly port?: number;
  /** Largest accepted request body; larger ones get 413 and the connection is closed. Default 1 MiB. */
  readonly maxBodyBytes?: number;
  readonly logger?: Logger;
  /** Counts requests and responses (5xx = failure). */
  readonly recorder?: RequestRecorder;
  /** How long `close()` waits for in-flight requests by default. Default 10 s. */
  readonly shutdownTimeoutMs?: number;
  /**
   * Read connections into one shared buffer (accept.ts) rather than through 'data' events; on by
   * default (tests turn it off to cover the fallback).
   */
  readonly sharedReadBuffer?: boolean;
  /** Connection timeouts; the defaults suit clients on the internet (tests shorten them). */
  readonly timeouts?: Partial<ConnectionTimeouts>;
  /** The base URL every request sees (`req.baseUrl`) instead of one built from its Host header. */
  readonly externalUrl?: string;
  /** Serve HTTPS (node:tls under the same parser) with this certificate and key. */
  readonly tls?: TlsMaterial;
}

export interface HttpServer {
  readonly host: string;
  readonly port: number;
  /** The external URL when configured, else `http://host:port` of the listening address (a wildcard host is shown as 127.0.0.1). */
  readonly baseUrl: string;
  /** How connections are read: into one shared buffer (accept.ts) or through 'data' events. */
  readonly reads: 'shared-buffer' | 'data-events';
  /** Requests accepted and not yet answered or aborted. */
  inFlight(): number;
  /**
   * Stops accepting connections, waits for in-flight requests (at most `timeoutMs`), then closes
   * every socket. Replies written while closing carry `Connection: close`. Idempotent.
   */
  close(timeoutMs?: number): Promise<void>;
}

export const DEFAULT_MAX_BODY_BYTES = 1024 * 1024;
const DEFAULT_SHUTDOWN_TIMEOUT_MS = 10_000;
const DEFAULT_TIMEOUTS: ConnectionTimeouts = { keepAliveMs: 10_000, headersMs: 20_000, requestMs: 120_000 };
/** How often the timeouts are checked (more often when one is shorter than 4 s). */
const SWEEP_INTERVAL_MS = 1000;
/** Oversized bodies up to this size are read to their end before the 413 closes the connection. */
const DRAIN_LIMIT_BYTES = 16 << 20;

const NO_RECORDER: RequestRecorder = { recordRequest() {}, recordSuccess() {}, recordFailure() {} };
export async function listen(router: Router, options: ListenOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '0.0.0.0';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const defaultShutdownMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;
  const connections = new Set<Connection>();
  let inFlight = 0;
  let drained: (() => void) | undefined;

  const timeouts: ConnectionTimeouts = { ...DEFAULT_TIMEOUTS, ...options.timeouts };
  const context: ServerContext = {
    router,
    timeouts,
    keepAliveHeader: `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(timeouts.keepAliveMs / 1000)}\r\n\r\n`,
    maxBodyBytes,
    drainLimit: Math.max(DRAIN_LIMIT_BYTES, 16 * maxBodyBytes),
    logger: options.logger ?? silentLogger(),
    recorder: options.recorder ?? NO_RECORDER,
    fallbackBaseUrl: '',
    scheme: options.tls ? 'https' : 'http',
    externalUrl: options.externalUrl,
    closing: false,
    requestStarted: () => void inFlight++,
    requestEnded: () => {
      inFlight--;
      if (inFlight === 0) drained?.();
    },
  };

  const open = (socket: net.Socket): Connection => {
    const connection = new Connection(socket, context);
    connections.add(connection);
    socket.once('close', () => {
      connections.delete(connection);
      connection.closed();
    });
    return connection;
  };
  const onSocket = (socket: net.Socket): void => {
    const connection = open(socket);
    socket.on('data', (chunk: Buffer) => connection.receive(chunk));
  };
  // TLS sockets decrypt into their own buffers: they are read through 'data' events.
  const server: net.Server = options.tls
    ? tls.createServer({ cert: options.tls.cert, key: options.tls.key, noDelay: true, minVersion: 'TLSv1.2' }, onSocket)
    : net.createServer({ noDelay: true }, onSocket);
  // A failed handshake (a plain-HTTP client, a bad certificate) closes that socket only.
  if (options.tls) server.on('tlsClientError', (_error, socket) => socket.destroy());
  const sweep = setInterval(() => {
    const now = Date.now();
    for (const c of connections) c.checkTimeouts(now);
  }, Math.max(10, Math.min(SWEEP_INTERVAL_MS, Math.floor(Math.min(timeouts.keepAliveMs, timeouts.headersMs, timeouts.requestMs) / 4))));
  sweep.unref();

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    clearInterval(sweep);
    const reason = error.code === 'EADDRINUSE' ? 'address in use' : error.code === 'EADDRNOTAVAIL' ? 'address not available' : error.message;
    throw Object.assign(new Error(`cannot listen on ${host}:${options.port ?? 0} (${reason})`), { code: error.code });
  });
  const shared =
    options.sharedReadBuffer !== false &&
    !options.tls &&
    acceptWithSharedReadBuffer(server, {
      onSocket: (socket) => {
        const connection = open(socket);
        return (chunk) => connection.receiveTransient(chunk);
      },
    });
  const port = (server.address() as net.AddressInfo).port;
  const baseUrl = options.externalUrl ?? `${context.scheme}://${displayHost(host)}:${port}`;
  context.fallbackBaseUrl = baseUrl;

  let closed: Promise<void> | undefined;
  const close = (timeoutMs = defaultShutdownMs): Promise<void> =>
    (closed ??= (async () => {
      context.closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of connections) if (c.idle) c.socket.destroy();
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
        ]);
        clearTimeout(timer);
        if (inFlight > 0) context.logger.warn({ inFlight }, 'closing with requests still in flight');
      }
      // Replies written while closing carry `Connection: close` and end their connections
      // themselves; whatever is still open after the wait is cut.
      for (const c of connections) c.socket.destroy();
      clearInterval(sweep);
      await stopped;
    })());

  return { host, port, baseUrl, reads: shared ? 'shared-buffer' : 'data-events', inFlight: () => inFlight, close };
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
