// The HTTP front end on node:http. It reads each request completely (any Content-Type,
// Content-Length or chunked), hands a plain HttpRequest to the router, and writes the reply in one
// write, never after the client has gone. Handlers never see node:http objects.
//
// node:http rather than uWebSockets.js: llhttp accepts absolute-form request targets
// (`DELETE http://host:8080/v1/statement/x/1 HTTP/1.1`, how presto-client cancels) on every request
// of a connection, where uWS 20.51 answers 505 before JavaScript sees them and needed a relaying
// proxy in front of it. On this machine's loopback load (bench: `npm run bench -- --load`) node:http
// serves SELECT 1 as fast as uWS without that proxy and a third faster than uWS behind it: per
// request, the kernel's socket work and our handlers dominate, not the HTTP parser.
//
// Replies carry the handler's headers plus what the server writes itself (`Date`, `Content-Length`,
// `Connection`, `Keep-Alive`); `Connection: close` when the connection closes (413, shutdown, or
// the client asked).
import http from 'node:http';
import type { Socket } from 'node:net';
import type { Router, UnroutedRequest } from './router.js';
import { HttpError, json, type HttpReply } from './types.js';
import { Disconnection } from '../util/client-signal.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { formatDataSize } from '../util/wire-format.js';

/** Receives one call per request and one per response; NodeHealth implements it. */
export interface RequestRecorder {
  recordRequest(): void;
  recordSuccess(): void;
  recordFailure(error: unknown): void;
}

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
}

export interface HttpServer {
  readonly host: string;
  readonly port: number;
  /** `http://host:port` of the listening address (a wildcard host is shown as 127.0.0.1). */
  readonly baseUrl: string;
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
/** Request line and headers together; JWTs in Authorization need more than the usual 8 KiB. */
const MAX_HEADERS_BYTES = 16 * 1024;
/** An idle keep-alive connection is closed after this long. */
const KEEP_ALIVE_TIMEOUT_MS = 10_000;
/** A request's headers must arrive within this long (slow-loris guard)… */
const HEADERS_TIMEOUT_MS = 20_000;
/** …and the whole request within this long. */
const REQUEST_TIMEOUT_MS = 120_000;
/** Oversized bodies up to this size are read to their end before the 413 closes the connection. */
const DRAIN_LIMIT_BYTES = 16 << 20;
/** How long a closing connection keeps reading (and dropping) what its client still sends. */
const LINGER_MS = 2000;

/** A request as handlers see it; the query string is parsed on first use. */
class IncomingRequest implements UnroutedRequest {
  params: Readonly<Record<string, string>> | undefined = undefined;
  private parsedQuery: URLSearchParams | undefined = undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: Buffer,
    readonly remoteAddress: string,
    readonly baseUrl: string,
    readonly signal: Disconnection,
  ) {}

  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }
}

const NO_RECORDER: RequestRecorder = { recordRequest() {}, recordSuccess() {}, recordFailure() {} };
const EMPTY_BODY = Buffer.alloc(0);

