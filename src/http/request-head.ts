// Parses an HTTP/1.x request head (request line and header fields, RFC 9112) into what the server
// needs: method, target, headers (names in lower case, repeated fields joined with ", " except
// Content-Length), how the body is framed and whether the connection stays open. Strict where
// laxness invites request smuggling: no bare CR or LF (field-syntax.ts refuses every
// control character but tab), no obs-fold, no Transfer-Encoding together with
// Content-Length, no conflicting lengths, no transfer coding other than a final `chunked`, no
// Transfer-Encoding on HTTP/1.0 (RFC 9112 §6.1: faulty framing). An HTTP/1.1 request carries
// exactly one valid Host (RFC 9112 §3.2); targets are origin-form, absolute-form, or `*` for OPTIONS.

import { isFieldValueChar, isTokenChar } from './field-syntax.js';

/** A head the server must refuse; `status` is the reply (400, 417, 501, 505). */
export class BadRequestHead extends Error {
  constructor(
    readonly status: 400 | 417 | 501 | 505,
    message: string,
  ) {
    super(message);
  }
}

export interface RequestHead {
  readonly method: string;
  /** The request target as sent (origin-form, absolute-form, …). */
  readonly target: string;
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  readonly minorVersion: number;
  readonly headers: Readonly<Record<string, string>>;
  /** Body framing: a byte count (0 = no body) or chunked. */
  readonly contentLength: number;
  readonly chunked: boolean;
  /** The connection may carry another request after this one. */
  readonly keepAlive: boolean;
  /** The client waits for `100 Continue` before sending the body. */
  readonly expectContinue: boolean;
}

const REQUEST_LINE = /^([A-Z][A-Z_-]*) ([!-~]+) HTTP\/(\d)\.(\d)$/;
const DIGITS = /^\d{1,15}$/;

const SP = 0x20;
const HTAB = 0x09;

/** The header fields of a head and what follows from them alone (not from the request line). */
interface HeaderFields {
  readonly headers: Readonly<Record<string, string>>;
  readonly contentLength: number;
  readonly chunked: boolean;
  /** The Connection header, lower case. */
  readonly connection: string | undefined;
  readonly expectContinue: boolean;
  /** Why the Host field lines are not one valid `uri-host [":" port]`, when they are not. */
  readonly hostProblem: 'missing' | 'repeated' | 'invalid' | undefined;
}

/**
 * RFC 3986 `host [":" port]`: an IP literal in brackets, or a reg-name (unreserved, sub-delims,
 * percent-encoded; IPv4 is a reg-name too), and an optional port of up to 5 digits.
 */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|\[v[0-9A-Fa-f]+\.[A-Za-z0-9\-._~!$&'()*+,;=:]+\]|(?:[A-Za-z0-9\-._~!$&'()*+,;=]|%[0-9A-Fa-f]{2})+)(?::\d{0,5})?$/;
/** Absolute-form: a scheme and `//` (the authority and path are checked when routing). */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\//;

/**
 * The last two header blocks a connection sent and what they parsed to. A client sends the same
 * header fields request after request (only the request line changes: a statement's nextUri), so
 * a connection parses them once; two because a statement client alternates between two sets (the
 * POST's, with a body's fields, and the GETs'). The headers objects are shared, which handlers
 * never modify.
 */
export class HeaderBlockCache {
  private recentText = '';
  private recent: HeaderFields | undefined = undefined;
  private olderText = '';
  private older: HeaderFields | undefined = undefined;

  fieldsOf(block: string): HeaderFields {
    if (this.recent !== undefined && this.recentText === block) return this.recent;
    const older = this.older;
    const olderText = this.olderText;
    this.older = this.recent;
    this.olderText = this.recentText;
    this.recent = older !== undefined && olderText === block ? older : parseHeaderFields(block);
    this.recentText = block;
    return this.recent;
  }
}

/**
 * Parses `text`, the head without its final empty line (latin1-decoded, as Node decodes header
 * bytes). Throws BadRequestHead for anything it does not accept. With `cache`, header fields the
 * same as the last ones are not parsed again.
 */
