import { request as httpRequest } from "node:http";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { type ConsoleServer, startConsoleServer } from "../src/index.js";
import { createFakePorts } from "./fake-ports.js";

let server: ConsoleServer;
let ports: ReturnType<typeof createFakePorts>;

beforeEach(async () => {
  ports = createFakePorts();
  server = await startConsoleServer({
    ports,
    operator: "tester",
    host: "127.0.0.1",
    port: 0,
    pollIntervalMs: 20,
  });
});
afterEach(() => server.close());

// biome-ignore lint/suspicious/noExplicitAny: test bodies are read by shape
const json = (response: Response): Promise<any> => response.json();

async function login(): Promise<{ cookie: string; csrf: string }> {
  const response = await fetch(server.loginUrl, { redirect: "manual" });
  expect(response.status).toBe(303);
  const cookie = (response.headers.get("set-cookie") ?? "").split(";")[0] ?? "";
  const page = await (await fetch(`${server.origin}/approvals`, { headers: { cookie } })).text();
  const csrf = /name="csrf-token" content="([^"]+)"/.exec(page)?.[1] ?? "";
  return { cookie, csrf };
}

function post(path: string, headers: Record<string, string>, body = "{}"): Promise<Response> {
  return fetch(`${server.origin}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body,
  });
}

describe("login", () => {
  it("exchanges the link once for an HttpOnly, SameSite=Strict cookie and refuses a replay", async () => {
    const first = await fetch(server.loginUrl, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("set-cookie")).toMatch(/HttpOnly; SameSite=Strict/);
    const replay = await fetch(server.loginUrl, { redirect: "manual" });
    expect(replay.status).toBe(403);
    expect(replay.headers.get("set-cookie")).toBeNull();
    expect(await replay.text()).toContain("used already");
  });

  it("answers 401 with an error body without a session, for the API and the pages", async () => {
    const api = await fetch(`${server.origin}/api/approvals`);
    expect(api.status).toBe(401);
    expect(await json(api)).toEqual({
      error: { code: "not_logged_in", message: expect.stringContaining("login link") },
    });
    expect((await fetch(`${server.origin}/approvals`)).status).toBe(401);
    expect(
      (await fetch(`${server.origin}/api/approvals`, { headers: { cookie: "agent-console=forged" } })).status,
    ).toBe(401);
  });
});

describe("API", () => {
  it("lists and shows approvals, runs, servers and the audit trail; unknown ids are 404", async () => {
    const { cookie } = await login();
    const get = (path: string) => fetch(`${server.origin}${path}`, { headers: { cookie } });
    expect((await json(await get("/api/approvals"))).approvals[0].approval.id).toBe("req-1");
    expect((await get("/api/approvals/req-1")).status).toBe(200);
    expect(await json(await get("/api/approvals/nope"))).toEqual({
      error: { code: "not_found", message: 'No approval request "nope".' },
    });
    expect((await json(await get("/api/runs"))).runs[0].runId).toBe("run-1");
    expect((await get("/api/runs/nope")).status).toBe(404);
    expect((await json(await get("/api/servers"))).servers[0].name).toBe("evil");
    expect((await json(await get("/api/audit"))).records).toHaveLength(1);
    const badFilter = await get("/api/audit?tail=x");
    expect(badFilter.status).toBe(400);
    expect((await json(badFilter)).error.code).toBe("bad_request");
  });

  it("decides exactly once: a second decision is 409 and says who won", async () => {
    const { cookie, csrf } = await login();
    const origin = server.origin;
    const approve = await post("/api/approvals/req-1/approve", { cookie, origin, "x-csrf-token": csrf });
    expect(approve.status).toBe(200);
    const late = await post("/api/approvals/req-1/deny", { cookie, origin, "x-csrf-token": csrf });
    expect(late.status).toBe(409);
    expect((await json(late)).error).toMatchObject({
      code: "already_decided",
      message: "Already granted by console:tester.",
    });
    expect(ports.decisions).toEqual(["approve"]);
  });

  it("answers a refused run action with its code", async () => {
    const { cookie, csrf } = await login();
    const cancel = await post("/api/runs/run-1/cancel", {
      cookie,
      origin: server.origin,
      "x-csrf-token": csrf,
    });
    expect(cancel.status).toBe(409);
    expect((await json(cancel)).error.code).toBe("not_running");
    const resume = await post("/api/runs/run-1/resume", {
      cookie,
      origin: server.origin,
      "x-csrf-token": csrf,
    });
    expect(resume.status).toBe(202);
  });
});

describe("refusals", () => {
  it("refuses a decision without the session's CSRF token, and decides nothing", async () => {
    const { cookie } = await login();
    for (const token of [undefined, "forged"]) {
      const response = await post("/api/approvals/req-1/approve", {
        cookie,
        origin: server.origin,
        ...(token && { "x-csrf-token": token }),
      });
      expect(response.status).toBe(403);
      expect((await json(response)).error.code).toBe("csrf_invalid");
    }
    expect(ports.decisions).toEqual([]);
  });

  it("refuses a cross-origin post, and one with no Origin that is not same-origin", async () => {
    const { cookie, csrf } = await login();
    const cross = await post("/api/approvals/req-1/approve", {
      cookie,
      origin: "http://evil.example",
      "x-csrf-token": csrf,
    });
    expect(cross.status).toBe(403);
    expect((await json(cross)).error.code).toBe("cross_origin");
    const none = await post("/api/approvals/req-1/approve", { cookie, "x-csrf-token": csrf });
    expect(none.status).toBe(403);
    expect(ports.decisions).toEqual([]);
  });

  it("refuses a request naming another host (DNS rebinding)", async () => {
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const url = new URL(server.origin);
      const request = httpRequest(
        { host: url.hostname, port: url.port, path: "/approvals", headers: { host: "evil.example" } },
        (response) => {
          response.resume();
          resolve(response.statusCode);
        },
      );
      request.on("error", reject);
      request.end();
    });
    expect(status).toBe(421);
  });

  it("refuses an oversized body", async () => {
    const { cookie, csrf } = await login();
    const response = await post(
      "/api/approvals/req-1/deny",
      { cookie, origin: server.origin, "x-csrf-token": csrf },
      JSON.stringify({ reason: "x".repeat(20_000) }),
    );
    expect(response.status).toBe(413);
    expect(ports.decisions).toEqual([]);
  });
});

describe("pages", () => {
  it("send a strict CSP, load only this origin's script, and render hostile strings as text", async () => {
    const { cookie } = await login();
    const approvals = await fetch(`${server.origin}/approvals`, { headers: { cookie } });
    const csp = approvals.headers.get("content-security-policy") ?? "";
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain("unsafe-inline");
    const html = await approvals.text();
    expect(html).not.toContain("<img src=x");
    expect(html).toContain("&lt;img src=x onerror=alert(1)&gt;");
    expect(html).not.toMatch(/<script>(?!\s*<\/script>)/);
    const run = await (await fetch(`${server.origin}/runs/run-1`, { headers: { cookie } })).text();
    expect(run).not.toContain("<script>alert");
    expect(run).not.toContain("\u001b");
    expect(run).toContain("\\u001b[31m&lt;script&gt;");
    const servers = await (await fetch(`${server.origin}/servers`, { headers: { cookie } })).text();
    expect(servers).toContain("&lt;b&gt;bold&lt;/b&gt;\\u001b[2J");
    const detail = await (await fetch(`${server.origin}/approvals/req-1`, { headers: { cookie } })).text();
    expect(detail).toContain("a".repeat(2000));
    expect(detail).toContain('class="copy"');
  });

  it("a decision form post redirects to the request, which then says it was decided", async () => {
    const { cookie, csrf } = await login();
    const form = await fetch(`${server.origin}/api/approvals/req-1/approve`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie,
        origin: server.origin,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(form.status).toBe(303);
    expect(form.headers.get("location")).toBe("/approvals/req-1?outcome=approved");
    const late = await fetch(`${server.origin}/api/approvals/req-1/deny`, {
      method: "POST",
      redirect: "manual",
      headers: {
        cookie,
        origin: server.origin,
        accept: "text/html",
        "content-type": "application/x-www-form-urlencoded",
      },
      body: new URLSearchParams({ csrf }).toString(),
    });
    expect(late.headers.get("location")).toBe("/approvals/req-1?outcome=already_decided");
    const page = await (
      await fetch(`${server.origin}${late.headers.get("location")}`, { headers: { cookie } })
    ).text();
    expect(page).toContain("Too late");
    expect(page).toContain("console:tester");
  });
});

describe("denying with a reason", () => {
  it("hands the operator's reason to the decision port; an approval takes none", async () => {
    const { cookie, csrf } = await login();
    const deny = await fetch(`${server.origin}/api/approvals/req-1/deny`, {
      method: "POST",
      redirect: "manual",
      headers: { cookie, origin: server.origin, "content-type": "application/x-www-form-urlencoded" },
      body: new URLSearchParams({ csrf, reason: "  not on a Friday <b>  " }).toString(),
    });
    expect(deny.status).toBe(200);
    expect(ports.decisions).toEqual(["deny"]);
    expect(ports.reasons).toEqual(["  not on a Friday <b>  "]);
  });
});

describe("the servers page", () => {
  it("reads the servers once for several views, shows when, and reads again on Check again (with CSRF)", async () => {
    const { cookie, csrf } = await login();
    const page = await (await fetch(`${server.origin}/servers`, { headers: { cookie } })).text();
    expect(page).toContain('id="checked-at"');
    expect(page).toContain('action="/api/servers/refresh"');
    const api = await json(await fetch(`${server.origin}/api/servers`, { headers: { cookie } }));
    expect(api.servers[0].name).toBe("evil");
    expect(api.checkedAt).toEqual(expect.any(String));
    expect(ports.serverReads).toBe(1);
    const refused = await post("/api/servers/refresh", { cookie, origin: server.origin });
    expect(refused.status).toBe(403);
    expect(ports.serverReads).toBe(1);
    const refreshed = await post("/api/servers/refresh", {
      cookie,
      origin: server.origin,
      "x-csrf-token": csrf,
    });
    expect(refreshed.status).toBe(200);
    expect((await json(refreshed)).servers[0].name).toBe("evil");
    expect(ports.serverReads).toBe(2);
  });
});

describe("live updates", () => {
  it("a request decided elsewhere is announced on its event stream", async () => {
    const { cookie, csrf } = await login();
    const stream = await fetch(`${server.origin}/events/approvals/req-1`, { headers: { cookie } });
    expect(stream.headers.get("content-type")).toContain("text/event-stream");
    const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
    await reader.read(); // the opening comment: the stream is watching
    await ports.approvals.decide("req-1", "deny");
    let seen = "";
    while (!seen.includes("event: changed")) seen += new TextDecoder().decode((await reader.read()).value);
    expect(seen).toContain('"status":"denied"');
    await reader.cancel();
    expect(csrf).not.toBe("");
  });
});
