//! Writing an applied patch: `<file>.bak`, then the file through a
//! temporary file renamed over it; all files or, after a failure, none.

use std::fs::{self, OpenOptions, Permissions};
use std::io::{self, Write};
use std::path::Path;

use super::apply::Job;
use super::error::Error;

/// Write every job: `.bak` first, then the file through a temporary file
/// renamed over it. If a write fails, the files already written get their
/// originals back, so the patch applies to all or to none.
pub(super) fn write_all(jobs: &mut [Job]) -> Result<(), Error> {
    for idx in 0..jobs.len() {
        if let Err(error) = write_one(&mut jobs[idx]) {
            for job in jobs[..idx].iter().rev() {
                // Best effort: the error that stopped the run is what is reported.
                let _ = restore(job);
            }
            return Err(Error::io("write", jobs[idx].report.path.clone(), error));
        }
    }
    Ok(())
}

fn write_one(job: &mut Job) -> io::Result<()> {
    let permissions = fs::metadata(&job.real).ok().map(|meta| meta.permissions());
    if let Some(original) = &job.original {
        let mut backup = job.real.clone().into_os_string();
        backup.push(".bak");
        write_atomic(Path::new(&backup), original, permissions.clone())?;
        job.report.backup = Some(format!("{}.bak", job.report.path));
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

/// Put a written file back as it was.
fn restore(job: &Job) -> io::Result<()> {
    match &job.original {
        Some(bytes) => write_atomic(&job.real, bytes, None),
        None => fs::remove_file(&job.real),
    }
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
