//! The `@json` `where` parser through `tools::json::query` on inline text:
//! fields cut at 0xFF: the filter, the array's path, `select`, a limit byte
//! and the document (else a sample document). Nothing panics; at most
//! `limit` rows come back, and on JSON serde_json accepts each row parses.
//! The checks live in `src/lib.rs`; `tests/fuzz_seeds.rs` replays the seeds.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_json_query_fuzz(data) {
        panic!("json_query: {failure}\n  input: {data:?}");
    }
});
