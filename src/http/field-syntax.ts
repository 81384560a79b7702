// What HTTP allows in a header field (RFC 9110 §5.1, §5.5), for the request parser and the replies
// alike: names are tokens, values visible ASCII, obs-text (0x80–0xff), spaces and tabs.

const TCHAR = new Uint8Array(128);
for (const c of "!#$%&'*+-.^_`|~0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz") TCHAR[c.charCodeAt(0)] = 1;

export function isTokenChar(c: number): boolean {
  return c < 128 && TCHAR[c] === 1;
}

export function isFieldValueChar(c: number): boolean {
  return c === 0x09 || (c >= 0x20 && c !== 0x7f && c <= 0xff);
}

/** Whether `name` is a token (a valid field name). */
export function isToken(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) if (!isTokenChar(name.charCodeAt(i))) return false;
  return true;
}

/** Whether every character of `value` may stand in a field value. */
export function isFieldValue(value: string): boolean {
  for (let i = 0; i < value.length; i++) if (!isFieldValueChar(value.charCodeAt(i))) return false;
  return true;
}
