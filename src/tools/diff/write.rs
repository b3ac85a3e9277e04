//! Writing an applied patch: `<file>.bak`, then the file through a
//! temporary file renamed over it; all files or, after a failure, none.
//!
//! Every call here goes through a handle on the file's directory, reopened
//! from the workspace root without following any link
//! ([`Workspace::open_dir_at`]): the write lands where the check looked,
//! even if a directory on the way was swapped for a link in between (that
//! swap is refused), and names are never looked up again from the root.
//!
//! A backup never replaces a file that is already there (it may be the
//! user's own `file.bak`): the first free name of `file.bak`, `file.bak.1`,
//! … `file.bak.99` is used, and the report names it. A deletion renames
//! the file (or the link the patch named: the link, not its target, as
//! `git apply` does) to its backup name.
//!
//! A rewritten file and its backup keep the original's mode and, where the
//! process may give it (root may, anyone may keep a group they are in),
//! its owner and group, but never its setuid and setgid bits, as `git
//! apply` and editors do: run as root, a patched setuid file owned by
//! `nobody` would otherwise become a setuid file owned by root whose
//! content a model chose ([`Kept`]).

use std::ffi::{OsStr, OsString};
use std::io::{self, Write};
use std::path::PathBuf;

use cap_std::fs::{Dir, File, Metadata, OpenOptions, Permissions};

use super::error::{Error, Repr};
use crate::tools::Workspace;

/// The longest file name most file systems allow, in bytes.
pub(super) const NAME_MAX: usize = 255;

/// One file to change: where, what it held, what it will hold, and the
/// caller's report of it (`R`), which this module only names and tells of
/// the backup; so it needs nothing from the apply step.
pub(super) struct Job<R> {
    /// The file's place relative to the root: what the lock holds and what
    /// sections of one file are matched by.
    pub(super) rel: PathBuf,
    /// Its deepest existing directory, relative to the root.
    pub(super) dir_rel: PathBuf,
    /// The directories to create below `dir_rel` for a new file.
    pub(super) new_dirs: Vec<OsString>,
    /// The name in that directory that is written, or renamed away.
    pub(super) name: OsString,
    pub(super) original: Option<Vec<u8>>,
    pub(super) result: Option<Vec<u8>>,
    pub(super) report: R,
    /// The backup's name in the directory (chosen, and checked, by the
    /// dry run) and how the report shows the path it is a suffix of.
    pub(super) backup: Option<(OsString, String)>,
    /// Whether this run wrote the backup, so a rollback takes it away again.
    pub(super) backed_up: bool,
    /// The directories this run created, outermost first.
    pub(super) created_dirs: Vec<PathBuf>,
    /// What the original file was (mode, owner), read when it was written,
    /// so a rollback puts it back exactly.
    pub(super) kept: Option<Kept>,
}

/// What a file written in place of another keeps of it: its permissions
/// and its owner and group.
#[derive(Debug, Clone)]
pub(super) struct Kept {
    permissions: Permissions,
    /// The owner and group (`None` where the system has none).
    owner: Option<(u32, u32)>,
}

/// The setuid and setgid bits.
#[cfg(unix)]
const SET_ID: u32 = 0o6000;

impl Kept {
    /// What `meta`'s file has.
    fn of(meta: &Metadata) -> Kept {
        #[cfg(unix)]
        let owner = {
            use cap_std::fs::MetadataExt;
            Some((meta.uid(), meta.gid()))
        };
        #[cfg(not(unix))]
        let owner = None;
        Kept {
            permissions: meta.permissions(),
            owner,
        }
    }

    /// The same, less the setuid and setgid bits: what new content gets.
    fn without_set_id(&self) -> Kept {
        let mut permissions = self.permissions.clone();
        #[cfg(unix)]
        {
            use cap_std::fs::PermissionsExt;
            permissions.set_mode(permissions.mode() & !SET_ID);
        }
        Kept {
            permissions,
            owner: self.owner,
        }
    }

