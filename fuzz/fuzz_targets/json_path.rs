//! The `@json` path parser through `tools::json::{get, keys}` on inline text:
//! the path, then optionally a 0xFF byte and the document (else a sample
//! document). Nothing panics; on JSON serde_json accepts, every value `get`
//! returns parses.
//! The checks live in `src/lib.rs`; `tests/fuzz_seeds.rs` replays the seeds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_json_path_fuzz(data) {
        panic!("json_path: {failure}\n  input: {data:?}");
    }
});
