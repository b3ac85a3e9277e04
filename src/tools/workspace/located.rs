//! Where a walk ended, with the handle it ended on: what the tools read
//! from and plan writes against.

use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Path, PathBuf};

use cap_fs_ext::{FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};

use super::walk::{Tail, Walked};

/// A path walked beneath the workspace root, and the handle on the deepest
/// directory the walk entered.
pub(crate) struct Located {
    /// The place, for messages: the root joined with [`rel`](Self::rel).
    pub(crate) real: PathBuf,
    /// The place relative to the root: no link, no `..`; the names that do
    /// not exist yet come last.
    pub(crate) rel: PathBuf,
    /// The deepest existing directory on the way, relative to the root.
    pub(crate) dir_rel: PathBuf,
    dir: Dir,
    tail: Tail,
    leaf_link: Option<(PathBuf, OsString)>,
}

/// What a located path is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum NodeKind {
    /// A regular file.
    File,
    /// A directory.
    Dir,
    /// Nothing yet.
    Missing,
}

impl Located {
    /// `root_dir` is the handle the walk started from (the root's).
    pub(super) fn new(root: &Path, root_dir: &Dir, walked: Walked) -> io::Result<Self> {
        let dir_rel: PathBuf = walked.names.iter().collect();
        let mut rel = dir_rel.clone();
        match &walked.tail {
            Tail::Dir => {}
            Tail::Entry(name, _) => rel.push(name),
            Tail::Missing(names) => rel.extend(names),
        }
        let dir = match walked.dir {
            Some(dir) => dir,
            // A walk that entered no directory ended on the root.
            None => root_dir.try_clone()?,
        };
        Ok(Located {
            real: root.join(&rel),
            rel,
            dir_rel,
            dir,
            tail: walked.tail,
            leaf_link: walked.leaf_link,
        })
    }

    /// Whether the path is a regular file, a directory, or nothing yet.
    pub(crate) fn kind(&self) -> NodeKind {
        match &self.tail {
            Tail::Dir => NodeKind::Dir,
            Tail::Entry(..) => NodeKind::File,
            Tail::Missing(_) => NodeKind::Missing,
        }
    }

    /// The file's name, and the names still to create before it (the
    /// directories a new file needs), when the path is not a directory.
    pub(crate) fn leaf(&self) -> Option<(&[OsString], &OsStr)> {
        match &self.tail {
            Tail::Dir => None,
            Tail::Entry(name, _) => Some((&[], name)),
            Tail::Missing(names) => names
                .split_last()
                .map(|(last, dirs)| (dirs, last.as_os_str())),
        }
    }

    /// The link the path's last name is, if it is one: its directory
    /// (relative to the root) and its name.
    pub(crate) fn leaf_link(&self) -> Option<(&Path, &OsStr)> {
        self.leaf_link
            .as_ref()
            .map(|(dir, name)| (dir.as_path(), name.as_os_str()))
    }

    /// The regular file, opened for reading from the handle of its
    /// directory, its last name not followed (the walk already followed
    /// every link): a link or a FIFO swapped in since is refused, and
    /// `O_NONBLOCK` keeps a FIFO from blocking the open itself.
    pub(crate) fn open_file(&self) -> io::Result<std::fs::File> {
        let name = match &self.tail {
            Tail::Entry(name, _) => name,
            Tail::Dir => {
                return Err(io::Error::new(
                    io::ErrorKind::IsADirectory,
                    "is a directory",
                ));
            }
            Tail::Missing(_) => {
                return Err(io::Error::new(io::ErrorKind::NotFound, "no such file"));
            }
        };
        let mut options = OpenOptions::new();
        options.read(true).follow(FollowSymlinks::No);
        #[cfg(unix)]
        {
            use cap_std::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NONBLOCK);
        }
        let file = self.dir.open_with(name, &options)?.into_std();
        if !file.metadata()?.is_file() {
            return Err(not_a_file());
        }
        Ok(file)
    }

    /// The directory itself, when the path is one.
    pub(crate) fn open_dir(&self) -> io::Result<Dir> {
        match &self.tail {
            Tail::Dir => self.dir.try_clone(),
            Tail::Entry(..) => Err(io::Error::new(
                io::ErrorKind::NotADirectory,
                "not a directory",
            )),
            Tail::Missing(_) => Err(io::Error::new(io::ErrorKind::NotFound, "no such directory")),
        }
    }

    /// The names beside a missing file, when its directory exists: for
    /// "did you mean". At most 4,096 are read.
    pub(crate) fn siblings(&self) -> Vec<String> {
        let Tail::Missing(names) = &self.tail else {
            return Vec::new();
        };
        if names.len() != 1 {
            return Vec::new();
        }
        let Ok(entries) = self.dir.entries() else {
            return Vec::new();
        };
        entries
            .take(4096)
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .collect()
    }
}

/// What a non-regular file is refused with, once opened.
pub(crate) fn not_a_file() -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidInput,
        "not a regular file (a FIFO, a socket or a device)",
    )
}
