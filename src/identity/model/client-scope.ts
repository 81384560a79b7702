// Client scope and protocol mapper converters.
import { randomUUID } from 'node:crypto';
import type { ClientScopeEntity, ProtocolMapperEntity } from '../store/entities.js';
import { cleanStrMap } from './common.js';
import type { ClientScopeRepresentation, ProtocolMapperRepresentation } from './schemas.js';

export function mapperToRepresentation(m: ProtocolMapperEntity): ProtocolMapperRepresentation {
  return { id: m.id, name: m.name, protocol: m.protocol, protocolMapper: m.protocolMapper, consentRequired: m.consentRequired ?? false, ...(m.consentText !== undefined ? { consentText: m.consentText } : {}), config: m.config };
}

export function mapperFromRepresentation(rep: ProtocolMapperRepresentation, defaultProtocol: string, keepId = false): ProtocolMapperEntity {
  const m: ProtocolMapperEntity = {
    id: keepId && rep.id ? rep.id : randomUUID(),
    name: rep.name ?? '',
    protocol: rep.protocol ?? defaultProtocol,
    protocolMapper: rep.protocolMapper ?? '',
    consentRequired: rep.consentRequired ?? false,
    config: cleanStrMap(rep.config),
  };
  if (rep.consentText != null) m.consentText = rep.consentText;
  return m;
}

export function toRepresentation(s: ClientScopeEntity): ClientScopeRepresentation {
  const rep: ClientScopeRepresentation = { id: s.id, name: s.name };
  if (s.description !== undefined) rep.description = s.description;
  rep.protocol = s.protocol;
  rep.attributes = s.attributes;
  if (s.protocolMappers.length) rep.protocolMappers = s.protocolMappers.map(mapperToRepresentation);
  return rep;
}

export function toBriefRepresentation(s: ClientScopeEntity): { id: string; name: string } {
  return { id: s.id, name: s.name };
}

export function applyRepresentation(s: ClientScopeEntity, rep: ClientScopeRepresentation): ClientScopeEntity {
  const next = { ...s };
  if (rep.name != null) next.name = rep.name;
  if (rep.description != null) next.description = rep.description;
  if (rep.protocol != null) next.protocol = rep.protocol;
  if (rep.attributes != null) next.attributes = cleanStrMap(rep.attributes);
  return next;
}

export function stripSecrets(rep: unknown): unknown {
  return rep;
}