    /// Give `file` this owner and group where the process may (both, else
    /// the group alone, else neither: a process that may not keep them
    /// writes a file of its own, as an editor does), then these
    /// permissions. In that order, since a change of owner clears the
    /// setuid bits.
    fn give(&self, file: &File) -> io::Result<()> {
        #[cfg(unix)]
        if let Some((uid, gid)) = self.owner {
            use std::os::unix::fs::fchown;
            if fchown(file, Some(uid), Some(gid)).is_err() {
                let _ = fchown(file, None, Some(gid));
            }
        }
        file.set_permissions(self.permissions.clone())
    }
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
/// originals back and the directories made for them are removed, so the
/// patch applies to all or to none.
pub(super) fn write_all<R: Report>(
    workspace: &Workspace,
    jobs: &mut [Job<R>],
) -> Result<(), Error> {
    for idx in 0..jobs.len() {
        if let Err(error) = write_one(workspace, &mut jobs[idx]) {
            // The failed job may have done part of its work.
            let _ = restore(workspace, &jobs[idx]);
            let mut restored = Vec::new();
            let mut not_restored = Vec::new();
            for job in jobs[..idx].iter().rev() {
                let name = job.report.name().to_owned();
                match restore(workspace, job) {
                    Ok(()) => restored.push(name),
                    Err(error) => not_restored
                        .push(format!("`{}` ({error})", crate::tools::shown_name(&name))),
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

fn write_one<R: Report>(workspace: &Workspace, job: &mut Job<R>) -> io::Result<()> {
    let mut dir = workspace.open_dir_at(&job.dir_rel)?;
    let mut made = job.dir_rel.clone();
    for name in &job.new_dirs {
        made.push(name);
        match dir.create_dir(name) {
            Ok(()) => job.created_dirs.push(made.clone()),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => {}
            Err(error) => return Err(error),
        }
        dir = cap_fs_ext::DirExt::open_dir_nofollow(&dir, name)?;
    }
    job.kept = dir
        .symlink_metadata(&job.name)
        .ok()
        .filter(|meta| meta.is_file())
        .map(|meta| Kept::of(&meta));
    let kept = job.kept.as_ref().map(Kept::without_set_id);
    let backup = job.backup.clone();
    match (&job.original, &job.result, backup) {
        (Some(original), Some(bytes), Some((backup, shown))) => {
            write_new(&dir, &backup, original, kept.as_ref())?;
            job.backed_up = true;
            job.report.set_backup(shown);
            write_atomic(&dir, &job.name, bytes, kept.as_ref())
        }
        (Some(_), None, Some((backup, shown))) => {
            // The deletion and the backup in one step: the entry itself (a
            // file keeps its mode, a link stays a link) takes the backup's
            // name, which must still be free.
            if dir.symlink_metadata(&backup).is_ok() {
                return Err(taken(&backup));
            }
            dir.rename(&job.name, &dir, &backup)?;
            job.backed_up = true;
            job.report.set_backup(shown);
            Ok(())
        }
        (None, Some(bytes), _) => {
            if dir.symlink_metadata(&job.name).is_ok() {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    "a file of that name appeared while the patch was applied",
                ));
            }
            write_atomic(&dir, &job.name, bytes, None)
        }
        _ => Ok(()),
    }
}

/// Put a job's file back as it was (its mode included), take away the
/// backup this run made of it and the directories it created.
fn restore<R>(workspace: &Workspace, job: &Job<R>) -> io::Result<()> {
    let restored = (|| {
        let parent = job.rel.parent().unwrap_or(&job.dir_rel);
        let dir = match workspace.open_dir_at(parent) {
            Ok(dir) => dir,
            // The directory was never made: nothing was written in it.
            Err(error) if error.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(error) => return Err(error),
        };
        let backup = job.backup.as_ref().map(|(name, _)| name);
        match (&job.original, &job.result, backup) {
            (Some(original), Some(_), backup) => {
                // The original's mode and owner, setuid bits included: the
                // file as it was.
                let written = write_atomic(&dir, &job.name, original, job.kept.as_ref());
                if job.backed_up
                    && let Some(backup) = backup
                {
                    let _ = dir.remove_file(backup);
                }
                written
            }
            (Some(_), None, Some(backup)) if job.backed_up => dir.rename(backup, &dir, &job.name),
            (None, Some(_), _) => match dir.remove_file(&job.name) {
                Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
                _ => Ok(()),
            },
            _ => Ok(()),
        }
    })();
    // Directories made for a new file go too, innermost first, if empty.
    for made in job.created_dirs.iter().rev() {
        if let Some(parent) = made.parent()
            && let Some(name) = made.file_name()
            && let Ok(dir) = workspace.open_dir_at(parent)
        {
            let _ = dir.remove_dir(name);
        }
    }
    restored
}

/// The first backup name beside `name` in `dir` that names nothing yet,
/// and its suffix; refused when it would be longer than a file name may
/// be, so the dry run says so before any write does.
pub(super) fn free_backup(dir: &Dir, name: &OsStr) -> io::Result<(OsString, String)> {
    for n in 0..100 {
        let suffix = if n == 0 {
            ".bak".to_owned()
        } else {
            format!(".bak.{n}")
        };
        let mut backup = name.to_owned();
        backup.push(&suffix);
        if backup.len() > NAME_MAX {
            return Err(io::Error::new(
                io::ErrorKind::InvalidFilename,
                format!(
                    "its backup name (`…{suffix}`) would be {} bytes, more than the {NAME_MAX} a \
                     file name may have: rename the file first",
                    backup.len()
                ),
            ));
        }
        if dir.symlink_metadata(&backup).is_err() {
            return Ok((backup, suffix));
        }
    }
    Err(io::Error::new(
        io::ErrorKind::AlreadyExists,
        "`.bak` to `.bak.99` all exist beside it; move some away",
    ))
}

fn taken(name: &OsStr) -> io::Error {
    io::Error::new(
        io::ErrorKind::AlreadyExists,
        format!(
            "the backup name `{}` was taken while the patch was applied",
            name.to_string_lossy()
        ),
    )
}

/// Write `bytes` to `name` in `dir`, which must not exist yet, with what
/// it keeps of the file it replaces.
fn write_new(dir: &Dir, name: &OsStr, bytes: &[u8], kept: Option<&Kept>) -> io::Result<()> {
    let mut file = match dir.open_with(name, OpenOptions::new().write(true).create_new(true)) {
        Ok(file) => file,
        Err(error) if error.kind() == io::ErrorKind::AlreadyExists => return Err(taken(name)),
        Err(error) => return Err(error),
    };
    let written = file
        .write_all(bytes)
        .and_then(|()| match kept {
            Some(kept) => kept.give(&file),
            None => Ok(()),
        })
        .and_then(|()| file.sync_all());
    if written.is_err() {
        let _ = dir.remove_file(name);
    }
    written
}

/// Write `bytes` to a new temporary file beside `name`, flush it to disk and
/// rename it over `name`: a crash leaves the old file or the new one, never
/// half of one.
fn write_atomic(dir: &Dir, name: &OsStr, bytes: &[u8], kept: Option<&Kept>) -> io::Result<()> {
    let shown = name.to_string_lossy();
    // File names may be 255 bytes; the temporary name adds about 30, so a
    // long name is cut (on a character boundary) rather than refused.
    let mut cut = shown.len().min(120);
    while !shown.is_char_boundary(cut) {
        cut -= 1;
    }
    let stem = &shown[..cut];
    let mut attempt = 0u32;
    let tmp = loop {
        let tmp = OsString::from(format!(
            ".{stem}.argmend-{}-{attempt}.tmp",
            std::process::id()
        ));
        match write_new(dir, &tmp, bytes, kept) {
            Ok(()) => break tmp,
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                attempt += 1
            }
            Err(error) => return Err(error),
        }
    };
    let renamed = dir.rename(&tmp, dir, name);
    if renamed.is_err() {
        let _ = dir.remove_file(&tmp);
    }
    renamed
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Name(String, Option<String>);

    impl Report for Name {
        fn name(&self) -> &str {
            &self.0
        }
        fn set_backup(&mut self, backup: String) {
            self.1 = Some(backup);
        }
    }

    fn job(
        rel: &str,
        dir_rel: &str,
        new_dirs: &[&str],
        original: Option<&str>,
        result: Option<&str>,
    ) -> Job<Name> {
        let rel = PathBuf::from(rel);
        let name = rel.file_name().unwrap().to_owned();
        let backup = original.map(|_| {
            let mut backup = name.clone();
            backup.push(".bak");
            (backup, format!("{}.bak", rel.display()))
        });
        Job {
            rel: rel.clone(),
            dir_rel: PathBuf::from(dir_rel),
            new_dirs: new_dirs.iter().map(OsString::from).collect(),
            name,
            original: original.map(|text| text.as_bytes().to_vec()),
            result: result.map(|text| text.as_bytes().to_vec()),
            report: Name(rel.display().to_string(), None),
            backup,
            backed_up: false,
            created_dirs: Vec::new(),
            kept: None,
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_write_that_fails_half_way_puts_back_files_modes_backups_and_directories() {
        use std::os::unix::fs::PermissionsExt;
        let root = std::env::temp_dir().join(format!("argmend-write-{}", std::process::id()));
        std::fs::create_dir_all(&root).unwrap();
        std::fs::write(root.join("a.sh"), "echo a\n").unwrap();
        std::fs::set_permissions(root.join("a.sh"), std::fs::Permissions::from_mode(0o755))
            .unwrap();
        std::fs::write(root.join("gone.txt"), "gone\n").unwrap();
        std::fs::write(root.join("x.txt"), "a file\n").unwrap();
        let workspace = Workspace::new(&root).unwrap();
        let mut jobs = vec![
            job("a.sh", "", &[], Some("echo a\n"), Some("echo A\n")),
            job("gone.txt", "", &[], Some("gone\n"), None),
            job("new/deep/n.txt", "", &["new", "deep"], None, Some("n\n")),
            // `x.txt` is a file: this write fails after the others were made.
            job("x.txt/y/z.txt", "x.txt", &["y"], None, Some("z\n")),
        ];
        let error = write_all(&workspace, &mut jobs).unwrap_err().to_string();
        assert!(error.contains("rolled back"), "{error}");
        assert_eq!(
            std::fs::read_to_string(root.join("a.sh")).unwrap(),
            "echo a\n"
        );
        let mode = std::fs::metadata(root.join("a.sh"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o755);
        assert_eq!(
            std::fs::read_to_string(root.join("gone.txt")).unwrap(),
            "gone\n"
        );
        assert!(!root.join("a.sh.bak").exists(), "a backup was left behind");
        assert!(
            !root.join("gone.txt.bak").exists(),
            "a backup was left behind"
        );
        assert!(
            !root.join("new").exists(),
            "a directory made for a new file was left behind"
        );
        std::fs::remove_dir_all(&root).unwrap();
    }
}
