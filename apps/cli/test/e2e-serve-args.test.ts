import { describe, expect } from "vitest";
import { e2eTest as test } from "./e2e-helpers.js";

describe("agent serve refuses to expose the console unsafely", () => {
  test("a non-loopback host without TLS is refused, saying why and what to do", async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--host", "0.0.0.0", "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("clear text");
    expect(refused.stderr).toContain("--tls-cert");
    expect(refused.stderr).toContain("ssh -L");
    expect(refused.stdout).not.toContain("login?token=");
  });

  test("--tls-cert without --tls-key is refused", async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--tls-cert", "cert.pem", "--port", "0"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--tls-cert and --tls-key go together");
  });

  test("a bad --port is a usage error", async ({ sandbox }) => {
    sandbox.writeConfig({});
    const refused = await sandbox.run(["serve", "--port", "99999"]);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain("--port takes a port number");
  });
});
