//! The whole-process comparison of issue 17: `argmend repair FILE` on a
//! 30 MB malformed document against a serde_json validate-and-copy program
//! on its valid twin (the least any tool that hands back checked JSON does).
//!
//! ```sh
//! cargo run --release --example whole -- gen OUTDIR   # writes OUTDIR/{valid,malformed}.json
//! target/release/examples/whole copy FILE > /dev/null  # validate with serde_json, copy to stdout
//! ```
//! `whole_process.sh` times both.

use std::io::Write;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [verb, dir] if verb == "gen" => {
            let twin = argmend_peers::fixtures::api_doc(30_000_000, 0x5EED_1234);
            std::fs::create_dir_all(dir).expect("create the output folder");
            std::fs::write(format!("{dir}/valid.json"), &twin.valid).expect("write valid.json");
            std::fs::write(format!("{dir}/malformed.json"), &twin.malformed)
                .expect("write malformed.json");
        }
        [verb, file] if verb == "copy" => {
            let bytes = std::fs::read(file).expect("read the file");
            let _: serde::de::IgnoredAny =
                serde_json::from_slice(&bytes).expect("the valid twin parses");
            std::io::stdout()
                .lock()
                .write_all(&bytes)
                .expect("write stdout");
        }
        _ => {
            eprintln!("usage: whole gen OUTDIR | whole copy FILE");
            std::process::exit(2);
        }
    }
}
