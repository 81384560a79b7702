// /admin/realms/{realm}/authentication: flows (list, get, create, update, delete, copy), their
// executions (list with level/index, add execution / sub-flow, requirement updates, priorities),
// authenticator configs and the provider catalog (AuthenticationManagementResource). Flows and
// configs live on the realm entity, so every change is one realm write with one admin event.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { ERR, errorBody, errorMessage } from '../errors.js';
import type { AuthenticatorConfigEntity, ExecutionEntity, FlowEntity, RealmEntity } from '../store/entities.js';
import { PROVIDER_BY_ID, kindForFlow, perClientConfigDescription, providerList } from '../model/authenticators.js';
import { noContent, ok, type AdminContext, type AdminRoutes } from './context.js';

const s = () => z.string().nullish();
const FlowRepresentation = z.object({
  id: s(),
  alias: s(),
  description: s(),
  providerId: s(),
  topLevel: z.boolean().nullish(),
  builtIn: z.boolean().nullish(),
  authenticationExecutions: z.array(z.record(z.string(), z.unknown())).nullish(),
});
const StringMap = z.record(z.string(), z.string().nullable());
const ExecutionInfoRepresentation = z.object({
  id: s(),
  requirement: s(),
  displayName: s(),
  alias: s(),
  description: s(),
  providerId: s(),
  authenticationConfig: s(),
  flowId: s(),
  authenticationFlow: z.boolean().nullish(),
  configurable: z.boolean().nullish(),
  level: z.number().nullish(),
  index: z.number().nullish(),
  priority: z.number().nullish(),
  requirementChoices: z.array(z.string()).nullish(),
});
const ExecutionRepresentation = z.object({
  id: s(),
  authenticator: s(),
  authenticatorConfig: s(),
  flowId: s(),
  parentFlow: s(),
  requirement: s(),
  priority: z.number().int().nullish(),
  authenticatorFlow: z.boolean().nullish(),
  autheticatorFlow: z.boolean().nullish(),
});
export const AuthenticatorConfigRepresentation = z.object({ id: s(), alias: s(), config: z.record(z.string(), z.string().nullable()).nullish() });

const REQUIREMENTS = ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'];

export const sortedExecutions = (f: FlowEntity): ExecutionEntity[] => [...f.executions].sort((a, b) => a.priority - b.priority);
const flowByAlias = (r: RealmEntity, alias: string) => r._flows.find((f) => f.alias === alias);
const flowById = (r: RealmEntity, id: string) => r._flows.find((f) => f.id === id);
const configs = (r: RealmEntity): AuthenticatorConfigEntity[] => r._authenticatorConfigs ?? [];

function findExecution(r: RealmEntity, id: string): { flow: FlowEntity; execution: ExecutionEntity } | undefined {
  for (const flow of r._flows) {
    const execution = flow.executions.find((e) => e.id === id);
    if (execution) return { flow, execution };
  }
  return undefined;
}

/** AuthenticationFlowRepresentation with export-shaped executions (ModelToRepresentation). */
export function flowRep(r: RealmEntity, f: FlowEntity): Record<string, unknown> {
  return {
    id: f.id,
    alias: f.alias,
    description: f.description,
    providerId: f.providerId,
    topLevel: f.topLevel,
    builtIn: f.builtIn,
    authenticationExecutions: sortedExecutions(f).map((e) => {
      const cfg = e.authenticatorConfig ? configs(r).find((c) => c.id === e.authenticatorConfig) : undefined;
      return {
        ...(e.authenticator ? { authenticator: e.authenticator } : {}),
        ...(cfg ? { authenticatorConfig: cfg.alias } : {}),
        authenticatorFlow: e.authenticatorFlow,
        ...(e.flowAlias ? { flowAlias: e.flowAlias } : {}),
        requirement: e.requirement,
        priority: e.priority,
        autheticatorFlow: e.authenticatorFlow,
        userSetupAllowed: e.userSetupAllowed,
      };
    }),
  };
}

