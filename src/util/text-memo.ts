// A text rebuilt again and again from values that mostly stay the same (the statistics in every
// statement answer): the text last built from equal values is handed out again instead of a new
// one. An answer is then a few flat pieces instead of a rope of dozens, each piece a young object
// to allocate, to flatten on the write and to collect.

import { flat } from './flat-string.js';

/** The last text built from some numbers and a string, and those values. */
export class TextMemo {
  private readonly key: Float64Array;
  private keyText = '';
  private text: string | undefined = undefined;

  /** `size`: how many numbers make the key (the first `size` of what get and set are given). */
  constructor(size: number) {
    this.key = new Float64Array(size);
  }

  /** The text remembered for these numbers and `keyText`, or undefined (NaN never matches). */
  get(values: Float64Array, keyText: string): string | undefined {
    if (this.text === undefined || this.keyText !== keyText) return undefined;
    const key = this.key;
    for (let i = 0; i < key.length; i++) if (key[i] !== values[i]) return undefined;
    return this.text;
  }

  /** Remembers `text` (made flat) for these numbers and `keyText`, and returns it. */
  set(values: Float64Array, keyText: string, text: string): string {
    const key = this.key;
    for (let i = 0; i < key.length; i++) key[i] = values[i]!;
    this.keyText = keyText;
    this.text = flat(text);
    return this.text;
  }
}
