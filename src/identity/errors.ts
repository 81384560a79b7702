// The identity error catalog: each ERR_* knows its status and Keycloak's body shape. Handlers
// throw these; the HTTP layer turns HttpError into the reply.
import { HttpError, json, type HeaderValue } from '../http/types.js';

/** Keycloak's JAX-RS style body: {"error": "..."} (optionally with error_description). */
export function errorBody(status: number, error: string, description?: string, headers: Record<string, HeaderValue> = {}): HttpError {
  return new HttpError(status, json(status, description === undefined ? { error } : { error, error_description: description }, headers));
}

/** Keycloak's admin validation body: {"errorMessage": "...", "field"?, "params"?}. */
export function errorMessage(status: number, message: string, extra: { field?: string; params?: unknown[] } = {}): HttpError {
  return new HttpError(status, json(status, { errorMessage: message, ...extra }));
}

export const ERR = {
  unauthorized: () => errorBody(401, 'HTTP 401 Unauthorized', undefined, { 'WWW-Authenticate': 'Bearer' }),
  forbidden: () => errorBody(403, 'HTTP 403 Forbidden'),
  notFound: (what: string) => errorBody(404, what),
  realmNotFound: () => errorBody(404, 'Realm not found.'),
  userNotFound: () => errorBody(404, 'User not found'),
  clientNotFound: () => errorBody(404, 'Could not find client'),
  groupNotFound: () => errorBody(404, 'Could not find group by id'),
  roleNotFound: () => errorBody(404, 'Could not find role'),
  clientScopeNotFound: () => errorBody(404, 'Could not find client scope'),
  mapperNotFound: () => errorBody(404, 'Model not found'),
  conflict: (message: string) => errorMessage(409, message),
  badRequest: (message: string) => errorMessage(400, message),
  badJson: (field?: string) =>
    new HttpError(400, json(400, { error: 'unknown_error', error_description: 'Cannot parse the JSON', ...(field ? { field } : {}) })),
  notAllowed: () => errorBody(405, 'HTTP 405 Method Not Allowed'),
  routeNotFound: () => errorBody(404, 'HTTP 404 Not Found'),
} as const;
