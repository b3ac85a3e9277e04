// Builds the WebAssembly module and its JavaScript glue into dist/:
//
//   npm run build        (or: node scripts/build.mjs)
//
// 1. the Rust target wasm32-unknown-unknown, added with rustup if missing;
// 2. wasm-bindgen-cli at exactly the version of the binding crate's
//    wasm-bindgen (the two must match), installed with cargo if missing;
// 3. `cargo build --release --target wasm32-unknown-unknown` of js/Cargo.toml
//    (the engine with default-features = false);
// 4. `wasm-bindgen --target web`: dist/argmend_wasm.js, its .d.ts and
//    dist/argmend_wasm_bg.wasm. The `web` target is plain ESM with no Node
//    API; lib/node.js feeds it the bytes from disk, browsers fetch them.
//
// Cargo and wasm-bindgen only redo what changed, so a second run takes
// seconds.

import { execFileSync } from "node:child_process";
import { copyFileSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const js = join(dirname(fileURLToPath(import.meta.url)), "..");
const root = join(js, "..");

function run(command, args, options = {}) {
  console.log(`$ ${command} ${args.join(" ")}`);
  execFileSync(command, args, { stdio: "inherit", cwd: js, ...options });
}

function output(command, args) {
  try {
    return execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] });
  } catch {
    return null;
  }
}

// 1. The target.
const targets = output("rustup", ["target", "list", "--installed"]);
if (targets === null) {
  console.error("build: rustup is missing: install Rust with rustup (https://rustup.rs), then run this again");
  process.exit(1);
}
if (!targets.split("\n").includes("wasm32-unknown-unknown")) {
  run("rustup", ["target", "add", "wasm32-unknown-unknown"]);
}

// 2. wasm-bindgen-cli, the version Cargo.toml pins.
const pinned = readFileSync(join(js, "Cargo.toml"), "utf8").match(/^wasm-bindgen = "=([^"]+)"/m)?.[1];
if (!pinned) throw new Error("build: js/Cargo.toml must pin wasm-bindgen exactly (\"=x.y.z\")");
const installed = output("wasm-bindgen", ["--version"])?.trim().split(" ")[1];
if (installed !== pinned) {
  console.log(`build: wasm-bindgen-cli ${installed ?? "is missing"}, the crate needs ${pinned}: installing it (a few minutes, once)`);
  // Not --locked: the CLI's lockfile pins a webpki-roots release that some
  // registry mirrors lack; the CLI's own version is what must match.
  // --debug: half the build's CPU time (2.7 against 5.3 minutes here), and
  // the unoptimized CLI still writes this module in under a second, byte for
  // byte what the optimized one writes.
  run("cargo", ["install", "--debug", "wasm-bindgen-cli", "--version", `=${pinned}`]);
}

// 3. The module.
run("cargo", ["build", "--release", "--target", "wasm32-unknown-unknown", "--manifest-path", join(js, "Cargo.toml")]);

// 4. The glue.
const wasm = join(js, "target", "wasm32-unknown-unknown", "release", "argmend_js.wasm");
run("wasm-bindgen", ["--target", "web", "--out-dir", join(js, "dist"), "--out-name", "argmend_wasm", wasm]);

// The licenses ship in the tarball.
for (const license of ["LICENSE-MIT", "LICENSE-APACHE"]) copyFileSync(join(root, license), join(js, license));
console.log("build: dist/ is ready");
