//! A model of how git decides that a directory is a repository
//! (`is_git_directory`, `validate_headref` and `get_common_dir_noenv` in
//! git's `setup.c`), read on the disk, without git's environment variables:
//! what the `workspace_paths` target holds an accepted patch to.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// git's `validate_headref`: `HEAD` is a link into `refs/`, or a file
/// that starts with `ref:`, spaces and `refs/`, or with an object id.
fn valid_head(path: &Path) -> bool {
    use std::io::Read;
    use std::os::unix::ffi::OsStrExt;
    let Ok(meta) = std::fs::symlink_metadata(path) else {
        return false;
    };
    if meta.file_type().is_symlink() {
        return std::fs::read_link(path)
            .is_ok_and(|target| target.as_os_str().as_bytes().starts_with(b"refs/"));
    }
    let mut buffer = Vec::new();
    let read = std::fs::File::open(path).and_then(|file| file.take(255).read_to_end(&mut buffer));
    if read.is_err() {
        return false;
    }
    if let Some(rest) = buffer.strip_prefix(b"ref:") {
        let start = rest
            .iter()
            .position(|b| !b" \t\n\x0b\x0c\r".contains(b))
            .unwrap_or(rest.len());
        return rest[start..].starts_with(b"refs/");
    }
    buffer.len() >= 40 && buffer[..40].iter().all(u8::is_ascii_hexdigit)
}

/// `access(path, X_OK)` as root: a directory, or a file with an
/// execute bit, links followed.
fn executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(path)
        .is_ok_and(|meta| meta.is_dir() || meta.permissions().mode() & 0o111 != 0)
}

/// git's `is_git_directory` (setup.c), without the environment: a
/// valid `HEAD`, and `objects` and `refs` in the common directory, which
/// `commondir` names (relative to `dir`, or absolute) when it exists.
fn is_git_directory(dir: &Path) -> bool {
    use std::os::unix::ffi::OsStrExt;
    if !valid_head(&dir.join("HEAD")) {
        return false;
    }
    let commondir = dir.join("commondir");
    let common = if std::fs::metadata(&commondir).is_ok() {
        // git dies on a `commondir` it cannot read or that is empty.
        let Ok(mut data) = std::fs::read(&commondir) else {
            return false;
        };
        if data.is_empty() {
            return false;
        }
        while data.last().is_some_and(|b| *b == b'\n' || *b == b'\r') {
            data.pop();
        }
        let named = Path::new(std::ffi::OsStr::from_bytes(&data));
        match dir.join(named).canonicalize() {
            Ok(common) => common,
            Err(_) => return false,
        }
    } else {
        dir.to_path_buf()
    };
    executable(&common.join("objects")) && executable(&common.join("refs"))
}

/// Every directory under `top` (links not followed, paths too long for
/// std left out) that git would take for a repository.
pub(super) fn repositories(top: &Path, short: usize) -> BTreeSet<PathBuf> {
    let mut found = BTreeSet::new();
    let mut stack = vec![top.to_path_buf()];
    while let Some(dir) = stack.pop() {
        if is_git_directory(&dir) {
            found.insert(dir.clone());
        }
        let Ok(entries) = std::fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|kind| kind.is_dir()) && path.as_os_str().len() < short {
                stack.push(path);
            }
        }
    }
    found
}
