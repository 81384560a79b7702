// The provider catalog behind authentication management: authenticators, client authenticators,
// form actions and forms (Keycloak's deployed factories), with display names, requirement choices
// and configuration properties; and the required-action providers that can be registered.

export type ProviderKind = 'authenticator' | 'client-authenticator' | 'form-action' | 'form';

export interface ConfigProperty {
  name: string;
  label: string;
  helpText: string;
  type: string;
  defaultValue?: unknown;
  options?: string[];
  secret?: boolean;
  required?: boolean;
  readOnly?: boolean;
}

export interface ProviderDef {
  id: string;
  kind: ProviderKind;
  displayName: string;
  description: string;
  configurable: boolean;
  requirementChoices: string[];
  properties: ConfigProperty[];
}

const REQ = ['REQUIRED'];
const RAD = ['REQUIRED', 'ALTERNATIVE', 'DISABLED'];
const RD = ['REQUIRED', 'DISABLED'];
const ARD = ['ALTERNATIVE', 'REQUIRED', 'DISABLED'];
const RADC = ['REQUIRED', 'ALTERNATIVE', 'DISABLED', 'CONDITIONAL'];

const prop = (name: string, label: string, type: string, helpText = '', extra: Partial<ConfigProperty> = {}): ConfigProperty => ({ name, label, helpText, type, ...extra });

const def = (id: string, kind: ProviderKind, displayName: string, description: string, choices: string[], properties: ConfigProperty[] = []): ProviderDef => ({
  id, kind, displayName, description, configurable: properties.length > 0, requirementChoices: choices, properties,
});

