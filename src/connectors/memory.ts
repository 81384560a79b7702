// The memory catalog: schemas and tables whose rows live in pages on SharedArrayBuffers, so every
// worker thread scans them without copying. A table's pages are an immutable array replaced whole on
// each commit (append or rewrite), so a reader always sees one consistent snapshot and a failed
// write changes nothing. All mutation happens on the main thread, one synchronous step per commit.

import { arrowBytes } from '../data/arrow.js';
import { pageBytes, sharedPage, type Column, type Page } from '../data/page.js';
import { EngineError } from '../util/engine-error.js';
import type { ColumnMetadata, Connector, HeldTableData, Split, TableMetadata, ViewDefinition } from './catalog.js';

export const DEFAULT_SCHEMA = 'default';

/** One memory table. `pages` is replaced (never mutated) by commits. */
export class MemoryTable {
  pages: readonly Page[] = [];
  rows = 0;
  bytes = 0;
  /** False once dropped: late commits to it fail instead of writing into nothing. */
  live = true;

  constructor(
    readonly catalog: string,
    readonly schema: string,
    readonly name: string,
    readonly columns: readonly ColumnMetadata[],
  ) {}

  get qualifiedName(): string {
    return `${this.catalog}.${this.schema}.${this.name}`;
  }
}

export interface MemoryConnectorOptions {
  /** Bytes all memory tables together may hold (Trino's memory.max-data-per-node); default unlimited. */
  readonly maxDataBytes?: number;
}

export class MemoryConnector implements Connector {
  private readonly schemas = new Map<string, Map<string, MemoryTable>>([[DEFAULT_SCHEMA, new Map()]]);
  /** Views by schema; a view and a table never share a name. */
  private readonly views = new Map<string, Map<string, ViewDefinition>>();
  private totalBytes = 0;

  constructor(
    readonly catalog = 'memory',
    private readonly options: MemoryConnectorOptions = {},
  ) {}

  /** Bytes held by all tables. */
  get dataBytes(): number {
    return this.totalBytes;
  }

  listSchemas(): string[] {
    return [...this.schemas.keys()].sort();
  }

  listTables(schema: string): string[] {
    return [...(this.schemas.get(schema)?.keys() ?? [])].sort();
  }

  listViews(schema: string): string[] {
    return [...(this.views.get(schema)?.keys() ?? [])].sort();
  }

  getView(schema: string, name: string): ViewDefinition | undefined {
    return this.views.get(schema)?.get(name);
  }

  /** Stores a view; false when the name is a table's, or a view's and `replace` is not set. */
  createView(view: ViewDefinition, replace: boolean): boolean {
    if (!this.schemas.has(view.schema)) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${view.schema}' does not exist`, { lineNumber: 1, columnNumber: 1 });
    if (this.schemas.get(view.schema)?.has(view.name)) return false;
    let views = this.views.get(view.schema);
    if (!views) this.views.set(view.schema, (views = new Map()));
    if (views.has(view.name) && !replace) return false;
    views.set(view.name, view);
    return true;
  }

  /** Drops a view; false when it does not exist. */
  dropView(schema: string, name: string): boolean {
    return this.views.get(schema)?.delete(name) ?? false;
  }

  getTable(schema: string, table: string): TableMetadata | undefined {
    const t = this.table(schema, table);
    return t ? { catalog: this.catalog, schema, name: table, columns: t.columns, rowCount: t.rows } : undefined;
  }

  /** Splits of about `targetRows` rows over the table's current pages (whole pages per split). */
  splits(table: TableMetadata, targetRows: number): Split[] {
    const t = this.table(table.schema, table.name);
    return t ? splitsOf(t.pages, targetRows) : [];
  }

  /** Every table's data (Arrow sizes computed here: this is read rarely, commits are hot). */
  heldTables(): HeldTableData[] {
    return [...this.schemas.values()].flatMap((tables) =>
      [...tables.values()].map((t) => ({
        catalog: this.catalog,
        schema: t.schema,
        table: t.name,
        rows: t.rows,
        columns: t.columns.length,
        bytes: t.bytes,
        arrowBytes: t.pages.reduce((n, p) => n + p.columns.reduce((m, c) => m + arrowBytes(c), 0), 0),
      })),
    );
  }

  table(schema: string, name: string): MemoryTable | undefined {
    return this.schemas.get(schema)?.get(name);
  }

  hasSchema(schema: string): boolean {
    return this.schemas.has(schema);
  }

  /** Creates a schema; false when it already exists. */
  createSchema(schema: string): boolean {
    if (this.schemas.has(schema)) return false;
    this.schemas.set(schema, new Map());
    return true;
  }

  /** Drops a schema (and with `cascade` its tables); false when it does not exist. */
  dropSchema(schema: string, cascade: boolean): boolean {
    const tables = this.schemas.get(schema);
    if (!tables) return false;
    const views = this.views.get(schema)?.size ?? 0;
    if ((tables.size > 0 || views > 0) && !cascade) throw new EngineError('SCHEMA_NOT_EMPTY', `Cannot drop non-empty schema '${schema}'`, { lineNumber: 1, columnNumber: 1 });
    for (const t of tables.values()) this.release(t);
    this.schemas.delete(schema);
    this.views.delete(schema);
    return true;
  }

