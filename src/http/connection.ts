// One client connection of the HTTP/1.1 server (server.ts): reads its requests in order (heads by
// request-head.ts, chunked bodies by chunked-decoder.ts), hands each to the router as a plain
// HttpRequest, writes the reply in one write, and closes with a lingering close when it must.
import type net from 'node:net';
import { STATUS_CODES } from 'node:http';
import type { Router, UnroutedRequest } from './router.js';
import { ChunkedDecoder } from './chunked-decoder.js';
import { replyHead, tooLarge, type ReplyHead } from './reply-head.js';
import { BadRequestHead, HeaderBlockCache, parseRequestHead, splitTarget, type RequestHead } from './request-head.js';
import { HttpError, json, type HttpReply } from './types.js';
import { Disconnection } from '../util/client-signal.js';
import type { Logger } from '../util/logger.js';

/** Request line and headers together; JWTs in Authorization need more than the usual 8 KiB. */
const MAX_HEADERS_BYTES = 16 * 1024;
/** How long a closing connection keeps reading (and dropping) what its client still sends. */
const LINGER_MS = 2000;
/** Input buffered beyond the request being handled (pipelined requests) before reading pauses. */
const PIPELINE_BUFFER_BYTES = 1 << 20;
const CONTINUE = 'HTTP/1.1 100 Continue\r\n\r\n';
const HEAD_END = Buffer.from('\r\n\r\n');
const EMPTY_BODY = Buffer.alloc(0);

/** Receives one call per request and one per response; NodeHealth implements it. */
export interface RequestRecorder {
  recordRequest(): void;
  recordSuccess(): void;
  recordFailure(error: unknown): void;
}

export interface ConnectionTimeouts {
  /** An idle keep-alive connection is closed after this long. Default 10 s. */
  readonly keepAliveMs: number;
  /** A request's head must arrive within this long (slow-loris guard), else 408. Default 20 s. */
  readonly headersMs: number;
  /** The whole request must arrive within this long, else 408. Default 120 s. */
  readonly requestMs: number;
}

/** A request as handlers see it; the query string is parsed on first use. */
class IncomingRequest implements UnroutedRequest {
  params: Readonly<Record<string, string>> | undefined = undefined;
  caller: unknown = undefined;
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

/** What a connection shares with its server. */
export interface ServerContext {
  readonly router: Router;
  readonly timeouts: ConnectionTimeouts;
  /** `Connection: keep-alive` and `Keep-Alive: timeout=…` lines of a reply that keeps the connection. */
  readonly keepAliveHeader: string;
  readonly maxBodyBytes: number;
  readonly drainLimit: number;
  readonly logger: Logger;
  readonly recorder: RequestRecorder;
  fallbackBaseUrl: string;
  /** `https` when the server speaks TLS. */
  readonly scheme: 'http' | 'https';
  /** Configured base URL: used for every request, whatever its Host. */
  readonly externalUrl: string | undefined;
  /** The server is shutting down: every reply closes its connection. */
  closing: boolean;
  requestStarted(): void;
  requestEnded(): void;
}

const enum Phase {
  /** Between requests (or before the first): nothing of a request has arrived. */
  Idle,
  /** Part of a request head has arrived. */
  Head,
  /** The head is in; the body is being read. */
  Body,
  /** The request is with its handler; later input waits. */
  Handling,
  /** The connection is closing: input is read and dropped. */
  Closing,
}

/** The request being handled on a connection. */
interface Pending {
  /** A reply was written or the client went away. */
  done: boolean;
  readonly signal: Disconnection;
  readonly method: string;
  readonly keepAlive: boolean;
}

/** One client connection: parses its requests in order and writes their replies. */
export class Connection {
  phase = Phase.Idle;
  /** When the current phase began (Date.now()), for the timeouts. */
  since = Date.now();
  private input: Buffer | undefined;
  private head: RequestHead | undefined;
  private readonly bodyChunks: Buffer[] = [];
  private bodyBytes = 0;
  private overLimit = false;
  private decoder: ChunkedDecoder | undefined;
  private pending: Pending | undefined;
  private readonly remoteAddress: string;
  private lastHost: string | undefined;
  private lastBaseUrl = '';
  private readonly headerBlock = new HeaderBlockCache();
  /** parse() is running: a reply written meanwhile leaves the next request to its loop. */
  private parsing = false;
  /** While a reused read buffer is being parsed: its memory, which nothing may keep. */
  private transient: ArrayBufferLike | undefined;

