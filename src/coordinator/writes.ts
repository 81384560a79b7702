// Executing write statements against the memory catalog. A write that reads (INSERT ... SELECT,
// CREATE TABLE AS, DELETE ... WHERE) plans its query with the analyzer, runs it with a
// QueryExecution like any query and reads the root task's output to the end; the new pages are
// built completely (coerced to the table's column types) before one synchronous commit swaps them
// in, so a failure or cancel writes nothing. Appends commit against the table's current pages, so
// concurrent INSERTs never lose rows; DELETEs of one table run one at a time over a snapshot and
// keep whatever was appended meanwhile. INSERT/CTAS/DELETE answer Trino's one `rows` bigint row
// and set updateType/updateCount; DDL answers no columns.

import type { CatalogRegistry, ColumnMetadata, Split } from '../connectors/catalog.js';
import { MemoryConnector, splitsOf, type MemoryTable } from '../connectors/memory.js';
import { columnFromValues, pageFromRows } from '../connectors/rows.js';
import { readValue, sharedPage, type Column, type Page } from '../data/page.js';
import { BIGINT, isInterval, isNumeric, typeDisplayName, typeEquals, type SqlType } from '../data/types.js';
import { castValue, valueToText } from '../data/values.js';
import { concatPages } from '../exec/concat.js';
import { nullColumn, sliceColumn } from '../exec/gather.js';
import { analyzeQuery, qualifiedName, type AnalysisContext } from '../sql/analyze.js';
import type { AstNode } from '../sql/ast.js';
import type { ColumnDefinition, WriteStatement } from '../sql/ddl.js';
import { fragmentPlan, rowsPlan, type QueryPlan, type StagePlan } from '../sql/fragment.js';
import { locateName } from '../sql/parse.js';
import { EngineError, toEngineError, type SourceLocation } from '../util/engine-error.js';
import { QueryExecution, type ExecutionContext } from './execution.js';
import type { Query } from './query.js';

/** Pages smaller than this are merged with their neighbours before they are stored. */
const SMALL_PAGE_ROWS = 8192;
/** Merged pages grow up to this many rows. */
const TARGET_PAGE_ROWS = 1 << 16;
/** Rows per split when scanning a snapshot. */
const SPLIT_ROWS = 1 << 16;
const READ_BYTES = 16 * 1024 * 1024;

const UPDATE_TYPES: Record<WriteStatement['kind'], string> = {
  createSchema: 'CREATE SCHEMA',
  dropSchema: 'DROP SCHEMA',
  createTable: 'CREATE TABLE',
  createTableAs: 'CREATE TABLE',
  insert: 'INSERT',
  delete: 'DELETE',
  dropTable: 'DROP TABLE',
  truncate: 'TRUNCATE TABLE',
  renameTable: 'RENAME TABLE',
  addColumn: 'ADD COLUMN',
  dropColumn: 'DROP COLUMN',
  renameColumn: 'RENAME COLUMN',
  createView: 'CREATE VIEW',
  dropView: 'DROP VIEW',
};

interface TableName {
  readonly catalog: string;
  readonly schema: string;
  readonly table: string;
}

export class WriteExecutor {
  /** Tail of each table's chain of DELETEs (they rewrite the table, so they take turns). */
  private readonly rewrites = new WeakMap<MemoryTable, Promise<void>>();

  constructor(
    private readonly catalogs: CatalogRegistry,
    private readonly execution: ExecutionContext,
  ) {}

