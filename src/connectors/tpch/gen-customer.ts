// customer: one row per customer key.

import { dictColumn, dictIndices, float64Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import { codesOf, MARKET_SEGMENT_DICT } from './dictionaries.js';
import { MARKET_SEGMENTS } from './distributions.js';
import type { Generated } from './generated.js';
import { AlphaNumericStream, PhoneStream, TextStream } from './random-values.js';
import { BoundedStream, RandomStream } from './rng.js';
import { TPCH_TABLES } from './schema.js';

const cols = TPCH_TABLES.customer.columns;
const NAME_PREFIX = Buffer.from('Customer#', 'latin1');
const SEGMENT_CODES = codesOf(MARKET_SEGMENT_DICT, MARKET_SEGMENTS);

export function generateCustomer(first: number, count: number, want: readonly boolean[]): Generated {
  const key = want[0] ? new Int64Writer(cols[0].type, count) : null;
  const name = want[1] ? new Utf8Writer(count, NAME_PREFIX.length + 16) : null;
  const addressRandom = want[2] ? new AlphaNumericStream(881155353, 25) : null;
  const address = addressRandom ? new Utf8Writer(count, addressRandom.longest) : null;
  const nationRandom = want[3] || want[4] ? new BoundedStream(1489529863, 0, 24) : null;
  const nation = want[3] ? new Int64Writer(cols[3].type, count) : null;
  const phoneRandom = want[4] ? new PhoneStream(1521138112) : null;
  const phone = phoneRandom ? new Utf8Writer(count, 15) : null;
  const balanceRandom = want[5] ? new BoundedStream(298370230, -99999, 999999) : null;
  const balance = want[5] ? float64Column(cols[5].type, count) : null;
  const segmentRandom = want[6] ? new RandomStream(1140279430, 1) : null;
  const segment = want[6] ? dictIndices(count) : null;
  const commentRandom = want[7] ? new TextStream(1335826707, 73) : null;
  const comment = commentRandom ? new Utf8Writer(count, commentRandom.longest) : null;

  for (const s of [addressRandom, nationRandom, phoneRandom, balanceRandom, segmentRandom, commentRandom]) {
    s?.advanceRows(first);
  }

  for (let i = 0; i < count; i++) {
    const customerKey = first + i + 1;
    key?.set(i, customerKey);
    if (name) {
      name.bytes(NAME_PREFIX);
      name.number(customerKey, 9);
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
    key?.column ?? null,
    name?.finish(cols[1].type) ?? null,
    address?.finish(cols[2].type) ?? null,
    nation?.column ?? null,
    phone?.finish(cols[4].type) ?? null,
    balance,
    segment ? dictColumn(MARKET_SEGMENT_DICT, segment) : null,
    comment?.finish(cols[7].type) ?? null,
  ];
  return { length: count, columns };
}
