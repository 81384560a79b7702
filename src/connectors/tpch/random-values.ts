// dbgen's composite random values: comments cut from the text pool, alphanumeric addresses,
// phone numbers, and part names made of five distinct colors. Each writes its bytes straight
// into a Utf8Writer.

import type { Utf8Writer } from './columns.js';
import { PART_COLORS } from './distributions.js';
import { RandomStream } from './rng.js';
import { TEXT_POOL_SIZE, textPool } from './text-pool.js';

/** A comment of random length (0.4x .. 1.6x the average) at a random offset of the text pool. */
export class TextStream extends RandomStream {
  private readonly minLength: number;
  private readonly maxLength: number;
  private readonly pool: Uint8Array;

  constructor(seed: number, averageLength: number, rowsPerUnit = 1) {
    super(seed, 2 * rowsPerUnit);
    this.minLength = Math.trunc(averageLength * 0.4);
    this.maxLength = Math.trunc(averageLength * 1.6);
    this.pool = textPool();
  }

  get longest(): number {
    return this.maxLength;
  }

  write(w: Utf8Writer): void {
    const offset = this.nextInt(0, TEXT_POOL_SIZE - this.maxLength);
    const length = this.nextInt(this.minLength, this.maxLength);
    w.slice(this.pool, offset, offset + length);
  }
}

const ALPHA_NUMERIC = Buffer.from('0123456789abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ,', 'latin1');

/** dbgen's random address text: 0.4x .. 1.6x the average length, five characters per seed. */
export class AlphaNumericStream extends RandomStream {
  private readonly minLength: number;
  private readonly maxLength: number;

  constructor(seed: number, averageLength: number) {
    super(seed, 9);
    this.minLength = Math.trunc(averageLength * 0.4);
    this.maxLength = Math.trunc(averageLength * 1.6);
  }

  get longest(): number {
    return this.maxLength;
  }

  write(w: Utf8Writer): void {
    const length = this.nextInt(this.minLength, this.maxLength);
    const data = w.data;
    let p = w.pos;
    let charIndex = 0;
    for (let i = 0; i < length; i++) {
      if (i % 5 === 0) charIndex = this.nextInt(0, 0x7fffffff);
      data[p++] = ALPHA_NUMERIC[charIndex & 0x3f];
      charIndex >>= 6;
    }
    w.pos = p;
  }
}

/** 'CC-NNN-NNN-NNNN' with CC = 10 + nation key. */
export class PhoneStream extends RandomStream {
  constructor(seed: number) {
    super(seed, 3);
  }

  write(w: Utf8Writer, nationKey: number): void {
    w.digits(10 + (nationKey % 90), 2);
    w.data[w.pos++] = 0x2d;
    w.digits(this.nextInt(100, 999), 3);
    w.data[w.pos++] = 0x2d;
    w.digits(this.nextInt(100, 999), 3);
    w.data[w.pos++] = 0x2d;
    w.digits(this.nextInt(1000, 9999), 4);
  }
}

/** Five distinct colors, chosen by a partial shuffle of the 92 colors, joined by spaces. */
export class PartNameStream extends RandomStream {
  private readonly order = new Int32Array(PART_COLORS.size);
  static readonly WORDS = 5;
  static readonly LONGEST = 5 * 10 + 4;

  constructor(seed: number) {
    super(seed, PART_COLORS.size);
  }

  write(w: Utf8Writer): void {
    const order = this.order;
    const n = order.length;
    for (let i = 0; i < n; i++) order[i] = i;
    for (let i = 0; i < PartNameStream.WORDS; i++) {
      const j = this.nextInt(i, n - 1);
      const t = order[i];
      order[i] = order[j];
      order[j] = t;
    }
    for (let i = 0; i < PartNameStream.WORDS; i++) {
      if (i > 0) w.data[w.pos++] = 0x20;
      w.bytes(PART_COLORS.bytes[order[i]]);
    }
  }
}
