// customer and supplier begin with the same six columns, made the same way (dbgen's mk_cust and
// mk_supp): key, "<Prefix>#<key>", address, nation, phone (its country code from the nation),
// account balance. Only the seeds and the name prefix differ.

import { float64Column, Int64Writer, Utf8Writer, type Column } from './columns.js';
import { AlphaNumericStream, PhoneStream } from './random-values.js';
import { BoundedStream } from './rng.js';
import type { TpchColumn } from './schema.js';

export interface PartySeeds {
  readonly address: number;
  readonly nation: number;
  readonly phone: number;
  readonly balance: number;
}

/** Writers for columns 0–5 of customer or supplier; `want` says which are asked for. */
export class PartyColumns {
  private readonly key: Int64Writer | null;
  private readonly name: Utf8Writer | null;
  private readonly addressRandom: AlphaNumericStream | null;
  private readonly address: Utf8Writer | null;
  private readonly nationRandom: BoundedStream | null;
  private readonly nation: Int64Writer | null;
  private readonly phoneRandom: PhoneStream | null;
  private readonly phone: Utf8Writer | null;
  private readonly balanceRandom: BoundedStream | null;
  private readonly balance: ReturnType<typeof float64Column> | null;

  constructor(
    private readonly cols: readonly TpchColumn[],
    private readonly namePrefix: Buffer,
    seeds: PartySeeds,
    count: number,
    want: readonly boolean[],
  ) {
    this.key = want[0] ? new Int64Writer(cols[0].type, count) : null;
    this.name = want[1] ? new Utf8Writer(count, namePrefix.length + 16) : null;
    this.addressRandom = want[2] ? new AlphaNumericStream(seeds.address, 25) : null;
    this.address = this.addressRandom ? new Utf8Writer(count, this.addressRandom.longest) : null;
    this.nationRandom = want[3] || want[4] ? new BoundedStream(seeds.nation, 0, 24) : null;
    this.nation = want[3] ? new Int64Writer(cols[3].type, count) : null;
    this.phoneRandom = want[4] ? new PhoneStream(seeds.phone) : null;
    this.phone = this.phoneRandom ? new Utf8Writer(count, 15) : null;
    this.balanceRandom = want[5] ? new BoundedStream(seeds.balance, -99999, 999999) : null;
    this.balance = want[5] ? float64Column(cols[5].type, count) : null;
  }

  /** Skips the random streams past the rows before the first one generated. */
  advanceRows(first: number): void {
    for (const s of [this.addressRandom, this.nationRandom, this.phoneRandom, this.balanceRandom]) s?.advanceRows(first);
  }

  /** Row `i`, whose key is `partyKey`. */
  writeRow(i: number, partyKey: number): void {
    this.key?.set(i, partyKey);
    const name = this.name;
    if (name) {
      name.bytes(this.namePrefix);
      name.number(partyKey, 9);
      name.end();
    }
    if (this.address && this.addressRandom) {
      this.addressRandom.write(this.address);
      this.address.end();
      this.addressRandom.rowFinished();
    }
    if (this.nationRandom) {
      const nationKey = this.nationRandom.next();
      this.nationRandom.rowFinished();
      this.nation?.set(i, nationKey);
      if (this.phone && this.phoneRandom) {
        this.phoneRandom.write(this.phone, nationKey);
        this.phone.end();
        this.phoneRandom.rowFinished();
      }
    }
    if (this.balance && this.balanceRandom) {
      this.balance.values[i] = this.balanceRandom.next() / 100;
      this.balanceRandom.rowFinished();
    }
  }

  /** Columns 0–5, null where not asked for. */
  columns(): (Column | null)[] {
    const cols = this.cols;
    return [
      this.key?.column ?? null,
      this.name?.finish(cols[1].type) ?? null,
      this.address?.finish(cols[2].type) ?? null,
      this.nation?.column ?? null,
      this.phone?.finish(cols[4].type) ?? null,
      this.balance,
    ];
  }
}
