//! Chunked repair: the first bytes of the fuzz input choose the chunk lengths
//! (see `argmend_fuzz::split_fuzz_input`), the rest is fed chunk by chunk.
//! The outcome must equal one-shot's, committed output must be a prefix of
//! the final text, and every non-empty snapshot must parse and start with
//! everything committed so far. The checks live in `src/lib.rs`.

#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = argmend_fuzz::check_chunked_fuzz(data) {
        let (lengths, input) = argmend_fuzz::split_fuzz_input(data);
        panic!("repair_chunked: {failure}\n  chunk lengths: {lengths:?}\n  input: {input:?}");
    }
});
