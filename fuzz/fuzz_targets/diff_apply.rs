//! Diff → apply round trip on fuzzer-made pairs: the input is a context byte,
//! then `a`, a 0xFF byte, then `b` (no 0xFF: split in the middle). Applying
//! `diff(a, b)` to `a` must give `b` exactly, line endings and final newlines
//! included. Applying it to `b`, or `b` itself read as a patch to `a`, must
//! not panic. Binary inputs (a NUL byte) are refused by design and skipped.
//! The same check replays the seeds in `fuzz/seeds/diff_apply/` on stable
//! (`tests/diff.rs`).

#![no_main]

use argmend::tools::diff::{DiffOptions, ErrorKind, apply_to, diff_bytes};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&context, rest)) = data.split_first() else {
        return;
    };
    let (a, b) = match rest.iter().position(|&c| c == 0xFF) {
        Some(at) => (&rest[..at], &rest[at + 1..]),
        None => rest.split_at(rest.len() / 2),
    };
    let options = DiffOptions::default().context(usize::from(context % 8));
    let diff = match diff_bytes(a, b, ["a", "b"], options) {
        Ok(diff) => diff,
        Err(error) if error.kind() == ErrorKind::Binary => return,
        Err(error) => panic!("diff failed: {error}"),
    };
    if diff.is_identical() {
        assert_eq!(a, b, "different inputs called identical");
        return;
    }
    match apply_to(a, diff.patch()) {
        Ok(applied) => assert_eq!(applied, b, "round trip differs"),
        Err(error) => panic!("apply of our own diff failed: {error}"),
    }
    let _ = apply_to(b, diff.patch());
    // `b` read as a patch: the parser and the apply never panic on any bytes.
    let _ = apply_to(a, b);
});
