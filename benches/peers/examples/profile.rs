//! A fixed amount of work for a profiler (issue 17): callgrind counts
//! instructions, which a shared, noisy machine does not disturb.
//!
//! ```sh
//! cargo build --release --example profile
//! valgrind --tool=callgrind --toggle-collect='argmend::repair::repair_whole' \
//!     target/release/examples/profile api 1      # 1 MB malformed, one shot
//! valgrind --tool=callgrind --toggle-collect='argmend::repair::repair_whole' \
//!     target/release/examples/profile call 100   # the 192-byte call, 100 times
//! valgrind --tool=callgrind --toggle-collect='argmend::repair::Repairer::feed' \
//!     --toggle-collect='argmend::repair::Repairer::snapshot' \
//!     --toggle-collect='argmend::repair::Repairer::finish' \
//!     target/release/examples/profile stream 1   # 100 KB in 16-byte chunks
//!     (`k64`, same toggles: 1 MB in the CLI's 64 KiB reads)
//!                                                # (`vstream`: its valid twin)
//!     (`wf` with the first toggle, `wfstream` with these: the 50 KB
//!     `write_file` call, one shot and in 16-byte chunks; `vlane` with the
//!     first: the valid 1 MB twin plus one byte, so all of it takes the lane)
//! valgrind --tool=callgrind --toggle-collect='serde_json::de::from_trait' \
//!     target/release/examples/profile serde 1    # IgnoredAny on the 1 MB valid twin
//! callgrind_annotate callgrind.out.<pid>
//! ```
//! (`--toggle-collect` counts only inside the named function, so the
//! fixture's generation is left out.)
//!
//! With `PROFILE_TIME=1` it also prints the nanoseconds a repetition took
//! (fixture generation excluded) to stderr: `benches/peers/ab.sh` times two
//! builds back to back with it.

use argmend_peers::SEED;
use argmend_peers::fixtures;

fn main() {
    let what = std::env::args().nth(1).unwrap_or_else(|| "api".into());
    let reps: usize = std::env::args()
        .nth(2)
        .and_then(|s| s.parse().ok())
        .unwrap_or(1);
    let twin = match what.as_str() {
        "call" => fixtures::tool_call(),
        "stream" | "vstream" | "k100" => fixtures::api_doc(100_000, SEED),
        "wf" | "wfstream" => argmend_peers::write_file(50_000, SEED),
        _ => fixtures::api_doc(1_000_000, SEED),
    };
    let mut total = 0;
    let started = std::time::Instant::now();
    for _ in 0..reps {
        match what.as_str() {
            "serde" => {
                let _: serde::de::IgnoredAny =
                    serde_json::from_slice(&twin.valid).expect("the valid twin parses");
                total += 1;
            }
            "k64" => {
                // The CLI's reads: 1 MB malformed in 64 KiB chunks.
                let mut repairer = argmend::Repairer::new(argmend::Options::default());
                for chunk in twin.malformed.chunks(64 * 1024) {
                    total += repairer.feed(chunk).map_or(0, str::len);
                }
                total += repairer.finish().map_or(0, |o| o.text().len());
            }
            "stream" | "vstream" | "wfstream" => {
                let input = if what != "vstream" {
                    &twin.malformed
                } else {
                    &twin.valid
                };
                let mut repairer = argmend::Repairer::new(argmend::Options::default());
                for chunk in input.chunks(argmend_peers::CHUNK) {
                    total += repairer.feed(chunk).map_or(0, str::len);
                    total += repairer.snapshot().len();
                }
                total += repairer.finish().map_or(0, |o| o.text().len());
            }
            "vlane" => {
                // The valid twin through the lane: one trailing byte makes
                // it not valid JSON, so the up-front check does not answer.
                let mut input = twin.valid.clone();
                input.push(b',');
                total += argmend::repair(&input).text().len();
            }
            _ => total += argmend::repair(&twin.malformed).text().len(),
        }
    }
    if std::env::var_os("PROFILE_TIME").is_some() {
        // For back-to-back wall-clock comparisons of two builds: the time
        // per repetition, without the fixture's generation.
        let per = started.elapsed().as_secs_f64() / reps.max(1) as f64;
        eprintln!("{:.1}", per * 1e9);
    }
    println!("{total}");
}