export async function listen(router: Router, options: ListenOptions = {}): Promise<HttpServer> {
  const host = options.host ?? '0.0.0.0';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const drainLimit = Math.max(DRAIN_LIMIT_BYTES, 16 * maxBodyBytes);
  const logger = options.logger ?? silentLogger();
  const recorder = options.recorder ?? NO_RECORDER;
  const defaultShutdownMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;

  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | undefined;
  let fallbackBaseUrl = '';

  const finishOne = (): void => {
    inFlight--;
    if (inFlight === 0) drained?.();
  };

  const server = http.createServer(
    {
      noDelay: true,
      maxHeaderSize: MAX_HEADERS_BYTES,
      keepAliveTimeout: KEEP_ALIVE_TIMEOUT_MS,
      headersTimeout: HEADERS_TIMEOUT_MS,
      requestTimeout: REQUEST_TIMEOUT_MS,
      // Repeated headers arrive joined with ", " (X-Trino-Session, X-Trino-Prepared-Statement).
      joinDuplicateHeaders: true,
    },
    (req, res) => {
      const method = req.method ?? 'GET';
      const { path, rawQuery } = splitTarget(req.url ?? '/');
      const headers = req.headers as Record<string, string>;
      const socket = req.socket;

      inFlight++;
      recorder.recordRequest();
      const disconnection = new Disconnection();
      let done = false; // a reply was written, or the client went away
      res.once('close', () => {
        if (done) return;
        done = true;
        disconnection.abort();
        finishOne();
      });

      const reply = (r: HttpReply, error?: unknown, closeConnection = false): void => {
        if (done) return;
        done = true;
        if (r.status >= 500) recorder.recordFailure(error ?? { type: 'HttpStatus', message: `HTTP ${r.status}`, stack: [], suppressed: [] });
        else recorder.recordSuccess();
        if (closeConnection) lingerOnClose(socket);
        writeReply(res, r, closing || closeConnection);
        finishOne();
      };

      // A declared oversize body is refused at once (the client may be waiting to send it); the
      // connection then closes, reading and dropping what still comes for a moment (lingerOnClose).
      const declared = Number(headers['content-length'] ?? 0);
      if (declared > maxBodyBytes) {
        reply(tooLarge(maxBodyBytes), undefined, true);
        return;
      }
      // No body (neither a length nor chunks): dispatch now, not after the stream's 'end', which
      // costs a stream read, a nextTick and two events per request (most of our requests are GETs).
      const handle = (body: Buffer): void => {
        const request = new IncomingRequest(method, path, rawQuery, headers, body, peerAddress(socket), baseUrlFrom(headers.host, fallbackBaseUrl), disconnection);
        void run(request).then(({ r, error }) => reply(r, error));
      };
      if (declared === 0 && headers['transfer-encoding'] === undefined) {
        handle(EMPTY_BODY);
        return;
      }
      // A body that grows past the limit gets 413 and the connection closes; up to the drain limit
      // the rest of the body is read and dropped first, so the client is reading when the 413 comes.
      const chunks: Buffer[] = [];
      let received = 0;
      let overLimit = false;
      req.on('data', (chunk: Buffer) => {
        received += chunk.byteLength;
        if (received > maxBodyBytes) overLimit = true;
        if (!overLimit) chunks.push(chunk);
        else {
          chunks.length = 0;
          if (received > drainLimit) reply(tooLarge(maxBodyBytes), undefined, true);
        }
      });
      req.once('end', () => {
        if (done) return;
        if (overLimit) {
          reply(tooLarge(maxBodyBytes), undefined, true);
          return;
        }
        handle(chunks.length === 0 ? EMPTY_BODY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received));
      });
    },
  );

  // Requests llhttp cannot parse (bad request line or headers, headers too large) never reach the
  // router: answer them here and close.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (!socket.writable || error.code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const status = error.code === 'HPE_HEADER_OVERFLOW' ? 431 : error.code === 'HPE_REQUEST_TIMEOUT' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? 408 : 400;
    const body = JSON.stringify({ error: http.STATUS_CODES[status] });
    socket.end(`HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
  });

  async function run(request: UnroutedRequest): Promise<{ r: HttpReply; error?: unknown }> {
    try {
      return { r: await router.dispatch(request) };
    } catch (error) {
      if (error instanceof HttpError) return { r: { ...error.reply, status: error.status }, error };
      logger.error({ err: error, method: request.method, path: request.path }, 'request handler failed');
      return { r: json(500, { error: 'Internal Server Error' }), error };
    }
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? 0 }, () => {
      server.off('error', reject);
      resolve();
    });
  }).catch((error: NodeJS.ErrnoException) => {
    const reason = error.code === 'EADDRINUSE' ? 'address in use' : error.code === 'EADDRNOTAVAIL' ? 'address not available' : error.message;
    throw Object.assign(new Error(`cannot listen on ${host}:${options.port ?? 0} (${reason})`), { code: error.code });
  });
  const port = (server.address() as { port: number }).port;
  const baseUrl = `http://${displayHost(host)}:${port}`;
  fallbackBaseUrl = baseUrl;

  let closed: Promise<void> | undefined;
  const close = (timeoutMs = defaultShutdownMs): Promise<void> =>
    (closed ??= (async () => {
      closing = true;
      const stopped = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
        ]);
        clearTimeout(timer);
        if (inFlight > 0) logger.warn({ inFlight }, 'closing with requests still in flight');
      }
      // Replies written while closing carry `Connection: close` and end their connections
      // themselves; whatever is still open after the wait is cut.
      server.closeAllConnections();
      await stopped;
    })());

  return { host, port, baseUrl, inFlight: () => inFlight, close };
}

