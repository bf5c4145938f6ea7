import {
  type AddClientAuthentication,
  auth,
  type OAuthDiscoveryState,
} from "@modelcontextprotocol/sdk/client/auth.js";
import { createPrivateKeyJwtAuth } from "@modelcontextprotocol/sdk/client/auth-extensions.js";
import type {
  OAuthClientInformationMixed,
  OAuthClientMetadata,
  OAuthTokens,
} from "@modelcontextprotocol/sdk/shared/auth.js";
import type { FetchLike } from "@modelcontextprotocol/sdk/shared/transport.js";
import type { McpAuthProvider } from "../http/auth-provider.js";
import {
  type AuthorizationResponse,
  assertAuthorizationResponseIssuer,
  recordedIssuer,
} from "./authorization-response.js";
import type { OAuthCredentialStore, OAuthCredentials } from "./credential-store.js";
import { assertTrustedDiscovery } from "./metadata-guard.js";
import { OAUTH_ERROR_CODES, OAuthFlowError } from "./oauth-errors.js";
import { scopesOf, withScopeUnion } from "./scope-union.js";
import { exchangeForIdJag, type IdentityAssertionGrant, JWT_BEARER_GRANT } from "./token-exchange.js";

/** A client registered with the authorization server beforehand (from configuration). */
export interface PreRegisteredClient {
  clientId: string;
  clientSecret?: string;
  /** How to authenticate at the token endpoint; by default the SDK picks from what the server supports. */
  tokenEndpointAuthMethod?: "client_secret_basic" | "client_secret_post" | "none" | "private_key_jwt";
  /** For `private_key_jwt`: a PKCS#8 PEM private key and its algorithm (e.g. `ES256`, `RS256`). */
  privateKey?: string;
  signingAlgorithm?: string;
  /** For `private_key_jwt` with a ready-made assertion (a JWT signed elsewhere). */
  clientAssertion?: string;
}

/** Options of {@link createOAuthProvider}. */
export interface OAuthProviderOptions {
  /** The server's name: the store's key and what messages say. */
  server: string;
  /** The MCP endpoint; stored credentials are used only with exactly this URL. */
  url: string | URL;
  store: OAuthCredentialStore;
  /** `authorization_code` (a user in a browser, the default), `client_credentials` (a machine), or `identity_assertion` (enterprise-managed, SEP-990). */
  grant?: "authorization_code" | "client_credentials" | "identity_assertion";
  /** Pre-registered client credentials; without them the client uses a metadata document URL or registers dynamically. */
  client?: PreRegisteredClient;
  /** An https URL serving this client's metadata document (SEP-991), used where the server supports it. */
  clientMetadataUrl?: string;
  /** Shown to the user by the authorization server (default "agent"). */
  clientName?: string;
  /** Scopes to ask for when neither the server's challenge nor its metadata names any. */
  scopes?: readonly string[];
  /** The authorization server to accept; discovery naming any other is refused. */
  expectedIssuer?: string;
  /**
   * Origins besides the authorization server's own where its metadata may put endpoints (token,
   * registration, ...); any other origin is refused before anything is sent there.
   */
  endpointOrigins?: readonly string[];
  /** For `identity_assertion`: where and how to get an identity assertion grant from the enterprise IdP. */
  identityAssertion?: IdentityAssertionGrant;
  /** The loopback redirect URI of the authorization-code flow (default `http://127.0.0.1/callback`). */
  redirectUrl?: string;
  /**
   * Lets the user authorize: opens `authorizationUrl`, resolves with the authorization response
   * (its code and `iss`) once the redirect came back with the right `state`. The code is redeemed
   * only if `iss` names the authorization server the request went to (RFC 9207), else the flow
   * fails with `issuer_mismatch`. Without it, a flow that needs the user fails with
   * `login_required` and {@link OAuthProviderOptions.loginHint}.
   */
  authorize?: (authorizationUrl: URL) => Promise<AuthorizationResponse>;
  /** What to tell the user when a login is required and cannot happen here. */
  loginHint?: string;
  /** Replaces the global fetch for the token exchange after `authorize` (tests, proxies). */
  fetch?: FetchLike;
  /** The clock, for `savedAt` (tests). */
  now?: () => number;
}

