//! The machine's files that a snapshot of `../shared/real_files/` is cut from
//! (`ARGMEND_REAL_CALLS_SNAPSHOT=1` only; an ordinary run reads the
//! snapshot): the cargo registry's copies of the crates pinned in
//! `crates.txt`, Python's standard library and the C headers in
//! `/usr/include`, each with the license it can be kept under.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use super::sources::Kind;

/// One candidate file: where it is, and the path a call names it by.
pub(super) struct SourceFile {
    pub(super) path: PathBuf,
    /// The path below its source root: `serde_json-1.0.145/src/de.rs`,
    /// `json/decoder.py`, `linux/types.h`.
    pub(super) shown: String,
    /// The file's license, an SPDX expression: `MIT OR Apache-2.0`,
    /// `PSF-2.0`, `LGPL-2.1-or-later`, `GPL-2.0 WITH Linux-syscall-note`.
    pub(super) license: String,
}

/// Every candidate file, by kind, sorted by path.
pub(super) struct Sources {
    pub(super) files: BTreeMap<Kind, Vec<SourceFile>>,
    /// The version of the Python whose standard library is read: `3.11.7`.
    pub(super) python: String,
    /// What was left out because its license could not be named: the
    /// crates without a `license` field, the number of such headers.
    pub(super) unlicensed: Vec<String>,
}

impl Sources {
    pub(super) fn count(&self, kind: Kind) -> usize {
        self.files.get(&kind).map_or(0, Vec::len)
    }
}

/// The machine's sources, found once per run, only when the snapshot is
/// made. Panics with the reason when one is missing: a snapshot holds all
/// four families.
pub(super) fn sources() -> &'static Sources {
    static SOURCES: OnceLock<Sources> = OnceLock::new();
    SOURCES.get_or_init(|| {
        let mut files: BTreeMap<Kind, Vec<SourceFile>> = BTreeMap::new();
        let mut missing = Vec::new();
        let mut unlicensed = Vec::new();
        let mut python = String::new();
        let mut found = |result: Result<Vec<(Kind, SourceFile)>, String>| match result {
            Ok(list) => {
                for (kind, file) in list {
                    files.entry(kind).or_default().push(file);
                }
            }
            Err(why) => missing.push(why),
        };
        found(registry_files(&mut unlicensed));
        found(python_files().map(|(version, files)| {
            python = version;
            files
        }));
        found(header_files(&mut unlicensed));
        for list in files.values_mut() {
            list.sort_by(|a, b| a.path.cmp(&b.path));
        }
        assert!(
            missing.is_empty(),
            "real_calls: a source of real files to snapshot is missing:\n  {}",
            missing.join("\n  ")
        );
        Sources {
            files,
            python,
            unlicensed,
        }
    })
}

/// The crates whose files are drawn from, as their directory names
/// (`name-version`): the registry crates of this repository's `Cargo.lock`
/// when the targets were set, pinned in `crates.txt`. Why pinned: the draw
/// indexes one sorted list of files, so a dependency added for an unrelated
/// reason reshuffled the whole sample and moved the scores (adding cap-std
/// for the workspace boundary did). A crate of the list that this machine's
/// registry lacks is skipped, as before. Re-pin (and re-check the targets)
/// deliberately: `tests/real_calls/crates.txt` is the list.
/// Only the crates this host builds are taken (`cargo metadata
/// --filter-platform`): the registry holds the others only on a machine
/// where someone ran `cargo fetch`, so the draw would differ from CI's.
fn locked_crates() -> Vec<String> {
    let host = host_crates();
    include_str!("crates.txt")
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .filter(|name| host.as_ref().is_none_or(|host| host.contains(*name)))
        .map(str::to_owned)
        .collect()
}

