import { MCP_ERROR_CODES, type McpResponse } from "@agent/mcp-transport";
import { createSseTransport, createStreamableHttpTransport } from "@agent/mcp-transport/http";
import { describe, expect, it, onTestFinished } from "vitest";
// By path, not by package: @agent/mcp-testing depends on this package.
import { sseServerPath, startLoopbackHttpServer } from "../../mcp-testing/src/servers/index.js";
import { HTTP_ERROR_EXCERPT_CHARS, summarizeHttpError } from "../src/sdk/http-error-summary.js";
import { closeAfterTest, INITIALIZE_PARAMS, initialize, never } from "./helpers.js";

const TOKEN = "page-echoed-token-4321";

/** A proxy's error page of about 20 KB: markup, a script, a style, terminal escapes, an echoed credential. */
function errorPage(status: number): string {
  const filler = Array.from(
    { length: 300 },
    (_, line) => `<p class="row">line ${line} \u001b[31mred\u001b[0m\r\n\u202e &amp; more</p>`,
  );
  return [
    "<!DOCTYPE html>",
    `<html><head><title>${status} Bad Gateway</title>`,
    "<style>body { color: red } </style><script>var secret = 'not text';</script></head>",
    `<body>\n  <h1>${status}\t  Bad   Gateway</h1>`,
    `<!-- upstream ${TOKEN} -->`,
    `<p>upstream said: Authorization=Bearer ${TOKEN}</p>`,
    ...filler,
    "<hr><center>nginx/1.25.3</center></body></html>",
  ].join("\n");
}

function pageResponse(status: number, body = errorPage(status)): Response {
  return new Response(body, { status, headers: { "content-type": "text/html" } });
}

function messageOf(response: McpResponse): string {
  if (response.ok) throw new Error("expected a failure");
  return response.error.message;
}

/** What every summarized message must be: one short printable line, no markup, no credential. */
function expectOneSafeLine(message: string): void {
  expect(message).not.toMatch(/[\p{Cc}\p{Cf}]/u);
  expect(message).not.toMatch(/<\/?[a-z]/i);
  expect(message).not.toContain(TOKEN);
  expect(message).not.toContain("not text");
  expect(message.length).toBeLessThan(HTTP_ERROR_EXCERPT_CHARS + 150);
}

describe("HTTP error pages", () => {
  it("Streamable HTTP: a 502 page becomes its status, reason and a short escaped excerpt", async () => {
    const transport = closeAfterTest(
      createStreamableHttpTransport({
        url: "http://127.0.0.1:9/mcp",
        headers: { Authorization: `Bearer ${TOKEN}` },
        fetch: async () => pageResponse(502),
      }),
    );
    const response = await transport.request("initialize", INITIALIZE_PARAMS, never());
    expect(response).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed, data: { httpStatus: 502 } },
    });
    const message = messageOf(response);
    expect(message).toMatch(/^the server answered HTTP 502 Bad Gateway: "502 Bad Gateway 502 Bad Gateway /);
    expect(message).toContain("line 0 \\x1b[31mred\\x1b[0m \\u202e &amp; more");
    expect(message).toMatch(/…"$/);
    expectOneSafeLine(message);
  });

  it("Streamable HTTP: a 404 with an empty body is just its status line", async () => {
    const transport = closeAfterTest(
      createStreamableHttpTransport({
        url: "http://127.0.0.1:9/mcp",
        fetch: async () => new Response("", { status: 404 }),
      }),
    );
    const response = await transport.request("initialize", INITIALIZE_PARAMS, never());
    expect(response).toMatchObject({ ok: false, error: { data: { httpStatus: 404 } } });
    expect(messageOf(response)).toBe("the server answered HTTP 404 Not Found");
  });

  it("legacy SSE: a POST answered with an error page is summarized the same way", async () => {
    const server = await startLoopbackHttpServer(sseServerPath(), [], { path: "/sse" });
    onTestFinished(server.kill);
    let broken = false;
    const transport = closeAfterTest(
      createSseTransport({
        url: server.url,
        headers: { Authorization: `Bearer ${TOKEN}` },
        fetch: async (input, init) =>
          broken && init?.method === "POST" ? pageResponse(503) : fetch(input, init),
      }),
    );
    await initialize(transport);
    broken = true;
    const response = await transport.request("tools/list", {}, never());
    expect(response).toMatchObject({
      ok: false,
      error: { code: MCP_ERROR_CODES.connectionClosed, data: { httpStatus: 503 } },
    });
    const message = messageOf(response);
    expect(message).toMatch(/^the server answered HTTP 503 Service Unavailable: "503 Bad Gateway /);
    expectOneSafeLine(message);
  });
});

describe("summarizeHttpError", () => {
  const keep = (text: string) => text;

  it("keeps a short plain-text or JSON body, collapsing its whitespace", () => {
    expect(summarizeHttpError(400, '{"error":\n  "bad  session"}', keep)).toBe(
      'HTTP 400 Bad Request: "{"error": "bad session"}"',
    );
    expect(summarizeHttpError(599, "a < b and c > d", keep)).toBe('HTTP 599: "a < b and c > d"');
  });

  it("never joins the text on both sides of a tag into one word", () => {
    expect(summarizeHttpError(500, "<b>sec</b><i>ret</i>", (text) => text.replaceAll("secret", "[x]"))).toBe(
      'HTTP 500 Internal Server Error: "sec ret"',
    );
  });

  it("drops an unclosed script or comment to the end, and cuts without splitting a character", () => {
    expect(summarizeHttpError(502, "<p>shown</p><script>hidden", keep)).toBe('HTTP 502 Bad Gateway: "shown"');
    expect(summarizeHttpError(502, "<p>shown</p><!-- hidden", keep)).toBe('HTTP 502 Bad Gateway: "shown"');
    const long = summarizeHttpError(502, "😀".repeat(500), keep);
    expect(Array.from(long.split('"')[1] ?? "")).toHaveLength(HTTP_ERROR_EXCERPT_CHARS);
    expect(long).not.toMatch(/[\ud800-\udfff](?![\udc00-\udfff])/u);
  });

  it("redacts before cutting, so a secret at the cut is never shown in part", () => {
    const secret = "s".repeat(50);
    const body = `${"x ".repeat(90)}${secret}`;
    const summary = summarizeHttpError(500, body, (text) => text.replaceAll(secret, "[redacted]"));
    expect(summary).toContain("[redacted]");
    expect(summary).not.toContain("sss");
  });
});
