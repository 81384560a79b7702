// Registers the identity service's routes: the admin REST API under /admin and the OpenID Connect
// endpoints under /realms/{realm}.
import type { RouteRegistry } from '../http/types.js';
import type { IdentityService } from './service.js';
import { AdminRoutes } from './admin/context.js';
import * as realms from './admin/realms.js';
import * as realm from './admin/realm.js';
import * as users from './admin/users.js';
import * as user from './admin/user.js';
import * as roles from './admin/roles.js';
import * as clients from './admin/clients.js';
import * as client from './admin/client.js';
import * as clientScopes from './admin/client-scopes.js';
import * as groups from './admin/groups.js';
import * as group from './admin/group.js';
import * as events from './admin/events.js';
import * as serverinfo from './admin/serverinfo.js';
import * as authentication from './admin/authentication.js';
import * as requiredActions from './admin/required-actions.js';
import * as components from './admin/components.js';
import * as component from './admin/component.js';
import * as organizations from './admin/organizations.js';
import * as organization from './admin/organization.js';
import * as attackDetection from './admin/attack-detection.js';
import * as localization from './admin/localization.js';
import * as clientCertificates from './admin/client-certificates.js';
import * as clientPolicies from './admin/client-policies.js';
import * as identityProviders from './admin/identity-providers.js';
import * as authz from './admin/authz.js';
import { registerOidcRoutes } from './oidc/routes.js';

export function registerIdentityRoutes(registry: RouteRegistry, svc: IdentityService): void {
  const admin = new AdminRoutes(registry, svc);
  for (const m of [realms, realm, users, user, roles, clients, client, clientScopes, groups, group, events, serverinfo, authentication, requiredActions, components, component, organizations, organization, attackDetection, localization, clientCertificates, clientPolicies, identityProviders, authz]) m.register(admin);
  registerOidcRoutes(registry, svc);
  localization.registerThemeResources(registry, svc);
}

export { openIdentityService, IdentityService, type Principal } from './service.js';
