import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { request as httpsRequest } from "node:https";
import { networkInterfaces } from "node:os";
import { join } from "node:path";
import { describe, expect } from "vitest";
import { serveConsole, stopConsole } from "./e2e-console-helpers.js";
import { E2E_TIMEOUT_MS, type E2eSandbox, e2eTest as test } from "./e2e-helpers.js";

describe("agent serve refuses to expose the console unsafely", () => {
  test("a non-loopback host without TLS is refused, saying why and what to do", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("clear text");
    expect(refused.stderr).toContain("--tls-cert");
    expect(refused.stderr).toContain("ssh -L");
    expect(refused.stdout).not.toContain("login?token=");
  });

  test("--tls-cert without --tls-key is refused", { timeout: E2E_TIMEOUT_MS }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--tls-cert", "cert.pem", "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--tls-cert and --tls-key go together");
  });

  test("a bad --port is a usage error", { timeout: E2E_TIMEOUT_MS }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--port", "99999"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--port takes a port number");
  });
});

/** This machine's first non-loopback IPv4 address, if it has one. */
function nonLoopbackAddress(): string | undefined {
  return Object.values(networkInterfaces())
    .flat()
    .find((address) => address?.family === "IPv4" && !address.internal)?.address;
}

function hasOpenssl(): boolean {
  try {
    execFileSync("openssl", ["version"], { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const address = nonLoopbackAddress();
const tlsSkipReason = !hasOpenssl()
  ? "openssl is not installed (it makes the throwaway certificate)"
  : address === undefined
    ? "this machine has no non-loopback IPv4 address to bind"
    : undefined;
if (tlsSkipReason) process.stderr.write(`skipping agent serve's TLS test: ${tlsSkipReason}\n`);

// A throwaway self-signed certificate for `ip`, made now, in the sandbox; its PEM is the test's only CA.
function selfSignedCertificate(sandbox: E2eSandbox, ip: string): { cert: string; key: string } {
  const cert = join(sandbox.root, "cert.pem");
  const key = join(sandbox.root, "key.pem");
  execFileSync(
    "openssl",
    [
      ...["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"],
      ...["-keyout", key, "-out", cert, "-days", "1", "-subj", `/CN=${ip}`],
      ...["-addext", `subjectAltName=IP:${ip}`],
    ],
    { stdio: "ignore" },
  );
  return { cert, key };
}

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

// One GET over HTTPS that trusts only `ca`: the certificate must be valid for the URL's address.
function httpsGet(url: string, ca: string, cookie?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(url, { ca, headers: cookie ? { cookie } : {} }, (response) => {
      let body = "";
      response.setEncoding("utf8").on("data", (chunk: string) => {
        body += chunk;
      });
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body }),
      );
    });
    request.on("error", reject);
    request.end();
  });
}

// One GET in plain HTTP: a TLS port answers it with no HTTP response.
function plainGet(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(url, (response) => {
      response.resume();
      resolve(response.statusCode ?? 0);
    });
    request.on("error", reject);
    request.end();
  });
}

describe.skipIf(tlsSkipReason !== undefined)("agent serve on a non-loopback address", () => {
  const ip = address as string;

  test("serves HTTPS with the given certificate: the login link works once and sets a Secure __Host- cookie", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const { cert, key } = selfSignedCertificate(sandbox, ip);
    const ca = readFileSync(cert, "utf8");
    const served = await serveConsole(sandbox, {
      serveArgs: ["--host", ip, "--tls-cert", cert, "--tls-key", key],
    });
    try {
      expect(served.origin).toMatch(new RegExp(`^https://${ip.replaceAll(".", "\\.")}:\\d+$`));
      expect(served.agent.stderr()).not.toContain("plain HTTP");
      const login = await httpsGet(served.loginUrl, ca);
      expect(login.status).toBe(303);
      const setCookie = String(login.headers["set-cookie"]);
      expect(setCookie).toMatch(/^__Host-agent-console=[^;]+; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
      const cookie = setCookie.split(";")[0] as string;
      const queue = await httpsGet(`${served.origin}/approvals`, ca, cookie);
      expect(queue.status).toBe(200);
      expect(queue.body).toContain("Approval queue");
      expect((await httpsGet(served.loginUrl, ca)).status).toBe(403);
      // Nothing of the console is answered in clear text on that port.
      await expect(plainGet(`${served.origin.replace("https:", "http:")}/approvals`)).rejects.toThrow();
    } finally {
      await stopConsole(served);
    }
  });

  test("without TLS it is refused with the documented message, and --insecure-http serves plain HTTP saying so", {
    timeout: E2E_TIMEOUT_MS,
  }, async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--host", ip, "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `Not serving on ${ip}: beyond this machine, the login link and session cookie would cross the network in clear text.`,
    );
    expect(refused.stdout).not.toContain("login?token=");
    const insecure = await serveConsole(sandbox, { serveArgs: ["--host", ip, "--insecure-http"] });
    try {
      expect(insecure.origin).toMatch(/^http:\/\//);
      expect(insecure.agent.stderr()).toContain("(plain HTTP: --insecure-http)");
    } finally {
      await stopConsole(insecure);
    }
  });
});
