//! The workspace path resolver against a model (issue 26): the input builds
//! a small tree of directories, files, links (relative with `..`, absolute
//! inside and outside the root, to links, in loops, dangling) and a socket,
//! sometimes with a chain of directories deeper than PATH_MAX, then names
//! paths in it. `Workspace::resolve` and `resolve_for_write` never panic;
//! what they accept is inside the root, where the model lands; what leads
//! out of the root (or, for a write, into `.git`) is refused. The check
//! lives in `src/lib.rs`; `tests/fuzz_seeds.rs` replays the seeds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_workspace_paths(data) {
        panic!("workspace_paths: {failure}\n  input: {data:?}");
    }
});
