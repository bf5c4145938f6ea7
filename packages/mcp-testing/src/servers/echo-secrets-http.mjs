// Misbehaves over HTTP: answers every request with 404 and a body that repeats the request's path,
// query and header values in every encoding of echoForms(), as some web servers' error pages do.
// Listens on PORT (0 for any free port) and prints `LISTENING <port>` on stderr.
import { createServer } from "node:http";
import { echoForms } from "./server-kit.mjs";

const server = createServer((request, response) => {
  const url = new URL(request.url ?? "/", "http://localhost");
  const values = [
    request.url ?? "",
    ...url.pathname.split("/").map(decodeURIComponent),
    ...[...url.searchParams.values()],
    ...Object.values(request.headers).flat(),
  ].filter((value) => typeof value === "string" && value.length > 0);
  request.resume();
  response.writeHead(404, { "content-type": "text/html" });
  response.end(`<h1>Not Found</h1><p>${values.flatMap(echoForms).join(" ")}</p>`);
});
server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  process.stderr.write(`LISTENING ${server.address().port}\n`);
});
