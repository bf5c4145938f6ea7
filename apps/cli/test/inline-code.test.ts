import { describe, expect, it } from "vitest";
import { findInlineCode } from "../src/local-tools/inline-code.js";

const lookup = { cwd: "/", path: "/usr/local/bin:/usr/bin:/bin" };

describe("findInlineCode (what runCommand.allowShell: false refuses)", () => {
  it.each([
    ["busybox", ["sh", "-c", "id"]],
    ["/usr/bin/busybox", ["ash", "-c", "id"]],
    ["sudo", ["-u", "nobody", "bash", "-c", "id"]],
    ["sudo", ["-s", "id"]],
    ["python3.12", ["-Ic", "print(1)"]],
    ["deno", ["eval", "console.log(1)"]],
    ["ruby", ["-ne", "print"]],
    ["php", ["-r", "echo 1;"]],
    ["watch", ["id"]],
    ["find", [".", "-exec", "sh", "-c", "id", ";"]],
    ["flock", ["/tmp/lock", "-c", "id"]],
    ["gawk", ["-F:", "{ print $1 }", "/etc/passwd"]],
    ["node", ["--print=1"]],
    ["zsh", ["-o", "noglob", "-c", "id"]],
  ])("refuses %s %j", (command, args) => {
    expect(findInlineCode(command, args, lookup)).toBeDefined();
  });

  it.each([
    ["grep", ["-c", "x", "file"]],
    ["gcc", ["-c", "main.c"]],
    ["make", ["-C", "sub"]],
    ["git", ["-c", "color.ui=never", "status"]],
    ["sh", ["build.sh"]],
    ["node", ["server.js"]],
    ["awk", ["-f", "report.awk", "data.txt"]],
    ["env", ["FOO=1", "ls", "-c"]],
    ["watch", ["-x", "ls"]],
    ["find", [".", "-name", "awk"]],
  ])("lets %s %j run", (command, args) => {
    expect(findInlineCode(command, args, lookup)).toBeUndefined();
  });
});