/** An SDK OAuth client provider bound to one server, its credential store and its configuration. */
export interface OAuthProvider extends McpAuthProvider {
  /** Whether the last flow stopped because the user has to log in. */
  readonly loginRequired: boolean;
}

const DEFAULT_REDIRECT_URL = "http://127.0.0.1/callback";

/**
 * Creates the OAuth client provider for one HTTP server. The SDK drives the flow (discovery, scope
 * selection, client ID metadata documents, dynamic registration, PKCE, `resource`, refresh, step-up,
 * token endpoint authentication); this provider adds what the SDK leaves to it: metadata it refuses
 * ({@link assertTrustedDiscovery}), credentials kept per server and URL, the user's part of the flow
 * (`authorize`), and the client-credentials and identity-assertion grants from configuration.
 */
export function createOAuthProvider(options: OAuthProviderOptions): OAuthProvider {
  return new ServerOAuthProvider(options);
}

class ServerOAuthProvider implements OAuthProvider {
  readonly #options: OAuthProviderOptions;
  readonly #url: string;
  readonly #grant: NonNullable<OAuthProviderOptions["grant"]>;
  readonly #now: () => number;
  #discovery: OAuthDiscoveryState | undefined;
  /** The discovery an authorization code is being redeemed against (the one its request went to). */
  #redeemingWith: OAuthDiscoveryState | undefined;
  /** Every scope this provider asked for so far (SEP-2350: a re-authorization keeps them). */
  readonly #requestedScopes = new Set<string>();
  #codeVerifier: string | undefined;
  #pending: Promise<boolean> | undefined;
  #loginRequired = false;
  #stepUp = false;
  #secrets = new Set<string>();
  readonly addClientAuthentication?: AddClientAuthentication;
  readonly clientMetadataUrl?: string;

  constructor(options: OAuthProviderOptions) {
    this.#options = options;
    this.#url = String(new URL(options.url));
    this.#grant = options.grant ?? "authorization_code";
    this.#now = options.now ?? Date.now;
    const client = options.client;
    if (client?.clientSecret) this.#secrets.add(client.clientSecret);
    if (client?.clientAssertion) this.#secrets.add(client.clientAssertion);
    const authentication = clientAuthentication(client);
    if (authentication) this.addClientAuthentication = authentication;
    if (options.clientMetadataUrl) this.clientMetadataUrl = options.clientMetadataUrl;
  }

  get loginRequired(): boolean {
    return this.#loginRequired;
  }

