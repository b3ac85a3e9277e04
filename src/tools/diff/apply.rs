//! The strict apply: every context and removed line must match at the
//! declared position, every file of the patch applies or none does, and a
//! write goes through a temporary file renamed over the original.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use super::error::{Error, Repr};
use super::hunks::{self, FileChange};
use super::patch::{self, FilePatch};
use super::unified::read_located;
use super::write::{self, Report};
use crate::tools::{Located, NodeKind, Workspace, shown_name};

/// One file to change, with its report.
type Job = write::Job<FileReport>;

/// Whether `apply` only checks or also writes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum Mode {
    /// Check that every hunk applies; change nothing (the default).
    #[default]
    DryRun,
    /// Check, then write `<file>.bak` and the patched file.
    Write,
}

/// What an apply did (or, in a dry run, would do).
///
/// Its `Display` is the answer a model reads.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApplyReport {
    mode: Mode,
    files: Vec<FileReport>,
}

/// What happened to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileReport {
    /// The file, as the caller or the patch named it.
    pub path: String,
    /// Hunks applied.
    pub n_hunks: usize,
    /// Lines added.
    pub n_added: usize,
    /// Lines removed.
    pub n_removed: usize,
    /// Whether the patch creates, deletes or modifies the file.
    pub change: FileChange,
    /// Where the original was saved (`<file>.bak`), after a write.
    pub backup: Option<String>,
    /// What was kept from the file although the patch differed: its line
    /// endings, or its lack of a final newline.
    pub notes: Vec<String>,
}

impl Report for FileReport {
    fn name(&self) -> &str {
        &self.path
    }

    fn set_backup(&mut self, backup: String) {
        self.backup = Some(backup);
    }
}

impl ApplyReport {
    /// The files the patch changes, in patch order.
    pub fn files(&self) -> &[FileReport] {
        &self.files
    }

    /// Whether files were written.
    pub fn mode(&self) -> Mode {
        self.mode
    }
}

impl fmt::Display for ApplyReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.mode {
            // `{:#}` is the command line's wording; the plain form is the
            // one a model calling the tool reads (no CLI flag there).
            Mode::DryRun if f.alternate() => writeln!(
                f,
                "dry run: the patch applies cleanly; nothing was written (write it with --write)"
            )?,
            Mode::DryRun => writeln!(
                f,
                "dry run: the patch applies cleanly; nothing was written (to write it, call \
                 again with \"dry_run\": false)"
            )?,
            Mode::Write => writeln!(f, "applied:")?,
        }
        // Names go through `shown_name`: a name decoded from a quoted
        // header (`+++ "b/x\nnothing was written"`) holds a newline, and
        // printed raw it would forge a line of the answer.
        for file in &self.files {
            let hunks = if file.n_hunks == 1 { "hunk" } else { "hunks" };
            write!(
                f,
                "  {}: {} {hunks}, +{} -{} lines",
                shown_name(&file.path),
                file.n_hunks,
                file.n_added,
                file.n_removed
            )?;
            match file.change {
                FileChange::Created => write!(f, " (new file)")?,
                FileChange::Deleted => write!(f, " (file deleted)")?,
                FileChange::Modified => {}
            }
            if let Some(backup) = &file.backup {
                write!(f, "; the original is saved as {}", shown_name(backup))?;
            }
            writeln!(f)?;
            for note in &file.notes {
                writeln!(f, "    note: {note}")?;
            }
        }
        Ok(())
    }
}

/// Apply a one-file patch to `original` in memory and return the result.
///
/// ```
/// use argmend::tools::diff::{DiffOptions, apply_to, diff_text};
///
/// let (a, b) = ("one\r\ntwo\r\n", "one\r\n2\r\n");
/// let diff = diff_text(a, b, DiffOptions::default()).unwrap();
/// assert_eq!(apply_to(a.as_bytes(), diff.patch()).unwrap(), b.as_bytes());
/// let error = apply_to(b"uno\ntwo\n", diff.patch()).unwrap_err();
/// assert!(error.to_string().contains("the file has:      \"uno\""));
/// ```
pub fn apply_to(original: &[u8], patch: &[u8]) -> Result<Vec<u8>, Error> {
    let sections = patch::parse(patch)?;
    if let [section] = sections.as_slice() {
        let name = section.target().unwrap_or("the text");
        return hunks::patch_one(name, original, section);
    }
    Err(Error::new(Repr::SeveralFiles {
        target: "the text".to_owned(),
        files: targets(&sections),
    }))
}

