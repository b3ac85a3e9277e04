//! The excerpts the calls quote: replayed from the snapshot in
//! `../shared/real_files/` (see `snapshot`), or, when the snapshot is made
//! (`ARGMEND_REAL_CALLS_SNAPSHOT=1`), cut from real files on this machine.
//!
//! The machine's files come from three places, none of them this
//! repository: the cargo registry's copies of the crates pinned in
//! `crates.txt` (Rust, and a few other text kinds), Python's standard
//! library, and the C headers in `/usr/include`. Only a file whose license
//! can be named is a candidate: the crate's `license` field, PSF-2.0 for
//! Python's, and for a header what it states itself (see
//! `machine_files::header_license`), so that excerpts of them may be kept in the
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
use std::sync::{Arc, OnceLock};

use super::machine_files::{Sources, sources};
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
    pub(super) fn of_registry_file(name: &str) -> Option<Kind> {
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

/// A run of consecutive lines of one file.
#[derive(Debug, Clone)]
pub(super) struct Excerpt {
    pub(super) kind: Kind,
    /// The file as a call names it.
    pub(super) file: String,
    /// The file's license (see `machine_files::SourceFile::license`).
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
