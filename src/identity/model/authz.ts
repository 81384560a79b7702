// Authorization services model: a client's resource server with its resources, scopes, policies
// and permissions (stored as one entity per resource server), their representations, and the
// decision engine behind policy/evaluate (Keycloak DefaultPolicyEvaluator / DecisionPermissionCollector):
// policies decide PERMIT/DENY (NEGATIVE logic inverts), a permission combines its policies by its
// decision strategy (UNANIMOUS / AFFIRMATIVE / CONSENSUS), and the resource server combines the
// permissions that apply to a resource and scope by its own strategy under its enforcement mode.
import { randomUUID } from 'node:crypto';
import type { ClientEntity, GroupEntity, RoleEntity, UserEntity } from '../store/entities.js';
import * as repo from '../store/repo.js';
import type { Reader } from '../store/repo.js';

export interface AuthzResource {
  id: string;
  name: string;
  displayName?: string;
  type?: string;
  uris: string[];
  iconUri?: string;
  ownerId: string;
  ownerManagedAccess: boolean;
  attributes: Record<string, string[]>;
  scopeIds: string[];
}

export interface AuthzScope {
  id: string;
  name: string;
  displayName?: string;
  iconUri?: string;
}

export interface AuthzPolicy {
  id: string;
  name: string;
  description?: string;
  type: string;
  logic: 'POSITIVE' | 'NEGATIVE';
  decisionStrategy: 'UNANIMOUS' | 'AFFIRMATIVE' | 'CONSENSUS';
  resourceIds: string[];
  scopeIds: string[];
  policyIds: string[];
  /** Type-specific settings, as Keycloak keeps them (JSON text for lists). */
  config: Record<string, string>;
}

export interface ResourceServerEntity {
  id: string;
  clientId: string;
  realmId: string;
  allowRemoteResourceManagement: boolean;
  policyEnforcementMode: 'ENFORCING' | 'PERMISSIVE' | 'DISABLED';
  decisionStrategy: 'UNANIMOUS' | 'AFFIRMATIVE' | 'CONSENSUS';
  resources: AuthzResource[];
  scopes: AuthzScope[];
  policies: AuthzPolicy[];
}

export const POLICY_PROVIDERS = [
  { type: 'aggregate', name: 'Aggregated', group: 'Others' },
  { type: 'client', name: 'Client', group: 'Identity Based' },
  { type: 'client-scope', name: 'Client Scope', group: 'Identity Based' },
  { type: 'group', name: 'Group', group: 'Identity Based' },
  { type: 'regex', name: 'Regex', group: 'Others' },
  { type: 'role', name: 'Role', group: 'Identity Based' },
  { type: 'time', name: 'Time', group: 'Time Based' },
  { type: 'user', name: 'User', group: 'Identity Based' },
];
export const PERMISSION_PROVIDERS = [
  { type: 'resource', name: 'Resource', group: 'Others' },
  { type: 'scope', name: 'Scope', group: 'Others' },
];
export const isPermission = (p: AuthzPolicy) => p.type === 'resource' || p.type === 'scope';

/** A fresh resource server: Default Resource, Default Policy (realm default role) and Default Permission. */
export function defaultResourceServer(client: ClientEntity, defaultRoleId: string): ResourceServerEntity {
  const resource: AuthzResource = { id: randomUUID(), name: 'Default Resource', type: `urn:${client.clientId}:resources:default`, uris: ['/*'], ownerId: client.id, ownerManagedAccess: false, attributes: {}, scopeIds: [] };
  const policy: AuthzPolicy = { id: randomUUID(), name: 'Default Policy', description: 'A policy that grants access only for users within this realm', type: 'role', logic: 'POSITIVE', decisionStrategy: 'UNANIMOUS', resourceIds: [], scopeIds: [], policyIds: [], config: { roles: JSON.stringify([{ id: defaultRoleId, required: false }]) } };
  const permission: AuthzPolicy = { id: randomUUID(), name: 'Default Permission', description: 'A permission that applies to the default resource type', type: 'resource', logic: 'POSITIVE', decisionStrategy: 'UNANIMOUS', resourceIds: [], scopeIds: [], policyIds: [policy.id], config: { defaultResourceType: `urn:${client.clientId}:resources:default` } };
  return { id: client.id, clientId: client.id, realmId: client.realmId, allowRemoteResourceManagement: true, policyEnforcementMode: 'ENFORCING', decisionStrategy: 'UNANIMOUS', resources: [resource], scopes: [], policies: [policy, permission] };
}

