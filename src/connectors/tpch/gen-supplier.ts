// supplier: one row per supplier key. A few comments (10 per 10,000 suppliers, on average) get
// "Customer ... Complaints" or "Customer ... Recommends" written over them, as in dbgen.

import { float64Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import type { Generated } from './generated.js';
import { AlphaNumericStream, PhoneStream, TextStream } from './random-values.js';
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
  const key = want[0] ? new Int64Writer(cols[0].type, count) : null;
  const name = want[1] ? new Utf8Writer(count, NAME_PREFIX.length + 16) : null;
  const addressRandom = want[2] ? new AlphaNumericStream(706178559, 25) : null;
  const address = addressRandom ? new Utf8Writer(count, addressRandom.longest) : null;
  const nationRandom = want[3] || want[4] ? new BoundedStream(110356601, 0, 24) : null;
  const nation = want[3] ? new Int64Writer(cols[3].type, count) : null;
  const phoneRandom = want[4] ? new PhoneStream(884434366) : null;
  const phone = phoneRandom ? new Utf8Writer(count, 15) : null;
  const balanceRandom = want[5] ? new BoundedStream(962338209, -99999, 999999) : null;
  const balance = want[5] ? float64Column(cols[5].type, count) : null;
  const commentRandom = want[6] ? new TextStream(1341315363, 63) : null;
  const comment = commentRandom ? new Utf8Writer(count, commentRandom.longest) : null;
  const bbbComment = new BoundedStream(202794285, 1, SUPPLIER_SCALE_BASE);
  const bbbJunk = new RandomStream(263032577, 1);
  const bbbOffset = new RandomStream(715851524, 1);
  const bbbType = new BoundedStream(753643799, 0, 100);

  for (const s of [addressRandom, nationRandom, phoneRandom, balanceRandom, commentRandom]) s?.advanceRows(first);
  if (comment) for (const s of [bbbComment, bbbJunk, bbbOffset, bbbType]) s.advanceRows(first);

  for (let i = 0; i < count; i++) {
    const supplierKey = first + i + 1;
    key?.set(i, supplierKey);
    if (name) {
      name.bytes(NAME_PREFIX);
      name.number(supplierKey, 9);
      name.end();
    }
    if (address && addressRandom) {
      addressRandom.write(address);
      address.end();
      addressRandom.rowFinished();
    }
    if (nationRandom) {
      const nationKey = nationRandom.next();
      nationRandom.rowFinished();
      nation?.set(i, nationKey);
      if (phone && phoneRandom) {
        phoneRandom.write(phone, nationKey);
        phone.end();
        phoneRandom.rowFinished();
      }
    }
    if (balance && balanceRandom) {
      balance.values[i] = balanceRandom.next() / 100;
      balanceRandom.rowFinished();
    }
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
    key?.column ?? null,
    name?.finish(cols[1].type) ?? null,
    address?.finish(cols[2].type) ?? null,
    nation?.column ?? null,
    phone?.finish(cols[4].type) ?? null,
    balance,
    comment?.finish(cols[6].type) ?? null,
  ];
  return { length: count, columns };
}