/** The flattened execution tree with level and index (recurseExecutions). */
function executionInfos(r: RealmEntity, flow: FlowEntity, level = 0, out: Array<Record<string, unknown>> = [], seen = new Set<string>()): Array<Record<string, unknown>> {
  if (seen.has(flow.id)) return out;
  seen.add(flow.id);
  sortedExecutions(flow).forEach((e, index) => {
    const base = { id: e.id, requirement: e.requirement, level, index, priority: e.priority };
    if (e.authenticatorFlow) {
      const sub = e.flowAlias ? flowByAlias(r, e.flowAlias) : undefined;
      if (!sub) return;
      const choices = sub.providerId === 'form-flow' ? ['REQUIRED', 'DISABLED'] : sub.providerId === 'client-flow' ? ['ALTERNATIVE', 'REQUIRED', 'DISABLED'] : ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'];
      out.push({
        ...base,
        displayName: sub.alias,
        description: sub.description,
        requirementChoices: choices,
        configurable: false,
        authenticationFlow: true,
        flowId: sub.id,
        ...(sub.providerId === 'form-flow' && e.authenticator ? { providerId: e.authenticator } : {}),
        ...(sub.providerId === 'form-flow' && e.authenticatorConfig ? { authenticationConfig: e.authenticatorConfig } : {}),
      });
      executionInfos(r, sub, level + 1, out, seen);
      return;
    }
    const p = PROVIDER_BY_ID.get(e.authenticator ?? '');
    const cfg = e.authenticatorConfig ? configs(r).find((c) => c.id === e.authenticatorConfig) : undefined;
    out.push({
      ...base,
      displayName: p?.displayName ?? e.authenticator,
      ...(cfg && p?.configurable ? { alias: cfg.alias } : {}),
      requirementChoices: p?.requirementChoices ?? ['REQUIRED', 'ALTERNATIVE', 'DISABLED'],
      configurable: p?.configurable ?? false,
      providerId: e.authenticator,
      ...(e.authenticatorConfig ? { authenticationConfig: e.authenticatorConfig } : {}),
    });
  });
  return out;
}

const nextPriority = (f: FlowEntity) => {
  const list = sortedExecutions(f);
  return list.length ? list[list.length - 1]!.priority + 1 : 0;
};

/** Returns the realm with one flow replaced. */
const withFlow = (r: RealmEntity, f: FlowEntity): RealmEntity => ({ ...r, _flows: r._flows.map((x) => (x.id === f.id ? f : x)) });

/** Deletes a flow and (deeply) the sub-flows and configs its executions own. */
function deepDelete(r: RealmEntity, flow: FlowEntity): RealmEntity {
  let next: RealmEntity = { ...r, _flows: r._flows.filter((f) => f.id !== flow.id) };
  for (const e of flow.executions) next = dropExecutionOwned(next, e);
  return next;
}

function dropExecutionOwned(r: RealmEntity, e: ExecutionEntity): RealmEntity {
  let next = r;
  if (e.authenticatorConfig) next = { ...next, _authenticatorConfigs: configs(next).filter((c) => c.id !== e.authenticatorConfig) };
  if (e.authenticatorFlow && e.flowAlias) {
    const sub = flowByAlias(next, e.flowAlias);
    if (sub && !sub.topLevel) next = deepDelete(next, sub);
  }
  return next;
}

function copyFlowTree(r: RealmEntity, from: FlowEntity, alias: string, topLevel: boolean, newName: string): RealmEntity {
  let next = r;
  const copy: FlowEntity = { id: randomUUID(), alias, description: from.description, providerId: from.providerId, topLevel, builtIn: false, executions: [] };
  next = { ...next, _flows: [...next._flows, copy] };
  for (const e of sortedExecutions(from)) {
    const ne: ExecutionEntity = { ...e, id: randomUUID() };
    if (e.authenticatorFlow && e.flowAlias) {
      const sub = flowByAlias(next, e.flowAlias);
      if (sub) {
        const subAlias = `${newName} ${sub.alias}`;
        next = copyFlowTree(next, sub, subAlias, false, newName);
        ne.flowAlias = subAlias;
      }
    }
    if (e.authenticatorConfig) {
      const cfg = configs(next).find((c) => c.id === e.authenticatorConfig);
      if (cfg) {
        const nc = { id: randomUUID(), alias: `${newName} ${cfg.alias}`, config: { ...cfg.config } };
        next = { ...next, _authenticatorConfigs: [...configs(next), nc] };
        ne.authenticatorConfig = nc.id;
      }
    }
    copy.executions.push(ne);
  }
  return next;
}

