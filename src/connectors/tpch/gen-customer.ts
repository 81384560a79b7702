// customer: one row per customer key.

import { dictColumn, dictIndices, Utf8Writer, type Column } from './columns.js';
import { codesOf, MARKET_SEGMENT_DICT } from './dictionaries.js';
import { MARKET_SEGMENTS } from './distributions.js';
import type { Generated } from './generated.js';
import { PartyColumns } from './gen-party.js';
import { TextStream } from './random-values.js';
import { RandomStream } from './rng.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.customer.columns;
const NAME_PREFIX = Buffer.from('Customer#', 'latin1');
const SEGMENT_CODES = codesOf(MARKET_SEGMENT_DICT, MARKET_SEGMENTS);

export function generateCustomer(first: number, count: number, want: readonly boolean[]): Generated {
  const party = new PartyColumns(cols, NAME_PREFIX, { address: 881155353, nation: 1489529863, phone: 1521138112, balance: 298370230 }, count, want);
  const segmentRandom = want[6] ? new RandomStream(1140279430, 1) : null;
  const segment = want[6] ? dictIndices(count) : null;
  const commentRandom = want[7] ? new TextStream(1335826707, 73) : null;
  const comment = commentRandom ? new Utf8Writer(count, commentRandom.longest) : null;

  party.advanceRows(first);
  for (const s of [segmentRandom, commentRandom]) s?.advanceRows(first);

  for (let i = 0; i < count; i++) {
    party.writeRow(i, first + i + 1);
    if (segment && segmentRandom) {
      segment[i] = SEGMENT_CODES[MARKET_SEGMENTS.pick(segmentRandom)];
      segmentRandom.rowFinished();
    }
    if (comment && commentRandom) {
      commentRandom.write(comment);
      comment.end();
      commentRandom.rowFinished();
    }
  }
  const columns: (Column | null)[] = [
    ...party.columns(),
    segment ? dictColumn(MARKET_SEGMENT_DICT, segment) : null,
    comment?.finish(cols[7].type) ?? null,
  ];
  return { length: count, columns };
}
