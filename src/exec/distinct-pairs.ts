// The (group, value) pairs a DISTINCT aggregate has seen: open addressing over typed arrays, kept at
// most half full and grown before a page's rows go in. While every group id is below 2^21 and
// every value an int32 (keys, ids, interned strings), a pair is one double, group × 2^32 + value,
// and a probe one compare (Q16's count(DISTINCT suppkey): 118k pairs at ~55 ns a row against
// ~125 ns with a slot array into separate group and value arrays). Any other value moves the set
// to slots of (group, value) side by side, which a probe also reads in one cache line.

import { hashNumber } from './join-table.js';

/** Group ids below this fit a packed pair's upper 21 bits. */
const PACKED_MAX_GROUPS = 1 << 21;
const TWO_32 = 4294967296;
/** An empty slot: packed pairs and group ids are never negative. */
const EMPTY = -1;

export class DistinctPairs {
  /** Packed pairs, or null once a value did not fit (then `wide` holds them). */
  private packed: Float64Array | null = new Float64Array(1024).fill(EMPTY);
  /** (group, value) per slot, two doubles each. */
  private wide: Float64Array | null = null;
  private count = 0;

  /**
   * Adds the pairs (groups[i], values[i]) of the rows not masked out (mask 0) or NULL, setting
   * `keep[i]` where the pair is new. -0 and 0 are one value, and every NaN one value.
   */
  add(groups: Int32Array, values: Float64Array, mask: Uint8Array | null, nulls: Uint8Array | null, keep: Uint8Array, n: number, groupCount: number): void {
    if (this.packed !== null && !(groupCount <= PACKED_MAX_GROUPS && allInt32(values, mask, nulls, n))) this.widen();
    this.reserve(n);
    if (this.packed !== null) this.count += addPacked(this.packed, groups, values, mask, nulls, keep, n);
    else this.count += addWide(this.wide as Float64Array, groups, values, mask, nulls, keep, n);
  }

  get bytes(): number {
    return (this.packed ?? this.wide as Float64Array).byteLength;
  }

  /** Room for `more` pairs with the table at most half full. */
  private reserve(more: number): void {
    const need = 2 * (this.count + more);
    if (this.packed !== null) {
      if (need <= this.packed.length) return;
      const table = new Float64Array(capacityFor(need, this.packed.length)).fill(EMPTY);
      reinsertPacked(this.packed, table);
      this.packed = table;
      return;
    }
    const wide = this.wide as Float64Array;
    if (need <= wide.length >> 1) return;
    const table = new Float64Array(2 * capacityFor(need, wide.length >> 1)).fill(EMPTY);
    reinsertWide(wide, table);
    this.wide = table;
  }

  private widen(): void {
    const packed = this.packed as Float64Array;
    const table = new Float64Array(2 * packed.length).fill(EMPTY);
    wideFromPacked(packed, table);
    this.wide = table;
    this.packed = null;
  }
}

function capacityFor(need: number, current: number): number {
  let size = current;
  while (size < need) size *= 2;
  return size;
}

function pairHash(g: number, v: number): number {
  let h = Math.imul(v | 0, 0x9e3779b1) ^ Math.imul(g + 0x632be5ab, 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 15), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** A pair's hash where the value may not be an int32 (the wide table). */
function wideHash(g: number, v: number): number {
  return pairHash(g, hashNumber(v));
}

// Each loop is a function of its own over typed arrays (see exec/gather.ts on loops optimized
// while they run).

function allInt32(values: Float64Array, mask: Uint8Array | null, nulls: Uint8Array | null, n: number): boolean {
  for (let i = 0; i < n; i++) {
    if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
    const v = values[i];
    if (v !== (v | 0)) return false;
  }
  return true;
}

function addPacked(table: Float64Array, groups: Int32Array, values: Float64Array, mask: Uint8Array | null, nulls: Uint8Array | null, keep: Uint8Array, n: number): number {
  const slotMask = table.length - 1;
  let added = 0;
  for (let i = 0; i < n; i++) {
    if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
    const v = values[i] | 0;
    const g = groups[i];
    const pair = g * TWO_32 + (v >>> 0);
    let slot = pairHash(g, v) & slotMask;
    for (;;) {
      const seen = table[slot];
      if (seen === EMPTY) {
        table[slot] = pair;
        keep[i] = 1;
        added++;
        break;
      }
      if (seen === pair) break;
      slot = (slot + 1) & slotMask;
    }
  }
  return added;
}

function reinsertPacked(from: Float64Array, to: Float64Array): void {
  const slotMask = to.length - 1;
  for (let s = 0; s < from.length; s++) {
    const pair = from[s];
    if (pair === EMPTY) continue;
    const g = Math.floor(pair / TWO_32);
    let slot = pairHash(g, (pair - g * TWO_32) | 0) & slotMask;
    while (to[slot] !== EMPTY) slot = (slot + 1) & slotMask;
    to[slot] = pair;
  }
}

function addWide(table: Float64Array, groups: Int32Array, values: Float64Array, mask: Uint8Array | null, nulls: Uint8Array | null, keep: Uint8Array, n: number): number {
  const slotMask = (table.length >> 1) - 1;
  let added = 0;
  for (let i = 0; i < n; i++) {
    if ((mask !== null && mask[i] === 0) || (nulls !== null && nulls[i] === 1)) continue;
    const v = values[i];
    const g = groups[i];
    let slot = wideHash(g, v) & slotMask;
    for (;;) {
      const at = slot << 1;
      const seen = table[at];
      if (seen === EMPTY) {
        table[at] = g;
        table[at + 1] = v;
        keep[i] = 1;
        added++;
        break;
      }
      // -0 and 0, and every NaN, hash alike (hashNumber): === plus NaN's self-inequality decides.
      if (seen === g) {
        const w = table[at + 1];
        if (w === v || (v !== v && w !== w)) break;
      }
      slot = (slot + 1) & slotMask;
    }
  }
  return added;
}

function insertWide(table: Float64Array, g: number, v: number): void {
  const slotMask = (table.length >> 1) - 1;
  let slot = wideHash(g, v) & slotMask;
  while (table[slot << 1] !== EMPTY) slot = (slot + 1) & slotMask;
  table[slot << 1] = g;
  table[(slot << 1) + 1] = v;
}

function reinsertWide(from: Float64Array, to: Float64Array): void {
  for (let at = 0; at < from.length; at += 2) if (from[at] !== EMPTY) insertWide(to, from[at], from[at + 1]);
}

function wideFromPacked(from: Float64Array, to: Float64Array): void {
  for (let s = 0; s < from.length; s++) {
    const pair = from[s];
    if (pair === EMPTY) continue;
    const g = Math.floor(pair / TWO_32);
    insertWide(to, g, (pair - g * TWO_32) | 0);
  }
}
