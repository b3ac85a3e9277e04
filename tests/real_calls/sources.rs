//! The excerpts the calls quote: replayed from the snapshot in
//! `corpus/real_files/` (see `snapshot`), or, when the snapshot is made
//! (`ARGMEND_REAL_CALLS_SNAPSHOT=1`), cut from real files on this machine.
//!
//! The machine's files come from three places, none of them this
//! repository: the cargo registry's copies of the crates pinned in
//! `crates.txt` (Rust, and a few other text kinds), Python's standard
//! library, and the C headers in `/usr/include`. Only a file whose license
//! can be named is a candidate: the crate's `license` field, PSF-2.0 for
//! Python's, and for a header what it states itself (see
//! [`header_license`]), so that excerpts of them may be kept in the
//! repository. Each list is sorted, so a seeded PRNG picks the same files,
//! and so builds the same calls, on every run on the same machine.
//!
//! The machine's picker counts the PRNG draws each pick makes, and notes
//! the line an edit takes from elsewhere in the file; the snapshot keeps
//! both, so its replay makes the same draws and the builders after it
//! build the same calls, byte for byte.

use std::collections::BTreeMap;
use std::fs;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::{Arc, OnceLock};

use super::snapshot::{self, Set};
use crate::rng::Rng;

/// The largest excerpt, in bytes.
const MAX_EXCERPT_BYTES: usize = 4_096;
/// The shortest and longest run of lines an excerpt starts from.
const MIN_LINES: usize = 3;
const MAX_LINES: usize = 40;
/// How many runs of one file are tried for one that holds a double quote
/// before the last one tried is taken anyway.
const QUOTE_TRIES: usize = 4;
/// The typographic quotes: what normalization straightens where they stand
/// as code delimiters, and must keep where they are data.
pub(super) const TYPOGRAPHIC: [char; 8] = [
    '\u{2018}', '\u{2019}', '\u{2032}', '\u{201C}', '\u{201D}', '\u{2033}', '\u{AB}', '\u{BB}',
];
/// How many files are tried for an excerpt with a typographic quote.
const TYPOGRAPHIC_TRIES: usize = 64;

/// What kind of text a file holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Kind {
    Rust,
    Python,
    C,
    Toml,
    Markdown,
    Json,
    Yaml,
    Shell,
}

impl Kind {
    pub(super) const ALL: [Kind; 8] = [
        Kind::Rust,
        Kind::Python,
        Kind::C,
        Kind::Toml,
        Kind::Markdown,
        Kind::Json,
        Kind::Yaml,
        Kind::Shell,
    ];

    /// The kinds of the registry that are not Rust, scored together as "other".
    const OTHER: [Kind; 5] = [
        Kind::Toml,
        Kind::Markdown,
        Kind::Json,
        Kind::Yaml,
        Kind::Shell,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Kind::Rust => "rust",
            Kind::Python => "python",
            Kind::C => "c",
            Kind::Toml => "toml",
            Kind::Markdown => "markdown",
            Kind::Json => "json",
            Kind::Yaml => "yaml",
            Kind::Shell => "shell",
        }
    }

    /// The source kind of the table: rust, python, c, or other.
    pub(super) fn family(self) -> Family {
        match self {
            Kind::Rust => Family::Rust,
            Kind::Python => Family::Python,
            Kind::C => Family::C,
            _ => Family::Other,
        }
    }

    /// The kind of a registry file, by its extension.
    fn of_registry_file(name: &str) -> Option<Kind> {
        let extension = name.rsplit_once('.')?.1;
        match extension {
            "rs" => Some(Kind::Rust),
            "toml" => Some(Kind::Toml),
            "md" => Some(Kind::Markdown),
            "json" => Some(Kind::Json),
            "yaml" | "yml" => Some(Kind::Yaml),
            "sh" => Some(Kind::Shell),
            _ => None,
        }
    }
}

/// The four source kinds the table reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Family {
    Rust,
    Python,
    C,
    Other,
}

