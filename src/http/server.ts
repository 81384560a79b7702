// The HTTP front end on uWebSockets.js. It reads each request completely (any Content-Type,
// Content-Length or chunked), hands a plain HttpRequest to the router, and writes the reply under
// `res.cork`, never after the client has gone. Handlers never see uWS objects.
//
// Absolute-form targets. uWS 20.51 answers a request line such as
// `DELETE http://host:8080/v1/statement/x/1 HTTP/1.1` with 505 before JavaScript sees it, and
// presto-client cancels queries exactly so. With `frontDoor` on (the default) a small node:net
// listener on a thread of its own (front-door.ts) owns the public port: it reduces an absolute-form
// target on a connection's first request line to its path, prefixes a PROXY v2 header (so uWS still
// reports the client's address) and pipes the connection to uWS on a private Unix socket (a loopback port where
// Unix sockets are unavailable).
// presto-client opens one connection per request, so the first request line is the one that
// matters; absolute-form targets on later requests of a keep-alive connection are still refused.
// The cost is one extra loopback hop per connection; `frontDoor: false` binds uWS to the public
// port directly.
//
// Replies carry the handler's headers plus what uWS always writes itself (`Date`,
// `uWebSockets: 20`, `Content-Length`); the server adds only `Connection: close` when it closes the
// connection (413, shutdown).
import { STATUS_CODES } from 'node:http';
import type * as uws from '@uwsjs/core';
import type { Router, UnroutedRequest } from './router.js';
import { HttpError, json, type HttpReply } from './types.js';
import { Disconnection } from '../util/client-signal.js';
import { silentLogger, type Logger } from '../util/logger.js';
import { startFrontDoorThread, type FrontDoorThread } from './front-door-thread.js';
import { formatDataSize } from '../util/wire-format.js';
import { addressText } from './peer-address.js';
import { claimPrivateSocketPath, releasePrivateSocketPath } from './private-socket.js';

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
  /** Accept absolute-form request targets through the node:net front door (see above). Default true. */
  readonly frontDoor?: boolean;
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
const UWS_MAX_HEADERS_BYTES = '16384';
const CLOSE_GRACE_MS = 500;

/** Oversized bodies up to this size are read to their end before the 413 closes the connection. */
const DRAIN_LIMIT_BYTES = 16 << 20;

function waitUntil(condition: () => boolean, timeoutMs: number): Promise<void> {
  return new Promise((resolve) => {
    const deadline = Date.now() + timeoutMs;
    const check = (): void => {
      if (condition() || Date.now() >= deadline) resolve();
      else setTimeout(check, 10);
    };
    check();
  });
}

type UwsModule = typeof uws;
let uwsModule: Promise<UwsModule> | undefined;

/** Loads uWS once. Its header-size limit is read from the environment at load time (default 4 KiB, too small for JWTs). */
function loadUws(): Promise<UwsModule> {
  process.env.UWS_HTTP_MAX_HEADERS_SIZE ??= UWS_MAX_HEADERS_BYTES;
  return (uwsModule ??= import('@uwsjs/core').then((m) => m.default as unknown as UwsModule));
}

/** A request as handlers see it; the query string and the peer's address are read on first use. */
class IncomingRequest implements UnroutedRequest {
  params: Readonly<Record<string, string>> | undefined = undefined;
  private parsedQuery: URLSearchParams | undefined = undefined;

  constructor(
    readonly method: string,
    readonly path: string,
    private readonly rawQuery: string,
    readonly headers: Readonly<Record<string, string>>,
    readonly body: Buffer,
    private readonly peer: () => string,
    readonly baseUrl: string,
    readonly signal: Disconnection,
  ) {}

  get query(): URLSearchParams {
    return (this.parsedQuery ??= new URLSearchParams(this.rawQuery));
  }

  get remoteAddress(): string {
    return this.peer();
  }
}
const NO_RECORDER: RequestRecorder = { recordRequest() {}, recordSuccess() {}, recordFailure() {} };