export function parseRequestHead(text: string, cache?: HeaderBlockCache): RequestHead {
  const length = text.length;
  let eol = text.indexOf('\r\n');
  if (eol < 0) eol = length;
  const line = REQUEST_LINE.exec(eol === length ? text : text.slice(0, eol));
  if (!line) throw new BadRequestHead(400, 'malformed request line');
  const method = line[1]!;
  const target = line[2]!;
  const major = line[3]!;
  const minor = line[4]!;
  if (major !== '1' || (minor !== '0' && minor !== '1')) throw new BadRequestHead(505, `HTTP/${major}.${minor} is not supported`);
  if (target.charCodeAt(0) !== 0x2f && !(target === '*' ? method === 'OPTIONS' : ABSOLUTE_FORM.test(target))) throw new BadRequestHead(400, 'invalid request target');

  const block = eol + 2 < length ? text.slice(eol + 2) : '';
  const fields = cache ? cache.fieldsOf(block) : parseHeaderFields(block);
  const minorVersion = Number(minor);
  const hostProblem = fields.hostProblem;
  if (hostProblem !== undefined && (minorVersion === 1 || hostProblem !== 'missing')) throw new BadRequestHead(400, `${hostProblem} Host header`);
  if (fields.chunked && minorVersion === 0) throw new BadRequestHead(400, 'Transfer-Encoding in an HTTP/1.0 request');
  const keepAlive = minorVersion === 1 ? !hasToken(fields.connection, 'close') : hasToken(fields.connection, 'keep-alive');
  return { method, target, minorVersion, headers: fields.headers, contentLength: fields.contentLength, chunked: fields.chunked, keepAlive, expectContinue: fields.expectContinue };
}

/**
 * The header fields, scanned by hand, each character once; values lose only surrounding spaces
 * and tabs (OWS), not what String.trim strips.
 */
function parseHeaderFields(text: string): HeaderFields {
  const length = text.length;
  const headers: Record<string, string> = {};
  let contentLength: string | undefined;
  let hostLines = 0;
  for (let start = 0, eol = 0; start < length; start = eol + 2) {
    eol = text.indexOf('\r\n', start);
    if (eol < 0) eol = length;
    // The name: tchars up to the colon (a leading space or tab would be obs-fold).
    let upper = false;
    let colon = start;
    for (; colon < eol; colon++) {
      const c = text.charCodeAt(colon);
      if (!isTokenChar(c)) break;
      if (c >= 0x41 && c <= 0x5a) upper = true;
    }
    if (colon === start || colon === eol || text.charCodeAt(colon) !== 0x3a) {
      const first = text.charCodeAt(start);
      throw new BadRequestHead(400, first === SP || first === HTAB ? 'folded header line' : colon === start ? 'malformed header line' : 'invalid header name');
    }
    const name = upper ? text.slice(start, colon).toLowerCase() : text.slice(start, colon);
    // The value without surrounding spaces and tabs: visible ASCII, obs-text, spaces and tabs.
    let from = colon + 1;
    let to = eol;
    while (from < to && (text.charCodeAt(from) === SP || text.charCodeAt(from) === HTAB)) from++;
    while (to > from && (text.charCodeAt(to - 1) === SP || text.charCodeAt(to - 1) === HTAB)) to--;
    for (let i = from; i < to; i++) if (!isFieldValueChar(text.charCodeAt(i))) throw new BadRequestHead(400, 'invalid character in header value');
    const value = text.slice(from, to);
    if (name === 'content-length') {
      if (!DIGITS.test(value) || (contentLength !== undefined && contentLength !== value)) throw new BadRequestHead(400, 'invalid Content-Length');
      contentLength = value;
      headers[name] = value;
      continue;
    }
    if (name === 'host') hostLines++;
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous}, ${value}`;
  }

  const te = headers['transfer-encoding'];
  let chunked = false;
  if (te !== undefined) {
    if (contentLength !== undefined) throw new BadRequestHead(400, 'both Transfer-Encoding and Content-Length');
    const codings = te.toLowerCase().split(',').map((c) => c.trim());
    if (codings.at(-1) !== 'chunked' || codings.indexOf('chunked') !== codings.length - 1) throw new BadRequestHead(400, 'unsupported Transfer-Encoding');
    if (codings.length > 1) throw new BadRequestHead(501, `transfer coding '${codings[0]}' is not supported`);
    chunked = true;
  }
  const expect = headers.expect?.toLowerCase();
  if (expect !== undefined && expect !== '100-continue') throw new BadRequestHead(417, `unsupported expectation '${headers.expect}'`);
  return {
    headers,
    contentLength: contentLength === undefined ? 0 : Number(contentLength),
    chunked,
    connection: headers.connection?.toLowerCase(),
    expectContinue: expect === '100-continue',
    hostProblem: hostLines === 0 ? 'missing' : hostLines > 1 ? 'repeated' : HOST_VALUE.test(headers.host!) ? undefined : 'invalid',
  };
}

function hasToken(list: string | undefined, token: string): boolean {
  if (list === undefined || list.indexOf(token) < 0) return false;
  if (list === token) return true;
  return list.split(',').some((t) => t.trim() === token);
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