impl Family {
    pub(super) fn name(self) -> &'static str {
        match self {
            Family::Rust => "rust",
            Family::Python => "python",
            Family::C => "c",
            Family::Other => "other",
        }
    }

    /// How often an excerpt comes from each family, in percent.
    const WEIGHTS: [(Family, u64); 4] = [
        (Family::Rust, 35),
        (Family::Python, 30),
        (Family::C, 15),
        (Family::Other, 20),
    ];
}

/// One candidate file: where it is, and the path a call names it by.
pub(super) struct SourceFile {
    path: PathBuf,
    /// The path below its source root: `serde_json-1.0.145/src/de.rs`,
    /// `json/decoder.py`, `linux/types.h`.
    pub(super) shown: String,
    /// The file's license, an SPDX expression: `MIT OR Apache-2.0`,
    /// `PSF-2.0`, `LGPL-2.1-or-later`, `GPL-2.0 WITH Linux-syscall-note`.
    pub(super) license: String,
}

/// Every candidate file, by kind, sorted by path.
pub(super) struct Sources {
    files: BTreeMap<Kind, Vec<SourceFile>>,
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

/// A run of consecutive lines of one file.
#[derive(Debug, Clone)]
pub(super) struct Excerpt {
    pub(super) kind: Kind,
    /// The file as a call names it.
    pub(super) file: String,
    /// The file's license (see [`SourceFile::license`]).
    pub(super) license: String,
    /// The first and last line, counted from 1.
    pub(super) first_line: usize,
    pub(super) last_line: usize,
    /// The lines, each without its final `\n` (a `\r` before it stays).
    pub(super) lines: Vec<String>,
    /// Where an edit that adds a line of the same file finds it.
    pub(super) elsewhere: Elsewhere,
}

/// The lines of the file an edit may add, or the one it added.
#[derive(Debug, Clone)]
pub(super) enum Elsewhere {
    /// Every line of the file, read on this machine; the line an edit
    /// takes is noted, for the snapshot.
    File {
        lines: Arc<Vec<String>>,
        taken: Arc<OnceLock<Taken>>,
    },
    /// The line an edit took when the snapshot was made, if one did.
    Snapshot(Option<Taken>),
}

/// A line an edit took from the file: the `index`th of its `of` lines
/// that are not blank.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Taken {
    pub(super) index: usize,
    pub(super) of: usize,
    pub(super) line: String,
}

impl Excerpt {
    /// The lines joined by `\n`, without a final one.
    pub(super) fn text(&self) -> String {
        self.lines.join("\n")
    }

    /// `file:first-last`.
    pub(super) fn place(&self) -> String {
        format!("{}:{}-{}", self.file, self.first_line, self.last_line)
    }

    /// A line of the same file that is not blank, for an edit that adds
    /// one: one PRNG draw, on the machine as in a replay.
    pub(super) fn line_elsewhere(&self, rng: &mut Rng) -> String {
        match &self.elsewhere {
            Elsewhere::File { lines, taken } => {
                let filled: Vec<&String> = lines.iter().filter(|l| !l.trim().is_empty()).collect();
                let index = rng.below(filled.len());
                let line = filled[index].clone();
                let of = filled.len();
                let noted = taken.set(Taken {
                    index,
                    of,
                    line: line.clone(),
                });
                assert!(noted.is_ok(), "{}: a second line taken", self.place());
                line
            }
            Elsewhere::Snapshot(taken) => {
                let Some(taken) = taken else {
                    panic!(
                        "{}: an edit adds a line of the file, and the snapshot noted none: {}",
                        self.place(),
                        snapshot::STALE
                    );
                };
                let index = rng.below(taken.of);
                assert_eq!(
                    index,
                    taken.index,
                    "{}: an edit takes another line of the file than when the snapshot was made: {}",
                    self.place(),
                    snapshot::STALE
                );
                taken.line.clone()
            }
        }
    }

