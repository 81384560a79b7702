// The contract between the HTTP front end (server.ts, connection.ts) and the resources behind it
// (coordinator, identity, oidc). Handlers see a fully read request and return a reply; they never
// touch sockets, so they stay testable and the server owns writing, aborts and back-pressure.

import type { ClientSignal } from '../util/client-signal.js';

export type { ClientSignal } from '../util/client-signal.js';

export interface HttpRequest {
  /** Upper-case method: GET, POST, PUT, DELETE, HEAD, OPTIONS, PATCH. */
  readonly method: string;
  /** The path, percent-decoding NOT applied, without the query string (absolute-form targets are reduced to their path). */
  readonly path: string;
  readonly query: URLSearchParams;
  /** Header names in lower case; repeated headers joined with ", ". */
  readonly headers: Readonly<Record<string, string>>;
  /** Route parameters from the matched pattern, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  /** The raw body; empty when there was none. Bodies over the configured limit never reach a handler (413). */
  readonly body: Buffer;
  /** The peer's address, as text (an IPv4-mapped IPv6 address as its IPv4 part). */
  readonly remoteAddress: string;
  /** Scheme, host and port the client addressed, e.g. `http://127.0.0.1:8080`, for absolute URIs in replies. */
  readonly baseUrl: string;
  /** Aborted when the client goes away before the reply is written (long polls stop waiting). */
  readonly signal: ClientSignal;
  /**
   * Who the caller is, as an authentication guard in front of the handler established it (opaque
   * to the HTTP layer; a slot on the request because a WeakMap per request cost the trivial path).
   */
  caller?: unknown;
}

export type HeaderValue = string | readonly string[];

export interface HttpReply {
  readonly status: number;
  readonly headers?: Readonly<Record<string, HeaderValue>>;
  readonly body?: string | Uint8Array;
  /**
   * The string body holds only ASCII characters, as its sender knows without looking: its length
   * is its byte count and it is copied out as is, without a pass to count its UTF-8 bytes and
   * another to encode them (statement answers). Never set it on a guess: other characters would be
   * written wrong.
   */
  readonly ascii?: boolean;
}

export type Handler = (req: HttpRequest) => HttpReply | Promise<HttpReply>;

export interface RouteRegistry {
  /**
   * Registers a handler. Patterns are literal segments and `:name` parameters, e.g.
   * `/v1/statement/:queryId/:token`; a final `*rest` parameter matches the remaining path.
   * A path that matches a pattern under a different method answers 405 with `Allow`.
   */
  add(method: string, pattern: string, handler: Handler): void;
}

/** An error a handler throws to produce a specific reply; anything else becomes a logged 500. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly reply: HttpReply,
  ) {
    super(typeof reply.body === 'string' ? reply.body : `HTTP ${status}`);
  }
}

export function json(status: number, value: unknown, headers?: Record<string, HeaderValue>): HttpReply {
  return jsonText(status, JSON.stringify(value), headers);
}

/** The headers of a JSON reply without others: one frozen object, whose lines the server renders once (reply-head.ts). */
const JSON_HEADERS: Readonly<Record<string, HeaderValue>> = Object.freeze({ 'Content-Type': 'application/json' });

/** A reply whose body is JSON text already; `ascii` as HttpReply.ascii. */
export function jsonText(status: number, body: string | Uint8Array, headers?: Record<string, HeaderValue>, ascii = false): HttpReply {
  return { status, headers: headers === undefined || isEmpty(headers) ? JSON_HEADERS : { 'Content-Type': 'application/json', ...headers }, body, ascii };
}

function isEmpty(headers: Record<string, HeaderValue>): boolean {
  for (const name in headers) if (Object.hasOwn(headers, name)) return false;
  return true;
}

export function text(status: number, body: string, headers: Record<string, HeaderValue> = {}): HttpReply {
  return { status, headers: { 'Content-Type': 'text/plain; charset=utf-8', ...headers }, body };
}

export function noContent(headers: Record<string, HeaderValue> = {}): HttpReply {
  return { status: 204, headers };
}