/// The `name-version` of every package the host's build resolves, or
/// `None` when cargo cannot say (then every pinned crate is a candidate).
fn host_crates() -> Option<std::collections::BTreeSet<String>> {
    use std::process::Command;
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let rustc = Command::new("rustc").arg("-vV").output().ok()?;
    let info = String::from_utf8(rustc.stdout).ok()?;
    let host = info.lines().find_map(|line| line.strip_prefix("host: "))?;
    let output = Command::new(cargo)
        .args(["metadata", "--format-version", "1", "--offline", "--locked"])
        .args(["--filter-platform", host])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let metadata: serde_json::Value = serde_json::from_slice(&output.stdout).ok()?;
    let ids: std::collections::BTreeSet<&str> = metadata["resolve"]["nodes"]
        .as_array()?
        .iter()
        .filter_map(|node| node["id"].as_str())
        .collect();
    Some(
        metadata["packages"]
            .as_array()?
            .iter()
            .filter(|package| package["id"].as_str().is_some_and(|id| ids.contains(id)))
            .filter_map(|package| {
                Some(format!(
                    "{}-{}",
                    package["name"].as_str()?,
                    package["version"].as_str()?
                ))
            })
            .collect(),
    )
}

/// The `*.rs`, `*.toml`, `*.md`, `*.json`, `*.yaml`, `*.yml` and `*.sh` files
/// of the locked crates found under `$CARGO_HOME/registry/src/*/`. The
/// `.cargo_vcs_info.json` cargo writes into each crate is not the crate's text.
/// A crate without a `license` field is left out (and named in `unlicensed`).
fn registry_files(unlicensed: &mut Vec<String>) -> Result<Vec<(Kind, SourceFile)>, String> {
    let cargo_home = std::env::var_os("CARGO_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| Path::new(&home).join(".cargo")))
        .ok_or("neither CARGO_HOME nor HOME is set: no cargo registry")?;
    let src = cargo_home.join("registry").join("src");
    let mut registries: Vec<PathBuf> = fs::read_dir(&src)
        .map_err(|e| format!("the cargo registry {}: {e}", src.display()))?
        .filter_map(|entry| entry.ok().map(|e| e.path()))
        .filter(|path| path.is_dir())
        .collect();
    registries.sort();
    let mut out = Vec::new();
    for name in locked_crates() {
        // The same crate may sit in several registries; the first is taken.
        let Some(dir) = registries
            .iter()
            .map(|registry| registry.join(&name))
            .find(|dir| dir.is_dir())
        else {
            continue;
        };
        let Some(license) = crate_license(&dir) else {
            unlicensed.push(format!("the crate {name} (no license field)"));
            continue;
        };
        for path in walk(&dir) {
            let file_name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
            if file_name == ".cargo_vcs_info.json" {
                continue;
            }
            if let Some(kind) = Kind::of_registry_file(file_name) {
                let shown = format!("{name}/{}", relative(&path, &dir));
                let license = license.clone();
                let file = SourceFile {
                    path,
                    shown,
                    license,
                };
                out.push((kind, file));
            }
        }
    }
    if !out.iter().any(|(kind, _)| *kind == Kind::Rust) {
        return Err(format!(
            "no crate of Cargo.lock under {}/*/ (build the tests once to fetch them)",
            src.display()
        ));
    }
    Ok(out)
}

/// The `license` of a crate's `[package]`, as its `Cargo.toml` states it
/// (cargo writes it as a basic string when it packages the crate).
fn crate_license(dir: &Path) -> Option<String> {
    let manifest = fs::read_to_string(dir.join("Cargo.toml")).ok()?;
    let mut in_package = false;
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            in_package = line == "[package]";
            continue;
        }
        let Some((key, value)) = line.split_once('=') else {
            continue;
        };
        if in_package && key.trim() == "license" {
            let value = value.trim().strip_prefix('"')?.strip_suffix('"')?;
            return (!value.is_empty() && !value.contains(['"', '\\'])).then(|| value.to_owned());
        }
    }
    None
}