  /**
   * Runs a write statement. Returns the plan of its answer (the `rows` row), or undefined for
   * statements without output (having set the query's empty columns).
   */
  async execute(query: Query, statement: WriteStatement, ctx: AnalysisContext): Promise<QueryPlan | undefined> {
    query.updateType = UPDATE_TYPES[statement.kind];
    switch (statement.kind) {
      case 'createSchema': {
        const { catalog, schema } = this.schemaName(statement.name, ctx, statement.location);
        const memory = this.memory(catalog, 'creating schemas', statement.location);
        const exists = (this.catalogs.get(catalog)?.listSchemas() ?? []).includes(schema);
        if (exists || !memory.createSchema(schema)) {
          if (!statement.ifNotExists) throw new EngineError('SCHEMA_ALREADY_EXISTS', `Schema '${catalog}.${schema}' already exists`, statement.location);
        }
        return noOutput(query);
      }
      case 'dropSchema': {
        const { catalog, schema } = this.schemaName(statement.name, ctx, statement.location);
        const memory = this.memory(catalog, 'dropping schemas', statement.location);
        if (!memory.dropSchema(schema, statement.cascade) && !statement.ifExists) {
          throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${catalog}.${schema}' does not exist`, statement.location);
        }
        return noOutput(query);
      }
      case 'createTable': {
        const name = this.tableName(statement.name, ctx, statement.location);
        const memory = this.memory(name.catalog, 'creating tables', statement.location);
        this.requireSchema(memory, name, statement.location);
        const columns = checkColumns(statement.columns, statement.location);
        if (!memory.createTable(name.schema, name.table, columns) && !statement.ifNotExists) {
          throw new EngineError('TABLE_ALREADY_EXISTS', `Table '${qualified(name)}' already exists`, statement.location);
        }
        return noOutput(query);
      }
      case 'createTableAs':
        return this.createTableAs(query, statement, ctx);
      case 'insert':
        return this.insert(query, statement, ctx);
      case 'delete':
        return this.delete(query, statement, ctx);
      case 'truncate': {
        const name = this.tableName(statement.name, ctx, statement.location);
        const memory = this.memory(name.catalog, 'truncating tables', statement.location, name);
        const table = this.requireTable(memory, name, statement.location);
        await this.exclusive(table, async () => {
          const snapshot = table.pages;
          if (snapshot.length > 0) memory.rewrite(table, snapshot, []);
        });
        return noOutput(query);
      }
      case 'renameTable': {
        const found = this.alteredTable(statement, ctx, 'renaming tables');
        if (!found) return noOutput(query);
        const { name, memory, table } = found;
        // An unqualified new name stays in the table's schema (and a schema-qualified one in its catalog).
        const target = this.tableName(statement.newName, { ...ctx, catalog: name.catalog, schema: name.schema }, statement.location);
        if (target.catalog !== name.catalog) throw new EngineError('NOT_SUPPORTED', 'Table rename across catalogs is not supported', statement.location);
        this.requireSchema(memory, target, statement.location);
        await this.exclusive(table, async () => {
          if (!memory.renameTable(table, target.schema, target.table)) {
            throw new EngineError('TABLE_ALREADY_EXISTS', `Target table '${qualified(target)}' already exists`, statement.location);
          }
        });
        return noOutput(query);
      }
      case 'addColumn':
        return this.addColumn(query, statement, ctx);
      case 'dropColumn':
      case 'renameColumn':
        return this.alterColumn(query, statement, ctx);
      case 'createView':
        return this.createView(query, statement, ctx);
      case 'dropView': {
        const name = this.tableName(statement.name, ctx, statement.location);
        const memory = this.memory(name.catalog, 'dropping views', statement.location);
        if (!memory.dropView(name.schema, name.table) && !statement.ifExists) {
          throw new EngineError('TABLE_NOT_FOUND', `View '${qualified(name)}' does not exist`, statement.location);
        }
        return noOutput(query);
      }
      case 'dropTable': {
        const name = this.tableName(statement.name, ctx, statement.location);
        const memory = this.memory(name.catalog, 'dropping tables', statement.location, name);
        if (!memory.dropTable(name.schema, name.table) && !statement.ifExists) {
          throw new EngineError('TABLE_NOT_FOUND', `Table '${qualified(name)}' does not exist`, statement.location);
        }
        return noOutput(query);
      }
    }
  }

