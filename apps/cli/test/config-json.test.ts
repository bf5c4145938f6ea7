import { describe, expect, it } from "vitest";
import { parseJsonText } from "../src/config/index.js";
import { loadError, useConfigDirectory, writeConfig } from "./config-helpers.js";

useConfigDirectory();

describe("the configuration's JSON text", () => {
  it("reports JSON syntax errors with line and column, without quoting the file", () => {
    const file = writeConfig(
      '{\n  "mcpServers": {\n    "docs": { "command": "run", "env": { "TOKEN": "hunter2" }, }\n  }\n}\n',
    );
    const error = loadError(file);
    expect(error.code).toBe("config_invalid_json");
    expect(error.message).toBe(
      `${file}:3:64: unexpected '}'; expected a property name in double quotes (JSON allows no comma after the last property).`,
    );
    expect(error.message).not.toContain("hunter2");

    const truncated = loadError(writeConfig('{ "mcpServers": {'));
    expect(truncated.message).toContain(":1:18: unexpected end of the file");
  });

  it("accepts exactly the JSON that JSON.parse accepts", () => {
    const valid = [
      '{"a":"\\u00e9\\n\\"\\\\\\/","b":[1,-0.5,2E+3,0,true,false,null,{}],"c":[]}',
      '\ufeff{"mcpServers":{}}',
      ' \r\n\t{ "policy" : { "network" : "allow" } } \n',
    ];
    for (const text of valid)
      expect(parseJsonText(text, "f.json")).toEqual(JSON.parse(text.replace(/^\ufeff/, "")));
    const invalid = [
      "",
      "{",
      '{"a":01}',
      '{"a":1.}',
      '{"a":"\\x"}',
      "{'a':1}",
      '{"a":1} x',
      "[1,]",
      '{"a":"\t"}',
    ];
    for (const text of invalid) {
      expect(() => JSON.parse(text)).toThrow();
      expect(loadError(writeConfig(text)).code).toBe("config_invalid_json");
    }
  });

  it("refuses a key repeated in one object", () => {
    const error = loadError(writeConfig('{\n  "policy": { "network": "deny" },\n  "policy": {}\n}'));
    expect(error.code).toBe("config_invalid");
    expect(error.message).toContain(':3:3: duplicate key "policy"');
  });
});