/// The `*.py` files of Python's standard library (not `site-packages`),
/// and the version of that Python.
fn python_files() -> Result<(String, Vec<(Kind, SourceFile)>), String> {
    let output = Command::new("python3")
        .args([
            "-c",
            "import platform, sysconfig; print(sysconfig.get_paths()[\"stdlib\"]); print(platform.python_version())",
        ])
        .output()
        .map_err(|e| format!("python3 does not run: {e}"))?;
    if !output.status.success() {
        return Err(format!(
            "python3 could not name its standard library: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        ));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let mut lines = stdout.lines();
    let stdlib = PathBuf::from(lines.next().unwrap_or_default().trim());
    let version = lines.next().unwrap_or_default().trim().to_owned();
    let out: Vec<(Kind, SourceFile)> = walk(&stdlib)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "py"))
        .filter(|path| !path.components().any(|c| c.as_os_str() == "site-packages"))
        .map(|path| {
            let shown = relative(&path, &stdlib);
            let license = "PSF-2.0".to_owned();
            let file = SourceFile {
                path,
                shown,
                license,
            };
            (Kind::Python, file)
        })
        .collect();
    if out.is_empty() {
        return Err(format!(
            "no *.py file in Python's standard library {}",
            stdlib.display()
        ));
    }
    Ok((version, out))
}

/// `/usr/include/*.h` and `/usr/include/*/*.h` that state their license
/// (see [`header_license`]); the others are counted in `unlicensed`.
fn header_files(unlicensed: &mut Vec<String>) -> Result<Vec<(Kind, SourceFile)>, String> {
    let root = Path::new("/usr/include");
    let mut out = Vec::new();
    let entries = fs::read_dir(root).map_err(|e| format!("{}: {e}", root.display()))?;
    for entry in entries.filter_map(Result::ok) {
        let path = entry.path();
        if path.is_dir() {
            let Ok(inner) = fs::read_dir(&path) else {
                continue;
            };
            for entry in inner.filter_map(Result::ok) {
                out.push(entry.path());
            }
        } else {
            out.push(path);
        }
    }
    let headers: Vec<PathBuf> = out
        .into_iter()
        .filter(|path| path.is_file() && path.extension().is_some_and(|e| e == "h"))
        .collect();
    let mut out = Vec::new();
    let mut left_out = 0;
    for path in headers {
        let Some(license) = fs::read(&path).ok().and_then(|b| header_license(&b)) else {
            left_out += 1;
            continue;
        };
        let shown = relative(&path, root);
        let file = SourceFile {
            path,
            shown,
            license,
        };
        out.push((Kind::C, file));
    }
    if left_out > 0 {
        unlicensed.push(format!(
            "{left_out} headers of /usr/include that state neither license"
        ));
    }
    if out.is_empty() {
        return Err(
            "no glibc or Linux C header in /usr/include or one level below (libc6-dev)".to_owned(),
        );
    }
    Ok(out)
}

/// How far into a header its license notice is looked for, in bytes.
const NOTICE_BYTES: usize = 3_000;

/// The license a header states near its top, when it is one of the two
/// the C family is drawn from: the GNU C Library's notice (the Lesser GPL,
/// "version 2.1 of the License, or (at your option) any later version"),
/// or a Linux UAPI header's `SPDX-License-Identifier` with the
/// `Linux-syscall-note` (the expression as the file writes it). Any other
/// header (another package's, a BSD-derived one of glibc's, a Linux one
/// without the tag) is `None`: left out.
pub(super) fn header_license(bytes: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&bytes[..bytes.len().min(NOTICE_BYTES)]);
    for line in head.lines() {
        if let Some((_, expression)) = line.split_once("SPDX-License-Identifier:") {
            let expression = expression.trim().trim_end_matches("*/").trim();
            if expression.contains("Linux-syscall-note") {
                return Some(expression.to_owned());
            }
        }
    }
    let words = head.split_whitespace().collect::<Vec<_>>().join(" ");
    let glibc = words.contains("The GNU C Library is free software")
        && words.contains("GNU Lesser General Public License")
        && words.contains("version 2.1 of the License, or (at your option) any later version");
    glibc.then(|| "LGPL-2.1-or-later".to_owned())
}

/// Every regular file below `dir`, without following symbolic links.
fn walk(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.filter_map(Result::ok) {
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push(entry.path()),
                Ok(t) if t.is_file() => files.push(entry.path()),
                _ => {}
            }
        }
    }
    files
}

fn relative(path: &Path, root: &Path) -> String {
    path.strip_prefix(root)
        .unwrap_or(path)
        .to_string_lossy()
        .into_owned()
}
