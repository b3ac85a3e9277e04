//! The snapshot of the excerpts the calls are built on, in
//! `../shared/real_files/`: one JSON Lines file per set (`broken.jsonl`,
//! `truncated.jsonl`, `valid.jsonl`), a pick a line in the order the set
//! made them, and `licenses.tsv`, the license of every source excerpted
//! (a replay takes each excerpt's license from it, and fails on an excerpt
//! whose source it does not name).
//! Every run replays it; `ARGMEND_REAL_CALLS_SNAPSHOT=1` makes it again
//! from this machine's files (see `../shared/real_files/README.md`).
//!
//! A line holds what the builders need and nothing else: the excerpt's
//! kind, the file it names (`serde_json-1.0.154/src/error.rs`), its first line, its text, whether it was a typographic pick, how many
//! PRNG draws the pick made, and, when an edit added a line of the same
//! file, that line with its place among the file's lines that are not
//! blank (what the edit's draw chose from).

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::sources::{Elsewhere, Excerpt, Kind, Pick, Picker, Taken};

/// Set to `1` to make the snapshot again from this machine's files.
pub(super) const VAR: &str = "ARGMEND_REAL_CALLS_SNAPSHOT";

/// What a replay that goes out of step says to do.
pub(super) const STALE: &str = "the builders or the counts changed since ../shared/real_files/ was made; \
     make it again: ARGMEND_REAL_CALLS_SNAPSHOT=1 cargo test --release --test main real_calls \
     (../shared/real_files/README.md)";

/// The three sets of calls, each drawn with its own seed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Set {
    Broken,
    Truncated,
    Valid,
}

impl Set {
    pub(super) const ALL: [Set; 3] = [Set::Broken, Set::Truncated, Set::Valid];

    pub(super) fn name(self) -> &'static str {
        match self {
            Set::Broken => "broken",
            Set::Truncated => "truncated",
            Set::Valid => "valid",
        }
    }

    fn path(self) -> PathBuf {
        dir().join(format!("{}.jsonl", self.name()))
    }
}

/// Whether this run makes the snapshot again (`ARGMEND_REAL_CALLS_SNAPSHOT=1`).
pub(super) fn making() -> bool {
    std::env::var(VAR).is_ok_and(|v| v == "1")
}

/// `real_files/` of the shared folder beside the checkout (the excerpts
/// are other projects' text, so the repository does not hold them).
pub(super) fn dir() -> PathBuf {
    crate::shared::root().join("real_files")
}

/// Whether the snapshot is there to replay, or this run makes it; when it
/// is neither, the test is skipped and says so (`tests/shared.rs`).
pub(super) fn available() -> bool {
    making()
        || crate::shared::dir(
            "real_files",
            "the excerpts of real files the calls are built on",
        )
        .is_some()
}

/// One line of a set's file.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    /// `rust`, `python`, `c`, `toml`, `markdown`, `json`, `yaml`, `shell`.
    kind: String,
    /// The file as a call names it: below the crate's directory in the
    /// cargo registry (`name-version/…`), Python's standard library, or
    /// `/usr/include`.
    file: String,
    /// Counted from 1.
    first_line: usize,
    /// The PRNG draws the pick made.
    draws: usize,
    #[serde(default, skip_serializing_if = "is_false")]
    typographic: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    taken: Option<TakenRecord>,
    /// The lines joined by `\n`.
    text: String,
}

#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TakenRecord {
    index: usize,
    of: usize,
    line: String,
}

fn is_false(b: &bool) -> bool {
    !*b
}

fn kind_named(name: &str) -> Option<Kind> {
    Kind::ALL.into_iter().find(|k| k.name() == name)
}

/// The licenses of `licenses.tsv`: Python's, and every other source's.
struct Licenses {
    python: Option<String>,
    /// By crate (`name-version`) or header (`/usr/include/…`).
    by_source: BTreeMap<String, String>,
}

impl Licenses {
    fn load() -> Self {
        let path = dir().join("licenses.tsv");
        let text = fs::read_to_string(&path)
            .unwrap_or_else(|e| panic!("{}: {e} (../shared/real_files/README.md)", path.display()));
        let mut licenses = Licenses {
            python: None,
            by_source: BTreeMap::new(),
        };
        for (i, line) in text.lines().enumerate().skip(1) {
            let columns: Vec<&str> = line.split('\t').collect();
            let [origin, source, license, _excerpts] = columns[..] else {
                panic!(
                    "{}:{}: not origin, source, license, excerpts",
                    path.display(),
                    i + 1
                );
            };
            match origin {
                "python" => licenses.python = Some(license.to_owned()),
                _ => {
                    licenses
                        .by_source
                        .insert(source.to_owned(), license.to_owned());
                }
            }
        }
        licenses
    }

    /// The license of the file an excerpt names, as [`source_of`] names its source.
    fn of(&self, kind: Kind, file: &str) -> Option<String> {
        match kind {
            Kind::Python => self.python.clone(),
            Kind::C => self.by_source.get(&format!("/usr/include/{file}")).cloned(),
            _ => {
                let krate = file.split('/').next().unwrap_or_default();
                self.by_source.get(krate).cloned()
            }
        }
    }
}

