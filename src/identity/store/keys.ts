// LMDB's key size limit as the store sees it: a key that cannot be stored cannot exist, so reads of
// it find nothing, and a write that would need it is refused before anything is issued.
import { keyValueToBuffer, type Key } from 'lmdb';

// lmdb-js exports its key encoder (ordered-binary's toBufferKey) without declaring it.
declare module 'lmdb' {
  export function keyValueToBuffer(key: Key): Buffer;
}

/** lmdb-js's maximum key size in bytes at LMDB's default page size. */
export const MAX_KEY_BYTES = 1978;

/** Whether `key` fits in an LMDB key; the exact encoding is computed only for keys that might not. */
export function keyFits(key: Key): boolean {
  let bound = 0;
  for (const part of Array.isArray(key) ? key : [key]) bound += typeof part === 'string' ? part.length * 3 + 2 : 10;
  return bound <= MAX_KEY_BYTES || keyValueToBuffer(key).length <= MAX_KEY_BYTES;
}

/** A write needs a key larger than LMDB allows (a value longer than any column limit got through). */
export class KeyTooLargeError extends Error {
  constructor(readonly db: string) {
    super(`key too large for ${db}`);
  }
}
