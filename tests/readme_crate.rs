//! The README's Rust examples, built and run as a user's crate would build
//! them (issue 41): a new crate whose `[dependencies]` are the README's
//! `toml` block, the checkout's path put in, and whose `main` runs every
//! `rust` block of the README. The doc tests run the same blocks, but with
//! this crate's dev-dependencies in scope: `serde_json` there hid that the
//! streaming example needs it and the README did not say so.
//!
//! The crate is made under `target/readme-crate/` (its own target folder,
//! so this test never waits on the lock of the build running it) and built
//! offline, with this checkout's `Cargo.lock`, so it takes the versions the
//! repository is tested with and needs no network.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The fenced blocks of `text` whose info string is `lang`.
fn blocks<'a>(text: &'a str, lang: &str) -> Vec<&'a str> {
    let mut out = Vec::new();
    let mut rest = text;
    let open = format!("```{lang}\n");
    while let Some(at) = rest.find(&open) {
        let body = &rest[at + open.len()..];
        let end = body.find("```\n").expect("an unclosed fence");
        out.push(&body[..end]);
        rest = &body[end..];
    }
    out
}

/// The README's `[dependencies]`, with the checkout's absolute path.
fn dependencies(readme: &str, root: &Path) -> String {
    let toml = blocks(readme, "toml");
    let deps = (toml.iter())
        .find(|block| block.starts_with("[dependencies]"))
        .expect("the README shows a [dependencies] block");
    assert!(
        deps.contains(r#"path = "../argmend""#),
        "the README's dependency is the checkout: {deps}"
    );
    deps.replace(
        r#"path = "../argmend""#,
        &format!("path = {:?}", root.display().to_string()),
    )
}

/// The crate's `main.rs`: each block in a function of its own.
fn main_rs(readme: &str) -> String {
    let rust = blocks(readme, "rust");
    assert!(rust.len() >= 2, "the README's Rust examples are gone");
    let mut out = String::new();
    for (n, block) in rust.iter().enumerate() {
        out.push_str(&format!("fn example_{n}() {{\n{block}}}\n\n"));
    }
    out.push_str("fn main() {\n");
    for n in 0..rust.len() {
        out.push_str(&format!("    example_{n}();\n"));
    }
    out.push_str(&format!(
        "    println!(\"ran {} examples\");\n}}\n",
        rust.len()
    ));
    out
}

#[test]
fn readme_rust_examples_build_and_run_in_a_users_crate() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root.join("target"));
    let dir = root.join(target).join("readme-crate");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"readme-user\"\nversion = \"0.0.0\"\nedition = \"2024\"\npublish = false\n\n\
         # Its own workspace: not a member of anything above it.\n[workspace]\n\n{}",
        dependencies(&readme, root)
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::write(dir.join("src/main.rs"), main_rs(&readme)).unwrap();
    std::fs::copy(root.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    let run = Command::new(env!("CARGO"))
        .args(["run", "--offline", "--quiet", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .output()
        .expect("run cargo");
    assert!(
        run.status.success(),
        "the README's Rust examples do not build or run as a user's crate ({}):\n{}",
        dir.display(),
        String::from_utf8_lossy(&run.stderr)
    );
    let rust = blocks(&readme, "rust").len();
    assert!(
        String::from_utf8_lossy(&run.stdout).ends_with(&format!("ran {rust} examples\n")),
        "{}",
        String::from_utf8_lossy(&run.stdout)
    );
}