  constructor(
    readonly socket: net.Socket,
    private readonly server: ServerContext,
  ) {
    this.remoteAddress = peerAddress(socket);
    socket.on('error', () => socket.destroy());
  }

  /** The socket closed: a request still being handled loses its client. */
  closed(): void {
    const pending = this.pending;
    if (pending && !pending.done) {
      pending.done = true;
      pending.signal.abort();
      this.server.requestEnded();
    }
    this.pending = undefined;
  }

  /** Input the connection may keep (a 'data' event's chunk). */
  receive(chunk: Buffer): void {
    if (this.phase === Phase.Closing) return;
    this.input = this.input === undefined ? chunk : Buffer.concat([this.input, chunk]);
    if (this.phase === Phase.Handling) {
      if (this.input.length > PIPELINE_BUFFER_BYTES) this.socket.pause();
      return;
    }
    if (this.phase === Phase.Idle) this.enter(Phase.Head);
    this.parse();
  }

  /**
   * Input in a buffer that is reused after this call (accept.ts): parsed in place, and whatever
   * the connection keeps of it (the rest of the input, body chunks) copied.
   */
  receiveTransient(chunk: Buffer): void {
    this.transient = chunk.buffer;
    try {
      this.receive(chunk);
    } finally {
      this.transient = undefined;
      const input = this.input;
      if (input !== undefined && input.buffer === chunk.buffer) this.input = Buffer.from(input);
    }
  }

  /**
   * Reads requests from the buffered input until it runs out or a request waits for its handler.
   * Requests answered at once (their reply written during dispatch) are followed by the next one
   * in this loop, not by a nested call per request.
   */
  private parse(): void {
    this.parsing = true;
    try {
      for (;;) {
        const phase = this.phase;
        if (phase === Phase.Head) {
          if (!this.parseHead() && this.phase === Phase.Head) return;
        } else if (phase === Phase.Body) {
          if (!this.parseBody() && this.phase === Phase.Body) return;
        } else if (phase !== Phase.Idle || !this.nextRequestReady()) return;
      }
    } catch (error) {
      if (error instanceof BadRequestHead) this.refuse(error.status);
      else {
        // A bug here must not take the process down with it (this runs in a socket's read callback).
        this.server.logger.error({ err: error }, 'reading a request failed');
        this.refuse(500);
      }
    } finally {
      this.parsing = false;
    }
  }

  /** Parses a request head if the whole of it is in; false when it must wait for more input. */
  private parseHead(): boolean {
    let input = this.input;
    if (input === undefined) return false;
    // A client may send empty lines between requests (RFC 9112 §2.2).
    let start = 0;
    while (start + 1 < input.length && input[start] === 0x0d && input[start + 1] === 0x0a) start += 2;
    const end = input.indexOf(HEAD_END, start);
    if (end < 0 ? input.length - start > MAX_HEADERS_BYTES : end - start > MAX_HEADERS_BYTES) {
      this.refuse(431);
      return false;
    }
    if (end < 0) {
      this.input = start === input.length ? undefined : start > 0 ? input.subarray(start) : input;
      return false;
    }
    const head = parseRequestHead(input.toString('latin1', start, end), this.headerBlock);
    input = input.subarray(end + 4);
    this.input = input.length > 0 ? input : undefined;
    this.head = head;
    // A declared oversize body is refused at once (the client may be waiting to send it).
    if (head.contentLength > this.server.maxBodyBytes) {
      this.tooLarge();
      return false;
    }
    if (!head.chunked && head.contentLength === 0) {
      this.dispatch(head, EMPTY_BODY);
      return false;
    }
    this.bodyBytes = 0;
    this.overLimit = false;
    this.decoder = head.chunked ? new ChunkedDecoder() : undefined;
    this.phase = Phase.Body;
    if (head.expectContinue && this.input === undefined) this.socket.write(CONTINUE);
    return true;
  }

