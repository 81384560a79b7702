// supplier: one row per supplier key. A few comments (10 per 10,000 suppliers, on average) get
// "Customer ... Complaints" or "Customer ... Recommends" written over them, as in dbgen.

import { Utf8Writer, type Column } from './columns.js';
import { PartyColumns } from './gen-party.js';
import type { Generated } from './generated.js';
import { TextStream } from './random-values.js';
import { BoundedStream, RandomStream } from './rng.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.supplier.columns;
const NAME_PREFIX = Buffer.from('Supplier#', 'latin1');
const BBB_BASE = Buffer.from('Customer ', 'latin1');
const BBB_COMPLAINT = Buffer.from('Complaints', 'latin1');
const BBB_RECOMMEND = Buffer.from('Recommends', 'latin1');
const BBB_COMMENT_LENGTH = BBB_BASE.length + BBB_COMPLAINT.length;
const BBB_COMMENTS_PER_SCALE_BASE = 10;
const BBB_COMPLAINT_PERCENT = 50;
const SUPPLIER_SCALE_BASE = 10_000;

export function generateSupplier(first: number, count: number, want: readonly boolean[]): Generated {
  const party = new PartyColumns(cols, NAME_PREFIX, { address: 706178559, nation: 110356601, phone: 884434366, balance: 962338209 }, count, want);
  const commentRandom = want[6] ? new TextStream(1341315363, 63) : null;
  const comment = commentRandom ? new Utf8Writer(count, commentRandom.longest) : null;
  const bbbComment = new BoundedStream(202794285, 1, SUPPLIER_SCALE_BASE);
  const bbbJunk = new RandomStream(263032577, 1);
  const bbbOffset = new RandomStream(715851524, 1);
  const bbbType = new BoundedStream(753643799, 0, 100);

  party.advanceRows(first);
  commentRandom?.advanceRows(first);
  if (comment) for (const s of [bbbComment, bbbJunk, bbbOffset, bbbType]) s.advanceRows(first);

  for (let i = 0; i < count; i++) {
    party.writeRow(i, first + i + 1);
    if (comment && commentRandom) {
      const start = comment.pos;
      commentRandom.write(comment);
      commentRandom.rowFinished();
      if (bbbComment.next() <= BBB_COMMENTS_PER_SCALE_BASE) {
        const length = comment.pos - start;
        const noise = bbbJunk.nextInt(0, length - BBB_COMMENT_LENGTH);
        const offset = bbbOffset.nextInt(0, length - (BBB_COMMENT_LENGTH + noise));
        const type = bbbType.next() < BBB_COMPLAINT_PERCENT ? BBB_COMPLAINT : BBB_RECOMMEND;
        comment.data.set(BBB_BASE, start + offset);
        comment.data.set(type, start + offset + BBB_BASE.length + noise);
      }
      comment.end();
      bbbComment.rowFinished();
      bbbJunk.rowFinished();
      bbbOffset.rowFinished();
      bbbType.rowFinished();
    }
  }
  const columns: (Column | null)[] = [
    ...party.columns(),
    comment?.finish(cols[6].type) ?? null,
  ];
  return { length: count, columns };
}