export const PROVIDERS: ProviderDef[] = [
  def('auth-cookie', 'authenticator', 'Cookie', 'Validates the SSO cookie set by the auth server.', RAD),
  def('auth-spnego', 'authenticator', 'Kerberos', 'Initiates the SPNEGO protocol.  Most often used with Kerberos.', RAD),
  def('identity-provider-redirector', 'authenticator', 'Identity Provider Redirector', 'Redirects to default Identity Provider or Identity Provider specified with kc_idp_hint query parameter', RAD, [
    prop('defaultProvider', 'Default Identity Provider', 'String', 'To automatically redirect to an identity provider set to the alias of the identity provider'),
  ]),
  def('auth-username-password-form', 'authenticator', 'Username Password Form', 'Validates a username and password from login form.', REQ),
  def('auth-username-form', 'authenticator', 'Username Form', 'Selects a user from his username.', REQ),
  def('auth-password-form', 'authenticator', 'Password Form', 'Validates a password from login form.', REQ),
  def('auth-otp-form', 'authenticator', 'OTP Form', 'Validates a OTP on a separate OTP form.', RAD),
  def('auth-conditional-otp-form', 'authenticator', 'Conditional OTP Form', 'Validates a OTP on a separate OTP form. Only shown if required based on the configured conditions.', RAD, [
    prop('skipOtpRole', 'Skip OTP for Role', 'Role', 'OTP is always skipped if user has the given Role.'),
    prop('forceOtpRole', 'Force OTP for Role', 'Role', 'OTP is always required if user has the given Role.'),
    prop('defaultOtpOutcome', 'Fallback OTP', 'List', 'What to do in case of every check abstains.', { options: ['skip', 'force'] }),
  ]),
  def('conditional-user-configured', 'authenticator', 'Condition - user configured', 'Executes the current flow only if authenticators are configured', RD),
  def('conditional-user-role', 'authenticator', 'Condition - user role', 'Flow is executed only if user has the given role.', RD, [
    prop('condUserRole', 'User role', 'Role', 'Role the user should have to execute this flow.'),
    prop('negate', 'Negate output', 'boolean', 'Apply a not to the check result', { defaultValue: false }),
  ]),
  def('conditional-level-of-authentication', 'authenticator', 'Condition - Level of Authentication', 'Flow is executed only if the configured LOA or a higher one has been requested but not yet satisfied.', RD, [
    prop('loa-condition-level', 'Level of Authentication (LoA)', 'int', 'The level of authentication that must be satisfied.'),
    prop('loa-max-age', 'Max Age', 'int', 'Maximum age in seconds of the authentication.', { defaultValue: 36000 }),
  ]),
  def('deny-access-authenticator', 'authenticator', 'Deny access', 'Access will be always denied.', RD, [prop('denyErrorMessage', 'Error message', 'String', 'Error message shown to the user.')]),
  def('allow-access-authenticator', 'authenticator', 'Allow access', 'Authenticator will always successfully authenticate.', RD),
  def('direct-grant-validate-username', 'authenticator', 'Username Validation', 'Validates the username supplied as a \'username\' form parameter in direct grant request', REQ),
  def('direct-grant-validate-password', 'authenticator', 'Password', 'Validates the password supplied as a \'password\' form parameter in direct grant request', RD),
  def('direct-grant-validate-otp', 'authenticator', 'OTP', 'Validates the one time password supplied as a \'totp\' form parameter in direct grant request', RD),
  def('reset-credentials-choose-user', 'authenticator', 'Choose User', 'Choose a user to reset credentials for', REQ),
  def('reset-credential-email', 'authenticator', 'Send Reset Email', 'Send email to user and wait for response.', REQ),
  def('reset-password', 'authenticator', 'Reset Password', 'Sets the Update Password required action if execution is REQUIRED.  Will also set it if execution is OPTIONAL and the password is currently configured for it.', RD),
  def('reset-otp', 'authenticator', 'Reset OTP', 'Removes existing OTP configurations (if chosen) and sets the \'Configure OTP\' required action.', RD, [
    prop('action_on_otp_reset_flag', 'Action on OTP reset', 'List', 'Which OTP credentials to remove.', { options: ['Remove one OTP', 'Remove all OTPs'], defaultValue: 'Remove one OTP' }),
  ]),
  def('idp-review-profile', 'authenticator', 'Review Profile', 'User reviews and updates profile data retrieved from Identity Provider in the displayed form', RD, [
    prop('update.profile.on.first.login', 'Update profile on first login', 'List', 'Define conditions under which a user has to review and update his profile after first-time login.', { options: ['on', 'missing', 'off'], defaultValue: 'missing' }),
  ]),
  def('idp-create-user-if-unique', 'authenticator', 'Create User If Unique', 'Detect if there is existing Keycloak account with same email like identity provider. If no, create new user', ARD, [
    prop('require.password.update.after.registration', 'Require Password Update After Registration', 'boolean', 'If this option is true and new user is successfully imported from Identity Provider to Keycloak, he will need to update his password.', { defaultValue: false }),
  ]),
  def('idp-confirm-link', 'authenticator', 'Confirm link existing account', 'Show the form where user confirms if he wants to link identity provider with existing account or rather edit user profile data retrieved from identity provider to avoid conflict', RD),
  def('idp-email-verification', 'authenticator', 'Verify existing account by Email', 'Email verification of existing Keycloak user, that wants to link his user account with identity provider', ARD),
  def('idp-username-password-form', 'authenticator', 'Username Password Form for identity provider reauthentication', 'Validates a password from login form. Username may be already known from identity provider authentication', REQ),
  def('idp-auto-link', 'authenticator', 'Automatically set existing user', 'Automatically set existing user to authentication context without any verification', ARD),
  def('idp-detect-existing-broker-user', 'authenticator', 'Detect existing broker user', 'Detect if there is an existing Keycloak account with same email like identity provider. If no, throw an error.', ARD),
  def('idp-add-organization-member', 'authenticator', 'Organization Member Onboard', 'Adds a federated user as a member of an organization', RD),
  def('organization', 'authenticator', 'Organization Identity-First Login', 'If organizations are enabled, automatically redirects users to the corresponding identity provider.', RAD, [
    prop('requiresUserMembership', 'Requires user membership', 'boolean', 'Enforces that the user must be a member of an organization.', { defaultValue: false }),
  ]),
  def('http-basic-authenticator', 'authenticator', 'HTTP Basic Authentication', 'Validates username and password from Authorization HTTP header', RD),
  def('docker-http-basic-authenticator', 'authenticator', 'Docker Authenticator', 'Uses HTTP Basic authentication to validate docker users, returns a docker error token on auth failure', REQ),
  def('webauthn-authenticator', 'authenticator', 'WebAuthn Authenticator', 'Authenticator for WebAuthn. Usually used for WebAuthn two-factor authentication', RAD),
  def('webauthn-authenticator-passwordless', 'authenticator', 'WebAuthn Passwordless Authenticator', 'Authenticator for Passwordless WebAuthn authentication', RAD),
  def('auth-x509-client-username-form', 'authenticator', 'X509/Validate Username Form', 'Validates username and password from X509 client certificate received as a part of mutual SSL handshake.', RAD),
  def('registration-page-form', 'form', 'Registration Page', 'This is the controller for the registration page', RD),
  def('registration-user-creation', 'form-action', 'Registration User Profile Creation', 'This action must always be first! Validates the username and user profile of the user in validation phase.  In success phase, this will create the user in the database including his user profile.', RD),
  def('registration-password-action', 'form-action', 'Password Validation', 'Validates that password matches password confirmation field.  It also will store password in user\'s credential store.', RD),
  def('registration-recaptcha-action', 'form-action', 'reCAPTCHA', 'Adds Google reCAPTCHA button.  reCAPTCHAs verify that the entity that is registering is a human.  This can only be used on the internet and must be configured after you add it.', RD, [
    prop('site.key', 'reCAPTCHA Site Key', 'String', 'The site key.', { required: true }),
    prop('secret', 'reCAPTCHA Secret', 'password', 'The secret key.', { secret: true, required: true }),
  ]),
  def('registration-terms-and-conditions', 'form-action', 'Terms and conditions', 'Asks the user to accept terms and conditions before submitting its registration form.', RD),
  def('client-secret', 'client-authenticator', 'Client Id and Secret', 'Validates client based on \'client_id\' and \'client_secret\' sent either in request parameters or in \'Authorization: Basic\' header', ARD),
  def('client-jwt', 'client-authenticator', 'Signed Jwt', 'Validates client based on signed JWT issued by client and signed with the Client private key', ARD),
  def('client-secret-jwt', 'client-authenticator', 'Signed Jwt with Client Secret', 'Validates client based on signed JWT issued by client and signed with the Client Secret', ARD),
  def('client-x509', 'client-authenticator', 'X509 Certificate', 'Validates client based on a X509 Certificate', ARD),
];