  /** Reads what there is of the body; dispatches the request once it is complete. */
  private parseBody(): boolean {
    const input = this.input;
    if (input === undefined) return false;
    const head = this.head!;
    const s = this.server;
    let used: number;
    let complete: boolean;
    if (this.decoder) {
      used = this.decoder.feed(input, 0, (chunk) => this.takeBody(chunk));
      complete = this.decoder.done;
    } else {
      used = Math.min(input.length, head.contentLength - this.bodyBytes);
      this.takeBody(used === input.length ? input : input.subarray(0, used));
      complete = this.bodyBytes === head.contentLength;
    }
    this.input = used === input.length ? undefined : input.subarray(used);
    // A body that grows past the limit gets 413; up to the drain limit the rest of it is read and
    // dropped first, so the client is reading when the 413 comes.
    if ((this.overLimit && complete) || this.bodyBytes > s.drainLimit) {
      this.tooLarge();
      return false;
    }
    if (!complete) return false;
    const chunks = this.bodyChunks;
    const body = chunks.length === 0 ? EMPTY_BODY : chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, this.bodyBytes);
    chunks.length = 0;
    this.decoder = undefined;
    this.dispatch(head, body);
    return false;
  }

  private takeBody(chunk: Buffer): void {
    this.bodyBytes += chunk.length;
    if (this.bodyBytes > this.server.maxBodyBytes) {
      this.overLimit = true;
      this.bodyChunks.length = 0;
    } else this.bodyChunks.push(chunk.buffer === this.transient ? Buffer.from(chunk) : chunk);
  }

  private dispatch(head: RequestHead, body: Buffer): void {
    this.head = undefined;
    this.enter(Phase.Handling);
    const s = this.server;
    const pending: Pending = { done: false, signal: new Disconnection(), method: head.method, keepAlive: head.keepAlive };
    this.pending = pending;
    s.requestStarted();
    s.recorder.recordRequest();
    const { path, rawQuery } = splitTarget(head.target);
    const request = new IncomingRequest(head.method, path, rawQuery, head.headers, body, this.remoteAddress, this.baseUrlFor(head.headers.host), pending.signal);
    let answer: HttpReply | Promise<HttpReply>;
    try {
      answer = s.router.dispatch(request);
    } catch (error) {
      this.failed(pending, request, error);
      return;
    }
    if (answer instanceof Promise) {
      answer.then(
        (r) => this.reply(pending, r),
        (error: unknown) => this.failed(pending, request, error),
      );
    } else this.reply(pending, answer);
  }

  /** Answers a request whose handler threw: HttpError's reply, else a logged 500 without details. */
  private failed(pending: Pending, request: UnroutedRequest, error: unknown): void {
    if (error instanceof HttpError) {
      this.reply(pending, { ...error.reply, status: error.status }, error);
      return;
    }
    this.server.logger.error({ err: error, method: request.method, path: request.path }, 'request handler failed');
    this.reply(pending, json(500, { error: 'Internal Server Error' }), error);
  }

  private reply(pending: Pending, r: HttpReply, error?: unknown): void {
    if (pending.done) return;
    pending.done = true;
    this.pending = undefined;
    const s = this.server;
    const close = s.closing || !pending.keepAlive;
    const status = this.write(r, pending.method, close);
    if (status >= 500) s.recorder.recordFailure(error ?? { type: 'HttpStatus', message: `HTTP ${status}`, stack: [], suppressed: [] });
    else s.recorder.recordSuccess();
    s.requestEnded();
    if (close) {
      this.closeSoon();
      return;
    }
    this.enter(Phase.Idle);
    // A reply written during dispatch: parse() goes on with what follows.
    if (!this.parsing) this.readPipelined();
  }

  /** Goes on with requests that arrived while the last one was being handled. */
  private readPipelined(): void {
    if (this.phase === Phase.Idle && this.nextRequestReady()) this.parse();
  }

  /**
   * Between requests: whether the next one may be read now (input is buffered and the client reads
   * its replies); it then enters the head phase. Otherwise reading resumes when it can.
   */
  private nextRequestReady(): boolean {
    const socket = this.socket;
    if (this.input === undefined) {
      if (socket.isPaused()) socket.resume();
      return false;
    }
    // Pipelined requests wait while the client is not reading its replies.
    if (socket.writableNeedDrain) {
      socket.pause();
      socket.once('drain', () => this.readPipelined());
      return false;
    }
    if (socket.isPaused()) socket.resume();
    this.enter(Phase.Head);
    return true;
  }

