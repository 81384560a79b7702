// Organization converter (ModelToRepresentation for OrganizationModel) and member representation.
import type { OrganizationEntity, UserEntity } from '../store/entities.js';
import * as userConv from './user.js';

export function toBriefRepresentation(o: OrganizationEntity): Record<string, unknown> {
  return {
    id: o.id, name: o.name, alias: o.alias, enabled: o.enabled,
    ...(o.description !== undefined ? { description: o.description } : {}),
    ...(o.redirectUrl !== undefined ? { redirectUrl: o.redirectUrl } : {}),
    domains: o.domains,
  };
}

export function toRepresentation(o: OrganizationEntity): Record<string, unknown> {
  return { ...toBriefRepresentation(o), attributes: o.attributes };
}

export function memberRepresentation(u: UserEntity, membershipType: string): Record<string, unknown> {
  return { ...userConv.toRepresentation(u), membershipType };
}
