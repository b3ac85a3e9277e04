//! Every shell example in the docs is a test: each ```` ```console ```` block
//! of `README.md`, `docs/*.md` and `python/README.md` is run, command by
//! command, and each must print what the block shows.
//!
//! A block is a terminal transcript: `$ argmend …` (split as a shell would),
//! optionally `? N` for an exit code other than 0, then the output, stdout
//! and stderr merged as a terminal shows them. `[..]` in the output stands
//! for any text on a line and `...` for any lines (snapbox's wildcards). An
//! output that does not end with a line break is compared as if it did.
//!
//! The commands run as a newcomer types them, from the repository's root, on
//! the example data of `examples/`: each document gets its own copy of that
//! data in a temp dir, so an example that writes (`diff apply --write`)
//! changes neither the checkout nor another document's run.
//!
//! After a deliberate change of output, `UPDATE_DOCS=1 cargo test --test main
//! docs` rewrites the blocks' outputs in place; read the diff before
//! committing it.

use std::fs;
use std::path::{Path, PathBuf};

use snapbox::Data;
use snapbox::assert::Assert;

use crate::support::TempDir;

/// The documents whose console blocks run, relative to the repository root.
fn documents(root: &Path) -> Vec<PathBuf> {
    let mut docs = vec![
        PathBuf::from("README.md"),
        PathBuf::from("python/README.md"),
    ];
    let mut more: Vec<PathBuf> = fs::read_dir(root.join("docs"))
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "md"))
        .map(|path| path.strip_prefix(root).unwrap().to_owned())
        .collect();
    more.sort();
    docs.extend(more);
    docs
}

/// Copies `from` into `to`, leaving out the Rust examples (only data is needed).
fn copy_data(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let path = entry.path();
        if entry.file_type().unwrap().is_dir() {
            copy_data(&path, &to.join(entry.file_name()));
        } else if path.extension().is_none_or(|ext| ext != "rs") {
            fs::copy(&path, to.join(entry.file_name())).unwrap();
        }
    }
}

/// One `$ …` of a console block.
struct Step {
    /// The 1-based line of the `$`.
    line: usize,
    args: Vec<String>,
    status: i32,
    /// The output lines' range in the document (0-based, end exclusive).
    output: std::ops::Range<usize>,
}

/// The steps of every console block of `text`; an error names a line that
/// is not a transcript, or a fence without a language.
fn steps(text: &str) -> Result<Vec<Step>, String> {
    let lines: Vec<&str> = text.lines().collect();
    let mut steps = Vec::new();
    let mut n = 0;
    while n < lines.len() {
        let Some(info) = lines[n].trim_start().strip_prefix("```") else {
            n += 1;
            continue;
        };
        let console = info.trim() == "console";
        if info.trim().is_empty() {
            return Err(format!(
                "line {}: a fence without a language (say `text`, `sh`, `console`…)",
                n + 1
            ));
        }
        n += 1;
        let end = (n..lines.len())
            .find(|&k| lines[k].trim_start().starts_with("```"))
            .ok_or(format!("line {n}: a fence that never closes"))?;
        while console && n < end {
            let Some(command) = lines[n].strip_prefix("$ ") else {
                return Err(format!(
                    "line {}: a console block line outside a command's output",
                    n + 1
                ));
            };
            let args = shlex::split(command).ok_or(format!("line {}: unbalanced quotes", n + 1))?;
            if args.first().map(String::as_str) != Some("argmend") {
                return Err(format!("line {}: console blocks run `argmend` only", n + 1));
            }
            let line = n + 1;
            n += 1;
            let mut status = 0;
            if let Some(code) = lines.get(n).and_then(|l| l.strip_prefix("? ")) {
                status = code
                    .trim()
                    .parse()
                    .map_err(|_| format!("line {}: `? N` wants a number", n + 1))?;
                n += 1;
            }
            let start = n;
            while n < end && !lines[n].starts_with("$ ") {
                n += 1;
            }
            steps.push(Step {
                line,
                args: args[1..].to_vec(),
                status,
                output: start..n,
            });
        }
        n = end + 1;
    }
    Ok(steps)
}

