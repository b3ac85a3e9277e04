//! Writes every workload to `OUTDIR/{workload}/{valid,malformed}/NN.json`
//! (the files `run.sh` times the JavaScript and Python peers on), and checks
//! argmend on each case.
//!
//! ```sh
//! cargo run --release --example fixtures -- out
//! ```

#[path = "../common/impls.rs"]
mod impls;

use std::path::PathBuf;

use serde_json::Value;

fn main() {
    let out: PathBuf = std::env::args_os()
        .nth(1)
        .expect("usage: fixtures OUTDIR")
        .into();
    std::fs::create_dir_all(&out).expect("create the output folder");
    let names: Vec<&str> = argmend_peers::all_names().to_vec();
    std::fs::write(out.join("workloads.txt"), names.join("\n") + "\n")
        .expect("write workloads.txt");
    for w in argmend_peers::all() {
        for (variant, malformed) in [("valid", false), ("malformed", true)] {
            let dir = out.join(w.name).join(variant);
            std::fs::create_dir_all(&dir).expect("create the output folder");
            for (i, case) in w.cases.iter().enumerate() {
                let bytes = if malformed {
                    &case.malformed
                } else {
                    &case.valid
                };
                std::fs::write(dir.join(format!("{i:02}.json")), bytes).expect("write a case");
            }
        }
        // argmend's check, the way the timing harness does it.
        for (i, case) in w.cases.iter().enumerate() {
            let want: Value = serde_json::from_slice(&case.valid)
                .unwrap_or_else(|e| panic!("{}/{i}: valid twin does not parse: {e}", w.name));
            let input = std::str::from_utf8(&case.malformed).expect("fixtures are UTF-8");
            let (oneshot, detail) = impls::check(
                || {
                    let o = argmend::repair(input.as_bytes());
                    Ok(o.text().to_owned())
                },
                &want,
            );
            let (streamed, _) = impls::check(
                || {
                    Ok(impls::argmend_stream_text(
                        input.as_bytes(),
                        argmend_peers::CHUNK,
                    ))
                },
                &want,
            );
            if oneshot != impls::Check::Correct || streamed != impls::Check::Correct {
                eprintln!(
                    "warning: argmend on {}/malformed/{i:02}.json: one-shot {}, stream {} {detail}",
                    w.name,
                    oneshot.as_str(),
                    streamed.as_str()
                );
            }
        }
        println!(
            "{:<22} {:>2} case(s), valid {:>9} B, malformed {:>9} B",
            w.name,
            w.cases.len(),
            w.bytes(false),
            w.bytes(true)
        );
    }
}