// ── representations ──

export function scopeRep(s: AuthzScope): Record<string, unknown> {
  return { id: s.id, name: s.name, ...(s.displayName !== undefined ? { displayName: s.displayName } : {}), ...(s.iconUri !== undefined ? { iconUri: s.iconUri } : {}) };
}

export function resourceRep(r: Reader, rs: ResourceServerEntity, x: AuthzResource): Record<string, unknown> {
  const owner = r.get<ClientEntity>('clients', x.ownerId)?.clientId ?? r.get<UserEntity>('users', x.ownerId)?.username;
  return {
    _id: x.id,
    name: x.name,
    ...(x.displayName !== undefined ? { displayName: x.displayName } : {}),
    ...(x.type !== undefined ? { type: x.type } : {}),
    uris: x.uris,
    ...(x.iconUri !== undefined ? { icon_uri: x.iconUri } : {}),
    owner: { id: x.ownerId, ...(owner ? { name: owner } : {}) },
    ownerManagedAccess: x.ownerManagedAccess,
    attributes: x.attributes,
    scopes: x.scopeIds.map((id) => rs.scopes.find((s) => s.id === id)).filter((s): s is AuthzScope => !!s).map(scopeRep),
  };
}

const parse = <T>(s: string | undefined, d: T): T => {
  if (s === undefined) return d;
  try {
    return JSON.parse(s) as T;
  } catch {
    return d;
  }
};

/** The generic PolicyRepresentation (lists and search), with type settings in `config`. */
export function policyRep(p: AuthzPolicy): Record<string, unknown> {
  const config: Record<string, string> = { ...p.config };
  if (isPermission(p)) {
    if (p.resourceIds.length) config.resources = JSON.stringify(p.resourceIds);
    if (p.scopeIds.length) config.scopes = JSON.stringify(p.scopeIds);
    if (p.policyIds.length) config.applyPolicies = JSON.stringify(p.policyIds);
  } else if (p.type === 'aggregate' && p.policyIds.length) config.applyPolicies = JSON.stringify(p.policyIds);
  return { id: p.id, name: p.name, ...(p.description !== undefined ? { description: p.description } : {}), type: p.type, logic: p.logic, decisionStrategy: p.decisionStrategy, config };
}

/** The typed representation (`/policy/{type}/{id}`), as Keycloak's per-provider representations. */
export function typedPolicyRep(p: AuthzPolicy): Record<string, unknown> {
  const base: Record<string, unknown> = { id: p.id, name: p.name, ...(p.description !== undefined ? { description: p.description } : {}), type: p.type, logic: p.logic, decisionStrategy: p.decisionStrategy };
  switch (p.type) {
    case 'role':
      return { ...base, roles: parse(p.config.roles, []), fetchRoles: p.config.fetchRoles === 'true' };
    case 'user':
      return { ...base, users: parse(p.config.users, []) };
    case 'client':
      return { ...base, clients: parse(p.config.clients, []) };
    case 'group':
      return { ...base, groups: parse(p.config.groups, []), ...(p.config.groupsClaim ? { groupsClaim: p.config.groupsClaim } : {}) };
    case 'client-scope':
      return { ...base, clientScopes: parse(p.config.clientScopes, []) };
    case 'regex':
      return { ...base, targetClaim: p.config.targetClaim, pattern: p.config.pattern };
    case 'time':
      return { ...base, ...Object.fromEntries(Object.entries(p.config).filter(([k]) => TIME_KEYS.includes(k))) };
    case 'resource':
      return { ...base, resources: p.resourceIds, ...(p.config.defaultResourceType ? { resourceType: p.config.defaultResourceType } : {}) };
    case 'scope':
      return { ...base, resources: p.resourceIds, scopes: p.scopeIds };
    default:
      return base;
  }
}

export const TIME_KEYS = ['notBefore', 'notOnOrAfter', 'dayMonth', 'dayMonthEnd', 'month', 'monthEnd', 'year', 'yearEnd', 'hour', 'hourEnd', 'minute', 'minuteEnd'];

