export type { AuthorizationResponse } from "./authorization-response.js";
export { type BrowserAuthorizerOptions, createBrowserAuthorizer } from "./browser-authorizer.js";
export {
  createMemoryCredentialStore,
  type OAuthCredentialStore,
  type OAuthCredentials,
  type StoredTokenState,
  storedTokenState,
} from "./credential-store.js";
export { type LoopbackRedirect, startLoopbackRedirect } from "./loopback-redirect.js";
export { isLoopbackUrl } from "./metadata-guard.js";
export { OAUTH_ERROR_CODES, type OAuthErrorCode, OAuthFlowError } from "./oauth-errors.js";
export {
  createOAuthProvider,
  type OAuthProvider,
  type OAuthProviderOptions,
  type PreRegisteredClient,
} from "./oauth-provider.js";
export { openInBrowser } from "./open-browser.js";
export type { IdentityAssertionGrant } from "./token-exchange.js";