    /// The line an edit took from elsewhere in the file, if one did.
    pub(super) fn taken(&self) -> Option<&Taken> {
        match &self.elsewhere {
            Elsewhere::File { taken, .. } => taken.get(),
            Elsewhere::Snapshot(taken) => taken.as_ref(),
        }
    }
}

/// One pick of a set: the excerpt (`None`: a typographic pick that found
/// none in its tries), whether it was a typographic pick, and how many
/// PRNG draws it made.
#[derive(Debug, Clone)]
pub(super) struct Pick {
    pub(super) typographic: bool,
    pub(super) draws: usize,
    pub(super) excerpt: Option<Excerpt>,
}

/// Picks the excerpts of one set: cuts them from the machine's files and
/// records each pick, or replays the snapshot's record of them.
pub(super) struct Picker {
    set: Set,
    /// The machine's files; `None` in a replay.
    machine: Option<Machine>,
    /// The picks made on the machine, or the snapshot's to replay.
    picks: Vec<Pick>,
    /// How many of the snapshot's picks were replayed.
    replayed: usize,
}

impl Picker {
    /// A picker of this machine's files, used only to make the snapshot.
    pub(super) fn machine(set: Set) -> Self {
        Picker {
            set,
            machine: Some(Machine {
                sources: sources(),
                cache: BTreeMap::new(),
                not_utf8: 0,
            }),
            picks: Vec::new(),
            replayed: 0,
        }
    }

    /// A picker that replays the snapshot's picks of `set`.
    pub(super) fn snapshot(set: Set) -> Self {
        Picker {
            set,
            machine: None,
            picks: snapshot::load(set),
            replayed: 0,
        }
    }

    /// One excerpt: see [`Machine::excerpt`].
    pub(super) fn excerpt(&mut self, rng: &mut Rng) -> Excerpt {
        self.pick(false, rng)
            .unwrap_or_else(|| panic!("{}: a pick without an excerpt", self.set.name()))
    }

    /// An excerpt that holds a typographic quote: see
    /// [`Machine::typographic_excerpt`].
    pub(super) fn typographic_excerpt(&mut self, rng: &mut Rng) -> Option<Excerpt> {
        self.pick(true, rng)
    }

    fn pick(&mut self, typographic: bool, rng: &mut Rng) -> Option<Excerpt> {
        if let Some(machine) = &mut self.machine {
            let mut counted = Counted { rng, draws: 0 };
            let excerpt = match typographic {
                true => machine.typographic_excerpt(&mut counted),
                false => Some(machine.excerpt(&mut counted)),
            };
            self.picks.push(Pick {
                typographic,
                draws: counted.draws,
                excerpt: excerpt.clone(),
            });
            return excerpt;
        }
        let Some(pick) = self.picks.get(self.replayed) else {
            panic!(
                "the {} set asks for more than the {} picks of its snapshot: {}",
                self.set.name(),
                self.picks.len(),
                snapshot::STALE
            );
        };
        assert_eq!(
            pick.typographic,
            typographic,
            "pick {} of the {} set: {}",
            self.replayed,
            self.set.name(),
            snapshot::STALE
        );
        self.replayed += 1;
        for _ in 0..pick.draws {
            rng.next_u64();
        }
        pick.excerpt.clone()
    }

    pub(super) fn set(&self) -> Set {
        self.set
    }

    /// The picks made on the machine, or the snapshot's.
    pub(super) fn picks(&self) -> &[Pick] {
        &self.picks
    }

    /// How many of the snapshot's picks no build asked for (none on the machine).
    pub(super) fn unused(&self) -> usize {
        match self.machine {
            Some(_) => 0,
            None => self.picks.len() - self.replayed,
        }
    }

    /// Files skipped because they are not valid UTF-8 (none in a replay).
    pub(super) fn not_utf8(&self) -> usize {
        self.machine.as_ref().map_or(0, |m| m.not_utf8)
    }
}

