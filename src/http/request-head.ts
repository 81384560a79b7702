// Parses an HTTP/1.x request head (request line and header fields, RFC 9112) into what the server
// needs: method, target, headers (names in lower case, repeated fields joined with ", " except
// Content-Length), how the body is framed and whether the connection stays open. Strict where
// laxness invites request smuggling: no bare CR or LF (the name and value patterns refuse every
// control character but tab), no obs-fold, no Transfer-Encoding together with
// Content-Length, no conflicting lengths, no transfer coding other than a final `chunked`.

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
  readonly headers: Record<string, string>;
  /** Body framing: a byte count (0 = no body) or chunked. */
  readonly contentLength: number;
  readonly chunked: boolean;
  /** The connection may carry another request after this one. */
  readonly keepAlive: boolean;
  /** The client waits for `100 Continue` before sending the body. */
  readonly expectContinue: boolean;
}

const REQUEST_LINE = /^([A-Z][A-Z_-]*) ([!-~]+) HTTP\/(\d)\.(\d)$/;
const FIELD_NAME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
/** Field values: visible ASCII, obs-text, spaces and tabs; no other control characters. */
const INVALID_VALUE = /[^\t\x20-\x7e\x80-\xff]/;
const DIGITS = /^\d{1,15}$/;

/**
 * Parses `text`, the head without its final empty line (latin1-decoded, as Node decodes header
 * bytes). Throws BadRequestHead for anything it does not accept.
 */
export function parseRequestHead(text: string): RequestHead {
  const lines = text.split('\r\n');
  const line = REQUEST_LINE.exec(lines[0]!);
  if (!line) throw new BadRequestHead(400, 'malformed request line');
  const [, method, target, major, minor] = line as unknown as [string, string, string, string, string];
  if (major !== '1' || (minor !== '0' && minor !== '1')) throw new BadRequestHead(505, `HTTP/${major}.${minor} is not supported`);

  const headers: Record<string, string> = {};
  let contentLength: string | undefined;
  for (let i = 1; i < lines.length; i++) {
    const field = lines[i]!;
    const colon = field.indexOf(':');
    if (colon <= 0) throw new BadRequestHead(400, field.length > 0 && (field[0] === ' ' || field[0] === '\t') ? 'folded header line' : 'malformed header line');
    const name = fieldName(field.slice(0, colon));
    const value = field.slice(colon + 1).trim();
    if (INVALID_VALUE.test(value)) throw new BadRequestHead(400, 'invalid character in header value');
    if (name === 'content-length') {
      if (!DIGITS.test(value) || (contentLength !== undefined && contentLength !== value)) throw new BadRequestHead(400, 'invalid Content-Length');
      contentLength = value;
      headers[name] = value;
      continue;
    }
    const previous = headers[name];
    headers[name] = previous === undefined ? value : `${previous}, ${value}`;
  }

  const minorVersion = Number(minor);
  const te = headers['transfer-encoding'];
  let chunked = false;
  if (te !== undefined) {
    if (contentLength !== undefined) throw new BadRequestHead(400, 'both Transfer-Encoding and Content-Length');
    const codings = te.toLowerCase().split(',').map((c) => c.trim());
    if (codings.at(-1) !== 'chunked' || codings.indexOf('chunked') !== codings.length - 1) throw new BadRequestHead(400, 'unsupported Transfer-Encoding');
    if (codings.length > 1) throw new BadRequestHead(501, `transfer coding '${codings[0]}' is not supported`);
    chunked = true;
  }

  const connection = headers.connection?.toLowerCase();
  const keepAlive = minorVersion === 1 ? !hasToken(connection, 'close') : hasToken(connection, 'keep-alive');
  const expect = headers.expect?.toLowerCase();
  if (expect !== undefined && expect !== '100-continue') throw new BadRequestHead(417, `unsupported expectation '${headers.expect}'`);

  return {
    method,
    target,
    minorVersion,
    headers,
    contentLength: contentLength === undefined ? 0 : Number(contentLength),
    chunked,
    keepAlive,
    expectContinue: expect === '100-continue',
  };
}

function fieldName(raw: string): string {
  if (!FIELD_NAME.test(raw)) throw new BadRequestHead(400, 'invalid header name');
  return raw.toLowerCase();
}

function hasToken(list: string | undefined, token: string): boolean {
  if (list === undefined || list.indexOf(token) < 0) return false;
  if (list === token) return true;
  return list.split(',').some((t) => t.trim() === token);
}