const cleanMap = (m: Record<string, string | null> | null | undefined): Record<string, string> => {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(m ?? {})) if (v != null) out[k] = v;
  return out;
};

export function register(r: AdminRoutes): void {
  const A = '/authentication';
  const view = (ctx: AdminContext) => ctx.auth.realm.requireView();
  const manage = (ctx: AdminContext) => ctx.auth.realm.requireManage();
  const mustFlowById = (realm: RealmEntity, id: string) => {
    const f = flowById(realm, id);
    if (!f) throw ERR.notFound('Could not find flow with id');
    return f;
  };

  // ── provider catalog ──
  r.realm('GET', `${A}/authenticator-providers`, (ctx) => (view(ctx), ok(providerList('authenticator'))));
  r.realm('GET', `${A}/client-authenticator-providers`, (ctx) => (view(ctx), ok(providerList('client-authenticator'))));
  r.realm('GET', `${A}/form-action-providers`, (ctx) => (view(ctx), ok(providerList('form-action'))));
  r.realm('GET', `${A}/form-providers`, (ctx) => (view(ctx), ok(providerList('form'))));
  r.realm('GET', `${A}/per-client-config-description`, (ctx) => (view(ctx), ok(perClientConfigDescription())));
  r.realm('GET', `${A}/config-description/:providerId`, (ctx) => {
    view(ctx);
    const p = PROVIDER_BY_ID.get(ctx.param('providerId'));
    if (!p) throw ERR.notFound('Could not find authenticator provider');
    return ok({ name: p.displayName, providerId: p.id, helpText: p.description, properties: p.properties });
  });

  // ── flows ──
  r.realm('GET', `${A}/flows`, (ctx) => {
    view(ctx);
    return ok(ctx.realm._flows.filter((f) => f.topLevel && f.alias !== 'saml ecp').map((f) => flowRep(ctx.realm, f)));
  });
  r.realm('GET', `${A}/flows/:id`, (ctx) => {
    view(ctx);
    return ok(flowRep(ctx.realm, mustFlowById(ctx.realm, ctx.param('id'))));
  });
  r.realm('POST', `${A}/flows`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(FlowRepresentation);
    if (!rep.alias) throw ERR.conflict('Failed to create flow with empty alias name');
    if (flowByAlias(ctx.realm, rep.alias)) throw ERR.conflict(`Flow ${rep.alias} already exists`);
    const flow: FlowEntity = {
      id: randomUUID(), alias: rep.alias, description: rep.description ?? '', providerId: rep.providerId ?? 'basic-flow',
      topLevel: rep.topLevel ?? false, builtIn: false, executions: [],
    };
    await ctx.updateRealm((cur, ev) => {
      if (flowByAlias(cur, flow.alias)) throw ERR.conflict(`Flow ${flow.alias} already exists`);
      ev.create('AUTH_FLOW', ctx.here(flow.id), { ...rep, id: flow.id, description: flow.description });
      return { next: { ...cur, _flows: [...cur._flows, flow] } };
    });
    return ctx.created(flow.id);
  });
  r.realm('PUT', `${A}/flows/:id`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(FlowRepresentation);
    const existing = mustFlowById(ctx.realm, ctx.param('id'));
    if (!rep.alias) throw ERR.conflict('Failed to update flow with empty alias name');
    if (rep.alias !== existing.alias && flowByAlias(ctx.realm, rep.alias)) throw ERR.conflict('Flow alias name already exists');
    await ctx.updateRealm((cur, ev) => {
      const f = mustFlowById(cur, existing.id);
      const alias = rep.alias!;
      let next = withFlow(cur, { ...f, alias, description: rep.description ?? f.description });
      if (alias !== f.alias) {
        // Executions reference sub-flows by alias; realm bindings by alias too.
        next = { ...next, _flows: next._flows.map((x) => ({ ...x, executions: x.executions.map((e) => (e.flowAlias === f.alias ? { ...e, flowAlias: alias } : e)) })) };
        for (const k of ['browserFlow', 'registrationFlow', 'directGrantFlow', 'resetCredentialsFlow', 'clientAuthenticationFlow', 'dockerAuthenticationFlow', 'firstBrokerLoginFlow']) {
          if (next[k] === f.alias) next = { ...next, [k]: alias };
        }
      }
      ev.update('AUTH_FLOW', ctx.here(), { ...rep, id: f.id });
      return { next };
    });
    return { status: 202, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ ...rep, id: existing.id }) };
  });
  r.realm('DELETE', `${A}/flows/:id`, async (ctx) => {
    manage(ctx);
    const f = ctx.realm._flows.find((x) => x.id === ctx.param('id'));
    if (!f) throw ERR.notFound('Flow not found');
    if (f.builtIn) throw errorBody(400, "Can't delete built in flow");
    const bound = ['browserFlow', 'registrationFlow', 'directGrantFlow', 'resetCredentialsFlow', 'clientAuthenticationFlow', 'dockerAuthenticationFlow', 'firstBrokerLoginFlow'].some((k) => ctx.realm[k] === f.alias);
    if (bound) throw errorBody(409, 'Cannot delete flow, it is used as a realm binding');
    await ctx.updateRealm((cur, ev) => {
      ev.delete('AUTH_FLOW', ctx.here());
      return { next: deepDelete(cur, mustFlowById(cur, f.id)) };
    });
    return noContent();
  });
  r.realm('POST', `${A}/flows/:flowAlias/copy`, async (ctx) => {
    manage(ctx);
    const data = ctx.body(StringMap);
    const newName = data.newName;
    if (!newName) throw errorMessage(400, 'New flow alias name is missing');
    if (flowByAlias(ctx.realm, newName)) throw ERR.conflict('New flow alias name already exists');
    const from = flowByAlias(ctx.realm, ctx.param('flowAlias'));
    if (!from) throw ERR.notFound('Flow not found');
    await ctx.updateRealm((cur, ev) => {
      const next = copyFlowTree(cur, flowByAlias(cur, from.alias)!, newName, from.topLevel, newName);
      ev.create('AUTH_FLOW', ctx.here(), { ...data, id: flowByAlias(next, newName)!.id });
      return { next };
    });
    return { status: 201 };
  });

  // ── executions ──
  r.realm('GET', `${A}/flows/:flowAlias/executions`, (ctx) => {
    view(ctx);
    const f = flowByAlias(ctx.realm, ctx.param('flowAlias'));
    if (!f) throw ERR.notFound('Flow not found');
    return ok(executionInfos(ctx.realm, f));
  });
  r.realm('PUT', `${A}/flows/:flowAlias/executions`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(ExecutionInfoRepresentation);
    const flow = flowByAlias(ctx.realm, ctx.param('flowAlias'));
    if (!flow) throw ERR.notFound('flow not found');
    const found = rep.id ? findExecution(ctx.realm, rep.id) : undefined;
    if (!found) throw ERR.notFound('Illegal execution');
    if (rep.requirement != null && !REQUIREMENTS.includes(rep.requirement)) throw errorMessage(400, `Invalid requirement ${rep.requirement}`);
    const accepted = { status: 202, headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(flowRep(ctx.realm, flow)) };
    if (rep.requirement != null && rep.requirement !== found.execution.requirement) {
      await ctx.updateRealm((cur, ev) => {
        const { flow: parent } = findExecution(cur, found.execution.id)!;
        ev.update('AUTH_EXECUTION', ctx.here(), rep);
        return { next: withFlow(cur, { ...parent, executions: parent.executions.map((e) => (e.id === found.execution.id ? { ...e, requirement: rep.requirement! } : e)) }) };
      });
      return accepted;
    }
    if (rep.authenticationFlow == null || !found.execution.authenticatorFlow) return accepted;
    const sub = rep.flowId ? flowById(ctx.realm, rep.flowId) : undefined;
    if (!sub) throw ERR.notFound('Illegal execution');
    const newAlias = rep.displayName ?? sub.alias;
    if (newAlias !== sub.alias && flowByAlias(ctx.realm, newAlias)) throw ERR.conflict('Flow alias name already exists');
    if (newAlias === sub.alias && (rep.description ?? '') === sub.description) return accepted;
    await ctx.updateRealm((cur, ev) => {
      let next = withFlow(cur, { ...flowById(cur, sub.id)!, alias: newAlias, description: rep.description ?? '' });
      next = { ...next, _flows: next._flows.map((x) => ({ ...x, executions: x.executions.map((e) => (e.flowAlias === sub.alias ? { ...e, flowAlias: newAlias } : e)) })) };
      ev.update('AUTH_EXECUTION', ctx.here(), rep);
      return { next };
    });
    return accepted;
  });

  const addExecution = async (ctx: AdminContext, parent: FlowEntity, e: ExecutionEntity, type: string, path: string, rep: unknown, extra: (cur: RealmEntity) => RealmEntity = (x) => x) =>
    ctx.updateRealm((cur, ev) => {
      const p = flowById(cur, parent.id)!;
      const next = extra(withFlow(cur, { ...p, executions: [...p.executions, { ...e, priority: nextPriority(p) }] }));
      ev.create(type, path, rep);
      return { next };
    });

  r.realm('POST', `${A}/flows/:flowAlias/executions/execution`, async (ctx) => {
    manage(ctx);
    const data = ctx.body(StringMap);
    const parent = flowByAlias(ctx.realm, ctx.param('flowAlias'));
    if (!parent) throw errorBody(400, "Parent flow doesn't exist");
    if (parent.builtIn) throw errorBody(400, 'It is illegal to add execution to a built in flow');
    const provider = data.provider ?? '';
    const p = PROVIDER_BY_ID.get(provider);
    if (!p || p.kind !== kindForFlow(parent.providerId)) throw errorBody(400, `No authentication provider found for id: ${provider}`);
    const e: ExecutionEntity = { id: randomUUID(), authenticator: provider, requirement: p.requirementChoices.length === 1 ? p.requirementChoices[0]! : 'DISABLED', priority: 0, authenticatorFlow: false, userSetupAllowed: false };
    await addExecution(ctx, parent, e, 'AUTH_EXECUTION', ctx.here(), { ...data, id: e.id });
    return { status: 201, headers: { Location: `${ctx.req.baseUrl}/admin/realms/${encodeURIComponent(ctx.realm.realm)}/authentication/executions/${e.id}` } };
  });
  r.realm('POST', `${A}/flows/:flowAlias/executions/flow`, async (ctx) => {
    manage(ctx);
    const data = ctx.body(StringMap);
    const parent = flowByAlias(ctx.realm, ctx.param('flowAlias'));
    if (!parent) throw errorMessage(400, "Parent flow doesn't exist");
    if (parent.builtIn) throw errorBody(400, 'It is illegal to add sub-flow to a built in flow');
    const alias = data.alias;
    if (!alias) throw errorMessage(400, 'Flow alias is missing');
    if (flowByAlias(ctx.realm, alias)) throw ERR.conflict('New flow alias name already exists');
    const type = data.type ?? 'basic-flow';
    if (!['basic-flow', 'form-flow', 'client-flow'].includes(type)) throw errorMessage(400, `Unknown flow type ${type}`);
    const sub: FlowEntity = { id: randomUUID(), alias, description: data.description ?? '', providerId: type, topLevel: false, builtIn: false, executions: [] };
    const e: ExecutionEntity = { id: randomUUID(), flowAlias: alias, requirement: 'DISABLED', priority: 0, authenticatorFlow: true, userSetupAllowed: false, ...(type === 'form-flow' && data.provider ? { authenticator: data.provider } : {}) };
    await addExecution(ctx, parent, e, 'AUTH_EXECUTION_FLOW', ctx.here(), { ...data, id: e.id }, (cur) => ({ ...cur, _flows: [...cur._flows, sub] }));
    return { status: 201, headers: { Location: `${ctx.req.baseUrl}/admin/realms/${encodeURIComponent(ctx.realm.realm)}/authentication/flows/${sub.id}` } };
  });
  r.realm('POST', `${A}/executions`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(ExecutionRepresentation);
    if (!rep.parentFlow) throw errorBody(400, 'parent flow not set on new execution');
    const parent = flowById(ctx.realm, rep.parentFlow);
    if (!parent) throw errorBody(400, 'execution parent flow does not exist');
    if (parent.builtIn) throw errorBody(400, 'It is illegal to add execution to a built in flow');
    const isFlow = rep.authenticatorFlow ?? rep.autheticatorFlow ?? false;
    const requirement = rep.requirement ?? 'DISABLED';
    if (!REQUIREMENTS.includes(requirement)) throw errorMessage(400, `Invalid requirement ${requirement}`);
    let e: ExecutionEntity;
    if (isFlow) {
      const sub = rep.flowId ? flowById(ctx.realm, rep.flowId) : undefined;
      if (!sub) throw errorBody(400, 'Flow not found');
      e = { id: randomUUID(), flowAlias: sub.alias, requirement, priority: 0, authenticatorFlow: true, userSetupAllowed: false };
    } else {
      const p = PROVIDER_BY_ID.get(rep.authenticator ?? '');
      if (!p) throw errorBody(400, `No authentication provider found for id: ${rep.authenticator ?? ''}`);
      e = { id: randomUUID(), authenticator: p.id, requirement, priority: 0, authenticatorFlow: false, userSetupAllowed: false };
    }
    await addExecution(ctx, parent, e, 'AUTH_EXECUTION', ctx.here(e.id), rep);
    return ctx.created(e.id);
  });
  r.realm('GET', `${A}/executions/:executionId`, (ctx) => {
    manage(ctx);
    const found = findExecution(ctx.realm, ctx.param('executionId'));
    if (!found) throw ERR.notFound('Illegal execution');
    const e = found.execution;
    return ok({
      id: e.id, ...(e.authenticator ? { authenticator: e.authenticator } : {}), ...(e.authenticatorConfig ? { authenticatorConfig: e.authenticatorConfig } : {}),
      ...(e.flowAlias ? { flowId: flowByAlias(ctx.realm, e.flowAlias)?.id } : {}), parentFlow: found.flow.id, requirement: e.requirement, priority: e.priority,
      authenticatorFlow: e.authenticatorFlow, autheticatorFlow: e.authenticatorFlow, userSetupAllowed: e.userSetupAllowed,
    });
  });
  r.realm('DELETE', `${A}/executions/:executionId`, async (ctx) => {
    manage(ctx);
    const found = findExecution(ctx.realm, ctx.param('executionId'));
    if (!found) throw ERR.notFound('Illegal execution');
    if (found.flow.builtIn) throw errorBody(400, 'It is illegal to remove execution from a built in flow');
    await ctx.updateRealm((cur, ev) => {
      const { flow, execution } = findExecution(cur, found.execution.id)!;
      let next = withFlow(cur, { ...flow, executions: flow.executions.filter((e) => e.id !== execution.id) });
      next = dropExecutionOwned(next, execution);
      ev.delete('AUTH_EXECUTION', ctx.here());
      return { next };
    });
    return noContent();
  });
  for (const dir of ['raise', 'lower'] as const) {
    r.realm('POST', `${A}/executions/:executionId/${dir}-priority`, async (ctx) => {
      manage(ctx);
      const found = findExecution(ctx.realm, ctx.param('executionId'));
      if (!found) throw ERR.notFound('Illegal execution');
      if (found.flow.builtIn) throw errorBody(400, 'It is illegal to modify execution in a built in flow');
      const list = sortedExecutions(found.flow);
      const i = list.findIndex((e) => e.id === found.execution.id);
      const j = dir === 'raise' ? i - 1 : i + 1;
      if (j < 0 || j >= list.length) return noContent();
      const a = list[i]!;
      const b = list[j]!;
      await ctx.updateRealm((cur, ev) => {
        const flow = flowById(cur, found.flow.id)!;
        ev.update('AUTH_EXECUTION', ctx.here());
        return { next: withFlow(cur, { ...flow, executions: flow.executions.map((e) => (e.id === a.id ? { ...e, priority: b.priority } : e.id === b.id ? { ...e, priority: a.priority } : e)) }) };
      });
      return noContent();
    });
  }

  // ── authenticator configs ──
  const createConfig = async (ctx: AdminContext, executionId: string | undefined) => {
    manage(ctx);
    const rep = ctx.body(AuthenticatorConfigRepresentation);
    if (!rep.alias) throw errorMessage(400, 'Authenticator configuration alias is missing');
    const found = executionId ? findExecution(ctx.realm, executionId) : undefined;
    if (executionId && !found) throw ERR.notFound('Illegal execution');
    if (configs(ctx.realm).some((c) => c.alias === rep.alias)) throw ERR.conflict(`Authenticator configuration ${rep.alias} already exists`);
    const cfg: AuthenticatorConfigEntity = { id: randomUUID(), alias: rep.alias, config: cleanMap(rep.config) };
    await ctx.updateRealm((cur, ev) => {
      let next: RealmEntity = { ...cur, _authenticatorConfigs: [...configs(cur), cfg] };
      if (found) {
        const { flow, execution } = findExecution(next, found.execution.id)!;
        next = withFlow(next, { ...flow, executions: flow.executions.map((e) => (e.id === execution.id ? { ...e, authenticatorConfig: cfg.id } : e)) });
      }
      ev.create('AUTHENTICATOR_CONFIG', ctx.here(cfg.id), { ...rep, id: cfg.id });
      return { next };
    });
    return ctx.created(cfg.id);
  };
  r.realm('POST', `${A}/executions/:executionId/config`, (ctx) => createConfig(ctx, ctx.param('executionId')));
  r.realm('POST', `${A}/config`, (ctx) => createConfig(ctx, undefined));
  const mustConfig = (realm: RealmEntity, id: string) => {
    const c = configs(realm).find((x) => x.id === id);
    if (!c) throw ERR.notFound('Could not find authenticator config');
    return c;
  };
  r.realm('GET', `${A}/executions/:executionId/config/:id`, (ctx) => {
    view(ctx);
    const found = findExecution(ctx.realm, ctx.param('executionId'));
    if (!found) throw ERR.notFound('Illegal execution');
    return ok(mustConfig(ctx.realm, ctx.param('id')));
  });
  r.realm('GET', `${A}/config/:id`, (ctx) => (view(ctx), ok(mustConfig(ctx.realm, ctx.param('id')))));
  r.realm('PUT', `${A}/config/:id`, async (ctx) => {
    manage(ctx);
    const rep = ctx.body(AuthenticatorConfigRepresentation);
    const c = mustConfig(ctx.realm, ctx.param('id'));
    const alias = rep.alias ?? c.alias;
    if (alias !== c.alias && configs(ctx.realm).some((x) => x.alias === alias)) throw ERR.conflict(`Authenticator configuration ${alias} already exists`);
    await ctx.updateRealm((cur, ev) => {
      ev.update('AUTHENTICATOR_CONFIG', ctx.here(), rep);
      return { next: { ...cur, _authenticatorConfigs: configs(cur).map((x) => (x.id === c.id ? { id: c.id, alias, config: rep.config != null ? cleanMap(rep.config) : x.config } : x)) } };
    });
    return noContent();
  });
  r.realm('DELETE', `${A}/config/:id`, async (ctx) => {
    manage(ctx);
    const c = mustConfig(ctx.realm, ctx.param('id'));
    await ctx.updateRealm((cur, ev) => {
      ev.delete('AUTHENTICATOR_CONFIG', ctx.here());
      return {
        next: {
          ...cur,
          _authenticatorConfigs: configs(cur).filter((x) => x.id !== c.id),
          _flows: cur._flows.map((f) => ({ ...f, executions: f.executions.map((e) => (e.authenticatorConfig === c.id ? (({ authenticatorConfig: _c, ...rest }) => rest)(e) : e)) })),
        },
      };
    });
    return noContent();
  });
}