export async function listen(router: Router, options: ListenOptions = {}): Promise<HttpServer> {
  const uWS = await loadUws();
  const host = options.host ?? '0.0.0.0';
  const maxBodyBytes = options.maxBodyBytes ?? DEFAULT_MAX_BODY_BYTES;
  const logger = options.logger ?? silentLogger();
  const recorder = options.recorder ?? NO_RECORDER;
  const useFrontDoor = options.frontDoor ?? true;
  const defaultShutdownMs = options.shutdownTimeoutMs ?? DEFAULT_SHUTDOWN_TIMEOUT_MS;

  let inFlight = 0;
  let closing = false;
  let drained: (() => void) | undefined;
  let publicPort = 0;
  let fallbackBaseUrl = '';

  const finishOne = (): void => {
    inFlight--;
    if (inFlight === 0) drained?.();
  };

  const app = uWS.App();
  let openConnections = 0;
  app.filter((_res, count) => {
    openConnections += Number(count);
  });
  app.any('/*', (res, req) => {
    // Everything from `req` must be read now: it is only valid during this callback.
    const method = req.getMethod().toUpperCase();
    const path = originFormPath(req.getUrl());
    const rawQuery = req.getQuery() ?? '';
    const headers: Record<string, string> = {};
    req.forEach((name, value) => {
      headers[name] = name in headers ? `${headers[name]}, ${value}` : value;
    });
    // uWS answers the peer's address as a fresh ArrayBuffer: read it only when a handler asks. A
    // PROXY header is believed only behind our own front door; without it a client could claim any
    // address by sending one.
    let remoteAddress: string | undefined;
    const peer = (): string => {
      if (remoteAddress === undefined) {
        if (done) return ''; // `res` is gone
        const proxied = useFrontDoor ? res.getProxiedRemoteAddress() : undefined;
        remoteAddress = addressText(new Uint8Array(proxied !== undefined && proxied.byteLength > 0 ? proxied : res.getRemoteAddress()));
      }
      return remoteAddress;
    };

    // uWS honours `Connection: close` on end() but not on endWithoutBody() (HEAD): say it explicitly.
    const clientCloses = /(^|,)\s*close\s*(,|$)/i.test(headers.connection ?? '');

    inFlight++;
    recorder.recordRequest();
    const disconnection = new Disconnection();
    let done = false; // a reply was written, or the client went away
    res.onAborted(() => {
      if (done) return;
      done = true;
      disconnection.abort();
      finishOne();
    });

    const reply = (r: HttpReply, error?: unknown): void => {
      if (done) return;
      done = true;
      if (r.status >= 500) recorder.recordFailure(error ?? { type: 'HttpStatus', message: `HTTP ${r.status}`, stack: [], suppressed: [] });
      else recorder.recordSuccess();
      res.cork(() => writeReply(res, r, method === 'HEAD', closing || r.status === 413 || clientCloses));
      finishOne();
    };

    // A declared oversize body is refused at once (the client may be waiting to send it).
    const declared = Number(headers['content-length'] ?? 0);
    if (declared > maxBodyBytes) {
      reply(tooLarge(maxBodyBytes));
      return;
    }
    // A body that grows past the limit gets 413 and the connection closes. Closing with unread input
    // makes the kernel send a reset, which can destroy the 413 before the client (or the front door)
    // reads it: up to the drain limit the rest of the body is read and dropped first.
    const drainLimit = Math.max(DRAIN_LIMIT_BYTES, 16 * maxBodyBytes);
    let overLimit = false;

    const chunks: Buffer[] = [];
    let received = 0;
    res.onData((chunk, isLast) => {
      if (done) return;
      received += chunk.byteLength;
      if (received > maxBodyBytes) overLimit = true;
      if (overLimit) {
        chunks.length = 0;
        if (isLast || received > drainLimit) reply(tooLarge(maxBodyBytes));
        return;
      }
      // uWS neuters the chunk when this callback returns: copy it.
      if (chunk.byteLength > 0) chunks.push(Buffer.from(new Uint8Array(chunk)));
      if (!isLast) return;
      const body = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, received);
      const request = new IncomingRequest(method, path, rawQuery, headers, body, peer, baseUrlFrom(headers.host, fallbackBaseUrl), disconnection);
      void run(request).then(({ r, error }) => reply(r, error));
    });
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

  // Bind uWS: to the public address directly, or behind the front door to a private Unix socket
  // (the proxied hop is cheaper than over loopback TCP; the PROXY header carries the client).
  // Where Unix sockets are not available, a private loopback port instead.
  const bind = (listenHost: string, port: number): Promise<uws.us_listen_socket | false> => new Promise((resolve) => app.listen(listenHost, port, resolve));
  const bindUnix = (path: string): Promise<uws.us_listen_socket | false> => new Promise((resolve) => app.listen_unix(resolve, path));
  let unixPath: string | undefined;
  let listenSocket: uws.us_listen_socket | false;
  if (!useFrontDoor) listenSocket = await bind(host, options.port ?? 0);
  else {
    unixPath = claimPrivateSocketPath();
    listenSocket = await bindUnix(unixPath);
    if (!listenSocket) {
      releasePrivateSocketPath(unixPath);
      unixPath = undefined;
      listenSocket = await bind('127.0.0.1', 0);
    }
  }
  if (!listenSocket) throw new Error(`cannot listen on ${useFrontDoor ? 'a private address' : `${host}:${options.port ?? 0}`} (address in use or not available)`);
  const uwsListenSocket = listenSocket;

  let door: FrontDoorThread | undefined;
  if (useFrontDoor) {
    try {
      door = await startFrontDoorThread(host, options.port ?? 0, unixPath ?? uWS.us_socket_local_port(uwsListenSocket), logger);
    } catch (error) {
      uWS.us_listen_socket_close(uwsListenSocket);
      app.close();
      if (unixPath) releasePrivateSocketPath(unixPath);
      throw error;
    }
    publicPort = door.port;
  } else {
    publicPort = uWS.us_socket_local_port(uwsListenSocket);
  }
  const baseUrl = `http://${displayHost(host)}:${publicPort}`;
  fallbackBaseUrl = baseUrl;

  let closed: Promise<void> | undefined;
  const close = (timeoutMs = defaultShutdownMs): Promise<void> =>
    (closed ??= (async () => {
      closing = true;
      await door?.stopAccepting();
      uWS.us_listen_socket_close(uwsListenSocket);
      if (inFlight > 0) {
        let timer: NodeJS.Timeout | undefined;
        await Promise.race([
          new Promise<void>((resolve) => (drained = resolve)),
          new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs))),
        ]);
        clearTimeout(timer);
        if (inFlight > 0) logger.warn({ inFlight }, 'closing with requests still in flight');
      }
      // Replies written while closing carry `Connection: close`: give those connections a moment to
      // flush and close by themselves before the rest (idle keep-alives) are cut.
      await waitUntil(() => openConnections === 0, CLOSE_GRACE_MS);
      app.close();
      await door?.drain(CLOSE_GRACE_MS);
      if (unixPath) releasePrivateSocketPath(unixPath);
    })());

  return {
    host,
    port: publicPort,
    baseUrl,
    inFlight: () => inFlight,
    close,
  };
}

