//! One-shot repair of arbitrary bytes: never panics; unless the verdict is
//! `NotJson` the text parses; valid single-value JSON comes back `Valid` and
//! byte for byte. The checks live in `src/lib.rs` (shared with the stable
//! replay test `tests/fuzz_seeds.rs`).

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_oneshot(data) {
        panic!("repair_oneshot: {failure}\n  input: {data:?}");
    }
});