// ── evaluation ──

export interface Identity {
  user: UserEntity | undefined;
  /** Effective role ids (user's, plus roleIds given in the request). */
  roles: Set<string>;
  groups: Set<string>;
  clientId: string | undefined;
  attributes: Record<string, string[]>;
}

export type Decision = 'PERMIT' | 'DENY';

export interface PolicyResult {
  policy: AuthzPolicy;
  status: Decision;
  associated: PolicyResult[];
}

function inRange(v: number, from: string | undefined, to: string | undefined): boolean {
  if (from === undefined || from === '') return true;
  const a = Number(from);
  const b = to === undefined || to === '' ? a : Number(to);
  return v >= a && v <= b;
}

function timeGrants(c: Record<string, string>, now: Date): boolean {
  const ts = (s: string) => Date.parse(s.replace(' ', 'T'));
  if (c.notBefore && now.getTime() < ts(c.notBefore)) return false;
  if (c.notOnOrAfter && now.getTime() >= ts(c.notOnOrAfter)) return false;
  return inRange(now.getDate(), c.dayMonth, c.dayMonthEnd) && inRange(now.getMonth() + 1, c.month, c.monthEnd) && inRange(now.getFullYear(), c.year, c.yearEnd) && inRange(now.getHours(), c.hour, c.hourEnd) && inRange(now.getMinutes(), c.minute, c.minuteEnd);
}

export function combine(strategy: AuthzPolicy['decisionStrategy'], decisions: Decision[]): Decision {
  if (decisions.length === 0) return 'DENY';
  const permits = decisions.filter((d) => d === 'PERMIT').length;
  const denies = decisions.length - permits;
  if (strategy === 'AFFIRMATIVE') return permits > 0 ? 'PERMIT' : 'DENY';
  if (strategy === 'CONSENSUS') return permits > denies ? 'PERMIT' : 'DENY';
  return denies === 0 ? 'PERMIT' : 'DENY';
}

export class Evaluator {
  private readonly cache = new Map<string, PolicyResult>();
  constructor(
    private readonly r: Reader,
    private readonly rs: ResourceServerEntity,
    private readonly id: Identity,
    private readonly now = new Date(),
  ) {}

  policy(p: AuthzPolicy, depth = 0): PolicyResult {
    const hit = this.cache.get(p.id);
    if (hit) return hit;
    let granted = false;
    const associated: PolicyResult[] = [];
    const c = p.config;
    switch (p.type) {
      case 'role': {
        const roles = parse<Array<{ id: string; required?: boolean }>>(c.roles, []);
        const required = roles.filter((x) => x.required);
        granted = required.length ? required.every((x) => this.id.roles.has(x.id)) : roles.some((x) => this.id.roles.has(x.id));
        break;
      }
      case 'user':
        granted = !!this.id.user && parse<string[]>(c.users, []).includes(this.id.user.id);
        break;
      case 'client':
        granted = !!this.id.clientId && parse<string[]>(c.clients, []).includes(this.id.clientId);
        break;
      case 'group': {
        const groups = parse<Array<{ id: string; extendChildren?: boolean }>>(c.groups, []);
        granted = groups.some((g) => {
          if (this.id.groups.has(g.id)) return true;
          if (!g.extendChildren) return false;
          for (const gid of this.id.groups) {
            let cur = this.r.get<GroupEntity>('groups', gid);
            for (let i = 0; cur && i < 100; i++) {
              if (cur.parentId === g.id) return true;
              cur = cur.parentId ? this.r.get<GroupEntity>('groups', cur.parentId) : undefined;
            }
          }
          return false;
        });
        break;
      }
      case 'time':
        granted = timeGrants(c, this.now);
        break;
      case 'regex': {
        const v = this.id.attributes[c.targetClaim ?? '']?.[0] ?? (c.targetClaim === 'preferred_username' ? this.id.user?.username : undefined);
        granted = v !== undefined && new RegExp(c.pattern ?? '^$').test(v);
        break;
      }
      case 'aggregate': {
        for (const pid of p.policyIds) {
          const sub = this.rs.policies.find((x) => x.id === pid);
          if (sub && depth < 20) associated.push(this.policy(sub, depth + 1));
        }
        granted = combine(p.decisionStrategy, associated.map((a) => a.status)) === 'PERMIT';
        break;
      }
      default:
        granted = false;
    }
    if (p.logic === 'NEGATIVE') granted = !granted;
    const res: PolicyResult = { policy: p, status: granted ? 'PERMIT' : 'DENY', associated };
    this.cache.set(p.id, res);
    return res;
  }