/** Status lines by code, built once each. */
const statusLines = new Map<number, string>();

/** Headers uWS writes itself: a handler's own values for them are dropped. */
const SERVER_WRITTEN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection']);

function writeReply(res: uws.HttpResponse, reply: HttpReply, isHead: boolean, closeConnection: boolean): void {
  let statusLine = statusLines.get(reply.status);
  if (statusLine === undefined) statusLines.set(reply.status, (statusLine = `${reply.status} ${STATUS_CODES[reply.status] ?? 'Unknown'}`));
  res.writeStatus(statusLine);
  const headers = reply.headers;
  if (headers) {
    for (const name in headers) {
      const value = headers[name]!;
      if (SERVER_WRITTEN_HEADERS.has(name.toLowerCase())) continue;
      if (typeof value === 'string') res.writeHeader(name, value);
      else for (const v of value) res.writeHeader(name, v);
    }
  }
  // uWS writes `Connection: close` itself when asked to close. Note: `endWithoutBody()` must get
  // no arguments to omit Content-Length (an explicit `undefined` length is sent as 2^63).
  const body = reply.body ?? '';
  const noBody = reply.status === 204 || reply.status === 304 || (reply.status >= 100 && reply.status < 200);
  if (noBody) {
    // uWS cannot close after a reply without Content-Length; the header tells the client to close.
    if (closeConnection) res.writeHeader('Connection', 'close');
    res.endWithoutBody();
  } else if (isHead) res.endWithoutBody(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength, closeConnection);
  else res.end(body, closeConnection);
}

function tooLarge(maxBodyBytes: number): HttpReply {
  return json(413, {
    error: 'Payload Too Large',
    message: `request body exceeds the limit of ${formatDataSize(maxBodyBytes)} (${maxBodyBytes} bytes)`,
  });
}

/** `http://h:1/a/b` → `/a/b`; origin-form targets pass through. uWS strips the query already. */
function originFormPath(url: string): string {
  if (url.startsWith('/')) return url;
  const match = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/]*(\/.*)?$/.exec(url);
  return match ? (match[1] ?? '/') : url;
}

const HOST_HEADER = /^[A-Za-z0-9.\-_~]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

/** The client's view of our address, from the Host header when it is a plain host[:port]. */
function baseUrlFrom(hostHeader: string | undefined, fallback: string): string {
  return hostHeader && HOST_HEADER.test(hostHeader) ? `http://${hostHeader}` : fallback;
}

/** uWS writes IPv6 peers in full (`0000:…:0001`): shorten to the usual form (`::1`, `::ffff:7f00:1`). */
function displayHost(host: string): string {
  if (host === '0.0.0.0' || host === '') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return host.includes(':') ? `[${host}]` : host;
}
