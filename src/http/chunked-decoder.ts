// Decodes a chunked request body (RFC 9112 §7.1) as its bytes arrive, in whatever pieces:
// chunk-size lines (extensions checked, then ignored), data, the CRLF after each chunk, and the
// trailer section, checked as header fields and dropped. Malformed framing throws
// BadRequestHead(400). As strict as llhttp: no whitespace of any kind around the size or
// inside extensions, no control characters, trailer lines `name: value` only.
import { isFieldValueChar, isTokenChar } from './field-syntax.js';
import { BadRequestHead } from './request-head.js';

/** `1*HEXDIG *( ";" token [ "=" ( token / quoted-string ) ] )`, with nothing else on the line. */
const CHUNK_SIZE_LINE = /^([0-9A-Fa-f]{1,12})((?:;[!#$%&'*+\-.^_`|~0-9A-Za-z]+(?:=(?:[!#$%&'*+\-.^_`|~0-9A-Za-z]+|"(?:[\t !#-\[\]-~\x80-\xff]|\\[\t -~\x80-\xff])*"))?)*)$/;

const enum Phase {
  Size,
  Data,
  DataCr,
  DataLf,
  Trailer,
  Done,
}

/** Longest chunk-size line (with extensions) and trailer section accepted. */
const MAX_LINE_BYTES = 4096;
const MAX_TRAILER_BYTES = 16 * 1024;
const CR = 0x0d;
const LF = 0x0a;

export class ChunkedDecoder {
  private phase = Phase.Size;
  private line = '';
  /** Bytes of the current chunk still to come. */
  private remaining = 0;
  private trailerBytes = 0;

  get done(): boolean {
    return this.phase === Phase.Done;
  }

  /**
   * Consumes `data` from `from` on, handing chunk data to `onData` (as views of `data`), until the
   * body ends or the bytes run out. Returns the offset after the last byte consumed.
   */
  feed(data: Buffer, from: number, onData: (chunk: Buffer) => void): number {
    let i = from;
    while (i < data.length && this.phase !== Phase.Done) {
      switch (this.phase) {
        case Phase.Size:
        case Phase.Trailer: {
          const lf = data.indexOf(LF, i);
          const end = lf < 0 ? data.length : lf + 1;
          this.line += data.toString('latin1', i, end);
          if (this.phase === Phase.Trailer) this.trailerBytes += end - i;
          i = end;
          if (this.line.length > MAX_LINE_BYTES || this.trailerBytes > MAX_TRAILER_BYTES) throw new BadRequestHead(400, 'chunk framing line too long');
          if (lf >= 0) this.endLine();
          break;
        }
        case Phase.Data: {
          const n = Math.min(this.remaining, data.length - i);
          onData(data.subarray(i, i + n));
          i += n;
          this.remaining -= n;
          if (this.remaining === 0) this.phase = Phase.DataCr;
          break;
        }
        case Phase.DataCr:
          if (data[i++] !== CR) throw new BadRequestHead(400, 'chunk data not followed by CRLF');
          this.phase = Phase.DataLf;
          break;
        case Phase.DataLf:
          if (data[i++] !== LF) throw new BadRequestHead(400, 'chunk data not followed by CRLF');
          this.phase = Phase.Size;
          break;
      }
    }
    return i;
  }

  private endLine(): void {
    const line = this.line;
    this.line = '';
    if (line.length < 2 || line.charCodeAt(line.length - 2) !== CR) throw new BadRequestHead(400, 'bare LF in chunked body');
    const content = line.slice(0, -2);
    if (this.phase === Phase.Trailer) {
      if (content === '') this.phase = Phase.Done;
      else checkTrailerField(content);
      return;
    }
    const sizeLine = CHUNK_SIZE_LINE.exec(content);
    if (!sizeLine) throw new BadRequestHead(400, 'invalid chunk size line');
    this.remaining = parseInt(sizeLine[1]!, 16);
    this.phase = this.remaining === 0 ? Phase.Trailer : Phase.Data;
  }
}

/** A trailer line is a header field: a token, a colon, then a value of field characters (a bare CR is not one). */
function checkTrailerField(line: string): void {
  let colon = 0;
  while (colon < line.length && isTokenChar(line.charCodeAt(colon))) colon++;
  if (colon === 0 || line.charCodeAt(colon) !== 0x3a) throw new BadRequestHead(400, 'malformed trailer field');
  for (let i = colon + 1; i < line.length; i++) if (!isFieldValueChar(line.charCodeAt(i))) throw new BadRequestHead(400, 'invalid character in trailer field');
}
