//! The strict apply: every context and removed line must match at the
//! declared position, every file of the patch applies or none does, and a
//! write goes through a temporary file renamed over the original.

use std::fmt;
use std::path::Path;

use super::error::{Error, Hint, HunkAt, Repr};
use super::patch::{self, Eol, FilePatch, HunkLine, Kind};
use super::unified::{binary_offset, read_located, split_lines};
use super::write::{self, Report};
use crate::tools::{Located, NodeKind, Workspace};

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

/// How a patch changes a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileChange {
    /// Lines changed in an existing file.
    Modified,
    /// A new file (`--- /dev/null`).
    Created,
    /// The file removed (`+++ /dev/null`).
    Deleted,
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
        for file in &self.files {
            let hunks = if file.n_hunks == 1 { "hunk" } else { "hunks" };
            write!(
                f,
                "  {}: {} {hunks}, +{} -{} lines",
                file.path, file.n_hunks, file.n_added, file.n_removed
            )?;
            match file.change {
                FileChange::Created => write!(f, " (new file)")?,
                FileChange::Deleted => write!(f, " (file deleted)")?,
                FileChange::Modified => {}
            }
            if let Some(backup) = &file.backup {
                write!(f, "; the original is saved as {backup}")?;
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
        return Ok(patch_file(name, original, section)?.bytes);
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
    // Every file the patch names, located (and checked) before any is read.
    let mut located_all: Vec<(&FilePatch<'_>, String, Located)> = Vec::new();
    if located.kind() == NodeKind::Dir {
        for section in &sections {
            let Some(target) = section.target() else {
                return Err(Error::argument(format!(
                    "the patch names no file, and `{}` is a directory: pass the file to patch \
                     as `file`",
                    given.display()
                )));
            };
            let path = given.join(target);
            let located = workspace.locate_for_write(&path)?;
            located_all.push((section, shown(&path), located));
        }
    } else if let [section] = sections.as_slice() {
        located_all.push((section, shown(given), located));
    } else {
        return Err(Error::new(Repr::SeveralFiles {
            target: given.display().to_string(),
            files: targets(&sections),
        }));
    }
    // Hold every place the patch writes before reading any of them, so a
    // concurrent write of the same file (by whatever name) waits, and no
    // change is planned on a file about to change.
    let places = located_all
        .iter()
        .flat_map(|(_, _, located)| {
            let link = located.leaf_link().map(|(dir, name)| dir.join(name));
            std::iter::once(located.rel.clone()).chain(link)
        })
        .collect();
    let _lock = workspace.lock(places);
    let mut jobs: Vec<Job> = Vec::new();
    for (section, name, located) in located_all {
        plan(workspace, &mut jobs, section, name, &located)?;
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

/// Check one section against its file (or against what an earlier section
/// of the same patch made of it) and record the result.
fn plan(
    workspace: &Workspace,
    jobs: &mut Vec<Job>,
    section: &FilePatch<'_>,
    name: String,
    located: &Located,
) -> Result<(), Error> {
    let earlier = jobs.iter().position(|job| job.rel == located.rel);
    let current: Option<Vec<u8>> = match earlier {
        Some(idx) => jobs[idx].result.clone(),
        None if located.kind() == NodeKind::Missing => None,
        None => Some(read_located(located, &name)?),
    };
    let content = match (&current, section.creates()) {
        (Some(_), true) => return Err(Error::new(Repr::Exists { file: name })),
        (None, true) => Vec::new(),
        (Some(bytes), false) => {
            if let Some(offset) = binary_offset(bytes) {
                return Err(Error::new(Repr::Binary { file: name, offset }));
            }
            bytes.clone()
        }
        (None, false) => {
            let error = crate::tools::near::not_found(located, &name);
            return Err(Error::io("patch", name, error));
        }
    };
    let patched = patch_file(&name, &content, section)?;
    let change = if section.creates() {
        FileChange::Created
    } else if section.deletes() {
        if !patched.bytes.is_empty() {
            return Err(Error::new(Repr::Unsupported {
                file: name,
                what: "deletes the file, but leaves lines of it that the hunks do not remove",
            }));
        }
        FileChange::Deleted
    } else {
        FileChange::Modified
    };
    let report = FileReport {
        path: name,
        n_hunks: section.hunks.len(),
        n_added: patched.n_added,
        n_removed: patched.n_removed,
        change,
        backup: None,
        notes: patched.notes,
    };
    let mut report = report;
    if section.mode_change {
        report.notes.push(
            "the patch also changes the file's mode (`old mode`/`new mode`); the mode was left \
             as it was"
                .to_owned(),
        );
    }
    let result = (change != FileChange::Deleted).then_some(patched.bytes);
    match earlier {
        Some(idx) => {
            let job = &mut jobs[idx];
            job.result = result;
            job.report.n_hunks += report.n_hunks;
            job.report.n_added += report.n_added;
            job.report.n_removed += report.n_removed;
            job.report.notes.extend(report.notes);
            if change == FileChange::Deleted {
                job.report.change = change;
                job.result = None;
            }
        }
        None => jobs.push(job(workspace, located, current, result, report)?),
    }
    Ok(())
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
    })
}

/// A file's new content and what the patch did to it.
struct Patched {
    bytes: Vec<u8>,
    n_added: usize,
    n_removed: usize,
    notes: Vec<String>,
}

/// The most common line ending among `lines` (LF when there is none).
fn dominant_eol(lines: &[(&[u8], Eol)]) -> Eol {
    let n_crlf = lines.iter().filter(|(_, eol)| *eol == Eol::CrLf).count();
    let n_lf = lines.iter().filter(|(_, eol)| *eol == Eol::Lf).count();
    if n_crlf > n_lf { Eol::CrLf } else { Eol::Lf }
}

/// Apply every hunk of `section` to `original`, strictly.
///
/// A hunk matches exactly (line endings included) or, failing that, with
/// line endings ignored: then the patch lost the file's endings in transit,
/// and the file's are kept (its CRLF, its missing final newline).
fn patch_file(name: &str, original: &[u8], section: &FilePatch<'_>) -> Result<Patched, Error> {
    let lines: Vec<(&[u8], Eol)> = split_lines(original)
        .into_iter()
        .map(patch::split_eol)
        .collect();
    let mut out: Vec<(&[u8], Eol)> = Vec::with_capacity(lines.len());
    let (mut n_added, mut n_removed) = (0, 0);
    let mut next = 0;
    let mut loose = false;
    for (hunk_idx, hunk) in section.hunks.iter().enumerate() {
        let at = || HunkAt {
            file: name.to_owned(),
            hunk: hunk_idx + 1,
            header: hunk.header.clone(),
        };
        let old: Vec<&HunkLine<'_>> = hunk
            .lines
            .iter()
            .filter(|l| l.kind != Kind::Added)
            .collect();
        let start = if hunk.old_count == 0 {
            hunk.old_start
        } else {
            hunk.old_start - 1
        };
        if start + old.len() > lines.len() {
            let last = hunk.old_start + hunk.old_count.saturating_sub(1);
            return Err(Error::new(Repr::PastEnd {
                at: at(),
                first: hunk.old_start,
                last,
                n_lines: lines.len(),
                hint: hint(&lines, &old, start, 0),
            }));
        }
        if start < next {
            return Err(Error::new(Repr::HunkOrder {
                at: at(),
                start: hunk.old_start,
                previous_end: next,
            }));
        }
        let here = &lines[start..start + old.len()];
        let exact = old
            .iter()
            .zip(here)
            .all(|(want, (content, eol))| want.content == *content && want.eol == *eol);
        if !exact {
            if let Some(k) = old
                .iter()
                .zip(here)
                .position(|(want, (content, _))| want.content != *content)
            {
                return Err(Error::new(Repr::Mismatch {
                    at: at(),
                    removed: old[k].kind == Kind::Removed,
                    line: start + k + 1,
                    expected: old[k].content.to_vec(),
                    actual: here[k].0.to_vec(),
                    hint: hint(&lines, &old, start, k),
                }));
            }
            // Only a CRLF/LF difference is worth a note: a patch whose last
            // line has a newline the file lacks (a model rarely writes the
            // `\ No newline at end of file` marker) is the ordinary case.
            loose |= old.iter().zip(here).any(|(want, (_, eol))| {
                want.eol != *eol && want.eol != Eol::None && *eol != Eol::None
            });
        }
        out.extend_from_slice(&lines[next..start]);
        let style = dominant_eol(here);
        let mut file_idx = start;
        for line in &hunk.lines {
            match line.kind {
                Kind::Context => {
                    out.push(if exact {
                        (line.content, line.eol)
                    } else {
                        lines[file_idx]
                    });
                    file_idx += 1;
                }
                Kind::Removed => {
                    file_idx += 1;
                    n_removed += 1;
                }
                Kind::Added => {
                    let eol = match line.eol {
                        Eol::None => Eol::None,
                        _ if exact => line.eol,
                        _ => style,
                    };
                    out.push((line.content, eol));
                    n_added += 1;
                }
            }
        }
        next = start + old.len();
    }
    out.extend_from_slice(&lines[next..]);
    let mut notes = Vec::new();
    if loose {
        notes.push(
            "the patch's line endings differ from the file's; the file's were kept".to_owned(),
        );
    }
    // A line without a newline can only end the file.
    let style = dominant_eol(&lines);
    let n_out = out.len();
    for line in out.iter_mut().take(n_out.saturating_sub(1)) {
        if line.1 == Eol::None {
            line.1 = style;
        }
    }
    // Without `\ No newline` markers the patch says nothing about the end of
    // the file, so the file keeps its lack of a final newline.
    let lacked = lines.last().is_some_and(|(_, eol)| *eol == Eol::None);
    if !section.has_markers
        && lacked
        && let Some(last) = out.last_mut()
        && last.1 != Eol::None
    {
        last.1 = Eol::None;
        notes.push("the file had no newline at its end, and still has none".to_owned());
    }
    let mut bytes = Vec::with_capacity(original.len() + n_added * 40);
    for (content, eol) in out {
        bytes.extend_from_slice(content);
        bytes.extend_from_slice(eol.bytes());
    }
    Ok(Patched {
        bytes,
        n_added,
        n_removed,
        notes,
    })
}

/// Where the hunk's old lines do occur (not at `declared`), or failing that
/// where its `k`-th old line does: a hint, never a place to apply.
fn hint(lines: &[(&[u8], Eol)], old: &[&HunkLine<'_>], declared: usize, k: usize) -> Hint {
    if old.is_empty() {
        return Hint::Nowhere;
    }
    // The search compares at most this many lines, so a huge hunk against
    // a huge file of repeated lines stays cheap; past it, no hint.
    let mut budget: usize = 20_000_000;
    let mut positions: Vec<usize> = Vec::new();
    if old.len() <= lines.len() {
        for p in 0..=lines.len() - old.len() {
            if positions.len() == 10 || budget == 0 {
                break;
            }
            let n_equal = old
                .iter()
                .zip(&lines[p..])
                .take_while(|(want, (content, _))| want.content == *content)
                .count();
            budget = budget.saturating_sub(n_equal + 1);
            if n_equal == old.len() && p != declared {
                positions.push(p + 1);
            }
        }
    }
    if !positions.is_empty() {
        return Hint::Hunk(positions);
    }
    let Some(want) = old.get(k) else {
        return Hint::Nowhere;
    };
    let positions: Vec<usize> = lines
        .iter()
        .enumerate()
        .filter(|(_, (content, _))| *content == want.content)
        .take(10)
        .map(|(idx, _)| idx + 1)
        .collect();
    if positions.is_empty() {
        Hint::Nowhere
    } else {
        Hint::Line(positions)
    }
}
