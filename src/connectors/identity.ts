// The `identity` catalog: the identity service's data as read-only SQL tables, one schema per
// realm. Rows come from a provider (the identity service, wired by the app) at scan time, on the
// main thread; they are as many as the realm's users, groups, roles and events. The provider
// shows a reader what the admin API would show them (view-users, view-clients, view-events … on
// that realm) and refuses the rest with PERMISSION_DENIED.

import { BIGINT, BOOLEAN, TIMESTAMP, VARCHAR, type SqlType } from '../data/types.js';
import type { ColumnMetadata, Connector, MetadataViewer, Split, TableMetadata } from './catalog.js';
import { pageFromRows } from './rows.js';

export interface IdentityRowsProvider {
  /** Realm names, as schema names (lower case). */
  schemas(): string[];
  /** The table's rows for the reader (undefined: a trusted in-process caller); throws PERMISSION_DENIED when they may not read it. */
  rows(schema: string, table: IdentityTableName, reader: string | undefined): unknown[][];
}

const col = (name: string, type: SqlType): ColumnMetadata => ({ name, type });

export const IDENTITY_TABLES = {
  users: [
    col('id', VARCHAR),
    col('username', VARCHAR),
    col('email', VARCHAR),
    col('first_name', VARCHAR),
    col('last_name', VARCHAR),
    col('enabled', BOOLEAN),
    col('email_verified', BOOLEAN),
    col('created', TIMESTAMP),
  ],
  groups: [col('id', VARCHAR), col('name', VARCHAR), col('path', VARCHAR), col('parent_id', VARCHAR)],
  group_members: [col('group_id', VARCHAR), col('group_path', VARCHAR), col('user_id', VARCHAR), col('username', VARCHAR)],
  roles: [col('id', VARCHAR), col('name', VARCHAR), col('client_id', VARCHAR), col('composite', BOOLEAN), col('description', VARCHAR)],
  user_roles: [col('user_id', VARCHAR), col('username', VARCHAR), col('role_id', VARCHAR), col('role_name', VARCHAR), col('client_id', VARCHAR), col('direct', BOOLEAN)],
  clients: [col('id', VARCHAR), col('client_id', VARCHAR), col('name', VARCHAR), col('enabled', BOOLEAN), col('public_client', BOOLEAN), col('protocol', VARCHAR), col('service_accounts_enabled', BOOLEAN)],
  sessions: [col('id', VARCHAR), col('user_id', VARCHAR), col('username', VARCHAR), col('ip_address', VARCHAR), col('started', TIMESTAMP), col('last_access', TIMESTAMP), col('clients', BIGINT), col('offline', BOOLEAN)],
  events: [col('id', VARCHAR), col('time', TIMESTAMP), col('type', VARCHAR), col('client_id', VARCHAR), col('user_id', VARCHAR), col('session_id', VARCHAR), col('ip_address', VARCHAR), col('error', VARCHAR)],
  admin_events: [
    col('id', VARCHAR),
    col('time', TIMESTAMP),
    col('operation_type', VARCHAR),
    col('resource_type', VARCHAR),
    col('resource_path', VARCHAR),
    col('auth_realm_id', VARCHAR),
    col('auth_user_id', VARCHAR),
    col('auth_client_id', VARCHAR),
    col('ip_address', VARCHAR),
  ],
} as const satisfies Record<string, ColumnMetadata[]>;

export type IdentityTableName = keyof typeof IDENTITY_TABLES;

const isTable = (name: string): name is IdentityTableName => Object.hasOwn(IDENTITY_TABLES, name);

export class IdentityConnector implements Connector {
  constructor(private readonly provider: IdentityRowsProvider) {}

  listSchemas(): string[] {
    return this.provider.schemas();
  }

  listTables(schema: string): string[] {
    return this.provider.schemas().includes(schema) ? Object.keys(IDENTITY_TABLES).sort() : [];
  }

  getTable(schema: string, table: string): TableMetadata | undefined {
    if (!isTable(table) || !this.provider.schemas().includes(schema)) return undefined;
    return { catalog: 'identity', schema, name: table, columns: IDENTITY_TABLES[table], rowCount: 1000 };
  }

  /** Realms come and go: no plan over them is reused. */
  hasStableMetadata(): boolean {
    return false;
  }

  splits(table: TableMetadata, _targetRows?: number, _columns?: readonly number[], viewer?: MetadataViewer): Split[] {
    if (!isTable(table.name)) return [];
    const rows = this.provider.rows(table.schema, table.name, viewer?.user);
    const page = pageFromRows(table.columns.map((c) => c.type), rows);
    return [{ kind: 'pages', pages: [page], rows: page.length }];
  }
}
