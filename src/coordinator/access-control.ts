// Access control for the SQL face, in Trino's file-based rules format (`--access-control-file`):
// `catalogs`, `schemas`, `tables`, `queries` and `impersonation` rules, each matching the
// principal's `user` name, realm `role`s and `group` paths by regular expression (whole match).
// Within a section the first rule that matches decides; a principal no rule matches is denied.
// A section the file leaves out allows what Trino allows then: every catalog, schema and table,
// executing queries and seeing and killing anyone's, but no impersonation.
// Without a file the built-in rules stand: the realm role `admin` may do everything; every other
// user may read every catalog, write nothing, and see and kill only their own queries.

import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { EngineError } from '../util/engine-error.js';

/** The authenticated caller: a user of the identity service's SQL realm. */
export interface Principal {
  readonly user: string;
  /** Effective realm roles. */
  readonly roles: readonly string[];
  /** Group paths (`/a/b`). */
  readonly groups: readonly string[];
}

export type TablePrivilege = 'SELECT' | 'INSERT' | 'DELETE' | 'UPDATE' | 'OWNERSHIP' | 'GRANT_SELECT';
export type QueryAccess = 'execute' | 'view' | 'kill';

const pattern = z.string().optional();
const subject = { user: pattern, role: pattern, group: pattern };

const RulesFile = z
  .object({
    catalogs: z.array(z.object({ ...subject, catalog: pattern, allow: z.union([z.enum(['all', 'read-only', 'none']), z.boolean()]) }).strict()).optional(),
    schemas: z.array(z.object({ ...subject, catalog: pattern, schema: pattern, owner: z.boolean() }).strict()).optional(),
    tables: z
      .array(
        z
          .object({
            ...subject,
            catalog: pattern,
            schema: pattern,
            table: pattern,
            privileges: z.array(z.enum(['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP', 'GRANT_SELECT'])),
          })
          .strict(),
      )
      .optional(),
    queries: z.array(z.object({ ...subject, queryOwner: pattern, allow: z.array(z.enum(['execute', 'view', 'kill'])) }).strict()).optional(),
    impersonation: z.array(z.object({ original_user: pattern, original_role: pattern, new_user: z.string(), allow: z.boolean().optional() }).strict()).optional(),
  })
  .passthrough();

type RulesDocument = z.infer<typeof RulesFile>;

/** A rule's subject and object patterns compiled; absent patterns match everything. */
interface Matcher {
  readonly user?: RegExp;
  readonly role?: RegExp;
  readonly group?: RegExp;
}

interface CatalogRule extends Matcher {
  readonly catalog?: RegExp;
  readonly allow: 'all' | 'read-only' | 'none';
}
interface SchemaRule extends Matcher {
  readonly catalog?: RegExp;
  readonly schema?: RegExp;
  readonly owner: boolean;
}
interface TableRule extends Matcher {
  readonly catalog?: RegExp;
  readonly schema?: RegExp;
  readonly table?: RegExp;
  readonly privileges: ReadonlySet<TablePrivilege>;
}
interface QueryRule extends Matcher {
  readonly queryOwner?: RegExp;
  readonly allow: ReadonlySet<QueryAccess>;
}
interface ImpersonationRule {
  readonly originalUser?: RegExp;
  readonly originalRole?: RegExp;
  /** May refer to groups of original_user as `$1`…. */
  readonly newUser: string;
  /** newUser compiled, when it refers to no group. */
  readonly newUserPattern?: RegExp;
  readonly allow: boolean;
}

function whole(source: string | undefined, where: string): RegExp | undefined {
  if (source === undefined) return undefined;
  try {
    return new RegExp(`^(?:${source})$`, 'u');
  } catch (e) {
    throw new Error(`${where}: invalid regular expression '${source}': ${(e as Error).message}`);
  }
}

function matcher(rule: { user?: string; role?: string; group?: string }, where: string): Matcher {
  return { user: whole(rule.user, `${where}.user`), role: whole(rule.role, `${where}.role`), group: whole(rule.group, `${where}.group`) };
}

function subjectMatches(m: Matcher, p: Principal): boolean {
  if (m.user && !m.user.test(p.user)) return false;
  if (m.role && !p.roles.some((r) => m.role!.test(r))) return false;
  if (m.group && !p.groups.some((g) => m.group!.test(g))) return false;
  return true;
}