  private async addColumn(query: Query, statement: WriteStatement & { kind: 'addColumn' }, ctx: AnalysisContext): Promise<QueryPlan | undefined> {
    const found = this.alteredTable(statement, ctx, 'adding columns');
    if (!found) return noOutput(query);
    const { memory, table } = found;
    if (table.columns.some((c) => c.name === statement.column.name)) {
      if (statement.ifNotExists) return noOutput(query);
      throw new EngineError('COLUMN_ALREADY_EXISTS', `Column '${statement.column.name}' already exists`, statement.location);
    }
    const columns = checkColumns([...table.columns, statement.column], statement.location);
    await this.exclusive(table, async () => {
      // Existing rows hold NULL in the new column.
      const pages = table.pages.map((p) => ({ length: p.length, columns: [...p.columns, nullColumn(statement.column.type, p.length)] }));
      memory.changeColumns(table, columns, pages);
    });
    return noOutput(query);
  }

  /** The memory table an ALTER TABLE [IF EXISTS] names; undefined when IF EXISTS finds none. */
  private alteredTable(statement: WriteStatement & { name: readonly string[]; ifExists: boolean }, ctx: AnalysisContext, operation: string): { name: TableName; memory: MemoryConnector; table: MemoryTable } | undefined {
    const name = this.tableName(statement.name, ctx, statement.location);
    const memory = this.memory(name.catalog, operation, statement.location, name);
    if (statement.ifExists && !(memory.hasSchema(name.schema) && memory.table(name.schema, name.table))) return undefined;
    return { name, memory, table: this.requireTable(memory, name, statement.location) };
  }

  /**
   * CREATE [OR REPLACE] VIEW: the query is planned now (errors surface here, and its columns are
   * fixed), then kept as text with the session's catalog and schema its names resolve in.
   */
  private createView(query: Query, statement: WriteStatement & { kind: 'createView' }, ctx: AnalysisContext): undefined {
    const name = this.tableName(statement.name, ctx, statement.location);
    const memory = this.memory(name.catalog, 'creating views', statement.location);
    this.requireSchema(memory, name, statement.location);
    const logical = analyzeQuery(statement.query, { ...ctx, sql: statement.querySql });
    const columns = checkColumns(namedColumns(logical, statement.location).map((n, i) => ({ name: n, type: logical.fields[i]!.type })), statement.location);
    if (memory.table(name.schema, name.table)) throw new EngineError('TABLE_ALREADY_EXISTS', `Table '${qualified(name)}' already exists`, statement.location);
    const view = { catalog: name.catalog, schema: name.schema, name: name.table, sql: statement.queryText, columns, sessionCatalog: ctx.catalog, sessionSchema: ctx.schema };
    if (!memory.createView(view, statement.replace)) throw new EngineError('TABLE_ALREADY_EXISTS', `View '${qualified(name)}' already exists`, statement.location);
    return noOutput(query);
  }

  /** DROP COLUMN (its values leave every page) and RENAME COLUMN (the metadata only). */
  private async alterColumn(query: Query, statement: WriteStatement & { kind: 'dropColumn' | 'renameColumn' }, ctx: AnalysisContext): Promise<undefined> {
    const found = this.alteredTable(statement, ctx, statement.kind === 'dropColumn' ? 'dropping columns' : 'renaming columns');
    if (!found) return noOutput(query);
    const { memory, table } = found;
    const index = table.columns.findIndex((c) => c.name === statement.column);
    if (index < 0) {
      if (statement.columnIfExists) return noOutput(query);
      throw new EngineError('COLUMN_NOT_FOUND', `Column '${statement.column}' does not exist`, statement.location);
    }
    if (statement.kind === 'dropColumn') {
      if (table.columns.length === 1) throw new EngineError('NOT_SUPPORTED', 'Cannot drop the only column in a table', statement.location);
      const columns = table.columns.filter((_, i) => i !== index);
      await this.exclusive(table, async () => {
        memory.changeColumns(table, columns, table.pages.map((p) => ({ length: p.length, columns: p.columns.filter((_, i) => i !== index) })));
      });
      return noOutput(query);
    }
    const target = statement.newColumn;
    if (table.columns.some((c) => c.name === target)) throw new EngineError('COLUMN_ALREADY_EXISTS', `Column '${target}' already exists`, statement.location);
    const columns = table.columns.map((c, i) => (i === index ? { ...c, name: target } : c));
    await this.exclusive(table, async () => {
      memory.changeColumns(table, columns, table.pages);
    });
    return noOutput(query);
  }

