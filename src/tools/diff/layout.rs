//! Layouts a patch may not leave behind: a bare git repository.
//!
//! Why: git treats any directory holding `HEAD`, `objects/` and `refs/` as
//! a repository and loads its `config` when a user runs git inside it. A
//! patch that plants `docs/HEAD`, `docs/config` (with `core.pager` or
//! `core.fsmonitor` set to a command), `docs/objects/` and `docs/refs/`
//! runs that command on the user's next `git log` in `docs/`. The `.git`
//! guard cannot see it: no name is `.git`. So no write may land in a
//! directory that has, or would have after the patch, that layout.

use std::collections::BTreeSet;
use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::error::Error;
use super::write::Job;
use crate::tools::Workspace;

/// Refuse the patch if any file it writes lies inside a directory that
/// holds, or would hold once the patch is written, a repository's layout.
pub(super) fn refuse_repositories<R>(workspace: &Workspace, jobs: &[Job<R>]) -> Result<(), Error>
where
    R: super::write::Report,
{
    // Every entry the patch creates, as paths relative to the root.
    let created: BTreeSet<PathBuf> = jobs
        .iter()
        .filter(|job| job.original.is_none() && job.result.is_some())
        .flat_map(|job| {
            job.rel
                .ancestors()
                .map(Path::to_path_buf)
                .collect::<Vec<_>>()
        })
        .collect();
    let mut checked = BTreeSet::new();
    for job in jobs.iter().filter(|job| job.result.is_some()) {
        for dir in job.rel.ancestors().skip(1) {
            if !checked.insert(dir.to_path_buf()) {
                continue;
            }
            let has = |name: &str, is_dir: bool| {
                created.contains(&dir.join(name)) || exists(workspace, dir, name.as_ref(), is_dir)
            };
            if has("HEAD", false) && has("objects", true) && has("refs", true) {
                return Err(workspace
                    .protected(
                        Path::new(job.report.name()),
                        "lies in a directory laid out as a git repository (`HEAD`, \
                         `objects/`, `refs/`), whose `config` git would load",
                    )
                    .into());
            }
        }
    }
    Ok(())
}

/// Whether `dir/name` exists on disk as a file (or a directory).
fn exists(workspace: &Workspace, dir: &Path, name: &OsStr, is_dir: bool) -> bool {
    let Ok(handle) = workspace.open_dir_at(dir) else {
        return false;
    };
    handle
        .symlink_metadata(name)
        .is_ok_and(|meta| meta.is_dir() == is_dir)
}
