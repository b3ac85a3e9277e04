//! Writing an applied patch: `<file>.bak`, then the file through a
//! temporary file renamed over it; all files or, after a failure, none.
//!
//! A backup never replaces a file that is already there (it may be the
//! user's own `file.bak`): the first free name of `file.bak`, `file.bak.1`,
//! … `file.bak.99` is used, and the report names it.

use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::error::{Error, Repr};

/// One file to change: where, what it held, what it will hold, and the
/// caller's report of it (`R`), which this module only names and tells of
/// the backup; so it needs nothing from the apply step.
pub(super) struct Job<R> {
    pub(super) real: PathBuf,
    pub(super) original: Option<Vec<u8>>,
    pub(super) result: Option<Vec<u8>>,
    pub(super) report: R,
    /// The backup this run wrote, so a rollback can take it away again.
    pub(super) backup: Option<PathBuf>,
}

/// What the writer needs of a job's report.
pub(super) trait Report {
    /// The file as messages show it.
    fn name(&self) -> &str;
    /// The backup written for it, as messages show it.
    fn set_backup(&mut self, backup: String);
}

/// Write every job: `.bak` first, then the file through a temporary file
/// renamed over it. If a write fails, the files already written get their
/// originals back, so the patch applies to all or to none.
pub(super) fn write_all<R: Report>(jobs: &mut [Job<R>]) -> Result<(), Error> {
    for idx in 0..jobs.len() {
        if let Err(error) = write_one(&mut jobs[idx]) {
            if let Some(backup) = &jobs[idx].backup {
                let _ = fs::remove_file(backup);
            }
            let mut restored = Vec::new();
            let mut not_restored = Vec::new();
            for job in jobs[..idx].iter().rev() {
                let name = job.report.name().to_owned();
                match restore(job) {
                    Ok(()) => restored.push(name),
                    Err(error) => not_restored.push(format!("`{name}` ({error})")),
                }
            }
            return Err(Error::new(Repr::WriteFailed {
                path: jobs[idx].report.name().to_owned(),
                error,
                restored,
                not_restored,
            }));
        }
    }
    Ok(())
}

fn write_one<R: Report>(job: &mut Job<R>) -> io::Result<()> {
    let permissions = fs::metadata(&job.real).ok().map(|meta| meta.permissions());
    if let Some(original) = &job.original {
        let (backup, suffix) = free_backup(&job.real)?;
        write_atomic(&backup, original, permissions.clone())?;
        job.backup = Some(backup);
        let shown = format!("{}{suffix}", job.report.name());
        job.report.set_backup(shown);
    }
    match &job.result {
        Some(bytes) => {
            if let Some(parent) = job.real.parent() {
                fs::create_dir_all(parent)?;
            }
            write_atomic(&job.real, bytes, permissions)
        }
        None => fs::remove_file(&job.real),
    }
}

/// The first backup name beside `real` that names nothing yet, and its suffix.
fn free_backup(real: &Path) -> io::Result<(PathBuf, String)> {
    for n in 0..100 {
        let suffix = if n == 0 {
            ".bak".to_owned()
        } else {
            format!(".bak.{n}")
        };
        let mut name = real.as_os_str().to_owned();
        name.push(&suffix);
        let path = PathBuf::from(name);
        if fs::symlink_metadata(&path).is_err() {
            return Ok((path, suffix));
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "`.bak` to `.bak.99` all exist beside it; move some away",
    ))
}

/// Put a written file back as it was (its mode included) and take away the
/// backup this run made of it.
fn restore<R>(job: &Job<R>) -> io::Result<()> {
    let permissions = fs::metadata(&job.real).ok().map(|meta| meta.permissions());
    let restored = match &job.original {
        Some(bytes) => write_atomic(&job.real, bytes, permissions),
        None => fs::remove_file(&job.real),
    };
    if let Some(backup) = &job.backup {
        let _ = fs::remove_file(backup);
    }
    restored
}

/// Write `bytes` to a new temporary file beside `path`, flush it to disk and
/// rename it over `path`: a crash leaves the old file or the new one, never
/// half of one.
fn write_atomic(path: &Path, bytes: &[u8], permissions: Option<Permissions>) -> io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    // File names may be 255 bytes; the temporary name adds about 30, so a
    // long name is cut (on a character boundary) rather than refused.
    let mut cut = name.len().min(120);
    while !name.is_char_boundary(cut) {
        cut -= 1;
    }
    let name = &name[..cut];
    let mut attempt = 0u32;
    let (tmp, mut file) = loop {
        let tmp = dir.join(format!(
            ".{name}.argmend-{}-{attempt}.tmp",
            std::process::id()
        ));
        match OpenOptions::new().write(true).create_new(true).open(&tmp) {
            Ok(file) => break (tmp, file),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(error) => return Err(error),
        }
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| file.sync_all())
        .and_then(|()| match permissions {
            Some(permissions) => fs::set_permissions(&tmp, permissions),
            None => Ok(()),
        })
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}