  private async createTableAs(query: Query, statement: WriteStatement & { kind: 'createTableAs' }, ctx: AnalysisContext): Promise<QueryPlan> {
    const name = this.tableName(statement.name, ctx, statement.location);
    const memory = this.memory(name.catalog, 'creating tables', statement.location);
    this.requireSchema(memory, name, statement.location);
    if (memory.table(name.schema, name.table)) {
      if (statement.ifNotExists) return rowsAnswer(query, 0);
      throw new EngineError('TABLE_ALREADY_EXISTS', `Destination table '${qualified(name)}' already exists`, statement.location);
    }
    const logical = analyzeQuery(statement.query, { ...ctx, sql: statement.querySql });
    const types = logical.fields.map((f) => f.type);
    let columnNames: readonly string[];
    if (statement.columnAliases) {
      if (statement.columnAliases.length !== types.length) {
        throw new EngineError('MISMATCHED_COLUMN_ALIASES', `Column alias list has ${statement.columnAliases.length} entries but relation has ${types.length} columns`, statement.location);
      }
      columnNames = statement.columnAliases;
    } else {
      columnNames = namedColumns(logical, statement.location);
    }
    const columns = checkColumns(columnNames.map((n, i) => ({ name: n, type: types[i] })), statement.location);
    const pages = statement.withData ? compact(await this.collect(query, fragmentPlan(logical)), types) : [];
    throwIfDone(query);
    if (!memory.createTable(name.schema, name.table, columns, pages)) {
      if (statement.ifNotExists) return rowsAnswer(query, 0);
      throw new EngineError('TABLE_ALREADY_EXISTS', `Destination table '${qualified(name)}' already exists`, statement.location);
    }
    return rowsAnswer(query, countRows(pages));
  }

  private async insert(query: Query, statement: WriteStatement & { kind: 'insert' }, ctx: AnalysisContext): Promise<QueryPlan> {
    const name = this.tableName(statement.name, ctx, statement.location);
    const memory = this.memory(name.catalog, 'inserts', statement.location, name);
    const table = this.requireTable(memory, name, statement.location);
    // Which query column feeds each table column (-1: NULL).
    const targets = statement.columns ?? table.columns.map((c) => c.name);
    const seen = new Set<string>();
    for (const c of targets) {
      if (!table.columns.some((tc) => tc.name === c)) throw new EngineError('COLUMN_NOT_FOUND', `Insert column name does not exist in target table: ${c}`, statement.location);
      if (seen.has(c)) throw new EngineError('DUPLICATE_COLUMN_NAME', `Insert column name is specified more than once: ${c}`, statement.location);
      seen.add(c);
    }
    const source = table.columns.map((c) => targets.indexOf(c.name));
    const logical = analyzeQuery(statement.query, { ...ctx, sql: statement.querySql });
    const queryTypes = logical.fields.map((f) => f.type);
    const expected = targets.map((c) => (table.columns.find((tc) => tc.name === c) as ColumnMetadata).type);
    if (queryTypes.length !== expected.length || queryTypes.some((t, i) => !assignable(t, expected[i]))) {
      throw new EngineError(
        'TYPE_MISMATCH',
        `Insert query has mismatched column types: Table: [${expected.map(typeDisplayName).join(', ')}], Query: [${queryTypes.map(typeDisplayName).join(', ')}]`,
        statement.location,
      );
    }
    const output = await this.collect(query, fragmentPlan(logical));
    const pages = compact(
      output.map((page) => tablePage(page, table.columns, source, queryTypes)),
      table.columns.map((c) => c.type),
    );
    throwIfDone(query);
    memory.append(table, pages);
    return rowsAnswer(query, countRows(pages));
  }

