// The identity store: LMDB sub-databases for entities and their indexes, plus the write-ahead
// event log. Every mutation runs synchronously against (committed state + writes still in flight),
// then goes to LMDB as ONE atomic batch holding the log record and the entity/index writes (every
// key is checked against LMDB's limit as changes are applied, so a batch cannot fail halfway). lmdb-js
// groups batches issued in the same event turn (and those queued while a commit is syncing) into one
// commit, so concurrent requests share fsyncs; the returned promise resolves only once that commit
// is synced to disk.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { open, compareKeys, type Database, type Key, type RootDatabase } from 'lmdb';
import { TABLES, TABLE_NAMES, type TableName, type IndexDef } from './tables.js';
import { KeyTooLargeError, keyFits } from './keys.js';


export type Operation = 'CREATE' | 'UPDATE' | 'DELETE' | 'ACTION';

export interface AuthDetails {
  realmId: string;
  clientId: string;
  userId: string;
  ipAddress: string;
}

/** A high-level change: [table, key, value] puts, [table, key] deletes, or a directive. */
export type Change = [TableName, Key, unknown] | [TableName, Key] | ['!clearAdminEvents', string];

export interface LogRecord {
  seq: number;
  id: string;
  time: number;
  realmId: string;
  operationType: Operation;
  resourceType: string;
  resourcePath: string;
  /** JSON text with secrets stripped, or undefined. */
  representation?: string;
  authDetails?: AuthDetails;
  /** Whether this record is an admin event the realm chose to record. */
  visible: boolean;
  /** Whether the admin event includes the representation (adminEventsDetailsEnabled). */
  details: boolean;
  changes: Change[];
}

export interface EventSpec {
  operationType: Operation;
  resourceType: string;
  resourcePath: string;
  representation?: unknown;
}

const DEL = Symbol('deleted');
type Pending = { key: Key; value: unknown; gen: number };

function keyId(key: Key): string {
  return JSON.stringify(key);
}

