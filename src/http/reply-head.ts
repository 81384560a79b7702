// The status line and headers of a reply, as the server writes them.
import { STATUS_CODES } from 'node:http';
import { isFieldValue, isToken } from './field-syntax.js';
import { json, type HeaderValue, type HttpReply } from './types.js';
import { formatDataSize } from '../util/wire-format.js';

export interface ReplyHead {
  readonly text: string;
  /** The head has bytes 0x80–0xff (obs-text in a header value): it must be written as latin1. */
  readonly latin1: boolean;
  /** The body goes out (not for HEAD, 1xx, 204, 304). */
  readonly withBody: boolean;
}

/** Headers the server writes itself: a handler's own values for them are dropped. */
const SERVER_WRITTEN_HEADERS = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'date']);
const NON_ASCII = /[\x80-\xff]/;

/** A reply's own header lines, checked; the same for every reply sharing a frozen headers object. */
interface HeaderLines {
  readonly text: string;
  readonly latin1: boolean;
}

const NO_HEADER_LINES: HeaderLines = { text: '', latin1: false };

/**
 * Header lines of frozen headers objects (jsonText's), rendered and checked once: every statement
 * answer would otherwise check and concatenate the same Content-Type line again.
 */
const sharedHeaderLines = new WeakMap<object, HeaderLines>();

/** The status line, the handler's headers and `Date` of the last reply, for the next with the same status and frozen headers in the same second. */
let lastStart = { status: 0, lines: NO_HEADER_LINES, second: -1, text: '' };

/** The status line and headers of a reply; throws on a header that would corrupt the response. */
export function replyHead(reply: HttpReply, method: string, close: boolean, keepAliveHeader: string): ReplyHead {
  const status = reply.status;
  const given = reply.headers;
  let lines: HeaderLines;
  if (given === undefined) lines = NO_HEADER_LINES;
  else if (Object.isFrozen(given)) {
    let known = sharedHeaderLines.get(given);
    if (known === undefined) sharedHeaderLines.set(given, (known = headerLines(given)));
    lines = known;
  } else lines = headerLines(given);
  const second = Math.floor(Date.now() / 1000);
  const start = lastStart;
  let text: string;
  if (start.status === status && start.lines === lines && start.second === second) text = start.text;
  else {
    text = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n${lines.text}Date: ${httpDate(second)}\r\n`;
    lastStart = { status, lines, second, text };
  }
  const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
  if (!noBody) {
    const body = reply.body ?? '';
    // A HEAD reply keeps the GET's Content-Length and sends no body.
    text += `Content-Length: ${typeof body === 'string' ? (reply.ascii === true ? body.length : Buffer.byteLength(body)) : body.byteLength}\r\n`;
  }
  text += close ? 'Connection: close\r\n\r\n' : keepAliveHeader;
  return { text, latin1: lines.latin1, withBody: !noBody && method !== 'HEAD' };
}

/** A handler's headers as lines (those the server writes itself left out); throws on one that would corrupt the response. */
function headerLines(given: Readonly<Record<string, HeaderValue>>): HeaderLines {
  let text = '';
  let latin1 = false;
  for (const name in given) {
    if (SERVER_WRITTEN_HEADERS.has(name.toLowerCase())) continue;
    if (!isToken(name)) throw new Error(`invalid reply header name '${name}'`);
    const value = given[name]!;
    if (typeof value === 'string') {
      latin1 = checkReplyValue(name, value) || latin1;
      text += `${name}: ${value}\r\n`;
    } else {
      for (const v of value) {
        latin1 = checkReplyValue(name, v) || latin1;
        text += `${name}: ${v}\r\n`;
      }
    }
  }
  return text === '' ? NO_HEADER_LINES : { text, latin1 };
}

/** Throws on a value that would corrupt the response; true when it has bytes 0x80–0xff. */
function checkReplyValue(name: string, value: string): boolean {
  if (!isFieldValue(value)) throw new Error(`invalid character in reply header '${name}'`);
  return NON_ASCII.test(value);
}

let dateSecond = -1;
let dateText = '';

/** The Date header's value for a second (since the epoch), formatted once a second. */
function httpDate(second: number): string {
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(second * 1000).toUTCString();
  }
  return dateText;
}

export function tooLarge(maxBodyBytes: number): HttpReply {
  return json(413, {
    error: 'Payload Too Large',
    message: `request body exceeds the limit of ${formatDataSize(maxBodyBytes)} (${maxBodyBytes} bytes)`,
  });
}

