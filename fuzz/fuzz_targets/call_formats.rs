//! `CallParser` reading one open-weight format (issue 44) on arbitrary text:
//! byte 0 picks the format, byte 1 the chunk length, the rest is the text.
//! The check is `fuzz/src/formats.rs`'s, which the stable replay
//! (`tests/tool_formats.rs`) runs on `seeds/call_formats/`.

#![no_main]

use argmend_fuzz::check_call_format;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    if let Err(failure) = check_call_format(data) {
        panic!("{failure}");
    }
});
