import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createBwrapSandbox } from "@agent/policy/bwrap";
import type { ToolContext } from "@agent/tools";
import { describe, expect, it, onTestFinished } from "vitest";
import {
  createRunCommandTool,
  MAX_COMMAND_OUTPUT_BYTES,
  PathGuard,
  type RunCommandOutput,
} from "../src/local-tools/index.js";

/** `run_command` with shells not allowed, in the real sandbox, writing `workspace`. */
function strictTool(workspace: string) {
  const confinement = createBwrapSandbox({ home: join(workspace, "..", "home") }).confine({
    network: "deny",
    write: [workspace],
  });
  return createRunCommandTool({
    guard: new PathGuard({ workspaceRoot: workspace }),
    confinement: async () => confinement,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin" },
    allowShell: false,
    network: "deny",
  });
}

function world() {
  const root = mkdtempSync(join(tmpdir(), "run-command-"));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  const workspace = join(root, "workspace");
  const home = join(root, "home");
  mkdirSync(workspace);
  mkdirSync(home);
  const sandbox = createBwrapSandbox({ home, hide: [join(root, "agent.config.json")] });
  const confinement = sandbox.confine({ network: "deny", write: [workspace] });
  const tool = createRunCommandTool({
    guard: new PathGuard({ workspaceRoot: workspace }),
    confinement: async () => confinement,
    env: { PATH: "/usr/local/bin:/usr/bin:/bin", HOME: home },
    allowShell: true,
    network: "deny",
  });
  return { root, workspace, tool };
}

async function run(
  tool: ReturnType<typeof world>["tool"],
  input: unknown,
  signal = new AbortController().signal,
): Promise<RunCommandOutput & { error?: string; message?: string }> {
  const prepared = tool.prepare(input);
  if (!prepared.ok) throw new Error(JSON.stringify(prepared.issues));
  const context: ToolContext = { signal, callId: "c", runId: "r", cwd: "/", reportProgress: () => {} };
  return (await prepared.execute(context)) as RunCommandOutput & { error?: string };
}

/** How many `sleep` processes on the host carry `token` as an argument. */
function processesWith(token: string): number {
  let count = 0;
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[0] === "sleep" && argv.includes(token)) count += 1;
    } catch {
      // Gone while looking.
    }
  }
  return count;
}