  get redirectUrl(): string | undefined {
    // No redirect URL tells the SDK the flow is non-interactive (it calls prepareTokenRequest).
    return this.#grant === "authorization_code"
      ? (this.#options.redirectUrl ?? DEFAULT_REDIRECT_URL)
      : undefined;
  }

  get clientMetadata(): OAuthClientMetadata {
    const scope = this.#options.scopes?.join(" ");
    const interactive = this.#grant === "authorization_code";
    const metadata = {
      client_name: this.#options.clientName ?? "agent",
      // SEP-837: a CLI on the user's machine is a native application (its redirect is loopback).
      application_type: "native",
      redirect_uris: interactive ? [this.redirectUrl ?? DEFAULT_REDIRECT_URL] : [],
      grant_types: interactive ? ["authorization_code", "refresh_token"] : [this.#grantType()],
      response_types: interactive ? ["code"] : [],
      token_endpoint_auth_method: "none",
      ...(scope ? { scope } : {}),
    };
    // The SDK's type predates application_type; the registration request sends every field as is.
    return metadata satisfies OAuthClientMetadata & { application_type: string };
  }

  state(): string {
    return randomState();
  }

  async clientInformation(): Promise<OAuthClientInformationMixed | undefined> {
    const configured = this.#options.client;
    const stored = (await this.#load())?.client;
    if (!configured) return stored;
    // Configured credentials win; the issuer they were first accepted by is kept with them.
    const information: OAuthClientInformationMixed = { client_id: configured.clientId };
    if (configured.clientSecret !== undefined) information.client_secret = configured.clientSecret;
    const method = configured.tokenEndpointAuthMethod;
    if (method && method !== "private_key_jwt") {
      (information as { token_endpoint_auth_method?: string }).token_endpoint_auth_method = method;
    }
    const issuer = stored?.client_id === configured.clientId ? stored.issuer : undefined;
    return { ...information, ...(issuer ? { issuer } : {}) };
  }

  async saveClientInformation(information: OAuthClientInformationMixed): Promise<void> {
    const configured = this.#options.client;
    // A configured secret is not copied into the store: it stays in the configuration.
    const kept: OAuthClientInformationMixed = configured
      ? { client_id: information.client_id, ...(information.issuer ? { issuer: information.issuer } : {}) }
      : information;
    await this.#update((credentials) => ({ ...credentials, client: kept }));
  }

  async tokens(): Promise<OAuthTokens | undefined> {
    const tokens = (await this.#load())?.tokens;
    if (!tokens) return undefined;
    this.#remember(tokens);
    if (!this.#stepUp) return tokens;
    // A refresh keeps the grant's scopes; a wider scope needs a new authorization.
    const { refresh_token: _withheld, ...withoutRefresh } = tokens;
    return withoutRefresh;
  }

  stepUpRequested(): void {
    this.#stepUp = true;
  }

  async saveTokens(tokens: OAuthTokens): Promise<void> {
    this.#remember(tokens);
    this.#loginRequired = false;
    this.#stepUp = false;
    await this.#update((credentials) => ({ ...credentials, tokens, savedAt: this.#now() }));
  }

  async redirectToAuthorization(authorizationUrl: URL): Promise<void> {
    const { authorize } = this.#options;
    if (!authorize) {
      this.#loginRequired = true;
      throw new OAuthFlowError(
        OAUTH_ERROR_CODES.loginRequired,
        this.#options.loginHint ?? `Server "${this.#options.server}" needs you to log in (OAuth).`,
      );
    }
    const discovery = this.#discovery;
    if (!discovery) {
      throw new OAuthFlowError(
        OAUTH_ERROR_CODES.authorizationFailed,
        "An authorization was started without a discovered authorization server.",
      );
    }
    const granted = scopesOf((await this.#load())?.tokens?.scope);
    const requestUrl = withScopeUnion(authorizationUrl, [...this.#requestedScopes, ...granted]);
    for (const scope of scopesOf(requestUrl.searchParams.get("scope"))) this.#requestedScopes.add(scope);
    // The SDK gives up on this request once we return; the transport waits for this and retries it.
    this.#pending = (async () => {
      const response = await authorize(requestUrl);
      // Before anything is sent to a token endpoint: a code from another issuer is never redeemed.
      assertAuthorizationResponseIssuer(response, recordedIssuer(discovery));
      const fetchFn = this.#options.fetch;
      this.#redeemingWith = discovery;
      try {
        const result = await auth(this, {
          serverUrl: this.#url,
          authorizationCode: response.code,
          ...(fetchFn ? { fetchFn } : {}),
        });
        return result === "AUTHORIZED";
      } finally {
        this.#redeemingWith = undefined;
      }
    })();
    // Nobody may be waiting yet; a failure is reported by awaitAuthorization.
    this.#pending.catch(() => {});
  }

  async awaitAuthorization(): Promise<boolean> {
    const pending = this.#pending;
    this.#pending = undefined;
    return pending ? await pending : false;
  }

  saveCodeVerifier(codeVerifier: string): void {
    this.#codeVerifier = codeVerifier;
  }

  codeVerifier(): string {
    if (!this.#codeVerifier) {
      throw new OAuthFlowError(OAUTH_ERROR_CODES.authorizationFailed, "No authorization is in progress.");
    }
    return this.#codeVerifier;
  }

  saveDiscoveryState(state: OAuthDiscoveryState): void {
    const { expectedIssuer, endpointOrigins } = this.#options;
    assertTrustedDiscovery(state, {
      serverUrl: this.#url,
      ...(expectedIssuer === undefined ? {} : { expectedIssuer }),
      ...(endpointOrigins === undefined ? {} : { endpointOrigins }),
    });
    this.#discovery = state;
  }

  discoveryState(): OAuthDiscoveryState | undefined {
    // Only a code is redeemed against a remembered discovery: every other flow starts from a
    // rejection, and discovers again, so an authorization server the resource moved to (SEP-2352) is
    // found, and the credentials stamped with the old one's issuer are neither sent nor reused.
    return this.#redeemingWith;
  }

  async invalidateCredentials(scope: "all" | "client" | "tokens" | "verifier" | "discovery"): Promise<void> {
    if (scope === "verifier") this.#codeVerifier = undefined;
    if (scope === "discovery" || scope === "all") this.#discovery = undefined;
    if (scope === "verifier" || scope === "discovery") return;
    await this.#update((credentials) => {
      const next: OAuthCredentials = { url: credentials.url };
      if (scope === "tokens" && credentials.client) next.client = credentials.client;
      if (scope === "client" && credentials.tokens) {
        next.tokens = credentials.tokens;
        if (credentials.savedAt !== undefined) next.savedAt = credentials.savedAt;
      }
      return next;
    });
  }

  async prepareTokenRequest(scope?: string): Promise<URLSearchParams | undefined> {
    if (this.#grant === "authorization_code") return undefined;
    const params = new URLSearchParams({ grant_type: this.#grantType() });
    const requested = scope ?? this.#options.scopes?.join(" ");
    if (this.#grant === "identity_assertion") {
      const grant = this.#options.identityAssertion;
      const discovery = this.#discovery;
      if (!grant || !discovery) {
        throw new OAuthFlowError(
          OAUTH_ERROR_CODES.authorizationFailed,
          "The identity-assertion grant needs its IdP settings and a discovered authorization server.",
        );
      }
      const audience =
        discovery.authorizationServerMetadata?.issuer ?? String(discovery.authorizationServerUrl);
      const resource = discovery.resourceMetadata?.resource ?? this.#url;
      const assertion = await exchangeForIdJag(
        grant,
        { audience, resource, scope: requested },
        this.#options.fetch,
      );
      this.#secrets.add(assertion);
      params.set("assertion", assertion);
    }
    if (requested) params.set("scope", requested);
    return params;
  }

  secretValues(): Iterable<string> {
    return this.#secrets;
  }

  #grantType(): string {
    return this.#grant === "identity_assertion" ? JWT_BEARER_GRANT : "client_credentials";
  }

  #remember(tokens: OAuthTokens): void {
    this.#secrets.add(tokens.access_token);
    if (tokens.refresh_token) this.#secrets.add(tokens.refresh_token);
    if (tokens.id_token) this.#secrets.add(tokens.id_token);
  }

  /** The stored credentials, if they belong to this URL: a token for one URL is never offered to another. */
  async #load(): Promise<OAuthCredentials | undefined> {
    const credentials = await this.#options.store.load(this.#options.server);
    return credentials?.url === this.#url ? credentials : undefined;
  }

  async #update(change: (credentials: OAuthCredentials) => OAuthCredentials): Promise<void> {
    const current = (await this.#load()) ?? { url: this.#url };
    await this.#options.store.save(this.#options.server, change(current));
  }
}

function clientAuthentication(client: PreRegisteredClient | undefined): AddClientAuthentication | undefined {
  if (client?.tokenEndpointAuthMethod !== "private_key_jwt") return undefined;
  const { clientAssertion, privateKey } = client;
  if (clientAssertion) {
    return (_headers, params) => {
      params.set("client_id", client.clientId);
      params.set("client_assertion", clientAssertion);
      params.set("client_assertion_type", "urn:ietf:params:oauth:client-assertion-type:jwt-bearer");
    };
  }
  if (!privateKey) {
    throw new OAuthFlowError(
      OAUTH_ERROR_CODES.authorizationFailed,
      "private_key_jwt needs a privateKey (PKCS#8 PEM) or a clientAssertion.",
    );
  }
  return createPrivateKeyJwtAuth({
    issuer: client.clientId,
    subject: client.clientId,
    privateKey,
    alg: client.signingAlgorithm ?? "RS256",
  });
}

function randomState(): string {
  const bytes = new Uint8Array(24);
  crypto.getRandomValues(bytes);
  return Buffer.from(bytes).toString("base64url");
}