export const PROVIDER_BY_ID = new Map(PROVIDERS.map((p) => [p.id, p]));

/** `GET /authenticator-providers` etc.: {id, displayName, description}. */
export function providerList(kind: ProviderKind): Array<{ id: string; displayName: string; description: string }> {
  return PROVIDERS.filter((p) => p.kind === kind).map((p) => ({ id: p.id, displayName: p.displayName, description: p.description }));
}

/** Per-client config description: client authenticators' config properties (secret/jwt take none). */
export function perClientConfigDescription(): Record<string, ConfigProperty[]> {
  return Object.fromEntries(PROVIDERS.filter((p) => p.kind === 'client-authenticator').map((p) => [p.id, p.properties]));
}

/** Which provider kind a flow of the given type takes (ClientAuthenticator / FormAction / Authenticator). */
export function kindForFlow(flowProviderId: string): ProviderKind {
  return flowProviderId === 'client-flow' ? 'client-authenticator' : flowProviderId === 'form-flow' ? 'form-action' : 'authenticator';
}

/** Required-action providers the server deploys: [providerId, name, configurable with max_auth_age]. */
export const REQUIRED_ACTION_PROVIDERS: Array<[string, string, boolean]> = [
  ['CONFIGURE_TOTP', 'Configure OTP', true],
  ['TERMS_AND_CONDITIONS', 'Terms and Conditions', false],
  ['UPDATE_PASSWORD', 'Update Password', true],
  ['UPDATE_PROFILE', 'Update Profile', false],
  ['VERIFY_EMAIL', 'Verify Email', false],
  ['delete_account', 'Delete Account', false],
  ['webauthn-register', 'Webauthn Register', true],
  ['webauthn-register-passwordless', 'Webauthn Register Passwordless', true],
  ['VERIFY_PROFILE', 'Verify Profile', false],
  ['delete_credential', 'Delete Credential', false],
  ['update_user_locale', 'Update User Locale', false],
  ['UPDATE_EMAIL', 'Update Email', true],
  ['CONFIGURE_RECOVERY_AUTHN_CODES', 'Recovery Authentication Codes', true],
  ['idp_link', 'Linking Identity Provider', false],
];

export const MAX_AUTH_AGE: ConfigProperty = prop('max_auth_age', 'Maximum Age of Authentication', 'String', 'Configures the duration in seconds this action can be used after the last authentication before the user is required to re-authenticate.', { defaultValue: '300' });
