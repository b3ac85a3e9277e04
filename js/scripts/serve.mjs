// A small static server for the playground (no dependency: node:http):
//
//   npm run playground              (or: node scripts/serve.mjs [--port 8787] [--host 127.0.0.1])
//
// It serves the package directory (js/), so the page at /playground/ imports
// ../lib/index.js and fetches ../dist/argmend_wasm_bg.wasm exactly as a
// bundler-free page that ships the package would. Build the package first
// (`npm run build`). Read-only, GET and HEAD only, nothing outside js/.
//
// The browser test imports `serve` to start it on a free port.
//
// The page replays playground/streams.json: argmend's own recordings, which
// ship in the package. Run from a checkout that has the team's ../shared/
// beside it, the server adds the SDKs' recordings kept there
// (model_streams/sdk, other projects' data that neither the repository nor
// the package holds) to the streams.json it serves.

import { createReadStream, existsSync, readFileSync, statSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export const PACKAGE = join(dirname(fileURLToPath(import.meta.url)), "..");

export const MIME = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".wasm": "application/wasm",
  ".map": "application/json; charset=utf-8",
  ".ts": "text/plain; charset=utf-8",
  ".md": "text/plain; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
  ".svg": "image/svg+xml",
  ".png": "image/png",
  ".ico": "image/x-icon",
};

/** The file a URL path names under `root`, or null (outside it, hidden, not a file). */
function resolve(root, pathname) {
  let path;
  try {
    path = decodeURIComponent(pathname);
  } catch {
    return null;
  }
  if (path.includes("\0")) return null;
  const full = normalize(join(root, path));
  if (full !== root && !full.startsWith(root + sep)) return null;
  // No dotfiles, no node_modules, no Rust build output.
  const inside = full.slice(root.length).split(sep);
  if (inside.some((part) => part.startsWith(".") || part === "node_modules" || part === "target")) return null;
  try {
    const stat = statSync(full);
    if (stat.isDirectory()) {
      const index = join(full, "index.html");
      return existsSync(index) ? { file: index, redirect: !pathname.endsWith("/") } : null;
    }
    return stat.isFile() ? { file: full, size: stat.size } : null;
  } catch {
    return null;
  }
}

/** The page's recordings generator, present in a checkout only (the package does not ship it). */
function builder(root) {
  const path = join(root, "playground", "build-streams.mjs");
  return existsSync(path) ? path : null;
}

/**
 * streams.json with the SDKs' recordings of ../shared/model_streams/sdk
 * added, when `root` is a checkout's js/ that has them beside it; else null
 * (the file is served as it is).
 */
async function withSharedStreams(root) {
  const path = builder(root);
  if (!path) return null;
  const { sharedRecordings } = await import(pathToFileURL(path).href);
  const extra = sharedRecordings();
  if (extra.length === 0) return null;
  const own = JSON.parse(readFileSync(join(root, "playground", "streams.json"), "utf8"));
  return Buffer.from(JSON.stringify({ ...own, recordings: [...own.recordings, ...extra] }));
}

/**
 * Start the server. `port` 0 takes a free one.
 * @returns {Promise<{server: import("node:http").Server, url: string, close: () => Promise<void>}>}
 */
export async function serve({ port = 8787, host = "127.0.0.1", root = PACKAGE, log = false } = {}) {
  const streams = await withSharedStreams(root);
  const server = createServer((request, response) => {
    const send = (status, text, headers = {}) => {
      response.writeHead(status, { "content-type": "text/plain; charset=utf-8", ...headers });
      response.end(request.method === "HEAD" ? undefined : text);
      if (log) console.log(`${status} ${request.method} ${request.url}`);
    };
    if (request.method !== "GET" && request.method !== "HEAD") {
      return send(405, "method not allowed\n", { allow: "GET, HEAD" });
    }
    const url = new URL(request.url, "http://localhost");
    if (url.pathname === "/") return send(302, "see /playground/\n", { location: "/playground/" });
    const found = resolve(root, url.pathname);
    if (!found) return send(404, `not found: ${url.pathname}\n`);
    if (found.redirect) return send(301, "moved\n", { location: `${url.pathname}/${url.search}` });
    if (streams && found.file === join(root, "playground", "streams.json")) {
      response.writeHead(200, { "content-type": MIME[".json"], "content-length": streams.length, "cache-control": "no-store" });
      if (log) console.log(`200 ${request.method} ${request.url} (with the SDKs' recordings of ../shared)`);
      return response.end(request.method === "HEAD" ? undefined : streams);
    }
    const stat = statSync(found.file);
    response.writeHead(200, {
      "content-type": MIME[extname(found.file)] ?? "application/octet-stream",
      "content-length": stat.size,
      // A development server: every reload sees the files as they are now.
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    if (log) console.log(`200 ${request.method} ${request.url}`);
    if (request.method === "HEAD") return response.end();
    createReadStream(found.file).pipe(response);
  });
  return new Promise((ready, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => {
      server.off("error", fail);
      const { port: bound } = server.address();
      const shown = host.includes(":") ? `[${host}]` : host;
      ready({
        server,
        url: `http://${shown}:${bound}`,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

function option(name, fallback) {
  const at = process.argv.indexOf(name);
  return at > 0 && process.argv[at + 1] ? process.argv[at + 1] : fallback;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  if (!existsSync(join(PACKAGE, "dist", "argmend_wasm_bg.wasm"))) {
    console.warn("serve: dist/argmend_wasm_bg.wasm is missing: run `npm run build` first, or the page cannot load argmend");
  }
  // In a checkout, say when the committed streams.json is stale; an
  // installed package has no corpus to compare it with, and nothing to say.
  const path = builder(PACKAGE);
  if (path) {
    try {
      const { render, OUTPUT } = await import(pathToFileURL(path).href);
      if (readFileSync(OUTPUT, "utf8") !== render()) {
        console.warn("serve: playground/streams.json is older than corpus/model_streams/: run `node playground/build-streams.mjs`");
      }
    } catch (error) {
      console.warn(`serve: could not check playground/streams.json (${error.message})`);
    }
  }
  const port = Number(option("--port", process.env.PORT ?? 8787));
  const host = option("--host", "127.0.0.1");
  const { url } = await serve({ port, host, log: process.argv.includes("--log") });
  console.log(`argmend playground: ${url}/playground/  (Ctrl-C to stop)`);
}