  /** A permission's verdict: its associated policies combined by its decision strategy. */
  permission(p: AuthzPolicy): PolicyResult {
    const associated = p.policyIds.map((id) => this.rs.policies.find((x) => x.id === id)).filter((x): x is AuthzPolicy => !!x).map((x) => this.policy(x));
    let status = combine(p.decisionStrategy, associated.map((a) => a.status));
    if (p.logic === 'NEGATIVE') status = status === 'PERMIT' ? 'DENY' : 'PERMIT';
    return { policy: p, status, associated };
  }
}

/** Permissions that apply to a resource (by id or type) or to one of its scopes. */
export function permissionsFor(rs: ResourceServerEntity, res: AuthzResource, scopeId: string | undefined): AuthzPolicy[] {
  return rs.policies.filter((p) => {
    if (p.type === 'resource') return p.resourceIds.includes(res.id) || (!!res.type && p.config.defaultResourceType === res.type);
    if (p.type === 'scope') {
      if (scopeId === undefined || !p.scopeIds.includes(scopeId)) return false;
      return p.resourceIds.length === 0 || p.resourceIds.includes(res.id);
    }
    return false;
  });
}

export interface ResourceResult {
  resource: AuthzResource;
  status: Decision;
  allowedScopes: AuthzScope[];
  deniedScopes: AuthzScope[];
  policies: PolicyResult[];
}

/** Evaluates every (resource, scope) pair under the resource server's strategy and enforcement mode. */
export function evaluate(r: Reader, rs: ResourceServerEntity, identity: Identity, requested: Array<{ resource: AuthzResource; scopes: AuthzScope[] }>, now = new Date()): ResourceResult[] {
  const ev = new Evaluator(r, rs, identity, now);
  const out: ResourceResult[] = [];
  for (const { resource, scopes } of requested) {
    const resScopes = scopes.length ? scopes : resource.scopeIds.map((id) => rs.scopes.find((s) => s.id === id)).filter((s): s is AuthzScope => !!s);
    const resourcePerms = permissionsFor(rs, resource, undefined);
    const seen = new Map<string, PolicyResult>();
    const decide = (perms: AuthzPolicy[]): Decision => {
      if (rs.policyEnforcementMode === 'DISABLED') return 'PERMIT';
      if (perms.length === 0) return rs.policyEnforcementMode === 'PERMISSIVE' ? 'PERMIT' : 'DENY';
      const results = perms.map((p) => {
        const res = seen.get(p.id) ?? ev.permission(p);
        seen.set(p.id, res);
        return res.status;
      });
      return combine(rs.decisionStrategy === 'CONSENSUS' ? 'CONSENSUS' : rs.decisionStrategy, results);
    };
    const allowed: AuthzScope[] = [];
    const denied: AuthzScope[] = [];
    let status: Decision;
    if (resScopes.length === 0) status = decide(resourcePerms);
    else {
      for (const s of resScopes) {
        const perms = [...resourcePerms, ...permissionsFor(rs, resource, s.id).filter((p) => p.type === 'scope')];
        (decide(perms) === 'PERMIT' ? allowed : denied).push(s);
      }
      status = allowed.length ? 'PERMIT' : 'DENY';
    }
    out.push({ resource, status, allowedScopes: allowed, deniedScopes: denied, policies: [...seen.values()] });
  }
  return out;
}

export function identityFor(r: Reader, user: UserEntity | undefined, roleIds: string[], clientId: string | undefined): Identity {
  const roles = user ? repo.effectiveUserRoleIds(r, user.id) : new Set<string>();
  for (const id of repo.expandRoles(r, roleIds)) roles.add(id);
  const groups = new Set(user ? repo.userGroupIds(r, user.id) : []);
  return { user, roles, groups, clientId, attributes: user?.attributes ?? {} };
}

export type { RoleEntity };
