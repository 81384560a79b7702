// The status line and headers of a reply, as the server writes them.
import { STATUS_CODES } from 'node:http';
import { isFieldValue, isToken } from './field-syntax.js';
import { json, type HttpReply } from './types.js';
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

/** The status line and headers of a reply; throws on a header that would corrupt the response. */
export function replyHead(reply: HttpReply, method: string, close: boolean, keepAliveHeader: string): ReplyHead {
  const status = reply.status;
  let text = `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Unknown'}\r\n`;
  let latin1 = false;
  const given = reply.headers;
  if (given) {
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
  }
  text += `Date: ${httpDate()}\r\n`;
  const noBody = status === 204 || status === 304 || (status >= 100 && status < 200);
  if (!noBody) {
    const body = reply.body ?? '';
    // A HEAD reply keeps the GET's Content-Length and sends no body.
    text += `Content-Length: ${typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength}\r\n`;
  }
  text += close ? 'Connection: close\r\n\r\n' : keepAliveHeader;
  return { text, latin1, withBody: !noBody && method !== 'HEAD' };
}

/** Throws on a value that would corrupt the response; true when it has bytes 0x80–0xff. */
function checkReplyValue(name: string, value: string): boolean {
  if (!isFieldValue(value)) throw new Error(`invalid character in reply header '${name}'`);
  return NON_ASCII.test(value);
}

let dateSecond = -1;
let dateText = '';

/** The Date header's value, formatted once a second. */
function httpDate(): string {
  const now = Date.now();
  const second = Math.floor(now / 1000);
  if (second !== dateSecond) {
    dateSecond = second;
    dateText = new Date(now).toUTCString();
  }
  return dateText;
}

export function tooLarge(maxBodyBytes: number): HttpReply {
  return json(413, {
    error: 'Payload Too Large',
    message: `request body exceeds the limit of ${formatDataSize(maxBodyBytes)} (${maxBodyBytes} bytes)`,
  });
}

