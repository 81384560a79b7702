// A conformance corpus for the HTTP/1.1 request parser, written from RFC 9112 (message syntax) and
// RFC 9110 (semantics). Each case is one request on a fresh connection, sent with `Connection:
// close` where it has a Host, and the status the server must answer: 200 when the request is well
// formed (the test route echoes it), or the refusal. `llhttp` records what Node's llhttp parser
// answers where we deliberately differ: the RFC's MUST, which llhttp relaxes.

export interface ConformanceCase {
  readonly name: string;
  /** Where the rule stands. */
  readonly rfc: string;
  /** The raw request (latin1), without the final connection close. */
  readonly request: string;
  readonly status: 200 | 204 | 400 | 501 | 505;
  /** llhttp's status where it differs from ours, with why we follow the RFC instead. */
  readonly llhttp?: { readonly status: number; readonly why: string };
}

const chunked = (body: string): string => `POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${body}`;
const withHost = (host: string): string => `GET /hello/x HTTP/1.1\r\n${host}Connection: close\r\n\r\n`;

export const CONFORMANCE_CASES: readonly ConformanceCase[] = [
  // §7.1: chunk-size is 1*HEXDIG, then chunk-ext, then CRLF; no whitespace of any kind around it.
  { name: 'plain chunks', rfc: '9112 §7.1', request: chunked('5\r\nhello\r\n0\r\n\r\n'), status: 200 },
  { name: 'upper-case hex size', rfc: '9112 §7.1', request: chunked('A\r\n0123456789\r\n0\r\n\r\n'), status: 200 },
  { name: 'space after the size', rfc: '9112 §7.1', request: chunked('5 \r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'tab after the size', rfc: '9112 §7.1', request: chunked('5\t\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'space before the size', rfc: '9112 §7.1', request: chunked(' 5\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'vertical tab after the size', rfc: '9112 §7.1', request: chunked('5\x0b\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'form feed after the size', rfc: '9112 §7.1', request: chunked('5\x0c\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'no-break space after the size', rfc: '9112 §7.1', request: chunked('5\xa0\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'bare CR after the size', rfc: '9112 §2.2', request: chunked('5\r\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'bare CR inside the size line', rfc: '9112 §2.2', request: chunked('5\rX\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'size with a sign', rfc: '9112 §7.1', request: chunked('+5\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'size with a 0x prefix', rfc: '9112 §7.1', request: chunked('0x5\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'empty size', rfc: '9112 §7.1', request: chunked('\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'bare LF ends the size line', rfc: '9112 §2.2', request: chunked('5\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'data longer than the size', rfc: '9112 §7.1', request: chunked('5\r\nhelloXX\r\n0\r\n\r\n'), status: 400 },
  // §7.1.1: chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ); llhttp allows no BWS, nor do we.
  { name: 'extension with a token value', rfc: '9112 §7.1.1', request: chunked('5;name=value\r\nhello\r\n0\r\n\r\n'), status: 200 },
  { name: 'extension without a value', rfc: '9112 §7.1.1', request: chunked('5;name\r\nhello\r\n0\r\n\r\n'), status: 200 },
  { name: 'extension with a quoted value', rfc: '9112 §7.1.1', request: chunked('5;name="a b;c"\r\nhello\r\n0\r\n\r\n'), status: 200 },
  { name: 'two extensions', rfc: '9112 §7.1.1', request: chunked('5;a=1;b\r\nhello\r\n0\r\n\r\n'), status: 200 },
  { name: 'space before the semicolon', rfc: '9112 §7.1.1', request: chunked('5 ;a=b\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'space after the semicolon', rfc: '9112 §7.1.1', request: chunked('5; a=b\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'semicolon without a name', rfc: '9112 §7.1.1', request: chunked('5;\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'extension value without a name', rfc: '9112 §7.1.1', request: chunked('5;=b\r\nhello\r\n0\r\n\r\n'), status: 400, llhttp: { status: 200, why: 'an extension name is a token, which is never empty' } },
  { name: 'control character in an extension name', rfc: '9112 §7.1.1', request: chunked('5;a\x01b\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'DEL in an extension value', rfc: '9112 §7.1.1', request: chunked('5;a=b\x7f\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'tab in an extension value', rfc: '9112 §7.1.1', request: chunked('5;a=\tb\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'bare CR in an extension', rfc: '9112 §2.2', request: chunked('5;a\rb\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'NUL in a quoted extension value', rfc: '9112 §7.1.1', request: chunked('5;a="b\x00"\r\nhello\r\n0\r\n\r\n'), status: 400 },
  { name: 'unterminated quoted extension value', rfc: '9112 §7.1.1', request: chunked('5;a="b\r\nhello\r\n0\r\n\r\n'), status: 400 },
  // §7.1.2: the trailer section is field lines, as in a head.
  { name: 'a trailer field', rfc: '9112 §7.1.2', request: chunked('5\r\nhello\r\n0\r\nChecksum: abc\r\n\r\n'), status: 200 },
  { name: 'trailer line without a colon', rfc: '9112 §7.1.2', request: chunked('5\r\nhello\r\n0\r\nnot a field\r\n\r\n'), status: 400 },
  { name: 'trailer line without a name', rfc: '9112 §7.1.2', request: chunked('5\r\nhello\r\n0\r\n: x\r\n\r\n'), status: 400 },
  { name: 'space before a trailer colon', rfc: '9112 §5.1', request: chunked('5\r\nhello\r\n0\r\nT : x\r\n\r\n'), status: 400 },
  { name: 'NUL in a trailer value', rfc: '9110 §5.5', request: chunked('5\r\nhello\r\n0\r\nT: a\x00b\r\n\r\n'), status: 400 },
  { name: 'folded trailer line', rfc: '9112 §5.2', request: chunked('5\r\nhello\r\n0\r\nT: a\r\n b\r\n\r\n'), status: 400 },
  { name: 'bare CR in a trailer value', rfc: '9112 §2.2', request: chunked('5\r\nhello\r\n0\r\nT: a\rb\r\n\r\n'), status: 400 },
  // §6.1: Transfer-Encoding on HTTP/1.0 is faulty framing.
  {
    name: 'Transfer-Encoding on HTTP/1.0',
    rfc: '9112 §6.1',
    request: 'POST /echo HTTP/1.0\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
    status: 400,
    llhttp: { status: 200, why: 'RFC 9112 §6.1: a server MUST treat the framing of an HTTP/1.0 message with Transfer-Encoding as faulty' },
  },
  // §3.2: exactly one valid Host on HTTP/1.1; HTTP/1.0 may omit it.
  { name: 'Host with a port', rfc: '9112 §3.2', request: withHost('Host: example.com:8080\r\n'), status: 200 },
  { name: 'Host as an IPv6 literal', rfc: '9112 §3.2', request: withHost('Host: [::1]:8080\r\n'), status: 200 },
  { name: 'Host as an IPv4 address', rfc: '9112 §3.2', request: withHost('Host: 127.0.0.1\r\n'), status: 200 },
  { name: 'no Host on HTTP/1.1', rfc: '9112 §3.2', request: 'GET /hello/x HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400 },
  { name: 'no Host on HTTP/1.0', rfc: '9112 §3.2', request: 'GET /hello/x HTTP/1.0\r\n\r\n', status: 200 },
  { name: 'absolute-form without a Host', rfc: '9112 §3.2', request: 'GET http://h/hello/x HTTP/1.1\r\nConnection: close\r\n\r\n', status: 400 },
  { name: 'two Host lines', rfc: '9112 §3.2', request: withHost('Host: a\r\nHost: b\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: more than one Host field line MUST be answered 400' } },
  { name: 'two equal Host lines', rfc: '9112 §3.2', request: withHost('Host: a\r\nHost: a\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: more than one Host field line MUST be answered 400' } },
  { name: 'empty Host', rfc: '9112 §3.2', request: withHost('Host: \r\n'), status: 400, llhttp: { status: 200, why: 'an origin-form request names this server, which has an authority' } },
  { name: 'Host with a space', rfc: '9112 §3.2', request: withHost('Host: a b\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: an invalid Host value MUST be answered 400' } },
  { name: 'Host with a path', rfc: '9112 §3.2', request: withHost('Host: a/b\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: an invalid Host value MUST be answered 400' } },
  { name: 'Host with user info', rfc: '9112 §3.2', request: withHost('Host: user@a\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: an invalid Host value MUST be answered 400' } },
  { name: 'Host with a non-numeric port', rfc: '9112 §3.2', request: withHost('Host: a:port\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: an invalid Host value MUST be answered 400' } },
  { name: 'Host with quotes', rfc: '9112 §3.2', request: withHost('Host: evil"/><script>\r\n'), status: 400, llhttp: { status: 200, why: 'RFC 9112 §3.2: an invalid Host value MUST be answered 400' } },
  // §3.2: request targets; `*` is for OPTIONS only (asterisk-form).
  { name: 'OPTIONS *', rfc: '9112 §3.2.4', request: 'OPTIONS * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', status: 204 },
  { name: 'GET *', rfc: '9112 §3.2.4', request: 'GET * HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', status: 400, llhttp: { status: 200, why: 'the asterisk-form is only used for a server-wide OPTIONS request' } },
  { name: 'relative target', rfc: '9112 §3.2', request: 'GET hello/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', status: 400 },
  { name: 'absolute-form target', rfc: '9112 §3.2.2', request: 'GET http://h/hello/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', status: 200 },
  // §3: the request line.
  { name: 'lower-case method', rfc: '9112 §3', request: 'get /hello/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', status: 400 },
  { name: 'two spaces in the request line', rfc: '9112 §3', request: 'GET  /hello/x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n', status: 400, llhttp: { status: 200, why: 'RFC 9112 §3: the request line is separated by single spaces; a lenient split is a desync risk behind a proxy' } },
  { name: 'HTTP/2.0 in the request line', rfc: '9112 §2.3', request: 'GET /hello/x HTTP/2.0\r\nHost: h\r\nConnection: close\r\n\r\n', status: 505, llhttp: { status: 200, why: 'RFC 9110 §15.6.6: a major version the server does not speak over HTTP/1.1 framing is answered 505' } },
  // §6: body framing conflicts.
  { name: 'Transfer-Encoding with Content-Length', rfc: '9112 §6.3', request: 'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\nConnection: close\r\n\r\n0\r\n\r\n', status: 400 },
  { name: 'two different Content-Lengths', rfc: '9112 §6.3', request: 'POST /echo HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\nConnection: close\r\n\r\nhello', status: 400 },
  { name: 'a coding before chunked', rfc: '9112 §6.1', request: 'POST /echo HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n0\r\n\r\n', status: 501, llhttp: { status: 200, why: 'RFC 9112 §6.1: a transfer coding the server does not understand SHOULD be answered 501 (Node leaves it to the application)' } },
];
