// dbgen's text pool: 300 MiB of pseudo-English generated once from the TPC-H grammar with its own
// random stream (seed 933588178). Every comment column is a random slice of this pool, so the pool
// bytes must be exactly dbgen's. The pool lives on a SharedArrayBuffer: a process builds it once
// and can hand it to worker threads (installTextPool) instead of each building its own.

import {
  ADJECTIVES,
  ADVERBS,
  ARTICLES,
  AUXILIARIES,
  Distribution,
  GRAMMAR,
  NOUNS,
  NOUN_PHRASES,
  PREPOSITIONS,
  TERMINATORS,
  VERB_PHRASES,
  VERBS,
} from './distributions.js';

export const TEXT_POOL_SIZE = 300 * 1024 * 1024;
const MAX_SENTENCE_LENGTH = 256;
const TEXT_POOL_SEED = 933588178;

/**
 * Every word of the text distributions in one byte array: word w is bytes[start[w], start[w + 1]).
 * Each distribution becomes a pick table from a random draw straight to a word id.
 */
class Vocabulary {
  private readonly words: Uint8Array[] = [];

  add(dist: Distribution): Int32Array {
    const ids = new Int32Array(dist.size);
    for (let i = 0; i < dist.size; i++) {
      ids[i] = this.words.length;
      this.words.push(dist.bytes[i]);
    }
    const table = new Int32Array(dist.totalWeight);
    let at = 0;
    for (let i = 0; i < dist.size; i++) for (let k = 0; k < dist.weights[i]; k++) table[at++] = ids[i];
    return table;
  }

  /** Pick table of a phrase distribution: draw → syntax index (not a word). */
  static syntax(dist: Distribution): Int32Array {
    const table = new Int32Array(dist.totalWeight);
    let at = 0;
    for (let i = 0; i < dist.size; i++) for (let k = 0; k < dist.weights[i]; k++) table[at++] = i;
    return table;
  }

  layout(): { bytes: Uint8Array; start: Int32Array } {
    const start = new Int32Array(this.words.length + 1);
    for (let i = 0; i < this.words.length; i++) start[i + 1] = start[i] + this.words[i].length;
    const bytes = new Uint8Array(start[this.words.length]);
    this.words.forEach((w, i) => bytes.set(w, start[i]));
    return { bytes, start };
  }
}

// Phrase syntaxes compiled to token codes, one array per distribution value.
const SPACE = 0x20;
const COMMA = 0x2c;

function tokens(dist: Distribution, step: number): Uint8Array[] {
  return dist.values.map((syntax) => {
    const out: number[] = [];
    for (let i = 0; i < syntax.length; i += step) out.push(syntax.charCodeAt(i));
    return Uint8Array.from(out);
  });
}

let pool: Uint8Array | null = null;

/** The text pool bytes (TEXT_POOL_SIZE of them), built on first use. */
export function textPool(): Uint8Array {
  if (pool === null) pool = buildTextPool(TEXT_POOL_SIZE);
  return pool;
}

/** Uses a pool built elsewhere (e.g. passed to a worker thread as a SharedArrayBuffer view). */
export function installTextPool(bytes: Uint8Array): void {
  if (bytes.length !== TEXT_POOL_SIZE) throw new Error(`text pool must be ${TEXT_POOL_SIZE} bytes, got ${bytes.length}`);
  pool = bytes;
}

/** Whether the pool is already in memory (so generating comments costs no start-up time). */
export function textPoolReady(): boolean {
  return pool !== null;
}

const MODULUS = 2147483647;
const TWO_31 = 2147483648;

/** Builds a pool of `size` bytes (dbgen uses TEXT_POOL_SIZE; smaller sizes are for tests). */
export function buildTextPool(size: number): Uint8Array {
  const buffer = new Uint8Array(new SharedArrayBuffer(size + MAX_SENTENCE_LENGTH));

  const vocabulary = new Vocabulary();
  const nouns = vocabulary.add(NOUNS);
  const verbs = vocabulary.add(VERBS);
  const adjectives = vocabulary.add(ADJECTIVES);
  const adverbs = vocabulary.add(ADVERBS);
  const articles = vocabulary.add(ARTICLES);
  const auxiliaries = vocabulary.add(AUXILIARIES);
  const prepositions = vocabulary.add(PREPOSITIONS);
  const terminators = vocabulary.add(TERMINATORS);
  const { bytes: words, start: wordStart } = vocabulary.layout();
  const grammarPick = Vocabulary.syntax(GRAMMAR);
  const nounPhrasePick = Vocabulary.syntax(NOUN_PHRASES);
  const verbPhrasePick = Vocabulary.syntax(VERB_PHRASES);
  const grammar = tokens(GRAMMAR, 2);
  const nounPhrases = tokens(NOUN_PHRASES, 1);
  const verbPhrases = tokens(VERB_PHRASES, 2);

  // The pool's random stream, inlined: a Park–Miller step, then dbgen's draw in [0, n).
  let seed = TEXT_POOL_SEED;
  const draw = (table: Int32Array): number => {
    const p = seed * 16807;
    const hi = Math.floor(p / TWO_31);
    let r = hi + (p - hi * TWO_31);
    if (r >= MODULUS) r -= MODULUS;
    seed = r;
    return table[((r / MODULUS) * table.length) | 0];
  };

  let length = 0;
  const appendWord = (table: Int32Array): void => {
    const w = draw(table);
    const end = wordStart[w + 1];
    let n = length;
    for (let k = wordStart[w]; k < end; k++) buffer[n++] = words[k];
    length = n;
  };

  const nounPhrase = (): void => {
    const syntax = nounPhrases[draw(nounPhrasePick)];
    for (let i = 0; i < syntax.length; i++) {
      switch (syntax[i]) {
        case 0x41: // A
          appendWord(articles);
          break;
        case 0x4a: // J
          appendWord(adjectives);
          break;
        case 0x44: // D
          appendWord(adverbs);
          break;
        case 0x4e: // N
          appendWord(nouns);
          break;
        case COMMA: // replaces the space after the previous word
          buffer[length - 1] = COMMA;
          buffer[length++] = SPACE;
          continue;
        default: // a space between tokens
          continue;
      }
      buffer[length++] = SPACE;
    }
  };

  const verbPhrase = (): void => {
    const syntax = verbPhrases[draw(verbPhrasePick)];
    for (let i = 0; i < syntax.length; i++) {
      const t = syntax[i];
      appendWord(t === 0x44 ? adverbs : t === 0x56 ? verbs : auxiliaries); // D, V, X
      buffer[length++] = SPACE;
    }
  };

  while (length < size) {
    const syntax = grammar[draw(grammarPick)];
    for (let i = 0; i < syntax.length; i++) {
      switch (syntax[i]) {
        case 0x56: // V
          verbPhrase();
          break;
        case 0x4e: // N
          nounPhrase();
          break;
        case 0x50: // P
          appendWord(prepositions);
          buffer[length++] = SPACE;
          buffer[length++] = 0x74; // t
          buffer[length++] = 0x68; // h
          buffer[length++] = 0x65; // e
          buffer[length++] = SPACE;
          nounPhrase();
          break;
        default: // T: the terminator abuts the previous word
          length--;
          appendWord(terminators);
          break;
      }
      if (buffer[length - 1] !== SPACE) buffer[length++] = SPACE;
    }
  }
  return buffer.subarray(0, size);
}
