// Runs inside the sandbox, in its own empty network namespace: listens on loopback and forwards
// every connection to the allow-listing proxy's unix socket (bound in from outside), then runs the
// real command with the same stdio and exits with its status. Usage:
//   node proxy-forwarder.mjs <socket> <port> -- <command> [args...]
// It writes nothing to stdout: that is the server's protocol channel.
import { spawn } from "node:child_process";
import { createConnection, createServer } from "node:net";

const [socketPath, portText, separator, command, ...args] = process.argv.slice(2);
if (!socketPath || !portText || separator !== "--" || !command) {
  process.stderr.write("usage: proxy-forwarder.mjs <socket> <port> -- <command> [args...]\n");
  process.exit(2);
}

const server = createServer((client) => {
  const upstream = createConnection(socketPath);
  client.on("error", () => upstream.destroy());
  upstream.on("error", () => client.destroy());
  client.pipe(upstream);
  upstream.pipe(client);
});
server.on("error", (error) => {
  process.stderr.write(`agent sandbox: the proxy forwarder failed: ${error.message}\n`);
  process.exit(70);
});
server.listen(Number(portText), "127.0.0.1", () => {
  const child = spawn(command, args, { stdio: "inherit" });
  child.on("error", (error) => {
    process.stderr.write(`agent sandbox: could not start ${command}: ${error.message}\n`);
    process.exit(127);
  });
  child.on("exit", (code, signal) => process.exit(code ?? (signal ? 128 : 1)));
  for (const name of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(name, () => child.kill(name));
});
