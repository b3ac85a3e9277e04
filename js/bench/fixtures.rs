//! Writes the inputs of `js/bench/speed.mjs` with the repository's own
//! generators (`benches/fixtures.rs` through `benches/peers/src/lib.rs`), so
//! the JavaScript bench times exactly the bytes the Rust benches time:
//!
//! - `tool_call_200b`: `fixtures::tool_call()` (192 bytes malformed);
//! - `api_1k`: `fixtures::api_doc(1_000, SEED)`;
//! - `write_file_50k`: `peers::write_file(50_000, SEED)`;
//! - `api_1m`: `fixtures::api_doc(1_000_000, SEED)` (as `benches/repair.rs`).
//!
//! Standard library only: `speed.mjs` compiles it with plain `rustc` into
//! `js/target/bench/` and runs it once (again when this file or a generator
//! changes), so nothing large is committed.
//!
//! ```sh
//! rustc --edition 2024 -O js/bench/fixtures.rs -o js/target/bench/fixtures
//! js/target/bench/fixtures js/target/bench/inputs
//! ```

#[allow(dead_code)]
#[path = "../../benches/peers/src/lib.rs"]
mod peers;

use std::path::PathBuf;

use peers::fixtures::{self, Twin};

fn main() {
    let out: PathBuf = std::env::args_os()
        .nth(1)
        .expect("usage: fixtures OUTDIR")
        .into();
    std::fs::create_dir_all(&out).expect("create the output folder");
    let all: [(&str, Twin); 4] = [
        ("tool_call_200b", fixtures::tool_call()),
        ("api_1k", fixtures::api_doc(1_000, peers::SEED)),
        ("write_file_50k", peers::write_file(50_000, peers::SEED)),
        ("api_1m", fixtures::api_doc(1_000_000, peers::SEED)),
    ];
    for (name, twin) in all {
        for (variant, bytes) in [("valid", &twin.valid), ("malformed", &twin.malformed)] {
            let path = out.join(format!("{name}.{variant}.json"));
            std::fs::write(&path, bytes).expect("write a fixture");
        }
        println!(
            "{name:<16} valid {:>9} B, malformed {:>9} B",
            twin.valid.len(),
            twin.malformed.len()
        );
    }
}
