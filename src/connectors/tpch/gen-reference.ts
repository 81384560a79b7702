// region and nation: fixed rows from the distributions, with comments from the text pool.

import { dictColumn, dictIndices, Int64Writer, Utf8Writer, type Column } from './columns.js';
import { codesOf, NATION_NAMES, REGION_NAMES } from './dictionaries.js';
import { NATIONS, REGIONS } from './distributions.js';
import { TextStream } from './random-values.js';
import { TPCH_TABLES } from './schema.js';
import type { Generated } from './generated.js';

const COMMENT_AVERAGE_LENGTH = 72;
const REGION_CODES = codesOf(REGION_NAMES, REGIONS);
const NATION_CODES = codesOf(NATION_NAMES, NATIONS);

export function generateRegion(first: number, count: number, want: readonly boolean[]): Generated {
  const cols = TPCH_TABLES.region.columns;
  const key = want[0] ? new Int64Writer(cols[0].type, count) : null;
  const name = want[1] ? dictIndices(count) : null;
  const comment = want[2] ? new TextStream(1500869201, COMMENT_AVERAGE_LENGTH) : null;
  const commentText = comment ? new Utf8Writer(count, comment.longest) : null;
  comment?.advanceRows(first);
  for (let i = 0; i < count; i++) {
    const r = first + i;
    key?.set(i, r);
    if (name) name[i] = REGION_CODES[r];
    if (comment && commentText) {
      comment.write(commentText);
      commentText.end();
      comment.rowFinished();
    }
  }
  const columns: (Column | null)[] = [
    key?.column ?? null,
    name ? dictColumn(REGION_NAMES, name) : null,
    commentText?.finish(cols[2].type) ?? null,
  ];
  return { length: count, columns };
}

export function generateNation(first: number, count: number, want: readonly boolean[]): Generated {
  const cols = TPCH_TABLES.nation.columns;
  const key = want[0] ? new Int64Writer(cols[0].type, count) : null;
  const name = want[1] ? dictIndices(count) : null;
  const region = want[2] ? new Int64Writer(cols[2].type, count) : null;
  const comment = want[3] ? new TextStream(606179079, COMMENT_AVERAGE_LENGTH) : null;
  const commentText = comment ? new Utf8Writer(count, comment.longest) : null;
  comment?.advanceRows(first);
  for (let i = 0; i < count; i++) {
    const n = first + i;
    key?.set(i, n);
    if (name) name[i] = NATION_CODES[n];
    region?.set(i, NATIONS.cumulative[n]);
    if (comment && commentText) {
      comment.write(commentText);
      commentText.end();
      comment.rowFinished();
    }
  }
  const columns: (Column | null)[] = [
    key?.column ?? null,
    name ? dictColumn(NATION_NAMES, name) : null,
    region?.column ?? null,
    commentText?.finish(cols[3].type) ?? null,
  ];
  return { length: count, columns };
}
