// The HTTP shell of scripts/fake-openai.mjs (the real-agent suite has its own: test/agents/fakes/server.ts): reads and
// parses each request, logs it (secrets redacted) to memory, a JSON-lines file and a callback,
// and hands it to the API's `route`. Listens on 127.0.0.1 only.
import { appendFileSync } from "node:fs";
import { createServer } from "node:http";

/**
 * `route(entry, res)` answers a request and returns true, or returns false for a 404 written
 * with `notFound(entry)` as its JSON body. It may set `entry.status` and `entry.decision`
 * before the entry is logged (logging happens after routing).
 */
export async function startFakeServer({ port = 0, logFile, onRequest, route, notFound }) {
  const requests = [];
  const server = createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const raw = Buffer.concat(chunks).toString("utf8");
    let body = null;
    try {
      body = raw ? JSON.parse(raw) : null;
    } catch {
      body = raw;
    }
    const path = (req.url ?? "/").split("?")[0];
    const headers = { ...req.headers };
    for (const secret of ["authorization", "x-api-key"]) if (headers[secret]) headers[secret] = "<redacted>";
    const entry = { time: new Date().toISOString(), method: req.method, url: req.url, path, headers, body };
    if (!route(entry, res)) {
      entry.status = 404;
      res.writeHead(404, { "content-type": "application/json" });
      res.end(JSON.stringify(notFound(entry)));
    }
    requests.push(entry);
    if (logFile) appendFileSync(logFile, `${JSON.stringify(entry)}\n`);
    onRequest?.(entry);
  });
  await new Promise((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", resolve);
  });
  const address = server.address();
  return {
    port: address.port,
    url: `http://127.0.0.1:${address.port}`,
    requests,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}

/** `node fake-x.mjs --port P --log FILE --final TEXT`: run a fake API by hand. */
export async function serveFromCommandLine(start) {
  const args = process.argv.slice(2);
  const opt = (name) => {
    const i = args.indexOf(name);
    return i >= 0 ? args[i + 1] : undefined;
  };
  const fake = await start({
    port: Number(opt("--port") ?? 0),
    logFile: opt("--log"),
    finalText: opt("--final"),
    onRequest: (e) => process.stderr.write(`${e.method} ${e.url} -> ${e.status}${e.decision ? ` (${e.decision.why})` : ""}\n`),
  });
  console.log(`listening on ${fake.url}`);
}
