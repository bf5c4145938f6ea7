import { type FakeHandler, FakeTransport } from "@agent/mcp-testing";
import { describe, expect, it } from "vitest";
import { listPrompts, listResources, listResourceTemplates, templateMatcher } from "../src/server-catalog.js";

const CONTEXT = { signal: new AbortController().signal };

function onePage(method: string, result: unknown): FakeTransport {
  const handler: FakeHandler = () => ({ ok: true, result });
  return new FakeTransport({ [method]: handler });
}

describe("templateMatcher", () => {
  it("matches what each RFC 6570 operator can expand to", () => {
    const cases: [string, string[], string[]][] = [
      ["file:///{name}", ["file:///a.txt", "file:///"], ["file:///a/b.txt"]],
      ["file:///{+path}", ["file:///a/b/c.txt"], ["file:///a#frag"]],
      ["repo://{owner}/{repo}", ["repo://me/tool"], ["repo://me/tool/extra", "other://me/tool"]],
      ["search{?q,lang}", ["search", "search?q=x&lang=en"], ["search/x"]],
      ["path{/segments*}", ["path", "path/a/b"], ["path?x"]],
    ];
    for (const [template, matching, other] of cases) {
      const matches = templateMatcher(template);
      expect(matches, template).toBeDefined();
      for (const uri of matching) expect(matches?.(uri), `${template} ~ ${uri}`).toBe(true);
      for (const uri of other) expect(matches?.(uri), `${template} !~ ${uri}`).toBe(false);
    }
  });

  it("takes the template's literal text literally, regular-expression characters included", () => {
    const matches = templateMatcher("db://a.b+c/{id}");
    expect(matches?.("db://a.b+c/7")).toBe(true);
    expect(matches?.("db://aXbbc/7")).toBe(false);
  });

  it("refuses a malformed template", () => {
    for (const template of ["a{", "a}", "a}{b}", "{}", "{bad name}", "{x:0}", "{=x}"]) {
      expect(templateMatcher(template), template).toBeUndefined();
    }
  });
});

describe("catalog listings", () => {
  it("keeps well-formed resources and rejects each malformed one with its name and reason", async () => {
    const transport = onePage("resources/list", {
      resources: [
        { uri: "file:///a", name: "a", size: 3 },
        { uri: 7, name: "bad-uri" },
        { uri: "file:///b", name: "bad-size", size: -1 },
        "not an object",
      ],
    });
    const listing = await listResources("docs", transport, CONTEXT);
    expect(listing.entries).toEqual([expect.objectContaining({ uri: "file:///a", name: "a", size: 3 })]);
    expect(listing.rejected.map((entry) => [entry.kind, entry.name])).toEqual([
      ["resource", "bad-uri"],
      ["resource", "bad-size"],
      ["resource", "#3"],
    ]);
  });

  it("reads a server without resources/templates/list as having no templates, and rejects templates it cannot match", async () => {
    expect(await listResourceTemplates("docs", new FakeTransport(), CONTEXT)).toEqual({
      entries: [],
      rejected: [],
      pages: 1,
    });
    const transport = onePage("resources/templates/list", {
      resourceTemplates: [
        { uriTemplate: "file:///{name}", name: "files" },
        { uriTemplate: "file:///{", name: "broken" },
      ],
    });
    const listing = await listResourceTemplates("docs", transport, CONTEXT);
    expect(listing.entries.map((entry) => entry.name)).toEqual(["files"]);
    expect(listing.rejected).toEqual([
      { kind: "resource_template", name: "broken", reason: "uriTemplate is not a valid RFC 6570 template" },
    ]);
  });

  it("reads prompts with their arguments, required only when the server says so", async () => {
    const transport = onePage("prompts/list", {
      prompts: [
        {
          name: "review",
          arguments: [
            { name: "code", required: true },
            { name: "style", description: "tone" },
          ],
        },
        { name: "nameless-argument", arguments: [{ required: true }] },
      ],
    });
    const listing = await listPrompts("docs", transport, CONTEXT);
    expect(listing.entries).toEqual([
      expect.objectContaining({
        name: "review",
        arguments: [
          { name: "code", required: true },
          { name: "style", required: false, description: "tone" },
        ],
      }),
    ]);
    expect(listing.rejected).toEqual([
      { kind: "prompt", name: "nameless-argument", reason: "every argument needs a name" },
    ]);
  });
});
