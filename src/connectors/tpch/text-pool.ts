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
import { RandomStream } from './rng.js';

export const TEXT_POOL_SIZE = 300 * 1024 * 1024;
const MAX_SENTENCE_LENGTH = 256;
const TEXT_POOL_SEED = 933588178;

/** A distribution's words flattened into one byte array with offsets, for fast copying. */
interface WordTable {
  dist: Distribution;
  bytes: Uint8Array;
  offsets: Int32Array;
}

function wordTable(dist: Distribution): WordTable {
  const offsets = new Int32Array(dist.size + 1);
  for (let i = 0; i < dist.size; i++) offsets[i + 1] = offsets[i] + dist.bytes[i].length;
  const bytes = new Uint8Array(offsets[dist.size]);
  for (let i = 0; i < dist.size; i++) bytes.set(dist.bytes[i], offsets[i]);
  return { dist, bytes, offsets };
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

/** Builds a pool of `size` bytes (dbgen uses TEXT_POOL_SIZE; smaller sizes are for tests). */
export function buildTextPool(size: number): Uint8Array {
  const buffer = new Uint8Array(new SharedArrayBuffer(size + MAX_SENTENCE_LENGTH));
  const rng = new RandomStream(TEXT_POOL_SEED, 0x7fffffff);

  const nouns = wordTable(NOUNS);
  const verbs = wordTable(VERBS);
  const adjectives = wordTable(ADJECTIVES);
  const adverbs = wordTable(ADVERBS);
  const articles = wordTable(ARTICLES);
  const auxiliaries = wordTable(AUXILIARIES);
  const prepositions = wordTable(PREPOSITIONS);
  const terminators = wordTable(TERMINATORS);
  const grammar = tokens(GRAMMAR, 2);
  const nounPhrases = tokens(NOUN_PHRASES, 1);
  const verbPhrases = tokens(VERB_PHRASES, 2);

  let length = 0;

  const appendWord = (table: WordTable): void => {
    const i = table.dist.pick(rng);
    const words = table.bytes;
    const end = table.offsets[i + 1];
    for (let k = table.offsets[i]; k < end; k++) buffer[length++] = words[k];
  };

  const nounPhrase = (): void => {
    const syntax = nounPhrases[NOUN_PHRASES.pick(rng)];
    for (let i = 0; i < syntax.length; i++) {
      let table: WordTable;
      switch (syntax[i]) {
        case 0x41: // A
          table = articles;
          break;
        case 0x4a: // J
          table = adjectives;
          break;
        case 0x44: // D
          table = adverbs;
          break;
        case 0x4e: // N
          table = nouns;
          break;
        case COMMA:
          length--;
          buffer[length++] = COMMA;
          buffer[length++] = SPACE;
          continue;
        case SPACE:
          continue;
        default:
          throw new Error(`unknown noun phrase token ${syntax[i]}`);
      }
      appendWord(table);
      buffer[length++] = SPACE;
    }
  };

  const verbPhrase = (): void => {
    const syntax = verbPhrases[VERB_PHRASES.pick(rng)];
    for (let i = 0; i < syntax.length; i++) {
      let table: WordTable;
      switch (syntax[i]) {
        case 0x44: // D
          table = adverbs;
          break;
        case 0x56: // V
          table = verbs;
          break;
        case 0x58: // X
          table = auxiliaries;
          break;
        default:
          throw new Error(`unknown verb phrase token ${syntax[i]}`);
      }
      appendWord(table);
      buffer[length++] = SPACE;
    }
  };

  while (length < size) {
    const syntax = grammar[GRAMMAR.pick(rng)];
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
        case 0x54: // T: the terminator abuts the previous word
          length--;
          appendWord(terminators);
          break;
        default:
          throw new Error(`unknown grammar token ${syntax[i]}`);
      }
      if (buffer[length - 1] !== SPACE) buffer[length++] = SPACE;
    }
  }
  return buffer.subarray(0, size);
}
