import { chmodSync, readdirSync, readFileSync, statSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { planAllowRule } from "../src/config/allow-rule-edit.js";
import { replaceConfigFile } from "../src/config/config-file-write.js";
import { ConfigError, loadConfig } from "../src/config/index.js";
import { appendObjectMember, removeObjectMember } from "../src/config/json-text-edit.js";
import { scanJsonSpans } from "../src/config/parse-json-text.js";
import { unifiedDiff } from "../src/terminal/text-diff.js";
import { directory, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

const TOOL = { name: "mcp__docs__search", effect: "external" } as const;

function planned(file: string): { before: string; after: string } {
  const plan = planAllowRule(file, TOOL);
  if (!plan.ok) throw new Error(`refused: ${plan.reason}`);
  return { before: plan.edit.document.text, after: plan.edit.after };
}

describe("planAllowRule: the rule as a text edit", () => {
  it("appends to existing rules in their style, every other byte kept", () => {
    const text = [
      "{",
      '    "workspaceRoot": ".",',
      '    "mcpServers": { "docs": { "command": "node", "args": ["a.js",   "--flag"] } },',
      '    "toolTimeoutMs": 1.5e4,',
      '    "policy": {',
      '        "rules": [',
      '            { "tool": "mcp__other__*", "decision": "ask" }',
      "        ]",
      "    }",
      "}",
    ].join("\n");
    const { after } = planned(writeConfig(text));
    expect(after).toBe(
      text.replace(
        '"decision": "ask" }',
        '"decision": "ask" },\n            { "tool": "mcp__docs__search", "decision": "allow" }',
      ),
    );
    expect(loadConfig(writeConfig(after)).policy.rules.at(-1)).toEqual({
      tool: "mcp__docs__search",
      decision: "allow",
    });
  });

  it("writes the rule on one line when the rules before it are, though the last one spans lines", () => {
    // As in the repository's own agent.config.json.
    const text = [
      "{",
      '  "policy": {',
      '    "rules": [',
      '      { "tool": "mcp__everything__echo", "decision": "allow" },',
      "      {",
      '        "tool": "mcp__files__move_file",',
      '        "decision": "deny",',
      '        "reason": "moving files is never automated here"',
      "      }",
      "    ]",
      "  }",
      "}",
      "",
    ].join("\n");
    const { after } = planned(writeConfig(text));
    expect(after).toBe(
      text.replace(
        '"moving files is never automated here"\n      }',
        '"moving files is never automated here"\n      },\n      { "tool": "mcp__docs__search", "decision": "allow" }',
      ),
    );
  });

  it("adds a policy, or rules, where there is none, indented like the file", () => {
    const none = planned(writeConfig('{\n\t"workspaceRoot": "."\n}\n'));
    expect(none.after).toBe(
      '{\n\t"workspaceRoot": ".",\n\t"policy": {\n\t\t"rules": [\n\t\t\t{\n\t\t\t\t"tool": "mcp__docs__search",\n\t\t\t\t"decision": "allow"\n\t\t\t}\n\t\t]\n\t}\n}\n',
    );
    const noRules = planned(writeConfig({ policy: { network: "deny" } }));
    expect(JSON.parse(noRules.after)).toEqual({
      policy: { network: "deny", rules: [{ tool: "mcp__docs__search", decision: "allow" }] },
    });
    expect(noRules.after.startsWith('{\n  "policy": {\n    "network": "deny",\n    "rules": [')).toBe(true);
    const empty = planned(writeConfig('{"policy":{"rules":[]}}'));
    expect(empty.after).toBe('{"policy":{"rules":[ { "tool": "mcp__docs__search", "decision": "allow" } ]}}');
  });

  it("refuses a deny or ask rule that matches the tool, a pattern name, and .mcp.json without a policy", () => {
    const deny = planAllowRule(
      writeConfig({ policy: { rules: [{ tool: "mcp__docs__*", decision: "deny" }] } }),
      TOOL,
    );
    expect(deny).toEqual({ ok: false, reason: expect.stringContaining("never overrides a deny") });
    const ask = planAllowRule(writeConfig({ policy: { rules: [{ tool: "*", decision: "ask" }] } }), TOOL);
    expect(ask).toEqual({ ok: false, reason: expect.stringContaining("ask beats allow") });
    const glob = planAllowRule(writeConfig({}), { name: "mcp__docs__*", effect: "external" });
    expect(glob.ok).toBe(false);
    const claude = planAllowRule(writeConfig({ mcpServers: {} }, ".mcp.json"), TOOL);
    expect(claude).toEqual({ ok: false, reason: expect.stringContaining("agent.config.json") });
    // Once the user keeps our policy in .mcp.json, the rule goes there.
    expect(planAllowRule(writeConfig({ mcpServers: {}, policy: {} }, ".mcp.json"), TOOL).ok).toBe(true);
  });
});

describe("server entries edited in place (agent mcp add/remove)", () => {
  const text =
    '{\r\n  "mcpServers": {\r\n    "a": { "command": "x" },\r\n    "b": { "command": "y" },\r\n    "c": { "command": "z" }\r\n  }\r\n}';
  const servers = () => {
    const root = scanJsonSpans(text, "f.json");
    if (root.kind !== "object") throw new Error("not an object");
    const span = root.members[0]?.value;
    if (span?.kind !== "object") throw new Error("no servers");
    return span;
  };

  it("removes the first, a middle, the last or the only member with its comma, nothing else", () => {
    const without = (key: string) => removeObjectMember(text, servers(), key);
    expect(without("a")).toBe(text.replace('"a": { "command": "x" },\r\n    ', ""));
    expect(without("b")).toBe(text.replace('"b": { "command": "y" },\r\n    ', ""));
    expect(without("c")).toBe(text.replace(',\r\n    "c": { "command": "z" }', ""));
    const only = '{ "mcpServers": { "a": {} }, "policy": {} }';
    const root = scanJsonSpans(only, "f.json");
    const span = root.kind === "object" ? root.members[0]?.value : undefined;
    if (span?.kind !== "object") throw new Error("no servers");
    expect(removeObjectMember(only, span, "a")).toBe('{ "mcpServers": {}, "policy": {} }');
  });

  it("adds a member after the last one, on a line of its own, with the file's line endings", () => {
    expect(appendObjectMember(text, servers(), "d", { command: "w", args: ["1"] })).toBe(
      text.replace(
        '"c": { "command": "z" }',
        '"c": { "command": "z" },\r\n    "d": {\r\n      "command": "w",\r\n      "args": [\r\n        "1"\r\n      ]\r\n    }',
      ),
    );
  });
});

describe("replaceConfigFile", () => {
  it("keeps the mode, follows a symbolic link and leaves no temporary file", () => {
    const file = writeConfig({});
    chmodSync(file, 0o600);
    const link = join(directory(), "link.json");
    symlinkSync(file, link);
    replaceConfigFile(link, "{}\n", { expected: readFileSync(file) });
    expect(readFileSync(file, "utf8")).toBe("{}\n");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readdirSync(directory()).sort()).toEqual(["agent.config.json", "link.json"]);
  });

  it("writes nothing when the file changed since it was read", () => {
    const file = writeConfig({});
    const read = readFileSync(file);
    writeFileSync(file, '{ "edited": "meanwhile" }');
    let error: unknown;
    try {
      replaceConfigFile(file, "{}\n", { expected: read });
    } catch (caught) {
      error = caught;
    }
    expect(ConfigError.isInstance(error) && error.code).toBe("config_changed");
    expect(readFileSync(file, "utf8")).toBe('{ "edited": "meanwhile" }');
    expect(readdirSync(directory())).toEqual(["agent.config.json"]);
  });
});

describe("unifiedDiff", () => {
  it("shows the changed lines with two lines of context", () => {
    const before = "a\nb\nc\nd\ne\nf\n";
    const after = "a\nb\nc\nc2\nd\ne\nf\n";
    expect(unifiedDiff(before, after, "f.json")).toEqual([
      "--- f.json",
      "+++ f.json",
      "@@ -2,4 +2,5 @@",
      " b",
      " c",
      "+c2",
      " d",
      " e",
    ]);
    expect(unifiedDiff("x\n", "x\n", "f")).toEqual([]);
  });
});
