// part: one row per part key. The retail price is a formula of the key, not random.

import { dictColumn, dictIndices, float64Column, int32Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import { BRANDS, CONTAINER_DICT, codesOf, MANUFACTURERS, PART_TYPE_DICT } from './dictionaries.js';
import { PART_CONTAINERS, PART_TYPES } from './distributions.js';
import { partPriceCents } from './formulas.js';
import type { Generated } from './generated.js';
import { PartNameStream, TextStream } from './random-values.js';
import { BoundedStream, RandomStream } from './rng.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.part.columns;
const TYPE_CODES = codesOf(PART_TYPE_DICT, PART_TYPES);
const CONTAINER_CODES = codesOf(CONTAINER_DICT, PART_CONTAINERS);

export function generatePart(first: number, count: number, want: readonly boolean[]): Generated {
  const key = want[0] ? new Int64Writer(cols[0].type, count) : null;
  const nameRandom = want[1] ? new PartNameStream(709314158) : null;
  const name = nameRandom ? new Utf8Writer(count, PartNameStream.LONGEST) : null;
  const mfgrRandom = want[2] || want[3] ? new BoundedStream(1, 1, 5) : null;
  const mfgr = want[2] ? dictIndices(count) : null;
  const brandRandom = want[3] ? new BoundedStream(46831694, 1, 5) : null;
  const brand = want[3] ? dictIndices(count) : null;
  const typeRandom = want[4] ? new RandomStream(1841581359, 1) : null;
  const type = want[4] ? dictIndices(count) : null;
  const sizeRandom = want[5] ? new BoundedStream(1193163244, 1, 50) : null;
  const size = want[5] ? int32Column(cols[5].type, count) : null;
  const containerRandom = want[6] ? new RandomStream(727633698, 1) : null;
  const container = want[6] ? dictIndices(count) : null;
  const price = want[7] ? float64Column(cols[7].type, count) : null;
  const commentRandom = want[8] ? new TextStream(804159733, 14) : null;
  const comment = commentRandom ? new Utf8Writer(count, commentRandom.longest) : null;

  for (const s of [nameRandom, mfgrRandom, brandRandom, typeRandom, sizeRandom, containerRandom, commentRandom]) {
    s?.advanceRows(first);
  }

  for (let i = 0; i < count; i++) {
    const partKey = first + i + 1;
    key?.set(i, partKey);
    if (name && nameRandom) {
      nameRandom.write(name);
      name.end();
      nameRandom.rowFinished();
    }
    if (mfgrRandom) {
      const m = mfgrRandom.next();
      mfgrRandom.rowFinished();
      if (mfgr) mfgr[i] = m - 1;
      if (brand && brandRandom) {
        brand[i] = (m - 1) * 5 + brandRandom.next() - 1;
        brandRandom.rowFinished();
      }
    }
    if (type && typeRandom) {
      type[i] = TYPE_CODES[PART_TYPES.pick(typeRandom)];
      typeRandom.rowFinished();
    }
    if (size && sizeRandom) {
      size.values[i] = sizeRandom.next();
      sizeRandom.rowFinished();
    }
    if (container && containerRandom) {
      container[i] = CONTAINER_CODES[PART_CONTAINERS.pick(containerRandom)];
      containerRandom.rowFinished();
    }
    if (price) price.values[i] = partPriceCents(partKey) / 100;
    if (comment && commentRandom) {
      commentRandom.write(comment);
      comment.end();
      commentRandom.rowFinished();
    }
  }
  const columns: (Column | null)[] = [
    key?.column ?? null,
    name?.finish(cols[1].type) ?? null,
    mfgr ? dictColumn(MANUFACTURERS, mfgr) : null,
    brand ? dictColumn(BRANDS, brand) : null,
    type ? dictColumn(PART_TYPE_DICT, type) : null,
    size,
    container ? dictColumn(CONTAINER_DICT, container) : null,
    price,
    comment?.finish(cols[8].type) ?? null,
  ];
  return { length: count, columns };
}