  /** Creates a table holding `pages` (already in the table's column types); undefined when the name is taken. */
  createTable(schema: string, name: string, columns: readonly ColumnMetadata[], pages: readonly Page[] = []): MemoryTable | undefined {
    const tables = this.schemas.get(schema);
    if (!tables) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${schema}' does not exist`, { lineNumber: 1, columnNumber: 1 });
    if (this.nameTaken(schema, name)) return undefined;
    const table = new MemoryTable(this.catalog, schema, name, columns);
    this.commit(table, pages);
    tables.set(name, table);
    return table;
  }

  /** Drops a table; false when it does not exist. */
  dropTable(schema: string, name: string): boolean {
    const tables = this.schemas.get(schema);
    const table = tables?.get(name);
    if (!tables || !table) return false;
    tables.delete(name);
    this.release(table);
    return true;
  }

  /**
   * Renames (or moves to another schema) a live table, its rows kept; undefined when the new name
   * is taken. The old table object is dead from then on: a write still holding it fails.
   */
  renameTable(table: MemoryTable, schema: string, name: string): MemoryTable | undefined {
    this.requireLive(table);
    const target = this.schemas.get(schema);
    if (!target) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${schema}' does not exist`, { lineNumber: 1, columnNumber: 1 });
    if (this.nameTaken(schema, name)) return undefined;
    return this.replace(table, new MemoryTable(this.catalog, schema, name, table.columns), table.pages);
  }

  /** Gives a live table another column list, with `pages` (its rows in those columns) as its rows. */
  changeColumns(table: MemoryTable, columns: readonly ColumnMetadata[], pages: readonly Page[]): MemoryTable {
    this.requireLive(table);
    return this.replace(table, new MemoryTable(this.catalog, table.schema, table.name, columns), pages);
  }

  /**
   * Puts `next` (holding `pages`) where `table` was. The memory limit is checked with the old
   * table's bytes already given back (a rename must not need room for two copies); a failure
   * leaves everything as it was.
   */
  private replace(table: MemoryTable, next: MemoryTable, pages: readonly Page[]): MemoryTable {
    const freed = table.bytes;
    this.totalBytes -= freed;
    try {
      this.commit(next, pages);
    } catch (e) {
      this.totalBytes += freed;
      throw e;
    }
    table.bytes = 0;
    this.release(table);
    this.schemas.get(table.schema)?.delete(table.name);
    this.schemas.get(next.schema)?.set(next.name, next);
    return next;
  }

  /** Appends pages (in the table's column types) to a live table, atomically. */
  append(table: MemoryTable, pages: readonly Page[]): void {
    this.requireLive(table);
    if (pages.length === 0) return;
    this.commit(table, [...table.pages, ...pages]);
  }

  /**
   * Replaces the pages of `snapshot` (a prefix of the table's pages taken earlier) by `replacement`,
   * keeping pages appended since then. Callers serialize rewrites of one table (see writes.ts).
   */
  rewrite(table: MemoryTable, snapshot: readonly Page[], replacement: readonly Page[]): void {
    this.requireLive(table);
    const current = table.pages;
    for (let i = 0; i < snapshot.length; i++) {
      if (current[i] !== snapshot[i]) throw new EngineError('GENERIC_INTERNAL_ERROR', `Table '${table.qualifiedName}' was rewritten concurrently`);
    }
    this.commit(table, [...replacement, ...current.slice(snapshot.length)]);
  }

  /** Whether a table or a view of the schema has this name. */
  private nameTaken(schema: string, name: string): boolean {
    return (this.schemas.get(schema)?.has(name) ?? false) || (this.views.get(schema)?.has(name) ?? false);
  }

  private requireLive(table: MemoryTable): void {
    if (!table.live || this.schemas.get(table.schema)?.get(table.name) !== table) {
      throw new EngineError('TABLE_NOT_FOUND', `Table '${table.qualifiedName}' does not exist`);
    }
  }

  /** The one place a table's pages change: checks the memory limit, then swaps. */
  private commit(table: MemoryTable, pages: readonly Page[]): void {
    for (const p of pages) {
      if (p.columns.length !== table.columns.length) throw new EngineError('GENERIC_INTERNAL_ERROR', `Page with ${p.columns.length} columns for ${table.columns.length}-column table '${table.qualifiedName}'`);
    }
    const shared = pages.map(sharedPage);
    const bytes = shared.reduce((n, p) => n + pageBytes(p), 0);
    const limit = this.options.maxDataBytes ?? Number.POSITIVE_INFINITY;
    const total = this.totalBytes - table.bytes + bytes;
    if (total > limit) {
      throw new EngineError('GENERIC_INSUFFICIENT_RESOURCES', `Memory limit [${limit}] for memory connector exceeded`);
    }
    this.totalBytes = total;
    table.pages = shared;
    table.bytes = bytes;
    table.rows = shared.reduce((n, p) => n + p.length, 0);
  }

  private release(table: MemoryTable): void {
    table.live = false;
    this.totalBytes -= table.bytes;
    table.pages = [];
    table.bytes = 0;
    table.rows = 0;
  }
}

/** Groups pages into splits of about `targetRows` rows (a split never cuts a page). */
export function splitsOf(pages: readonly Page[], targetRows: number): Split[] {
  const out: Split[] = [];
  let group: Page[] = [];
  let rows = 0;
  for (const p of pages) {
    if (p.length === 0) continue;
    if (group.length > 0 && rows + p.length > targetRows) {
      out.push({ kind: 'pages', pages: group, rows });
      group = [];
      rows = 0;
    }
    group.push(p);
    rows += p.length;
  }
  if (group.length > 0) out.push({ kind: 'pages', pages: group, rows });
  return out;
}