  private async delete(query: Query, statement: WriteStatement & { kind: 'delete' }, ctx: AnalysisContext): Promise<QueryPlan> {
    const name = this.tableName(statement.name, ctx, statement.location);
    const at = locateName(statement.sql, statement.name) ?? statement.location;
    const memory = this.memory(name.catalog, 'modifying table rows', at, name);
    const table = this.requireTable(memory, name, at);
    return this.exclusive(table, async () => {
      const snapshot = table.pages;
      const before = countRows(snapshot);
      let kept: Page[] = [];
      if (statement.keep) {
        const from = [{ db: table.catalog, schema: table.schema, table: table.name, as: null }];
        const keepAst: AstNode = { ...statement.keep, from };
        const logical = analyzeQuery(keepAst, { ...ctx, sql: statement.sql });
        // The filter reads exactly the snapshot it replaces, whatever is appended meanwhile.
        const splitsFor = (stage: StagePlan): Split[] => {
          const scan = stage.scan;
          if (scan && 'table' in scan && scan.table.catalog === table.catalog && scan.table.schema === table.schema && scan.table.name === table.name) {
            return splitsOf(snapshot, SPLIT_ROWS);
          }
          return this.execution.splitsFor(stage);
        };
        kept = compact(await this.collect(query, fragmentPlan(logical), splitsFor), table.columns.map((c) => c.type));
      }
      throwIfDone(query);
      const deleted = before - countRows(kept);
      if (deleted > 0) memory.rewrite(table, snapshot, kept);
      return rowsAnswer(query, deleted);
    });
  }

  /** Runs a planned query to the end and returns its output pages (also used by EXPLAIN ANALYZE). */
  async collect(query: Query, plan: QueryPlan, splitsFor?: (stage: StagePlan) => Split[]): Promise<Page[]> {
    let failure: EngineError | undefined;
    const execution = new QueryExecution(query.id, plan, { ...this.execution, splitsFor: splitsFor ?? this.execution.splitsFor }, (e) => {
      failure ??= e;
    });
    // Visible to /v1/query and stopped by a cancel like any query's execution.
    query.execution = execution;
    throwIfDone(query);
    execution.start();
    const root = execution.rootTask;
    const pages: Page[] = [];
    let token = 0;
    try {
      for (;;) {
        if (failure) throw failure;
        throwIfDone(query);
        const read = root.outputBuffer.read(token, READ_BYTES);
        token = read.nextToken;
        for (const p of read.pages) pages.push(p);
        root.outputBuffer.acknowledge(token);
        if (read.complete) break;
        if (read.pages.length === 0) await root.outputBuffer.waitForChange(100);
      }
      await execution.finished;
      if (failure) throw failure;
      throwIfDone(query);
      return pages;
    } catch (e) {
      execution.cancel('ABORTED');
      throw toEngineError(e);
    }
  }

  /** Runs `fn` once every earlier rewrite of `table` has finished. */
  private async exclusive<T>(table: MemoryTable, fn: () => Promise<T>): Promise<T> {
    const previous = this.rewrites.get(table) ?? Promise.resolve();
    let release!: () => void;
    const mine = previous.then(() => new Promise<void>((resolve) => (release = resolve)));
    this.rewrites.set(table, mine);
    await previous;
    try {
      return await fn();
    } finally {
      release();
      if (this.rewrites.get(table) === mine) this.rewrites.delete(table);
    }
  }

  private schemaName(parts: readonly string[], ctx: AnalysisContext, location: SourceLocation): { catalog: string; schema: string } {
    if (parts.length > 2) throw new EngineError('SYNTAX_ERROR', `Too many parts in schema name: ${parts.join('.')}`, location);
    const catalog = parts.length === 2 ? parts[0] : ctx.catalog;
    if (!catalog) throw new EngineError('GENERIC_USER_ERROR', 'Catalog must be specified when session catalog is not set', location);
    return { catalog, schema: parts[parts.length - 1] };
  }

  private tableName(parts: readonly string[], ctx: AnalysisContext, location: SourceLocation): TableName {
    if (parts.length > 3) throw new EngineError('SYNTAX_ERROR', `Too many dots in table name: ${parts.join('.')}`, location);
    const { catalog, schema, name: table } = qualifiedName(parts, ctx);
    if (!catalog) throw new EngineError('GENERIC_USER_ERROR', 'Catalog must be specified when session catalog is not set', location);
    if (!schema) throw new EngineError('GENERIC_USER_ERROR', 'Schema must be specified when session schema is not set', location);
    return { catalog, schema, table };
  }