function hasPrefix(key: Key, prefix: Key[]): boolean {
  if (!Array.isArray(key)) return prefix.length === 1 && key === prefix[0];
  if (key.length < prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (key[i] !== prefix[i]) return false;
  return true;
}

function prefixRange(prefix: Key[]): { start?: Key; end?: Key } {
  if (prefix.length === 0) return {};
  const last = prefix[prefix.length - 1];
  const end = [...prefix.slice(0, -1), typeof last === 'string' ? last + '\u0000' : (last as number) + 1e-9];
  return { start: prefix, end };
}

/** Each index's keys for a change's new value (none for a delete), in the table's index order. */
function newIndexKeys(change: [TableName, Key, unknown] | [TableName, Key]): Key[][] {
  const [table, key] = change;
  return (TABLES[table].indexes as readonly IndexDef[]).map((idx) => (change.length === 3 && change[2] !== undefined ? idx.keys(change[2], key) : []));
}

/** The database of the first key a change would write that LMDB cannot store, or undefined. */
function unstorableKey(table: TableName, key: Key, added: Key[][]): string | undefined {
  if (!keyFits(key)) return table;
  const indexes = TABLES[table].indexes as readonly IndexDef[];
  for (let i = 0; i < indexes.length; i++) if (!added[i]!.every(keyFits)) return indexes[i]!.name;
  return undefined;
}

/** Whether every change of a log record can be applied (a record that cannot is never written). */
function recordApplies(rec: LogRecord): boolean {
  return rec.changes.every((c) => c[0] === '!clearAdminEvents' || !unstorableKey(c[0], c[1], newIndexKeys(c)));
}

export class Tx {
  readonly writes: Array<[string, Key, unknown]> = [];
  readonly changes: Change[] = [];
  private readonly local = new Map<string, Map<string, Pending>>();
  event?: EventSpec;
  auth?: AuthDetails;
  realmId = '';

  constructor(private readonly store: IdentityStore) {}

  private localGet(db: string, key: Key): Pending | undefined {
    return this.local.get(db)?.get(keyId(key));
  }

  raw(db: string, key: Key): unknown {
    const p = this.localGet(db, key);
    if (p) return p.value === DEL ? undefined : p.value;
    return this.store.rawGet(db, key);
  }

  get<T>(table: TableName, key: Key): T | undefined {
    return this.raw(table, key) as T | undefined;
  }

  lookup(index: string, key: Key): string | undefined {
    return this.raw(index, key) as string | undefined;
  }

  /** A raw write to any database (used by replay for the admin event index). */
  setRaw(db: string, key: Key, value: unknown): void {
    let m = this.local.get(db);
    if (!m) this.local.set(db, (m = new Map()));
    m.set(keyId(key), { key, value, gen: 0 });
    this.writes.push([db, key, value]);
  }

  put(table: TableName, key: Key, value: unknown): void {
    this.apply([table, key, value]);
  }

  del(table: TableName, key: Key): void {
    if (this.get(table, key) === undefined) return;
    this.apply([table, key]);
  }

  /** Applies one change; throws KeyTooLargeError, changing nothing, if a key it writes cannot be stored. */
  apply(change: Change): void {
    if (change[0] === '!clearAdminEvents') {
      this.changes.push(change);
      for (const { key } of this.range('adminEventIndex', [change[1]])) this.setRaw('adminEventIndex', key, DEL);
      return;
    }
    const [table, key] = change;
    const next = change.length === 3 ? change[2] : undefined;
    const added = newIndexKeys(change);
    const tooLarge = unstorableKey(table, key, added);
    if (tooLarge) throw new KeyTooLargeError(tooLarge);
    this.changes.push(change);
    const old = this.get(table, key);
    (TABLES[table].indexes as readonly IndexDef[]).forEach((idx, i) => {
      const oldKeys = old === undefined ? [] : idx.keys(old, key);
      const newKeys = added[i]!;
      const newIds = new Set(newKeys.map(keyId));
      const oldIds = new Set(oldKeys.map(keyId));
      for (const k of oldKeys) if (!newIds.has(keyId(k))) this.setRaw(idx.name, k, DEL);
      for (const k of newKeys) if (!oldIds.has(keyId(k)) || this.raw(idx.name, k) === undefined) this.setRaw(idx.name, k, key);
    });
    this.setRaw(table, key, next === undefined ? DEL : next);
  }

  /** Entries of a db whose key starts with prefix, in key order, seeing this transaction's writes. */
  range(db: string, prefix: Key[], opts: { reverse?: boolean } = {}): Array<{ key: Key; value: unknown }> {
    const base = this.store.rangeMerged(db, prefix, opts.reverse ?? false);
    const mine = this.local.get(db);
    if (!mine || mine.size === 0) return base;
    const merged = new Map<string, { key: Key; value: unknown }>();
    for (const e of base) merged.set(keyId(e.key), e);
    for (const p of mine.values()) {
      if (!hasPrefix(p.key, prefix)) continue;
      if (p.value === DEL) merged.delete(keyId(p.key));
      else merged.set(keyId(p.key), { key: p.key, value: p.value });
    }
    const out = [...merged.values()].sort((a, b) => compareKeys(a.key, b.key));
    if (opts.reverse) out.reverse();
    return out;
  }

  /** Records the admin event for this change (one per request). */
  record(spec: EventSpec): void {
    this.event = spec;
  }
}

export interface StoreOptions {
  dataDir: string;
}

export class IdentityStore {
  readonly root: RootDatabase;
  private readonly dbs = new Map<string, Database>();
  private readonly overlay = new Map<string, Map<string, Pending>>();
  private gen = 0;
  private nextSeq: number;
  /** Bumped on every issued write; read caches key on it. */
  version = 0;
  readonly path: string;

  static open(opts: StoreOptions): IdentityStore {
    return new IdentityStore(opts);
  }

  private constructor(opts: StoreOptions) {
    this.path = join(opts.dataDir, 'identity');
    mkdirSync(this.path, { recursive: true });
    // overlappingSync (lmdb-js's default except on Windows) resolves a commit before it is flushed;
    // without it a commit resolves once LMDB has synced it, so a reply after a write means on disk.
    this.root = open({ path: this.path, maxDbs: 64, mapSize: 2 ** 34, overlappingSync: false, noSync: false });
    const names = ['log', 'adminEventIndex', 'userEvents', ...TABLE_NAMES];
    for (const t of TABLE_NAMES) for (const i of TABLES[t].indexes) names.push(i.name);
    for (const n of names) this.dbs.set(n, this.root.openDB({ name: n, cache: n !== 'log' && n !== 'userEvents' }));
    const last = Array.from(this.db('log').getKeys({ reverse: true, limit: 1 }))[0];
    this.nextSeq = typeof last === 'number' ? last + 1 : 1;
  }

  db(name: string): Database {
    const d = this.dbs.get(name);
    if (!d) throw new Error(`no database ${name}`);
    return d;
  }

  /** Names of the entity and index databases (everything the log can rebuild). */
  derivedDbNames(): string[] {
    return [...this.dbs.keys()].filter((n) => n !== 'log' && n !== 'userEvents');
  }

  rawGet(db: string, key: Key): unknown {
    const p = this.overlay.get(db)?.get(keyId(key));
    if (p) return p.value === DEL ? undefined : p.value;
    return keyFits(key) ? this.db(db).get(key) : undefined;
  }

  get<T>(table: TableName, key: Key): T | undefined {
    return this.rawGet(table, key) as T | undefined;
  }

  lookup(index: string, key: Key): string | undefined {
    return this.rawGet(index, key) as string | undefined;
  }

  rangeMerged(db: string, prefix: Key[], reverse = false, limit?: number): Array<{ key: Key; value: unknown }> {
    const { start, end } = prefixRange(prefix);
    if (end !== undefined && !keyFits(end)) return [];
    const pend = this.overlay.get(db);
    if (!pend || pend.size === 0) {
      const r: { start?: Key; end?: Key; reverse?: boolean } = reverse ? { reverse: true } : {};
      if (reverse) {
        if (end !== undefined) r.start = end;
        if (start !== undefined) r.end = start;
      } else {
        if (start !== undefined) r.start = start;
        if (end !== undefined) r.end = end;
      }
      return Array.from(this.db(db).getRange({ ...r, ...(limit !== undefined ? { limit } : {}) }), (e) => ({ key: e.key, value: e.value }));
    }
    const merged = new Map<string, { key: Key; value: unknown }>();
    for (const e of this.db(db).getRange(start === undefined ? {} : { start, end: end! })) merged.set(keyId(e.key), { key: e.key, value: e.value });
    for (const p of pend.values()) {
      if (!hasPrefix(p.key, prefix)) continue;
      if (p.value === DEL) merged.delete(keyId(p.key));
      else merged.set(keyId(p.key), { key: p.key, value: p.value });
    }
    let out = [...merged.values()].sort((a, b) => compareKeys(a.key, b.key));
    if (reverse) out.reverse();
    if (limit !== undefined) out = out.slice(0, limit);
    return out;
  }

  range(db: string, prefix: Key[], opts: { reverse?: boolean; limit?: number } = {}): Array<{ key: Key; value: unknown }> {
    return this.rangeMerged(db, prefix, opts.reverse ?? false, opts.limit);
  }

  /**
   * Runs fn against the current state; if it returns without throwing, its changes and one log
   * record go to LMDB as one atomic batch. Resolves with fn's result once the commit is durable.
   */
  write<T>(auth: AuthDetails | undefined, fn: (tx: Tx) => T): Promise<T> {
    const tx = new Tx(this);
    if (auth) tx.auth = auth;
    let result: T;
    try {
      result = fn(tx);
    } catch (error) {
      return Promise.reject(error);
    }
    // A request whose only effect is its admin event (an e-mail sent, a session ended) still logs it.
    if (tx.changes.length === 0 && !tx.event) return Promise.resolve(result);
    return this.commit(tx).then(() => result);
  }

  private commit(tx: Tx): Promise<void> {
    const realmId = tx.realmId;
    const realm = realmId ? tx.get<{ adminEventsEnabled?: boolean; adminEventsDetailsEnabled?: boolean }>('realms', realmId) : undefined;
    const ev = tx.event;
    const record: LogRecord = {
      seq: this.nextSeq++,
      id: randomUUID(),
      time: Date.now(),
      realmId,
      operationType: ev?.operationType ?? 'ACTION',
      resourceType: ev?.resourceType ?? 'INTERNAL',
      resourcePath: ev?.resourcePath ?? '',
      visible: !!ev && !!realm?.adminEventsEnabled,
      details: !!realm?.adminEventsDetailsEnabled,
      changes: tx.changes,
    };
    if (ev?.representation !== undefined) record.representation = JSON.stringify(ev.representation);
    if (tx.auth) record.authDetails = tx.auth;
    return this.issue(tx.writes, record);
  }

  private issue(writes: Array<[string, Key, unknown]>, record: LogRecord | null): Promise<void> {
    const gen = ++this.gen;
    this.version++;
    const mine: Array<[Map<string, Pending>, string]> = [];
    for (const [db, key, value] of writes) {
      let m = this.overlay.get(db);
      if (!m) this.overlay.set(db, (m = new Map()));
      const id = keyId(key);
      m.set(id, { key, value, gen });
      mine.push([m, id]);
    }
    if (record?.visible) {
      mine.push(...this.pendingIndex('adminEventIndex', [record.realmId, record.seq], record.seq, gen));
    }
    const cleanup = () => {
      for (const [m, id] of mine) if (m.get(id)?.gen === gen) m.delete(id);
    };
    let p: Promise<unknown>;
    try {
      p = this.root.batch(() => {
        if (record) {
          this.db('log').put(record.seq, record);
          if (record.visible) this.db('adminEventIndex').put([record.realmId, record.seq], record.seq);
        }
        for (const [db, key, value] of writes) {
          if (value === DEL) this.db(db).remove(key);
          else this.db(db).put(key, value);
        }
      });
    } catch (err) {
      // lmdb-js still commits what the callback queued before throwing; Tx.apply checks keys so that
      // nothing can throw here, and the writes in flight must not outlive the failure in memory.
      cleanup();
      return Promise.reject(err);
    }
    return p.then(
      () => cleanup(),
      (err: unknown) => {
        cleanup();
        throw err;
      },
    );
  }

  private pendingIndex(db: string, key: Key, value: unknown, gen: number): Array<[Map<string, Pending>, string]> {
    let m = this.overlay.get(db);
    if (!m) this.overlay.set(db, (m = new Map()));
    const id = keyId(key);
    m.set(id, { key, value, gen });
    return [[m, id]];
  }

  /** All log records of a realm's visible admin events, newest first unless asc. */
  adminEventSeqs(realmId: string, reverse: boolean): number[] {
    return this.range('adminEventIndex', [realmId], { reverse }).map((e) => e.value as number);
  }

  logRecord(seq: number): LogRecord | undefined {
    return this.db('log').get(seq) as LogRecord | undefined;
  }

  lastSeq(): number {
    return this.nextSeq - 1;
  }

  /** Waits until every write issued so far is committed. */
  async settle(): Promise<void> {
    await this.root.committed;
    await this.root.flushed;
  }

  /**
   * Drops every entity and index database and replays the log into them. A record whose keys LMDB
   * cannot store (written by a failed request before writes checked their keys) is skipped whole.
   */
  async rebuildFromLog(): Promise<{ events: number; skipped: number[] }> {
    await this.settle();
    for (const n of this.derivedDbNames()) await this.db(n).clearAsync();
    this.overlay.clear();
    let events = 0;
    const skipped: number[] = [];
    let tx = new Tx(this);
    const flush = async () => {
      if (tx.writes.length) await this.issue(tx.writes, null);
      tx = new Tx(this);
    };
    for (const { value } of this.db('log').getRange({})) {
      const rec = value as LogRecord;
      if (!recordApplies(rec)) {
        skipped.push(rec.seq);
        continue;
      }
      for (const c of rec.changes) tx.apply(c);
      if (rec.visible) tx.setRaw('adminEventIndex', [rec.realmId, rec.seq], rec.seq);
      events++;
      if (tx.writes.length > 20_000) await flush();
    }
    await flush();
    await this.settle();
    return { events, skipped };
  }

  /** Every derived database as [name, entries], for comparing states. */
  dump(): Record<string, Array<[Key, unknown]>> {
    const out: Record<string, Array<[Key, unknown]>> = {};
    for (const n of this.derivedDbNames()) out[n] = Array.from(this.db(n).getRange({}), (e): [Key, unknown] => [e.key, e.value]);
    return out;
  }

  private closed = false;

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.settle();
    await this.root.close();
  }
}