/** Headers the server writes itself: a handler's own values for them are dropped. */
const SERVER_WRITTEN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive']);

function writeReply(res: http.ServerResponse, reply: HttpReply, closeConnection: boolean): void {
  const body = reply.body ?? '';
  // Flat [name, value, …] list: writeHead takes it as is; a repeated header is one entry per value.
  const headers: string[] = [];
  const given = reply.headers;
  if (given) {
    for (const name in given) {
      if (SERVER_WRITTEN_HEADERS.has(name.toLowerCase())) continue;
      const value = given[name]!;
      if (typeof value === 'string') headers.push(name, value);
      else for (const v of value) headers.push(name, v);
    }
  }
  const noBody = reply.status === 204 || reply.status === 304 || (reply.status >= 100 && reply.status < 200);
  if (!noBody) headers.push('Content-Length', String(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength));
  if (closeConnection) headers.push('Connection', 'close');
  res.writeHead(reply.status, headers);
  // A HEAD reply keeps the GET's Content-Length; node:http sends no body for HEAD.
  if (noBody) res.end();
  else res.end(body);
}

/**
 * Makes the socket's close after the current reply a lingering one: send the reply and a FIN, then
 * keep reading (and dropping) what the client still sends until it closes too, for at most
 * LINGER_MS. Closing a socket with unread input sends a reset instead, which can make the client
 * lose the reply (a 413 cut into an oversized upload).
 */
function lingerOnClose(socket: Socket): void {
  socket.destroySoon = function lingeringClose(this: Socket): void {
    this.end();
    this.on('data', () => undefined);
    this.resume();
    const timer = setTimeout(() => this.destroy(), LINGER_MS);
    timer.unref();
    this.once('end', () => this.destroy());
    this.once('close', () => clearTimeout(timer));
  };
}

function tooLarge(maxBodyBytes: number): HttpReply {
  return json(413, {
    error: 'Payload Too Large',
    message: `request body exceeds the limit of ${formatDataSize(maxBodyBytes)} (${maxBodyBytes} bytes)`,
  });
}

/** The path (absolute-form `http://h:1/a/b?x` reduced to `/a/b`) and the raw query string of a request target. */
export function splitTarget(url: string): { path: string; rawQuery: string } {
  const q = url.indexOf('?');
  let path = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  if (!path.startsWith('/')) {
    const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(path);
    if (match) path = match[1] ?? '/';
  }
  return { path, rawQuery };
}

/** The peer's address; an IPv4-mapped IPv6 address (a dual-stack listener) as its IPv4 part. */
function peerAddress(socket: Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

const HOST_HEADER = /^[A-Za-z0-9.\-_~]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The client's view of our address, from the Host header when it is a plain host[:port]. */
function baseUrlFrom(hostHeader: string | undefined, fallback: string): string {
  return hostHeader && HOST_HEADER.test(hostHeader) ? `http://${hostHeader}` : fallback;
}

function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