  /**
   * The memory connector behind `catalog`. Other catalogs are read-only: with `table` given, a
   * missing table is reported first (as Trino does), then the unsupported operation.
   */
  private memory(catalog: string, operation: string, location: SourceLocation, table?: TableName): MemoryConnector {
    const connector = this.catalogs.get(catalog);
    if (!connector) throw new EngineError('CATALOG_NOT_FOUND', `Catalog '${catalog}' not found`, location);
    const inner = this.catalogs.unwrap(catalog);
    if (inner instanceof MemoryConnector) return inner;
    if (table) {
      if (!connector.listSchemas().includes(table.schema)) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${table.schema}' does not exist`, location);
      if (!connector.getTable(table.schema, table.table)) throw new EngineError('TABLE_NOT_FOUND', `Table '${qualified(table)}' does not exist`, location);
    }
    throw new EngineError('NOT_SUPPORTED', `This connector does not support ${operation}`, location);
  }

  private requireSchema(memory: MemoryConnector, name: TableName, location: SourceLocation): void {
    if (!memory.hasSchema(name.schema)) throw new EngineError('SCHEMA_NOT_FOUND', `Schema '${name.schema}' does not exist`, location);
  }

  private requireTable(memory: MemoryConnector, name: TableName, location: SourceLocation): MemoryTable {
    this.requireSchema(memory, name, location);
    const table = memory.table(name.schema, name.table);
    if (!table && memory.getView(name.schema, name.table)) throw new EngineError('NOT_SUPPORTED', `Cannot modify view '${qualified(name)}': views are read-only`, location);
    if (!table) throw new EngineError('TABLE_NOT_FOUND', `Table '${qualified(name)}' does not exist`, location);
    return table;
  }
}

function qualified(name: TableName): string {
  return `${name.catalog}.${name.schema}.${name.table}`;
}

/** A query's output column names, lower-cased; a column the query left unnamed (`_colN`) fails. */
function namedColumns(logical: ReturnType<typeof analyzeQuery>, location: SourceLocation): string[] {
  const names = logical.kind === 'output' ? logical.names : logical.fields.map((f) => f.name);
  names.forEach((n, i) => {
    if (/^_col\d+$/u.test(n)) throw new EngineError('MISSING_COLUMN_NAME', `Column name not specified at position ${i + 1}`, location);
  });
  return names.map((n) => n.toLowerCase());
}

function noOutput(query: Query): undefined {
  query.names = [];
  query.types = [];
  return undefined;
}

/** Trino's answer to INSERT, CREATE TABLE AS and DELETE: one bigint column `rows`. */
function rowsAnswer(query: Query, rows: number): QueryPlan {
  query.updateCount = rows;
  return rowsPlan(['rows'], [BIGINT], pageFromRows([BIGINT], [[rows]]));
}

function throwIfDone(query: Query): void {
  if (query.done) throw query.error ?? new EngineError('USER_CANCELED', 'Query was canceled');
}

function countRows(pages: readonly Page[]): number {
  return pages.reduce((n, p) => n + p.length, 0);
}

/** Column names unique, types storable (Trino's checks for CREATE TABLE [AS]). */
function checkColumns(columns: readonly ColumnDefinition[], location: SourceLocation): ColumnMetadata[] {
  const seen = new Set<string>();
  for (const c of columns) {
    if (seen.has(c.name)) throw new EngineError('DUPLICATE_COLUMN_NAME', `Column name '${c.name}' specified more than once`, location);
    seen.add(c.name);
    if (c.type.id === 'unknown') throw new EngineError('COLUMN_TYPE_UNKNOWN', `Column type is unknown: ${c.name}`, location);
    if (isInterval(c.type)) throw new EngineError('NOT_SUPPORTED', `Unsupported column type: ${typeDisplayName(c.type)}`, location);
  }
  return columns.map((c) => ({ name: c.name, type: c.type }));
}

/**
 * Store assignment (SQL's rule for INSERT, as Trino applies it): any numeric type into any numeric
 * column (range-checked per value), varchar into varchar (no non-space characters may be cut),
 * date into timestamp, NULL into anything; nothing from strings into other types.
 */