const test = (re: RegExp | undefined, value: string): boolean => re === undefined || re.test(value);

const ALL_PRIVILEGES: ReadonlySet<TablePrivilege> = new Set(['SELECT', 'INSERT', 'DELETE', 'UPDATE', 'OWNERSHIP', 'GRANT_SELECT']);

/** The rules in force, compiled. */
export class AccessControl {
  private constructor(
    private readonly catalogs: readonly CatalogRule[] | undefined,
    private readonly schemas: readonly SchemaRule[] | undefined,
    private readonly tables: readonly TableRule[] | undefined,
    private readonly queries: readonly QueryRule[] | undefined,
    private readonly impersonation: readonly ImpersonationRule[],
    /** Where the rules came from, for logs. */
    readonly source: string,
  ) {}

  /** The built-in rules: `admin` does everything; others read every catalog and see and kill only their own queries. */
  static defaults(): AccessControl {
    return AccessControl.fromDocument(
      {
        catalogs: [{ role: 'admin', allow: 'all' }, { allow: 'read-only' }],
        queries: [{ role: 'admin', allow: ['execute', 'view', 'kill'] }, { allow: ['execute'] }],
        impersonation: [{ original_role: 'admin', new_user: '.*' }],
      },
      'built-in rules',
    );
  }

  /** Reads a rules file; throws an Error naming the file and the field for anything it cannot take. */
  static fromFile(path: string): AccessControl {
    let text: string;
    try {
      text = readFileSync(path, 'utf8');
    } catch (e) {
      throw new Error(`cannot read access control file ${path}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`);
    }
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (e) {
      throw new Error(`access control file ${path} is not JSON: ${(e as Error).message}`);
    }
    const parsed = RulesFile.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0]!;
      throw new Error(`access control file ${path}: ${issue.path.join('.') || '(root)'}: ${issue.message}`);
    }
    return AccessControl.fromDocument(parsed.data, path);
  }

  static fromDocument(doc: RulesDocument, source: string): AccessControl {
    const catalogs = doc.catalogs?.map((r, i) => ({ ...matcher(r, `catalogs[${i}]`), catalog: whole(r.catalog, `catalogs[${i}].catalog`), allow: r.allow === true ? 'all' : r.allow === false ? 'none' : r.allow }) as CatalogRule);
    const schemas = doc.schemas?.map((r, i) => ({ ...matcher(r, `schemas[${i}]`), catalog: whole(r.catalog, `schemas[${i}].catalog`), schema: whole(r.schema, `schemas[${i}].schema`), owner: r.owner }));
    const tables = doc.tables?.map((r, i) => ({
      ...matcher(r, `tables[${i}]`),
      catalog: whole(r.catalog, `tables[${i}].catalog`),
      schema: whole(r.schema, `tables[${i}].schema`),
      table: whole(r.table, `tables[${i}].table`),
      privileges: new Set(r.privileges),
    }));
    const queries = doc.queries?.map((r, i) => ({ ...matcher(r, `queries[${i}]`), queryOwner: whole(r.queryOwner, `queries[${i}].queryOwner`), allow: new Set(r.allow) }));
    const impersonation = (doc.impersonation ?? []).map((r, i) => ({
      originalUser: whole(r.original_user, `impersonation[${i}].original_user`),
      originalRole: whole(r.original_role, `impersonation[${i}].original_role`),
      newUser: r.new_user,
      newUserPattern: /\$\d/u.test(r.new_user) ? undefined : whole(r.new_user, `impersonation[${i}].new_user`),
      allow: r.allow ?? true,
    }));
    return new AccessControl(catalogs, schemas, tables, queries, impersonation, source);
  }

  /** Whether every user may read every table (no table rules, and no catalog rule that could deny one). */
  get readsUnrestricted(): boolean {
    return (this.unrestrictedReads ??= this.computeReadsUnrestricted());
  }

  private unrestrictedReads: boolean | undefined;

  private computeReadsUnrestricted(): boolean {
    if (this.tables !== undefined) return false;
    if (this.catalogs === undefined) return true;
    for (const r of this.catalogs) {
      if (r.allow === 'none') return false;
      if (!r.user && !r.role && !r.group && !r.catalog) return true;
    }
    return false;
  }

  /** Principals are immutable and reused while the identity store is unchanged: their execute right is kept with them. */
  private readonly executes = new WeakMap<Principal, boolean>();

  /** Whether the principal may run statements at all (the `queries` rules' `execute`). */
  canExecute(p: Principal): boolean {
    let may = this.executes.get(p);
    if (may === undefined) this.executes.set(p, (may = this.canAccessQuery(p, 'execute')));
    return may;
  }

  /** What the first matching catalog rule allows (`all` when the file has no catalog rules). */
  catalogAccess(p: Principal, catalog: string): 'all' | 'read-only' | 'none' {
    if (this.catalogs === undefined) return 'all';
    const rule = this.catalogs.find((r) => subjectMatches(r, p) && test(r.catalog, catalog));
    return rule?.allow ?? 'none';
  }

  canAccessCatalog(p: Principal, catalog: string): boolean {
    // Every user may read the system catalog's information_schema-like tables about itself (Trino).
    return this.catalogAccess(p, catalog) !== 'none';
  }

  /** The privileges the first matching table rule grants (all when the file has no table rules). */
  tablePrivileges(p: Principal, catalog: string, schema: string, table: string): ReadonlySet<TablePrivilege> {
    const access = this.catalogAccess(p, catalog);
    if (access === 'none') return new Set();
    // information_schema describes what the user may see already: reading it is always allowed.
    if (schema === 'information_schema') return new Set(['SELECT']);
    let granted = ALL_PRIVILEGES;
    if (this.tables !== undefined) granted = this.tables.find((r) => subjectMatches(r, p) && test(r.catalog, catalog) && test(r.schema, schema) && test(r.table, table))?.privileges ?? new Set();
    if (access === 'read-only') return granted.has('SELECT') ? new Set(['SELECT']) : new Set();
    return granted;
  }

  /** Whether the user may see the table at all (any privilege), for SHOW TABLES and information_schema. */
  canSeeTable(p: Principal, catalog: string, schema: string, table: string): boolean {
    return this.tablePrivileges(p, catalog, schema, table).size > 0;
  }

  /** Whether the user owns the schema (CREATE/DROP SCHEMA): all-access catalogs only. */
  isSchemaOwner(p: Principal, catalog: string, schema: string): boolean {
    if (this.catalogAccess(p, catalog) !== 'all') return false;
    if (this.schemas === undefined) return true;
    return this.schemas.find((r) => subjectMatches(r, p) && test(r.catalog, catalog) && test(r.schema, schema))?.owner ?? false;
  }

  /** Whether the user may see the schema: it owns it or may see some table in it (Trino's rule). */
  canSeeSchema(p: Principal, catalog: string, schema: string, tables: readonly string[]): boolean {
    if (this.catalogAccess(p, catalog) === 'none') return false;
    if (schema === 'information_schema') return true;
    return this.isSchemaOwner(p, catalog, schema) || tables.some((t) => this.canSeeTable(p, catalog, schema, t)) || (tables.length === 0 && this.tables === undefined);
  }

  /** Whether `p` may do `access` to a query owned by `owner`; one's own queries are always viewable and killable. */
  canAccessQuery(p: Principal, access: QueryAccess, owner?: string): boolean {
    if (access !== 'execute' && owner === p.user) return true;
    if (this.queries === undefined) return true;
    const rule = this.queries.find((r) => subjectMatches(r, p) && (access === 'execute' || test(r.queryOwner, owner ?? '')));
    return rule?.allow.has(access) ?? false;
  }

  /** Whether `p` may run statements as `newUser` (the X-Trino-User header naming someone else). */
  canImpersonate(p: Principal, newUser: string): boolean {
    if (newUser === p.user) return true;
    for (const rule of this.impersonation) {
      let groups: RegExpExecArray | null = null;
      if (rule.originalUser) {
        groups = rule.originalUser.exec(p.user);
        if (!groups) continue;
      }
      if (rule.originalRole && !p.roles.some((r) => rule.originalRole!.test(r))) continue;
      const pattern = rule.newUserPattern ?? new RegExp(`^(?:${rule.newUser.replace(/\$(\d)/gu, (_, d: string) => groups?.[Number(d)] ?? '')})$`, 'u');
      if (!pattern.test(newUser)) continue;
      return rule.allow;
    }
    return false;
  }
}

/** Trino's PERMISSION_DENIED failure: `Access Denied: <what>`, without a location (as Trino's AccessDeniedException). */
export function accessDenied(what: string): EngineError {
  return new EngineError('PERMISSION_DENIED', `Access Denied: ${what}`);
}
