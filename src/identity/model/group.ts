// Group converter.
import type { GroupEntity } from '../store/entities.js';
import { cleanMultiMap } from './common.js';
import type { GroupRepresentation } from './schemas.js';

export interface GroupRep {
  id: string;
  name: string;
  description?: string;
  path: string;
  parentId?: string;
  subGroupCount: number;
  subGroups: GroupRep[];
  attributes?: Record<string, string[]>;
  realmRoles?: string[];
  clientRoles?: Record<string, string[]>;
  access?: Record<string, boolean>;
}

export function toBriefRepresentation(g: GroupEntity, path: string, subGroupCount: number): GroupRep {
  const rep: GroupRep = { id: g.id, name: g.name, path, subGroupCount, subGroups: [] };
  if (g.description !== undefined) rep.description = g.description;
  if (g.parentId) rep.parentId = g.parentId;
  return rep;
}

export function toRepresentation(g: GroupEntity, path: string, subGroupCount: number, roles: { realmRoles: string[]; clientRoles: Record<string, string[]> }): GroupRep {
  return { ...toBriefRepresentation(g, path, subGroupCount), attributes: g.attributes, realmRoles: roles.realmRoles, clientRoles: roles.clientRoles };
}

export function applyRepresentation(g: GroupEntity, rep: GroupRepresentation): GroupEntity {
  const next = { ...g };
  if (rep.name != null) next.name = rep.name;
  if (rep.description != null) next.description = rep.description;
  if (rep.attributes != null) next.attributes = cleanMultiMap(rep.attributes);
  return next;
}

export function stripSecrets(rep: unknown): unknown {
  return rep;
}
