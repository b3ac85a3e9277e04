//! YAML through `@json` (`validate`, `pretty`) and `@diff json`: nothing
//! panics, the JSON written for valid YAML parses, and a document equals
//! itself. The checks live in `src/lib.rs`; `tests/fuzz_seeds.rs` replays
//! the seeds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_json_yaml_fuzz(data) {
        panic!("json_yaml: {failure}\n  input: {data:?}");
    }
});
