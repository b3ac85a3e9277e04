//! Tool-aware normalization: byte 0 picks a tool name from `NORMALIZE_TOOLS`, byte 1 a
//! chunk length, the rest is the raw arguments. `normalize_tool_args` never
//! panics, its text parses unless the verdict is `NotJson` (then it is the
//! input untouched), and `ToolRepairer` fed in chunks gives the same result.
//! The checks live in `src/lib.rs`; `tests/fuzz_seeds.rs` replays the seeds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_normalize_fuzz(data) {
        panic!("normalize: {failure}\n  input: {data:?}");
    }
});
