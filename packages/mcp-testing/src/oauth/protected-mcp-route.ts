import { requireBearerAuth } from "@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js";
import type { OAuthTokenVerifier } from "@modelcontextprotocol/sdk/server/auth/provider.js";
import type { AuthInfo } from "@modelcontextprotocol/sdk/server/auth/types.js";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import express, { type Request, type Router } from "express";
import { z } from "zod";

/** The protected MCP endpoint: bearer tokens checked by the SDK, step-up per tool, a stateless server. */
export function protectedMcpRoute(options: {
  verifier: OAuthTokenVerifier;
  resourceMetadataUrl: string;
  requiredScopes: string[];
  toolScopes: Record<string, string[]>;
}): Router {
  const router = express.Router();
  router.use(
    requireBearerAuth({
      verifier: options.verifier,
      requiredScopes: options.requiredScopes,
      resourceMetadataUrl: options.resourceMetadataUrl,
    }),
  );
  router.post("/", (request: Request & { auth?: AuthInfo }, response, next) => {
    const body = request.body as { method?: string; params?: { name?: string } } | undefined;
    const extra = body?.method === "tools/call" ? options.toolScopes[body.params?.name ?? ""] : undefined;
    const granted = request.auth?.scopes ?? [];
    if (extra && !extra.every((scope) => granted.includes(scope))) {
      const needed = [...new Set([...options.requiredScopes, ...granted, ...extra])].join(" ");
      response
        .status(403)
        .set(
          "WWW-Authenticate",
          `Bearer error="insufficient_scope", scope="${needed}", resource_metadata="${options.resourceMetadataUrl}"`,
        )
        .json({ error: "insufficient_scope" });
      return;
    }
    next();
  });
  router.all("/", async (request: Request & { auth?: AuthInfo }, response) => {
    const server = new McpServer({ name: "oauth-test-server", version: "1.0.0" });
    const who = request.auth;
    // It also echoes the bearer token it was sent, as a careless (or hostile) server would.
    server.registerTool("whoami", { description: "Who the token belongs to", inputSchema: {} }, async () => ({
      content: [
        {
          type: "text",
          text: JSON.stringify({ client: who?.clientId, scopes: who?.scopes ?? [], token: who?.token }),
        },
      ],
    }));
    for (const name of Object.keys(options.toolScopes)) {
      server.registerTool(
        name,
        {
          description: `Needs ${options.toolScopes[name]?.join(" ")}`,
          inputSchema: { text: z.string().optional() },
        },
        async () => ({ content: [{ type: "text", text: `${name} done` }] }),
      );
    }
    // No session id generator: a stateless server, one per request.
    const transport = new StreamableHTTPServerTransport({});
    response.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request, response, request.body);
  });
  return router;
}
