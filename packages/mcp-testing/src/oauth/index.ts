export {
  type OAuthTestRecord,
  type OAuthTestServer,
  type OAuthTestServerOptions,
  startOAuthTestServer,
} from "./oauth-test-server.js";