#[test]
fn every_console_example_in_the_docs_prints_what_it_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let bin = env!("CARGO_BIN_EXE_argmend");
    let update = std::env::var_os("UPDATE_DOCS").is_some();
    let assert = Assert::new()
        .normalize_paths(false)
        .palette(snapbox::report::Palette::plain());
    let dir = TempDir::new();
    let mut failures = Vec::new();
    let mut ran = 0;
    for doc in documents(root) {
        let text = fs::read_to_string(root.join(&doc)).unwrap();
        let steps = steps(&text).unwrap_or_else(|error| panic!("{}: {error}", doc.display()));
        let cwd = dir.path().join(doc.to_string_lossy().replace('/', "__"));
        copy_data(&root.join("examples"), &cwd.join("examples"));
        let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
        // Backwards, so a rewritten output does not move the steps before it.
        let mut rewrites = Vec::new();
        for step in &steps {
            let out = snapbox::cmd::Command::new(bin)
                .args(&step.args)
                .current_dir(&cwd)
                .stderr_to_stdout()
                .output()
                .unwrap();
            ran += 1;
            let mut actual = String::from_utf8_lossy(&out.stdout).into_owned();
            if !actual.is_empty() && !actual.ends_with('\n') {
                actual.push('\n');
            }
            let expected: String = lines[step.output.clone()]
                .iter()
                .map(|l| format!("{l}\n"))
                .collect();
            let name = format!("{}:{}", doc.display(), step.line);
            if let Err(diff) = assert.try_eq(
                Some(&name),
                Data::text(actual.clone()),
                Data::text(expected.clone()),
            ) {
                if update {
                    rewrites.push((step.output.clone(), actual.clone()));
                } else {
                    failures.push(format!("{name}: `argmend {}`\n{diff}", step.args.join(" ")));
                }
            }
            if out.status.code() != Some(step.status) {
                failures.push(format!(
                    "{name}: `argmend {}` exited {:?}, the doc says {} (write `? N` under the command)",
                    step.args.join(" "),
                    out.status.code(),
                    step.status
                ));
            }
        }
        if update && !rewrites.is_empty() {
            for (range, actual) in rewrites.into_iter().rev() {
                lines.splice(range, actual.lines().map(str::to_owned));
            }
            fs::write(root.join(&doc), lines.join("\n") + "\n").unwrap();
        }
    }
    assert!(ran >= 20, "only {ran} documented commands ran");
    assert!(
        failures.is_empty(),
        "{} documented commands do not print what the docs show:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn the_shipped_patch_is_what_the_documented_diff_prints() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_argmend"))
        .current_dir(root)
        .args([
            "diff",
            "files",
            "examples/config/old.yaml",
            "examples/config/new.yaml",
        ])
        .output()
        .unwrap();
    let shipped = fs::read(root.join("examples/config/fix.diff")).unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&shipped)
    );
}

/// The README's MCP example, a Python client on the official SDK, run as
/// written from a copy of the repository's examples, with `argmend` on the
/// PATH as `cargo install` puts it; it must print the block after it.
#[test]
#[ignore = "needs the MCP Python SDK in target/mcp-venv: run scripts/test"]
fn the_readme_mcp_client_prints_what_it_shows() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = fs::read_to_string(root.join("README.md")).unwrap();
    let (code, shown) = python_block_with_output(&readme, "from mcp import")
        .expect("the README has an MCP client in Python, with its output");
    let dir = TempDir::new();
    copy_data(&root.join("examples"), &dir.path().join("examples"));
    let script = dir.write("client.py", code);
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_argmend")).parent().unwrap();
    let path = std::env::join_paths(std::iter::once(bin_dir.to_owned()).chain(
        std::env::split_paths(&std::env::var_os("PATH").unwrap_or_default()),
    ))
    .unwrap();
    let out = std::process::Command::new(crate::mcp::client_python())
        .arg(&script)
        .current_dir(dir.path())
        .env("PATH", path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the README's MCP example failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), shown);
}

/// The first ```` ```python ```` block holding `marker`, and the
/// ```` ```text ```` block right after it.
pub(crate) fn python_block_with_output(doc: &str, marker: &str) -> Option<(String, String)> {
    let mut blocks = Vec::new();
    let mut lines = doc.lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let body: Vec<&str> = lines.by_ref().take_while(|l| *l != "```").collect();
            blocks.push((lang.to_owned(), body.join("\n") + "\n"));
        }
    }
    let at = blocks
        .iter()
        .position(|(lang, body)| lang == "python" && body.contains(marker))?;
    let (lang, shown) = blocks.get(at + 1)?;
    (lang == "text").then(|| (blocks[at].1.clone(), shown.clone()))
}
