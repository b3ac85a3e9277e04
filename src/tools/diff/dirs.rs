//! Tree diffs: which files were added, removed or changed between two
//! directories, names only, with a glob filter and caps. The walk itself is
//! in `tree.rs`.

use std::fmt;
use std::path::Path;

use super::error::Error;
use super::glob::Glob;
use super::tree::{self, Change, MAX_WALK};
use super::unified::MAX_OUTPUT;
use crate::tools::{Workspace, shown_bytes, shown_name};

/// The most entries an answer lists.
const MAX_ENTRIES: usize = 2_000;
/// What the walk leaves out, as the answer says it.
const SKIPPED: &str = "version control (.git, .hg, .svn, .jj, repositories), node_modules and \
                       vendor skipped";

/// The differences between two trees.
///
/// Its `Display` is the answer a model reads: one line per path, capped at
/// 2,000 entries and 30,000 bytes, then a summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirDiff {
    names: [String; 2],
    entries: Vec<(String, Change)>,
    /// Which entries are not UTF-8, and so already quoted ([`shown_bytes`]).
    escaped: Vec<bool>,
    n_identical: usize,
    walk_capped: bool,
    glob: Option<String>,
}

impl DirDiff {
    /// Every differing path (relative, `/`-separated), sorted by its
    /// bytes; a path that is not UTF-8 is given quoted as git quotes it
    /// (`"caf\351.txt"`), so no two paths read alike.
    pub fn entries(&self) -> &[(String, Change)] {
        &self.entries
    }

    /// How many files are the same in both trees.
    pub fn n_identical(&self) -> usize {
        self.n_identical
    }
}

impl fmt::Display for DirDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let skipped = SKIPPED;
        let filter = self
            .glob
            .as_ref()
            .map(|g| format!(", names matching `{g}`"))
            .unwrap_or_default();
        if self.entries.is_empty() {
            return writeln!(
                f,
                "`{}` and `{}` hold the same files ({} compared{filter}; {skipped})",
                shown_name(&self.names[0]),
                shown_name(&self.names[1]),
                self.n_identical
            );
        }
        let mut n_bytes = 0;
        let mut n_shown = 0;
        for ((path, change), escaped) in self.entries.iter().zip(&self.escaped) {
            let shown = if *escaped {
                path.into()
            } else {
                shown_name(path)
            };
            let line = format!("{:<8} {shown}\n", change.word());
            if n_shown == MAX_ENTRIES || n_bytes + line.len() > MAX_OUTPUT - 600 {
                break;
            }
            n_bytes += line.len();
            n_shown += 1;
            f.write_str(&line)?;
        }
        let count = |c| self.entries.iter().filter(|(_, e)| *e == c).count();
        writeln!(
            f,
            "{} differ ({} added, {} removed, {} changed), {} identical{filter}; {skipped}",
            self.entries.len(),
            count(Change::Added),
            count(Change::Removed),
            count(Change::Changed),
            self.n_identical
        )?;
        if n_shown < self.entries.len() {
            writeln!(
                f,
                "note: {} more not listed; narrow it with `glob` (e.g. \"src/**/*.rs\") or diff \
                 a subdirectory",
                self.entries.len() - n_shown
            )?;
        }
        if self.walk_capped {
            writeln!(
                f,
                "note: a tree has more than {MAX_WALK} files; only the first {MAX_WALK} were \
                 compared: diff a subdirectory"
            )?;
        }
        Ok(())
    }
}

/// Compare two directory trees inside the workspace, optionally only the
/// paths that match `glob` (`*.go`, `src/**/*.rs`, `*.{yaml,yml}`).
///
/// ```
/// use argmend::tools::{Workspace, diff::{Change, diff_dirs}};
///
/// let dir = std::env::temp_dir().join(format!("argmend-doc-dirs-{}", std::process::id()));
/// for side in ["old", "new"] {
///     std::fs::create_dir_all(dir.join(side)).unwrap();
///     std::fs::write(dir.join(side).join("same.txt"), "x").unwrap();
/// }
/// std::fs::write(dir.join("new/extra.rs"), "fn main() {}").unwrap();
/// let workspace = Workspace::new(&dir).unwrap();
/// let diff = diff_dirs(&workspace, "old", "new", None).unwrap();
/// assert_eq!(diff.entries(), &[("extra.rs".to_owned(), Change::Added)]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn diff_dirs(
    workspace: &Workspace,
    a: impl AsRef<Path>,
    b: impl AsRef<Path>,
    glob: Option<&str>,
) -> Result<DirDiff, Error> {
    let (a, b) = (a.as_ref(), b.as_ref());
    let matcher = glob.map(Glob::new).transpose()?;
    let mut tops = Vec::new();
    for side in [a, b] {
        let located = workspace.locate_for_read(side)?;
        let name = side.display().to_string();
        let top = located
            .open_dir()
            .map_err(|error| Error::io("walk", name, error))?;
        tops.push(top);
    }
    let [top_a, top_b]: [_; 2] = tops
        .try_into()
        .map_err(|_| Error::argument("two trees are compared"))?;
    let mut found = tree::compare([top_a, top_b], matcher.as_ref())?;
    found.entries.sort();
    let mut entries = Vec::with_capacity(found.entries.len());
    let mut escaped = Vec::with_capacity(found.entries.len());
    for (path, change) in found.entries {
        match String::from_utf8(path) {
            Ok(text) => {
                entries.push((text, change));
                escaped.push(false);
            }
            Err(error) => {
                entries.push((shown_bytes(error.as_bytes()).into_owned(), change));
                escaped.push(true);
            }
        }
    }
    Ok(DirDiff {
        names: [a.display().to_string(), b.display().to_string()],
        entries,
        escaped,
        n_identical: found.n_identical,
        walk_capped: found.capped,
        glob: glob.map(str::to_owned),
    })
}
