import {
  createRedactingTransport,
  createRedactor,
  type McpTransport,
  redactJson,
} from "@agent/mcp-transport";
import { describe, expect, it } from "vitest";

const SECRET = "s3cr/t+Tok?en=42";

/** Every way a server might echo `secret` back. */
function echoes(secret: string): Record<string, string> {
  const bytes = Buffer.from(secret, "utf8");
  return {
    plain: secret,
    percent: encodeURIComponent(secret),
    percentEveryByte: [...bytes].map((byte) => `%${byte.toString(16).padStart(2, "0")}`).join(""),
    percentUpper: [...bytes].map((byte) => `%${byte.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
    json: JSON.stringify(secret).slice(1, -1),
    unicodeEscapes: [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join(""),
    hex: bytes.toString("hex"),
    hexUpper: bytes.toString("hex").toUpperCase(),
    base64: bytes.toString("base64"),
    base64url: bytes.toString("base64url"),
    basicAuth: Buffer.from(`user:${secret}`).toString("base64"),
    embedded1: Buffer.from(`x${secret}yz`).toString("base64"),
    embedded2: Buffer.from(`xy${secret}z`).toString("base64url"),
  };
}

describe("createRedactor", () => {
  for (const secret of [SECRET, "48213", "pässwörd-ünicode"]) {
    for (const [form, text] of Object.entries(echoes(secret))) {
      it(`removes ${JSON.stringify(secret)} echoed as ${form}`, () => {
        const redact = createRedactor([secret]);
        const echoed = `before ${text} after`;
        const cleaned = redact.secrets(echoed);
        expect(cleaned).toContain("[redacted]");
        for (const [, encoded] of Object.entries(echoes(secret))) {
          // No complete encoded form survives (base64 cores leave at most a partial character at each end).
          if (encoded.length >= 8 && !/^[A-Za-z0-9+/=_-]+$/.test(encoded))
            expect(cleaned).not.toContain(encoded);
        }
        expect(cleaned).not.toContain(secret);
        expect(cleaned.startsWith("before ")).toBe(true);
      });
    }
  }

  it("keeps values too short to redact, and ordinary text", () => {
    const redact = createRedactor(["on", "1234"]);
    expect(redact.secrets("on 1234 one")).toBe("on [redacted] one");
    expect(createRedactor(["abc"]).hasSecrets).toBe(false);
    expect(createRedactor(["abcd"]).hasSecrets).toBe(true);
  });
});

describe("Redactor.learn", () => {
  it("removes a secret learned later wherever the redactor is already in use", async () => {
    const redact = createRedactor([]);
    const stream = redact.stream();
    expect(redact.hasSecrets).toBe(false);
    const token = "oauth-access-7d1e";
    redact.learn(token);
    redact.learn("abc");
    expect(redact.hasSecrets).toBe(true);
    expect(redact.secrets(`Bearer ${token}`)).toBe("Bearer [redacted]");
    expect(redact(`basic ${Buffer.from(token).toString("base64")}`)).toMatch(/^basic \[redacted\].{0,2}$/);
    expect(redact.secrets("abc stays: too short")).toBe("abc stays: too short");
    expect(stream.push(`token ${token.slice(0, 5)}`) + stream.push(token.slice(5)) + stream.end()).toBe(
      "token [redacted]",
    );
  });
});

describe("createRedactingTransport with a redactor that learns", () => {
  it("removes a secret learned after the transport was wrapped", async () => {
    const token = "learned-token-9f2c";
    const inner = {
      request: async () => ({
        ok: true as const,
        result: { content: [{ type: "text", text: `you sent ${token}` }] },
      }),
      notify: async () => ({ ok: true as const }),
      onNotification: () => () => {},
      onClose: () => () => {},
      close: async () => {},
    } as unknown as McpTransport;
    const redactor = createRedactor([]);
    const transport = createRedactingTransport(inner, redactor);
    const before = await transport.request("tools/call", {}, new AbortController().signal);
    expect(JSON.stringify(before)).toContain(token);
    redactor.learn(token);
    const after = await transport.request("tools/call", {}, new AbortController().signal);
    expect(JSON.stringify(after)).not.toContain(token);
    expect(JSON.stringify(after)).toContain("you sent [redacted]");
  });
});

describe("Redactor.stream", () => {
  const pushAll = (stream: ReturnType<ReturnType<typeof createRedactor>["stream"]>, pieces: string[]) =>
    pieces.map((piece) => stream.push(piece)).join("") + stream.end();

  for (const secret of [SECRET, "48213", "pässwörd-ünicode"]) {
    for (const [form, text] of Object.entries(echoes(secret))) {
      it(`removes ${JSON.stringify(secret)} as ${form} split at every point, as the whole text would`, () => {
        const redact = createRedactor([secret]);
        const whole = `before ${text} after`;
        for (let cut = 0; cut <= whole.length; cut += 1) {
          const shown = pushAll(redact.stream(), [whole.slice(0, cut), whole.slice(cut)]);
          expect(shown, `cut at ${cut}`).toBe(redact.secrets(whole));
        }
        expect(pushAll(redact.stream(), [...whole])).toBe(redact.secrets(whole));
      });
    }
  }

  it("shows text at once when there are no secrets, and holds back only the tail otherwise", () => {
    expect(createRedactor([]).stream().push("hello")).toBe("hello");
    const stream = createRedactor(["t0ken"]).stream();
    const long = "a".repeat(200);
    const shown = stream.push(long);
    expect(shown.length).toBeGreaterThan(0);
    expect(long.startsWith(shown)).toBe(true);
    expect(shown + stream.end()).toBe(long);
    expect(stream.end()).toBe("");
  });
});

describe("redactJson", () => {
  it("cleans strings, keys and numbers at any depth, keeping order and __proto__ as data", () => {
    const redact = createRedactor(["48213"]);
    let deep: unknown = "48213";
    for (let depth = 0; depth < 20_000; depth += 1) deep = [deep];
    const value = JSON.parse('{"b":1,"a":"x48213","__proto__":{"48213":48213},"n":482130}') as Record<
      string,
      unknown
    >;
    const cleaned = redactJson({ ...value, deep }, redact) as Record<string, unknown>;
    expect(Object.keys(cleaned)).toEqual(["b", "a", "__proto__", "n", "deep"]);
    expect(JSON.stringify({ ...cleaned, deep: null })).not.toContain("48213");
    let leaf: unknown = cleaned.deep;
    for (let depth = 0; depth < 20_000; depth += 1) leaf = (leaf as unknown[])[0];
    expect(leaf).toBe("[redacted]");
    expect(cleaned.a).toBe("x[redacted]");
    expect(Object.getPrototypeOf(cleaned)).toBe(Object.prototype);
    expect(cleaned.n).toBe("[redacted]");
  });
});

describe("createRedactingTransport", () => {
  it("cleans results, errors, notifications, progress and close reasons", async () => {
    const secret = "tok-5f3a9";
    const listeners: ((n: { method: string; params?: unknown }) => void)[] = [];
    let closeListener: ((reason: { kind: "lost"; message: string }) => void) | undefined;
    const progress: string[] = [];
    const inner: McpTransport = {
      request: async (method, _params, context) => {
        const ctx = context as { onProgress?: (p: { progress: number; message?: string }) => void };
        ctx.onProgress?.({ progress: 1, message: `at ${secret}` });
        return method === "ok"
          ? {
              ok: true,
              result: { content: [{ type: "text", text: Buffer.from(secret).toString("base64") }] },
            }
          : { ok: false, error: { code: -1, message: `bad ${secret}`, data: { echo: secret } } };
      },
      notify: async () => ({ ok: true }),
      onNotification: (listener) => {
        listeners.push(listener);
        return () => {};
      },
      onClose: (listener) => {
        closeListener = listener as typeof closeListener;
        return () => {};
      },
      close: async () => {},
    };
    const transport = createRedactingTransport(inner, createRedactor([secret]));
    const seen: unknown[] = [];
    transport.onNotification((notification) => seen.push(notification));
    transport.onClose((reason) => seen.push(reason));
    const context = {
      signal: new AbortController().signal,
      onProgress: (p: { message?: string }) => progress.push(p.message ?? ""),
    };
    seen.push(await transport.request("ok", {}, context), await transport.request("fail", {}, context));
    for (const listener of listeners) listener({ method: "notifications/message", params: { data: secret } });
    closeListener?.({ kind: "lost", message: `lost ${secret}` });
    const text = JSON.stringify([seen, progress]);
    expect(text).not.toContain(secret);
    expect(text).not.toContain(Buffer.from(secret).toString("base64"));
    // Progress, result, error message and data, notification, close reason.
    expect(text.match(/\[redacted\]/g)?.length).toBeGreaterThanOrEqual(6);
  });

  it("hands the caller a task id that echoes a secret redacted, and passes the call's own task id on", async () => {
    const secret = "tok-5f3a9";
    let resumedWith: string | undefined;
    const inner: McpTransport = {
      request: async (_method, _params, context) => {
        const ctx = context as { resumeTaskId?: string; onTask?: (event: unknown) => void };
        resumedWith = ctx.resumeTaskId;
        ctx.onTask?.({ kind: "created", taskId: `task-${secret}`, status: "working", pollIntervalMs: 10 });
        return { ok: true, result: {} };
      },
      notify: async () => ({ ok: true }),
      onNotification: () => () => {},
      onClose: () => () => {},
      close: async () => {},
    };
    const transport = createRedactingTransport(inner, createRedactor([secret]));
    const events: unknown[] = [];
    await transport.request(
      "tools/call",
      {},
      {
        signal: new AbortController().signal,
        resumeTaskId: "task-1",
        onTask: (event) => void events.push(event),
      },
    );
    expect(resumedWith).toBe("task-1");
    expect(JSON.stringify(events)).not.toContain(secret);
    expect(events).toEqual([
      expect.objectContaining({ kind: "created", taskId: expect.stringContaining("[redacted]") }),
    ]);
  });
});