/// The PRNG as the machine's picker draws from it, counted. Each of
/// `below`, `pick` and `weighted` is one `next_u64` of [`Rng`], so a replay
/// that makes as many draws leaves the PRNG where the pick left it (the
/// snapshot's writer checks that its replay builds the same calls).
struct Counted<'a> {
    rng: &'a mut Rng,
    draws: usize,
}

impl Counted<'_> {
    fn below(&mut self, n: usize) -> usize {
        self.draws += 1;
        self.rng.below(n)
    }

    fn pick<'b, T>(&mut self, items: &'b [T]) -> &'b T {
        self.draws += 1;
        self.rng.pick(items)
    }

    fn weighted<T: Copy>(&mut self, items: &[(T, u64)]) -> T {
        self.draws += 1;
        self.rng.weighted(items)
    }
}

/// Picks files of this machine and excerpts of them; reads each file once.
struct Machine {
    sources: &'static Sources,
    /// The file's lines, or `None` when it is not UTF-8 (or unreadable).
    cache: BTreeMap<(Kind, usize), Option<Arc<Vec<String>>>>,
    /// Files skipped because they are not valid UTF-8.
    not_utf8: usize,
}

impl Machine {
    /// A kind: a family by its weight (families without files are left
    /// out), then for "other" one of its kinds that has files, each as likely.
    fn kind(&self, rng: &mut Counted) -> Kind {
        let weights: Vec<(Family, u64)> = Family::WEIGHTS
            .iter()
            .copied()
            .filter(|&(family, _)| {
                Kind::ALL
                    .iter()
                    .any(|&k| k.family() == family && self.sources.count(k) > 0)
            })
            .collect();
        assert!(!weights.is_empty(), "real_calls: no source file at all");
        match rng.weighted(&weights) {
            Family::Rust => Kind::Rust,
            Family::Python => Kind::Python,
            Family::C => Kind::C,
            Family::Other => {
                let present: Vec<Kind> = Kind::OTHER
                    .into_iter()
                    .filter(|&k| self.sources.count(k) > 0)
                    .collect();
                *rng.pick(&present)
            }
        }
    }

    fn lines(&mut self, kind: Kind, index: usize) -> Option<Arc<Vec<String>>> {
        let sources = self.sources;
        let not_utf8 = &mut self.not_utf8;
        self.cache
            .entry((kind, index))
            .or_insert_with(|| {
                let bytes = fs::read(&sources.files[&kind][index].path).ok()?;
                let Ok(text) = String::from_utf8(bytes) else {
                    *not_utf8 += 1;
                    return None;
                };
                let lines: Vec<String> = text.split('\n').map(str::to_owned).collect();
                Some(Arc::new(lines))
            })
            .clone()
    }

    /// One excerpt: a file of a random kind, a run of 3 to 40 lines (the
    /// first of a few tries that holds a double quote), cut at a line end to
    /// at most 4 KB. Files that are not UTF-8, runs of blank lines and single
    /// lines over 4 KB are skipped, and another file is picked.
    fn excerpt(&mut self, rng: &mut Counted) -> Excerpt {
        loop {
            let kind = self.kind(rng);
            let index = rng.below(self.sources.count(kind));
            let Some(file_lines) = self.lines(kind, index) else {
                continue;
            };
            let n = line_count(&file_lines);
            if n == 0 {
                continue;
            }
            let mut run = 0..0;
            for _ in 0..QUOTE_TRIES {
                let len = (MIN_LINES + rng.below(MAX_LINES - MIN_LINES + 1)).min(n);
                let start = rng.below(n - len + 1);
                run = start..start + len;
                if file_lines[run.clone()].iter().any(|l| l.contains('"')) {
                    break;
                }
            }
            // Lines are dropped from the end until the excerpt fits.
            let mut bytes: usize = file_lines[run.clone()].iter().map(|l| l.len() + 1).sum();
            while bytes > MAX_EXCERPT_BYTES && run.len() > 1 {
                run.end -= 1;
                bytes -= file_lines[run.end].len() + 1;
            }
            if let Some(excerpt) = self.cut(kind, index, &file_lines, run) {
                return excerpt;
            }
        }
    }

