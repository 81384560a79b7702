// Decodes a chunked request body (RFC 9112 §7.1) as its bytes arrive, in whatever pieces:
// chunk-size lines (extensions ignored), data, the CRLF after each chunk, and the trailer section,
// which is read and dropped. Malformed framing throws BadRequestHead(400).
import { BadRequestHead } from './request-head.js';

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
      return;
    }
    const semicolon = content.indexOf(';');
    const size = (semicolon < 0 ? content : content.slice(0, semicolon)).trim();
    if (!/^[0-9a-fA-F]{1,12}$/.test(size)) throw new BadRequestHead(400, 'invalid chunk size');
    this.remaining = parseInt(size, 16);
    this.phase = this.remaining === 0 ? Phase.Trailer : Phase.Data;
  }
}
