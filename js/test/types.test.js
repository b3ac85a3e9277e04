// The TypeScript declarations type-check: tsc (strict, nodenext resolution
// through the package's "exports") over test/types/usage.ts, which uses
// every entry point as a TypeScript user would.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

test("the declarations type-check under tsc --strict", () => {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc");
  const project = fileURLToPath(new URL("types/tsconfig.json", import.meta.url));
  const result = spawnSync(process.execPath, [tsc, "-p", project], { encoding: "utf8" });
  assert.equal(result.status, 0, `tsc found errors:\n${result.stdout}${result.stderr}`);
});