/// The picks of `set`, in order. Panics, naming the file and line, when the
/// snapshot is missing, a line is not a pick, or `licenses.tsv` does not
/// name the license of the file it quotes.
pub(super) fn load(set: Set) -> Vec<Pick> {
    let licenses = Licenses::load();
    let path = set.path();
    let text = fs::read_to_string(&path).unwrap_or_else(|e| {
        panic!(
            "{}: {e} (the snapshot of real files; ../shared/real_files/README.md)",
            path.display()
        )
    });
    text.lines()
        .enumerate()
        .map(|(i, line)| {
            let at = || format!("{}:{}", path.display(), i + 1);
            let record: Record =
                serde_json::from_str(line).unwrap_or_else(|e| panic!("{}: not a pick: {e}", at()));
            let kind = kind_named(&record.kind)
                .unwrap_or_else(|| panic!("{}: no kind {:?}", at(), record.kind));
            let license = licenses.of(kind, &record.file).unwrap_or_else(|| {
                panic!(
                    "{}: licenses.tsv names no license for {}",
                    at(),
                    record.file
                )
            });
            let lines: Vec<String> = record.text.split('\n').map(str::to_owned).collect();
            let taken = record.taken.map(|t| Taken {
                index: t.index,
                of: t.of,
                line: t.line,
            });
            let excerpt = Excerpt {
                kind,
                file: record.file,
                license,
                first_line: record.first_line,
                last_line: record.first_line + lines.len() - 1,
                lines,
                elsewhere: Elsewhere::Snapshot(taken),
            };
            Pick {
                typographic: record.typographic,
                draws: record.draws,
                excerpt: Some(excerpt),
            }
        })
        .collect()
}

/// Writes the picks of the machine's pickers, one file per set, and
/// `licenses.tsv`. Every pick must hold an excerpt: a typographic pick
/// that found none means this machine's files hold too few such quotes.
pub(super) fn write(pickers: &[Picker]) {
    let dir = dir();
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut licenses: BTreeMap<(&'static str, String, String), usize> = BTreeMap::new();
    for picker in pickers {
        let mut out = String::new();
        for (i, pick) in picker.picks().iter().enumerate() {
            let Some(excerpt) = &pick.excerpt else {
                panic!(
                    "pick {i} of the {} set found no excerpt: too few files with a typographic quote to snapshot",
                    picker.set().name()
                );
            };
            let record = Record {
                kind: excerpt.kind.name().to_owned(),
                file: excerpt.file.clone(),
                first_line: excerpt.first_line,
                draws: pick.draws,
                typographic: pick.typographic,
                taken: excerpt.taken().map(|t| TakenRecord {
                    index: t.index,
                    of: t.of,
                    line: t.line.clone(),
                }),
                text: excerpt.text(),
            };
            out.push_str(&serde_json::to_string(&record).expect("a record serialises"));
            out.push('\n');
            let (origin, source) = source_of(excerpt);
            *licenses
                .entry((origin, source, excerpt.license.clone()))
                .or_default() += 1;
        }
        let path = picker.set().path();
        fs::write(&path, out).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    let mut tsv = String::from("origin\tsource\tlicense\texcerpts\n");
    for ((origin, source, license), n) in &licenses {
        tsv.push_str(&format!("{origin}\t{source}\t{license}\t{n}\n"));
    }
    let path = dir.join("licenses.tsv");
    fs::write(&path, tsv).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
}

/// Where an excerpt's text comes from, as `licenses.tsv` names it: the
/// crate (`crates.io`, `name-version`), Python's standard library
/// (`python`, its version), or the header (`glibc` or `linux`, by the
/// license it states, and its path).
fn source_of(excerpt: &Excerpt) -> (&'static str, String) {
    match excerpt.kind {
        Kind::Python => {
            let version = &super::machine_files::sources().python;
            ("python", format!("Python {version} standard library"))
        }
        Kind::C if excerpt.license.contains("Linux-syscall-note") => {
            ("linux", format!("/usr/include/{}", excerpt.file))
        }
        Kind::C => ("glibc", format!("/usr/include/{}", excerpt.file)),
        _ => {
            let krate = excerpt.file.split('/').next().unwrap_or_default();
            ("crates.io", krate.to_owned())
        }
    }
}

/// One line on the excerpts a run used: how many of each kind, of how many files.
pub(super) fn describe(pickers: &[Picker]) -> String {
    let excerpts: Vec<&Excerpt> = pickers
        .iter()
        .flat_map(Picker::picks)
        .filter_map(|pick| pick.excerpt.as_ref())
        .collect();
    let files: BTreeSet<&str> = excerpts.iter().map(|e| e.file.as_str()).collect();
    let kinds: Vec<String> = Kind::ALL
        .iter()
        .map(|&k| {
            let n = excerpts.iter().filter(|e| e.kind == k).count();
            format!("{n} {}", k.name())
        })
        .collect();
    format!(
        "{} excerpts ({}) of {} files",
        excerpts.len(),
        kinds.join(", "),
        files.len()
    )
}
