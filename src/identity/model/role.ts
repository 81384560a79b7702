// Role converter (Keycloak ModelToRepresentation.toRepresentation(RoleModel)).
import type { RoleEntity } from '../store/entities.js';
import { cleanMultiMap } from './common.js';
import type { RoleRepresentation } from './schemas.js';

export interface RoleRep {
  id: string;
  name: string;
  description?: string;
  composite: boolean;
  clientRole: boolean;
  containerId: string;
  attributes?: Record<string, string[]>;
}

export function toBriefRepresentation(r: RoleEntity): RoleRep {
  const rep: RoleRep = { id: r.id, name: r.name, composite: r.composites.length > 0, clientRole: r.clientId !== '', containerId: r.clientId || r.realmId };
  if (r.description !== undefined) rep.description = r.description;
  return { id: rep.id, name: rep.name, ...(r.description !== undefined ? { description: r.description } : {}), composite: rep.composite, clientRole: rep.clientRole, containerId: rep.containerId };
}

export function toRepresentation(r: RoleEntity): RoleRep {
  return { ...toBriefRepresentation(r), attributes: r.attributes };
}

export function applyRepresentation(r: RoleEntity, rep: RoleRepresentation): RoleEntity {
  const next = { ...r };
  if (rep.name != null) next.name = rep.name;
  if (rep.description !== undefined) {
    if (rep.description === null) delete next.description;
    else next.description = rep.description;
  }
  if (rep.attributes != null) next.attributes = cleanMultiMap(rep.attributes);
  return next;
}

export function stripSecrets(rep: RoleRepresentation | RoleRep): unknown {
  return rep;
}