describe("run_command", () => {
  it("runs in the workspace, which it may write, and nowhere else", async () => {
    const { root, workspace, tool } = world();
    const inside = await run(tool, { command: "sh", args: ["-c", "pwd; echo made > made.txt"] });
    expect(inside).toMatchObject({ exitCode: 0, isolation: "bwrap" });
    expect(inside.stdout.trim()).toBe(workspace);
    expect(readFileSync(join(workspace, "made.txt"), "utf8")).toBe("made\n");

    const outsideFile = join(root, "outside.txt");
    writeFileSync(join(root, "agent.config.json"), "{}");
    const outside = await run(tool, {
      command: "sh",
      args: [
        "-c",
        `echo x > ${outsideFile}; echo y > /etc/run-command-escape; echo z > ${join(root, "agent.config.json")}`,
      ],
    });
    // Inside, those writes fail or land in the sandbox's private /tmp; the host sees none of them.
    expect(outside.isolation).toBe("bwrap");
    expect(existsSync(outsideFile)).toBe(false);
    expect(existsSync("/etc/run-command-escape")).toBe(false);
    expect(readFileSync(join(root, "agent.config.json"), "utf8")).toBe("{}");
  });

  it("has no network: a listener on the host's loopback sees nothing", async () => {
    const { tool } = world();
    let connections = 0;
    const sockets = new Set<Socket>();
    const server = createServer((socket) => {
      connections += 1;
      sockets.add(socket);
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => {
      for (const socket of sockets) socket.destroy();
      server.close();
    });
    const port = (server.address() as { port: number }).port;
    const outcome = await run(tool, {
      command: process.execPath,
      args: [
        "-e",
        `require("net").connect(${port},"127.0.0.1").on("connect",()=>process.exit(0)).on("error",e=>{console.log(e.code);process.exit(3)})`,
      ],
    });
    expect(outcome.exitCode).toBe(3);
    expect(outcome.stdout.trim()).toBe("ECONNREFUSED");
    expect(connections).toBe(0);
  });

  it("kills a hung command and everything it started when the call is cancelled", {
    timeout: 30_000,
  }, async () => {
    const { tool } = world();
    // A number sleep accepts (it sums its arguments), unique enough to find these sleeps on the host.
    const token = `0.${process.pid}${Date.now() % 1_000_000}`;
    const controller = new AbortController();
    const running = run(
      tool,
      { command: "sh", args: ["-c", `sleep 300 ${token} & setsid sleep 301 ${token} & wait`] },
      controller.signal,
    );
    const deadline = Date.now() + 10_000;
    while (processesWith(token) < 2 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(processesWith(token)).toBe(2);
    controller.abort();
    const outcome = await running;
    expect(outcome.exitCode).toBeNull();
    const gone = Date.now() + 10_000;
    while (processesWith(token) > 0 && Date.now() < gone)
      await new Promise((resolve) => setTimeout(resolve, 25));
    expect(processesWith(token)).toBe(0);
  });

  it("stops a command at its timeout", async () => {
    const { tool } = world();
    const outcome = await run(tool, { command: "sleep", args: ["300"], timeoutMs: 200 });
    expect(outcome).toMatchObject({ timedOut: true, exitCode: null });
  });

  it("caps what it keeps of the output, and says so", async () => {
    const { tool } = world();
    const outcome = await run(tool, {
      command: process.execPath,
      args: ["-e", `process.stdout.write("x".repeat(${4 * MAX_COMMAND_OUTPUT_BYTES}))`],
    });
    expect(outcome.exitCode).toBe(0);
    expect(outcome.stdout.length).toBe(MAX_COMMAND_OUTPUT_BYTES);
    expect(outcome.stdoutBytes).toBe(4 * MAX_COMMAND_OUTPUT_BYTES);
    expect(outcome.truncated).toBe(true);
  });

  it("refuses programs given code however they are reached; the code never runs", async () => {
    const { workspace } = world();
    const strict = strictTool(workspace);
    symlinkSync("/usr/bin/bash", join(workspace, "innocent"));
    const write = (marker: string) => `echo x > ${marker}`;
    const attempts: [string, string[]][] = [
      ["env", ["sh", "-c", write("m-env")]],
      ["nice", ["-n", "5", "bash", "-c", write("m-nice")]],
      ["/bin/sh", ["-c", write("m-bin-sh")]],
      ["./innocent", ["-c", write("m-link")]],
      ["timeout", ["5", "stdbuf", "-o0", "dash", "-ec", write("m-nested")]],
      ["xargs", ["sh", "-c", write("m-xargs")]],
      ["env", ["-S", `sh -c '${write("m-split")}'`]],
      ["nohup", ["bash", "--norc", "-c", write("m-nohup")]],
      [process.execPath, ["-e", 'require("fs").writeFileSync("m-node", "x")']],
      ["env", [process.execPath, "--eval", 'require("fs").writeFileSync("m-node-eval", "x")']],
      ["perl", ["-e", 'open(F, ">m-perl")']],
      ["awk", ['BEGIN { system("touch m-awk") }']],
    ];
    for (const [command, args] of attempts) {
      expect(await run(strict, { command, args }), command).toMatchObject({
        error: "tool_error",
        message: expect.stringContaining("code written in its arguments"),
      });
    }
    // From outside: none of them ran.
    expect(readdirSync(workspace)).toEqual(["innocent"]);
  });

  it("still runs programs and script files when shells are not allowed", async () => {
    const { workspace } = world();
    const strict = strictTool(workspace);
    writeFileSync(join(workspace, "script.sh"), "echo ran > from-script\n");
    expect(await run(strict, { command: "sh", args: ["script.sh"] })).toMatchObject({ exitCode: 0 });
    expect(await run(strict, { command: "env", args: ["ls", "-c"] })).toMatchObject({ exitCode: 0 });
    expect(readFileSync(join(workspace, "from-script"), "utf8")).toBe("ran\n");
  });

  it("refuses a shell command line unless shells are allowed, and a cwd outside the workspace", async () => {
    const { workspace } = world();
    const strict = createRunCommandTool({
      guard: new PathGuard({ workspaceRoot: workspace }),
      confinement: async () => {
        throw new Error("not reached: refused before it is launched");
      },
      env: { PATH: "/usr/bin:/bin" },
      allowShell: false,
      network: "deny",
    });
    expect(await run(strict, { command: "/bin/sh", args: ["-c", "echo hi"] })).toMatchObject({
      error: "tool_error",
      message: expect.stringContaining("shell"),
    });
    expect(await run(strict, { command: "echo", args: ["hi"], cwd: ".." })).toMatchObject({
      error: "tool_error",
    });
  });
});
