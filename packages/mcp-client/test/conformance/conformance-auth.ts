/**
 * The OAuth side of the client under test: one provider per run, configured from the scenario's
 * context (MCP_CONFORMANCE_CONTEXT) the way a user would configure a server entry, and a "browser"
 * that follows the authorization server's redirect to our real loopback listener.
 */
import {
  createBrowserAuthorizer,
  createMemoryCredentialStore,
  createOAuthProvider,
  type LoopbackRedirect,
  type OAuthProvider,
  type OAuthProviderOptions,
  startLoopbackRedirect,
} from "@agent/mcp-transport/oauth";
import { followRedirect } from "./follow-redirect.js";

/** The client id metadata document URL the suite expects (SEP-991), used where a server supports it. */
const CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json";

/** What the suite passes to scenarios that need pre-arranged credentials. */
interface ScenarioContext {
  client_id?: string;
  client_secret?: string;
  private_key_pem?: string;
  signing_algorithm?: string;
  idp_client_id?: string;
  idp_id_token?: string;
  idp_token_endpoint?: string;
}

/** A provider for the scenario and the listener it needs; `close` releases the listener. */
export interface ScenarioAuth {
  provider: OAuthProvider;
  close(): Promise<void>;
}

/** Builds the provider a user's configuration would give for this scenario. */
export async function createScenarioAuth(scenario: string, url: string): Promise<ScenarioAuth> {
  const context = JSON.parse(process.env.MCP_CONFORMANCE_CONTEXT ?? "{}") as ScenarioContext;
  const base = {
    server: "conformance",
    url,
    store: createMemoryCredentialStore(),
    clientName: "agent-conformance",
  };
  let redirect: LoopbackRedirect | undefined;
  let options: OAuthProviderOptions;
  if (scenario === "auth/client-credentials-jwt") {
    options = {
      ...base,
      grant: "client_credentials",
      client: {
        clientId: context.client_id ?? "",
        tokenEndpointAuthMethod: "private_key_jwt",
        privateKey: context.private_key_pem ?? "",
        signingAlgorithm: context.signing_algorithm ?? "ES256",
      },
    };
  } else if (scenario === "auth/client-credentials-basic") {
    options = {
      ...base,
      grant: "client_credentials",
      client: { clientId: context.client_id ?? "", clientSecret: context.client_secret ?? "" },
    };
  } else if (scenario === "auth/cross-app-access-complete-flow") {
    options = {
      ...base,
      grant: "identity_assertion",
      client: {
        clientId: context.client_id ?? "",
        clientSecret: context.client_secret ?? "",
        tokenEndpointAuthMethod: "client_secret_basic",
      },
      identityAssertion: {
        tokenEndpoint: context.idp_token_endpoint ?? "",
        clientId: context.idp_client_id ?? "",
        idToken: context.idp_id_token ?? "",
      },
    };
  } else {
    redirect = await startLoopbackRedirect();
    options = {
      ...base,
      redirectUrl: redirect.redirectUrl,
      authorize: createBrowserAuthorizer({
        redirect,
        show: () => {},
        open: followRedirect,
        timeoutMs: 20_000,
      }),
      ...(context.client_id
        ? {
            client: {
              clientId: context.client_id,
              ...(context.client_secret ? { clientSecret: context.client_secret } : {}),
            },
          }
        : { clientMetadataUrl: CLIENT_METADATA_URL }),
    };
  }
  const listener = redirect;
  return { provider: createOAuthProvider(options), close: async () => listener?.close() };
}
