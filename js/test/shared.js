// Other projects' data, which the tests read from ../shared/ beside the
// checkout and never from the repository (issue 41): the JavaScript side of
// tests/shared.rs, with the same rules.
//
// - The folder is <repo>/../shared, or $ARGMEND_SHARED (absolute, or
//   relative to the repository's root).
// - A test that needs a missing sub-folder is skipped with a reason that
//   starts with MISSING and names the folder and what the test needs from it
//   (`test(name, { skip: skipUnless(sub, what) }, …)`); tests/js.rs passes
//   those skips on to scripts/test, which adds them up in its summary.
// - With ARGMEND_REQUIRE_SHARED=1 (.ci/run sets it) a missing folder fails
//   the test instead: skipUnless gives false, and the test's `need` throws.

import { existsSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

/** The repository's root (this file is <repo>/js/test/shared.js). */
export const REPO = fileURLToPath(new URL("../../", import.meta.url));

/** What every skip reason for want of shared data starts with (as in tests/shared.rs). */
export const MISSING = "shared data missing:";

/** The shared folder: $ARGMEND_SHARED, or ../shared beside the repository. */
export function root() {
  const override = process.env.ARGMEND_SHARED;
  return override ? resolve(REPO, override) : join(REPO, "..", "shared");
}

/** Whether a missing folder fails the test (ARGMEND_REQUIRE_SHARED=1). */
export function required() {
  return process.env.ARGMEND_REQUIRE_SHARED === "1";
}

/** The folder `sub` of the shared folder, or null, quietly. */
export function find(sub) {
  const path = join(root(), sub);
  return existsSync(path) && statSync(path).isDirectory() ? path : null;
}

/** The skip reason for the missing folder `sub`. */
export function reason(sub, what) {
  return `${MISSING} ${join(root(), sub)} (${what})`;
}

/**
 * A test's `skip` option: false when `sub` is there (or must be: then
 * the test runs and its `need` fails), else the reason.
 */
export function skipUnless(sub, what) {
  return find(sub) || required() ? false : reason(sub, what);
}

/** The folder `sub`; throws, naming it, when it is missing. */
export function need(sub, what) {
  const path = find(sub);
  if (path) return path;
  const why = required() ? "ARGMEND_REQUIRE_SHARED=1 makes it a failure" : "the test should have been skipped";
  throw new Error(`${reason(sub, what)}: ${why}`);
}
