// A server that tries to break out of its sandbox, one tool per attempt. Each tool reports what
// happened from inside; tests check the outcome from outside (files, listeners, processes).
import { spawn, spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, renameSync, writeFileSync, writeSync } from "node:fs";
import { connect } from "node:net";
import { serveTools, text } from "./server-kit.mjs";

const string = { type: "string" };
const number = { type: "number" };
const schema = (properties) => ({ type: "object", properties, required: Object.keys(properties) });
const failure = (error) => ({ ok: false, error: error.code ?? error.message });

function attempt(action) {
  try {
    return { ok: true, ...action() };
  } catch (error) {
    return failure(error);
  }
}

function tcp(host, port, firstBytes) {
  return stream({ host, port }, firstBytes);
}

function stream(address, firstBytes) {
  return new Promise((resolve) => {
    const socket = connect(address);
    let received = "";
    socket.setTimeout(5000, () => socket.destroy(new Error("timeout")));
    socket.on("connect", () => {
      if (firstBytes) socket.write(firstBytes);
    });
    socket.on("data", (chunk) => {
      received += chunk.toString("latin1");
    });
    socket.on("error", (error) => resolve({ ok: false, error: error.code ?? error.message, received }));
    socket.on("close", () => resolve({ ok: true, received }));
  });
}

function proxyAddress() {
  const url = new URL(process.env.HTTPS_PROXY ?? process.env.HTTP_PROXY ?? "http://127.0.0.1:9");
  return { host: url.hostname, port: Number(url.port) };
}

const tools = [
  {
    name: "read",
    description: "Reads a file.",
    inputSchema: schema({ path: string }),
    call: ({ path }) => text(attempt(() => ({ content: readFileSync(path, "utf8") }))),
  },
  {
    name: "write",
    description: "Writes a file.",
    inputSchema: schema({ path: string, content: string }),
    call: ({ path, content }) => text(attempt(() => writeFileSync(path, content) ?? {})),
  },
  {
    name: "rename",
    description: "Renames a file or directory.",
    inputSchema: schema({ from: string, to: string }),
    call: ({ from, to }) => text(attempt(() => renameSync(from, to) ?? {})),
  },
  {
    name: "connect",
    description: "Opens a TCP connection, sends a line and reads until the peer closes.",
    inputSchema: schema({ host: string, port: number }),
    call: async ({ host, port }) => text(await tcp(host, port, "hello\n")),
  },
  {
    name: "connect_unix",
    description: "Connects to a unix socket of the host (a D-Bus or docker socket, say), sends a line.",
    inputSchema: schema({ path: string }),
    call: async ({ path }) => text(await stream({ path }, "hello\n")),
  },
  {
    name: "proxy_connect",
    description:
      "Asks the HTTPS proxy for a CONNECT tunnel, sends a line through it, returns what came back.",
    inputSchema: schema({ host: string, port: number }),
    call: async ({ host, port }) => {
      const proxy = proxyAddress();
      return text(
        await tcp(
          proxy.host,
          proxy.port,
          `CONNECT ${host}:${port} HTTP/1.1\r\nHost: ${host}:${port}\r\n\r\nhello\n`,
        ),
      );
    },
  },
  {
    name: "proxy_get",
    description: "Sends a plain HTTP GET for an absolute URL to the HTTP proxy.",
    inputSchema: schema({ url: string }),
    call: async ({ url }) => {
      const proxy = proxyAddress();
      const host = new URL(url).host;
      return text(await tcp(proxy.host, proxy.port, `GET ${url} HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
    },
  },
  {
    name: "spawn_daemon",
    description: "Starts a setsid daemon that sleeps forever, with the token on its command line.",
    inputSchema: schema({ token: string }),
    call: ({ token }) =>
      text(
        attempt(() => {
          const daemon = spawn("setsid", [process.execPath, "-e", "setInterval(() => {}, 1e9)", token], {
            detached: true,
            stdio: "ignore",
          });
          daemon.unref();
          return {};
        }),
      ),
  },
  {
    name: "fill",
    description: "Writes up to `bytes` zero bytes to a file in a child process; returns how far it got.",
    inputSchema: schema({ path: string, bytes: number }),
    call: ({ path, bytes }) => {
      const script = `const fs=require("fs");const fd=fs.openSync(process.argv[1],"w");const chunk=Buffer.alloc(65536);let n=0;try{while(n<Number(process.argv[2])){n+=fs.writeSync(fd,chunk);}}catch(e){process.stdout.write(JSON.stringify({written:n,error:e.code}));process.exit(0)}process.stdout.write(JSON.stringify({written:n}))`;
      const child = spawnSync(process.execPath, ["-e", script, path, String(bytes)], { encoding: "utf8" });
      return text({ status: child.status, signal: child.signal, stdout: child.stdout });
    },
  },
  {
    name: "fork_many",
    description:
      "Starts up to `count` sleeping children; returns how many started. They are killed before it answers.",
    inputSchema: schema({ count: number }),
    call: async ({ count }) => {
      const children = [];
      let failed;
      for (let index = 0; index < count; index += 1) {
        const started = await new Promise((resolve) => {
          const child = spawn("sleep", ["30"], { stdio: "ignore" });
          child.once("spawn", () => resolve(child));
          child.once("error", (error) => resolve(error));
        });
        if (started instanceof Error) {
          failed = started.code ?? started.message;
          break;
        }
        children.push(started);
      }
      for (const child of children) child.kill("SIGKILL");
      return text({ started: children.length, error: failed });
    },
  },
  {
    name: "remount",
    description: "Tries to remount / read-write, then writes a file.",
    inputSchema: schema({ path: string }),
    call: ({ path }) => {
      const mount = spawnSync("mount", ["-o", "remount,rw,bind", "/"], { encoding: "utf8" });
      const written = attempt(() => {
        const fd = openSync(path, "w");
        writeSync(fd, "escaped");
        closeSync(fd);
        return {};
      });
      return text({ mountStatus: mount.status, mountError: mount.stderr, written });
    },
  },
];

await serveTools("escape", () => tools);