    /// An excerpt that holds a typographic quote (‘ ’ “ ” ′ ″ « »): a file
    /// of [`typographic_files`], a run of 3 to 40 lines around one of its
    /// lines that holds one, cut to at most 4 KB. In a file that compiles or
    /// reads as it should, such a quote is data: a comment, a docstring, a
    /// string literal, prose. `None` when no file holds one.
    fn typographic_excerpt(&mut self, rng: &mut Counted) -> Option<Excerpt> {
        let files = typographic_files();
        if files.is_empty() {
            return None;
        }
        for _ in 0..TYPOGRAPHIC_TRIES {
            let &(kind, index) = rng.pick(files);
            let Some(file_lines) = self.lines(kind, index) else {
                continue;
            };
            let n = line_count(&file_lines);
            let marked: Vec<usize> = (0..n)
                .filter(|&i| file_lines[i].contains(TYPOGRAPHIC))
                .collect();
            let Some(&line) = (!marked.is_empty()).then(|| rng.pick(&marked)) else {
                continue;
            };
            let len = (MIN_LINES + rng.below(MAX_LINES - MIN_LINES + 1)).min(n);
            let start = line.saturating_sub(rng.below(len)).min(n - len);
            let mut run = start..start + len;
            // Lines are dropped from the end, then from the start, keeping
            // the marked line, until the excerpt fits.
            let mut bytes: usize = file_lines[run.clone()].iter().map(|l| l.len() + 1).sum();
            while bytes > MAX_EXCERPT_BYTES && run.len() > 1 {
                let dropped = if run.end - 1 > line {
                    run.end -= 1;
                    run.end
                } else {
                    run.start += 1;
                    run.start - 1
                };
                bytes -= file_lines[dropped].len() + 1;
            }
            if let Some(excerpt) = self.cut(kind, index, &file_lines, run) {
                return Some(excerpt);
            }
        }
        None
    }

    /// The excerpt of `run`, unless it is over 4 KB or only blank lines.
    fn cut(
        &self,
        kind: Kind,
        index: usize,
        file_lines: &Arc<Vec<String>>,
        run: Range<usize>,
    ) -> Option<Excerpt> {
        let lines = file_lines[run.clone()].to_vec();
        let bytes: usize = lines.iter().map(|l| l.len() + 1).sum();
        if bytes > MAX_EXCERPT_BYTES || lines.iter().all(|l| l.trim().is_empty()) {
            return None;
        }
        let file = &self.sources.files[&kind][index];
        Some(Excerpt {
            kind,
            file: file.shown.clone(),
            license: file.license.clone(),
            first_line: run.start + 1,
            last_line: run.end,
            lines,
            elsewhere: Elsewhere::File {
                lines: Arc::clone(file_lines),
                taken: Arc::new(OnceLock::new()),
            },
        })
    }
}

/// How many lines a file has: a final newline leaves an empty last "line"
/// that is not a line.
fn line_count(file_lines: &[String]) -> usize {
    match file_lines.last() {
        Some(last) if last.is_empty() => file_lines.len() - 1,
        _ => file_lines.len(),
    }
}

/// The files that hold a typographic quote, by kind and index, found once
/// per run by reading every file (about 100 MB on a usual machine, read
/// without keeping it).
pub(super) fn typographic_files() -> &'static [(Kind, usize)] {
    static FILES: OnceLock<Vec<(Kind, usize)>> = OnceLock::new();
    FILES.get_or_init(|| {
        let sources = sources();
        let mut out = Vec::new();
        for (&kind, files) in &sources.files {
            for (index, file) in files.iter().enumerate() {
                let holds = fs::read(&file.path).is_ok_and(|bytes| {
                    std::str::from_utf8(&bytes).is_ok_and(|text| text.contains(TYPOGRAPHIC))
                });
                if holds {
                    out.push((kind, index));
                }
            }
        }
        out
    })
}