  /** Answers a request that will not reach a handler (bad head, oversize body, timeout) and closes. */
  private refuse(status: number, reply: HttpReply = json(status, { error: STATUS_CODES[status] ?? 'Error' })): void {
    if (this.phase === Phase.Closing) return;
    this.write(reply, this.head?.method ?? 'GET', true);
    this.closeSoon();
  }

  private tooLarge(): void {
    const s = this.server;
    s.recorder.recordRequest();
    s.recorder.recordSuccess();
    this.refuse(413, tooLarge(s.maxBodyBytes));
  }

  /** Writes a reply (a 500 instead if its headers are invalid); returns the status written. */
  private write(reply: HttpReply, method: string, close: boolean): number {
    let r = reply;
    let head: ReplyHead;
    try {
      head = replyHead(r, method, close, this.server.keepAliveHeader);
    } catch (error) {
      this.server.logger.error({ err: error, status: r.status }, 'reply has an invalid header');
      r = json(500, { error: 'Internal Server Error' });
      head = replyHead(r, method, close, this.server.keepAliveHeader);
    }
    if (this.socket.destroyed) return r.status;
    const body = head.withBody ? r.body : undefined;
    if (body === undefined || body.length === 0) this.socket.write(head.text, head.latin1 ? 'latin1' : 'utf8');
    // An ASCII body goes out with the head as one latin1 copy (the head's obs-text bytes too).
    else if (typeof body === 'string' && r.ascii === true) this.socket.write(head.text + body, 'latin1');
    else if (typeof body === 'string' && !head.latin1) this.socket.write(head.text + body);
    else {
      this.socket.cork();
      this.socket.write(head.text, 'latin1');
      this.socket.write(body);
      this.socket.uncork();
    }
    return r.status;
  }

  /**
   * Closes after the reply just written: send it and a FIN, then keep reading (and dropping) what
   * the client still sends until it closes too, for at most LINGER_MS. Closing a socket with
   * unread input sends a reset instead, which can make the client lose the reply (a 413 cut into
   * an oversized upload).
   */
  private closeSoon(): void {
    this.phase = Phase.Closing;
    this.input = undefined;
    this.bodyChunks.length = 0;
    const socket = this.socket;
    socket.end();
    socket.resume();
    socket.once('end', () => socket.destroy());
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once('close', () => clearTimeout(timer));
  }

  /** Applies the timeouts; called by the server's sweep. */
  checkTimeouts(now: number): void {
    const waited = now - this.since;
    const t = this.server.timeouts;
    if (this.phase === Phase.Idle && waited > t.keepAliveMs) this.socket.destroy();
    else if (this.phase === Phase.Head && waited > t.headersMs) this.refuse(408);
    else if (this.phase === Phase.Body && waited > t.requestMs) this.refuse(408);
  }

  /** Nothing is in progress on the connection: shutting down may close it now. */
  get idle(): boolean {
    return this.phase === Phase.Idle;
  }

  private enter(phase: Phase): void {
    this.phase = phase;
    // Only the timed phases read the clock (checkTimeouts): a handler's time is not bounded here.
    if (phase !== Phase.Handling) this.since = Date.now();
  }

  /** The client's view of our address, from the Host header when it is a plain host[:port]. */
  private baseUrlFor(host: string | undefined): string {
    if (this.server.externalUrl !== undefined) return this.server.externalUrl;
    if (host !== this.lastHost) {
      this.lastHost = host;
      this.lastBaseUrl = host && HOST_HEADER.test(host) ? `${this.server.scheme}://${host}` : '';
    }
    return this.lastBaseUrl || this.server.fallbackBaseUrl;
  }
}

/** The peer's address; an IPv4-mapped IPv6 address (a dual-stack listener) as its IPv4 part. */
function peerAddress(socket: net.Socket): string {
  const address = socket.remoteAddress ?? '';
  return address.startsWith('::ffff:') && address.includes('.') ? address.slice(7) : address;
}

const HOST_HEADER = /^[A-Za-z0-9.\-_~]+(:\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](:\d{1,5})?$/;

