// A real headless Chromium for the end-to-end test, driven over W3C WebDriver through Debian's chromedriver (as
// Tests/EndToEndTests/Browser/WebDriver.swift drives it for the console), and a one-origin server for its page: the
// client's files under /web/ and everything else passed on to the gateway, as a site that serves its pages and
// proxies the API under one origin does.

import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
import { extname, join, normalize } from "node:path";
import { fileURLToPath } from "node:url";

const chromium = process.env.SHOPKEEPER_CHROMIUM ?? "/usr/bin/chromium";
const chromedriver = process.env.SHOPKEEPER_CHROMEDRIVER ?? "/usr/bin/chromedriver";
const clientFolder = fileURLToPath(new URL("..", import.meta.url));

/** Whether Debian's chromium and chromedriver are here (scripts/lib/browser.sh installs them). */
export const browserAvailable = existsSync(chromium) && existsSync(chromedriver);

/**
 * Serves the client folder under /web/ and passes every other request to `gateway`, on a free port of 127.0.0.1.
 * @param {string} gateway
 * @returns {Promise<{ origin: string, close: () => Promise<void> }>}
 */
export async function serveOneOrigin(gateway) {
  const server = createServer(async (request, response) => {
    try {
      if (request.url.startsWith("/web/")) return serveFile(request.url.slice(5).split("?")[0], response);
      const chunks = [];
      for await (const chunk of request) chunks.push(chunk);
      const headers = { ...request.headers };
      delete headers.host;
      delete headers.connection;
      const answer = await fetch(gateway + request.url, {
        method: request.method,
        headers,
        body: chunks.length > 0 ? Buffer.concat(chunks) : undefined,
        redirect: "manual",
      });
      const passed = {};
      answer.headers.forEach((value, name) => {
        if (!["content-encoding", "content-length", "transfer-encoding", "connection"].includes(name)) passed[name] = value;
      });
      response.writeHead(answer.status, passed);
      response.end(Buffer.from(await answer.arrayBuffer()));
    } catch (error) {
      response.writeHead(502, { "Content-Type": "text/plain" });
      response.end(String(error));
    }
    return undefined;
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${server.address().port}`;
  return { origin, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

function serveFile(path, response) {
  const file = normalize(join(clientFolder, decodeURIComponent(path)));
  if (!file.startsWith(clientFolder) || !existsSync(file)) {
    response.writeHead(404, { "Content-Type": "text/plain" });
    response.end("not found");
    return;
  }
  const types = { ".js": "text/javascript", ".html": "text/html", ".json": "application/json" };
  response.writeHead(200, { "Content-Type": types[extname(file)] ?? "application/octet-stream" });
  response.end(readFileSync(file));
}

/**
 * A headless Chromium session (chromedriver on a free port).
 * @returns {Promise<{ open: (url: string) => Promise<void>, run: (script: string, ...args: unknown[]) => Promise<any>,
 *   quit: () => Promise<void> }>}
 */
export async function startBrowser() {
  const port = await freePort();
  const driver = spawn(chromedriver, [`--port=${port}`, "--log-level=WARNING"], { stdio: "ignore" });
  const base = `http://127.0.0.1:${port}`;
  const call = async (method, path, body) => {
    const response = await fetch(base + path, {
      method,
      headers: { "Content-Type": "application/json" },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await response.json();
    if (!response.ok) throw new Error(`WebDriver ${method} ${path}: ${JSON.stringify(answer.value)}`);
    return answer.value;
  };
  await untilReady(() => call("GET", "/status").then((value) => value.ready === true), driver);
  const profile = mkdtempSync(join(tmpdir(), "shopkeeper-web-chromium-"));
  const args = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", `--user-data-dir=${profile}`];
  const capabilities = { alwaysMatch: { browserName: "chrome", "goog:chromeOptions": { binary: chromium, args } } };
  const { sessionId } = await call("POST", "/session", { capabilities });
  const session = `/session/${sessionId}`;
  // The page's scripts include the client's bounded wait on return (about half a minute at most).
  await call("POST", `${session}/timeouts`, { script: 120_000 });
  return {
    open: (url) => call("POST", `${session}/url`, { url }).then(() => undefined),
    // The script is an async function's body; its result (or its error's message) comes back as JSON.
    run: async (script, ...scriptArgs) => {
      const wrapped =
        `const done = arguments[arguments.length - 1];` +
        `(async (args) => { ${script} })(Array.from(arguments).slice(0, -1))` +
        `.then((value) => done({ value }), (error) => done({ error: String(error && error.stack || error) }));`;
      const outcome = await call("POST", `${session}/execute/async`, { script: wrapped, args: scriptArgs });
      if (outcome.error) throw new Error(`in the browser: ${outcome.error}`);
      return outcome.value;
    },
    quit: async () => {
      await call("DELETE", session).catch(() => undefined);
      driver.kill("SIGTERM");
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Polls `ready` until it holds (chromedriver answering), for at most 30 s or until the process ends. */
async function untilReady(ready, process) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (await ready().catch(() => false)) return;
    if (process.exitCode !== null || Date.now() > deadline) throw new Error("chromedriver did not start");
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
