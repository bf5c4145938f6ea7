import { createPublicKey, verify } from "node:crypto";
import type { OAuthClientInformationFull, OAuthTokens } from "@modelcontextprotocol/sdk/shared/auth.js";
import type { NextFunction, Request, Response } from "express";
import type { OAuthTestRecord } from "./oauth-test-server.js";

type RecordedRequest = Request & { record?: OAuthTestRecord };

/**
 * The SDK's token endpoint reads client credentials from the form body only: this turns HTTP Basic
 * (`client_secret_basic`) into those fields first, and records how the client authenticated.
 */
export function normalizeClientAuthentication() {
  return (request: RecordedRequest, _response: Response, next: NextFunction): void => {
    const body = (request.body ?? {}) as Record<string, string>;
    const header = request.headers.authorization ?? "";
    let method = "none";
    if (header.startsWith("Basic ")) {
      const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
      const colon = decoded.indexOf(":");
      body.client_id = decodeURIComponent(decoded.slice(0, colon));
      body.client_secret = decodeURIComponent(decoded.slice(colon + 1));
      method = "basic";
    } else if (body.client_assertion) {
      method = "jwt";
    } else if (body.client_secret) {
      method = "post";
    }
    request.body = body;
    if (request.record) request.record.clientAuthentication = method;
    next();
  };
}

/** The client-credentials grant (which the SDK's server lacks), with a client secret or a private_key_jwt assertion. */
export function clientCredentialsGrant(context: {
  clients: Map<string, OAuthClientInformationFull>;
  keys: Record<string, string>;
  issue: (
    grant: { client: string; scopes: string[]; resource?: string },
    withRefresh: boolean,
  ) => OAuthTokens;
  base: string;
}) {
  return (request: Request, response: Response, next: NextFunction): void => {
    const body = request.body as Record<string, string>;
    if (body.grant_type !== "client_credentials") {
      next();
      return;
    }
    const subject = jwtClaims(body.client_assertion)?.sub;
    const clientId = body.client_id ?? (typeof subject === "string" ? subject : undefined);
    const client = clientId ? context.clients.get(clientId) : undefined;
    const authenticated =
      client !== undefined &&
      ((client.client_secret !== undefined && client.client_secret === body.client_secret) ||
        (body.client_assertion !== undefined &&
          verifyAssertion(body.client_assertion, client.client_id, context)));
    if (!client || !authenticated) {
      response.status(401).json({ error: "invalid_client" });
      return;
    }
    const scopes = body.scope ? body.scope.split(" ") : [];
    response.json(
      context.issue(
        { client: client.client_id, scopes, ...(body.resource ? { resource: body.resource } : {}) },
        false,
      ),
    );
  };
}

function jwtClaims(assertion: string | undefined): Record<string, unknown> | undefined {
  const payload = assertion?.split(".")[1];
  if (!payload) return undefined;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

/** Verifies an ES256 or RS256 client assertion: signature, iss = sub = client, audience, expiry. */
function verifyAssertion(
  assertion: string,
  clientId: string,
  context: { keys: Record<string, string>; base: string },
): boolean {
  const pem = context.keys[clientId];
  const [header, payload, signature] = assertion.split(".");
  if (!pem || !header || !payload || !signature) return false;
  const { alg } = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: string };
  const key = createPublicKey(pem);
  const data = Buffer.from(`${header}.${payload}`);
  const bytes = Buffer.from(signature, "base64url");
  const valid =
    alg === "ES256"
      ? verify("sha256", data, { key, dsaEncoding: "ieee-p1363" }, bytes)
      : alg === "RS256" && verify("sha256", data, key, bytes);
  const claims = jwtClaims(assertion) ?? {};
  const audiences = [claims.aud].flat().map(String);
  const audienceOk = audiences.some((audience) => audience.startsWith(context.base));
  return (
    valid &&
    claims.iss === clientId &&
    claims.sub === clientId &&
    audienceOk &&
    Number(claims.exp) * 1000 > Date.now()
  );
}