export function assignable(from: SqlType, to: SqlType): boolean {
  if (from.id === 'unknown' || typeEquals(from, to)) return true;
  if (isNumeric(from) && isNumeric(to)) return true;
  if (from.id === 'varchar' && to.id === 'varchar') return true;
  return from.id === 'date' && to.id === 'timestamp';
}

/** One output page of the INSERT's query as a page of the table (columns reordered, coerced, NULL-filled). */
function tablePage(page: Page, columns: readonly ColumnMetadata[], source: readonly number[], queryTypes: readonly SqlType[]): Page {
  const n = page.length;
  return {
    length: n,
    columns: columns.map((c, i) => {
      const q = source[i];
      if (q < 0) return nullColumn(c.type, n);
      let col = page.columns[q];
      if (col.length !== n) col = sliceColumn(col, 0, n);
      return coerceColumn(col, queryTypes[q], c.type, n);
    }),
  };
}

/** A column in type `to`, with the engine's cast rules (values.ts castValue) per value where layouts differ. */
export function coerceColumn(col: Column, from: SqlType, to: SqlType, n: number): Column {
  if (typeEquals(from, to)) return col.type === to ? col : ({ ...col, type: to } as Column);
  if (from.id === 'unknown') return nullColumn(to, n);
  if (from.id === 'varchar' && to.id === 'varchar') {
    const limit = to.precision;
    if (limit === undefined || (from.precision !== undefined && from.precision <= limit)) return { ...col, type: to } as Column;
    let cut = false;
    for (let i = 0; i < n && !cut; i++) {
      const v = readValue(col, i);
      if (typeof v === 'string' && codePoints(v) > limit) {
        if (codePoints(v.replace(/ +$/u, '')) > limit) {
          throw new EngineError('GENERIC_USER_ERROR', `Cannot truncate non-space characters when casting from ${typeDisplayName(from)} to ${typeDisplayName(to)} on INSERT`);
        }
        cut = true;
      }
    }
    if (!cut) return { ...col, type: to } as Column;
  }
  const values: unknown[] = new Array(n);
  for (let i = 0; i < n; i++) {
    const v = readValue(col, i);
    values[i] = v === null ? null : castForInsert(v, from, to);
  }
  return columnFromValues(to, values);
}

function castForInsert(v: number | string | boolean, from: SqlType, to: SqlType): number | string | boolean | null {
  try {
    return castValue(v, from, to, false);
  } catch (e) {
    const err = toEngineError(e);
    // Trino names the value as its source type prints it, e.g. `Out of range for integer: 3.0E9`.
    if (err.errorName === 'NUMERIC_VALUE_OUT_OF_RANGE' && to.id !== 'decimal') {
      throw new EngineError('NUMERIC_VALUE_OUT_OF_RANGE', `Out of range for ${typeDisplayName(to)}: ${valueToText(v, from)}`);
    }
    throw err;
  }
}

function codePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

/**
 * Merges runs of small pages (e.g. one per INSERT ... VALUES batch or per split) into larger ones,
 * every page on SharedArrayBuffers: a table's pages go to every worker that scans it by reference
 * (a page gathered on this thread, in ordinary memory, would be copied to each scan instead).
 */
export function compact(pages: readonly Page[], types: readonly SqlType[]): Page[] {
  const out: Page[] = [];
  let run: Page[] = [];
  let runRows = 0;
  const flush = (): void => {
    if (run.length === 1) out.push(sharedPage(run[0]));
    else if (run.length > 1) out.push(concatPages(run, types));
    run = [];
    runRows = 0;
  };
  for (const page of pages) {
    if (page.length === 0) continue;
    const p = page.columns.every((c) => c.length === page.length) ? page : { length: page.length, columns: page.columns.map((c) => sliceColumn(c, 0, page.length)) };
    if (p.length >= SMALL_PAGE_ROWS) {
      flush();
      out.push(sharedPage(p));
      continue;
    }
    if (runRows + p.length > TARGET_PAGE_ROWS) flush();
    run.push(p);
    runRows += p.length;
  }
  flush();
  return out;
}