/// A model that was told "the patch" often passes a file name (`fix.diff`):
/// one line, no hunk, naming a file or ending like a patch file. Say so
/// instead of "no hunk".
fn file_name_instead(workspace: &Workspace, patch: &[u8]) -> Option<Error> {
    let text = std::str::from_utf8(patch).ok()?.trim();
    if text.is_empty() || text.contains('\n') || text.contains("@@") {
        return None;
    }
    let exists = workspace
        .locate(Path::new(text))
        .is_ok_and(|located| located.kind() == NodeKind::File);
    let looks_like_file = exists || [".diff", ".patch"].iter().any(|ext| text.ends_with(ext));
    let text = shown_name(text);
    looks_like_file.then(|| {
        Error::argument(if exists {
            format!(
                "`patch` is the patch text itself, and `{text}` is a file name: pass the \
                 file's content as `patch`"
            )
        } else {
            format!(
                "`patch` is the patch text itself, and `{text}` looks like a file name (of no \
                 file in the workspace): pass the patch's text as `patch`"
            )
        })
    })
}

/// Apply `patch` to `file` inside the workspace.
///
/// `file` is the file to patch, or a directory against which the patch's own
/// paths (`a/`/`b/` prefixes stripped) are resolved; a patch that changes
/// several files needs a directory. Every hunk of every file is checked
/// before anything is written; in [`Mode::Write`] each original is saved as
/// `<file>.bak` and each file replaced atomically.
///
/// ```
/// use argmend::tools::{Workspace, diff::{ErrorKind, Mode, apply}};
///
/// let dir = std::env::temp_dir().join(format!("argmend-doc-apply-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("app.py"), "x = 1\ny = 2\n").unwrap();
/// let workspace = Workspace::new(&dir).unwrap();
/// let patch = b"--- a/app.py\n+++ b/app.py\n@@ -1,2 +1,2 @@\n x = 1\n-y = 3\n+y = 4\n";
/// let error = apply(&workspace, "app.py", patch, Mode::Write).unwrap_err();
/// assert_eq!(error.kind(), ErrorKind::RemovedMismatch);
/// assert_eq!(std::fs::read(dir.join("app.py")).unwrap(), b"x = 1\ny = 2\n");
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn apply(
    workspace: &Workspace,
    file: impl AsRef<Path>,
    patch: &[u8],
    mode: Mode,
) -> Result<ApplyReport, Error> {
    let given = file.as_ref();
    let sections = match patch::parse(patch) {
        Ok(sections) => sections,
        Err(error) => return Err(file_name_instead(workspace, patch).unwrap_or(error)),
    };
    let located = workspace.locate_for_write(given)?;
    // Every file the patch names, located (and checked) before any is read,
    // with its sections, to be planned together on one split of it.
    let mut files: Vec<(Located, Vec<(&FilePatch<'_>, String)>)> = Vec::new();
    if located.kind() == NodeKind::Dir {
        let mut by_place: HashMap<PathBuf, usize> = HashMap::new();
        for section in &sections {
            // Each is a walk: a patch of 10,000 sections stops with its call.
            if crate::tools::deadline::expired() {
                return Err(Error::timed_out("locating the patch's files"));
            }
            let Some(target) = section.target() else {
                return Err(Error::argument(format!(
                    "the patch names no file, and `{}` is a directory: pass the file to patch \
                     as `file`",
                    shown_name(&given.to_string_lossy())
                )));
            };
            let path = given.join(target);
            let name = shown(&path);
            let located = workspace.locate_for_write(&path)?;
            match by_place.get(&located.rel) {
                Some(&idx) => files[idx].1.push((section, name)),
                None => {
                    by_place.insert(located.rel.clone(), files.len());
                    files.push((located, vec![(section, name)]));
                }
            }
        }
    } else if let [section] = sections.as_slice() {
        files.push((located, vec![(section, shown(given))]));
    } else {
        return Err(Error::new(Repr::SeveralFiles {
            target: given.display().to_string(),
            files: targets(&sections),
        }));
    }
    // Hold every place the patch writes before reading any of them, so a
    // concurrent write of the same file (by whatever name) waits, and no
    // change is planned on a file about to change.
    let places = files
        .iter()
        .flat_map(|(located, _)| {
            let link = located.leaf_link().map(|(dir, name)| dir.join(name));
            std::iter::once(located.rel.clone()).chain(link)
        })
        .collect();
    let _lock = workspace.lock(places);
    let mut jobs: Vec<Job> = Vec::new();
    for (located, group) in &files {
        if crate::tools::deadline::expired() {
            return Err(Error::timed_out("checking the patch's files"));
        }
        jobs.push(plan(workspace, group, located)?);
    }
    super::layout::refuse_repositories(workspace, &jobs)?;
    if mode == Mode::Write {
        write::write_all(workspace, &mut jobs)?;
    }
    Ok(ApplyReport {
        mode,
        files: jobs.into_iter().map(|job| job.report).collect(),
    })
}

fn targets(sections: &[FilePatch<'_>]) -> Vec<String> {
    sections
        .iter()
        .map(|s| s.target().unwrap_or("?").to_owned())
        .collect()
}

/// A path as messages show it: without a leading `./`.
fn shown(path: &Path) -> String {
    let path = path.strip_prefix(".").unwrap_or(path);
    path.display().to_string()
}

/// Check the sections for one file, in patch order, each against what the
/// ones before it made of the file (planned on one split of it: see
/// [`hunks`]), and say how it is to be written.
fn plan(
    workspace: &Workspace,
    sections: &[(&FilePatch<'_>, String)],
    located: &Located,
) -> Result<Job, Error> {
    let name = sections
        .first()
        .map(|(_, name)| name.clone())
        .unwrap_or_default();
    let current: Option<Vec<u8>> = match located.kind() {
        NodeKind::Missing => None,
        _ => Some(read_located(located, &name)?),
    };
    let named: Vec<(&FilePatch<'_>, &str)> = sections
        .iter()
        .map(|(section, name)| (*section, name.as_str()))
        .collect();
    let missing = |name: &str| {
        let error = crate::tools::near::not_found(located, name);
        Error::io("patch", name, error)
    };
    let patched = hunks::patch_sections(current.as_deref(), &named, &missing)?;
    let report = FileReport {
        path: name,
        n_hunks: patched.n_hunks,
        n_added: patched.n_added,
        n_removed: patched.n_removed,
        change: patched.change,
        backup: None,
        notes: patched.notes,
    };
    job(workspace, located, current, patched.bytes, report)
}

/// The write a planned file needs: where (the link itself when the patch
/// deletes a link), with its backup name chosen and checked now, so a dry
/// run refuses what the write could not do.
fn job(
    workspace: &Workspace,
    located: &Located,
    original: Option<Vec<u8>>,
    result: Option<Vec<u8>>,
    report: FileReport,
) -> Result<Job, Error> {
    let io = |error| Error::io("patch", report.path.clone(), error);
    let deletes_link = result.is_none().then(|| located.leaf_link()).flatten();
    let (dir_rel, new_dirs, name) = match (deletes_link, located.leaf()) {
        (Some((dir, link)), _) => (dir.to_path_buf(), Vec::new(), link.to_owned()),
        (None, Some((new_dirs, name))) => {
            (located.dir_rel.clone(), new_dirs.to_vec(), name.to_owned())
        }
        (None, None) => {
            let error = std::io::Error::new(std::io::ErrorKind::IsADirectory, "is a directory");
            return Err(io(error));
        }
    };
    let backup = match &original {
        Some(_) => {
            let dir = workspace.open_dir_at(&dir_rel).map_err(io)?;
            let (backup, suffix) = write::free_backup(&dir, &name).map_err(io)?;
            // Shown as the path the caller gave, unless that path is not
            // the one written (it went through a link).
            let written = dir_rel.join(&name);
            let shown = if Path::new(&report.path) == written {
                format!("{}{suffix}", report.path)
            } else {
                format!("{}{suffix}", written.display())
            };
            Some((backup, shown))
        }
        None => None,
    };
    Ok(Job {
        rel: located.rel.clone(),
        dir_rel,
        new_dirs,
        name,
        original,
        result,
        report,
        backup,
        backed_up: false,
        created_dirs: Vec::new(),
        kept: None,
    })
}
