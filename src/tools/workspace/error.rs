//! Why a workspace path was refused, in words a model can act on.

use std::fmt;
use std::io;
use std::path::{Path, PathBuf};

use super::PROTECTED_DIRS;

/// Why a path was refused.
#[derive(Debug)]
pub struct WorkspaceError {
    pub(super) kind: WorkspaceErrorKind,
    /// The path as the caller gave it.
    pub(super) path: PathBuf,
    /// The workspace root (canonical).
    pub(super) root: PathBuf,
    /// The place the path really leads to (symbolic links), or the I/O error.
    pub(super) detail: Detail,
}

#[derive(Debug)]
pub(super) enum Detail {
    None,
    Target(PathBuf),
    /// A dangling link: its target as written.
    Dangling(PathBuf),
    /// A protected path beneath `dir` (relative to the root), which is laid
    /// out as a repository, and why.
    Layout {
        dir: PathBuf,
        why: &'static str,
    },
    Io(io::Error),
}

/// What kind of path was refused.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum WorkspaceErrorKind {
    /// An absolute path that is not inside the root, e.g. `/etc/passwd`.
    Outside,
    /// A relative path whose `..` climbs above the root, e.g. `../secret.txt`.
    Escapes,
    /// A path through a symbolic link that points outside the root, e.g.
    /// `link/file` where `link -> /etc`.
    SymlinkOut,
    /// An empty path, e.g. `""`.
    Empty,
    /// The root itself does not exist or is not a directory, e.g.
    /// `Workspace::new("/no/such/dir")`.
    BadRoot,
    /// Neither a regular file nor a directory: a FIFO, a socket, a device.
    NotAFile,
    /// A place a tool must never read or write: version-control metadata,
    /// e.g. `.git/config`, or a directory laid out as a repository (only
    /// refused by [`Workspace::resolve_for_read`] and
    /// [`Workspace::resolve_for_write`]).
    Protected,
    /// A symbolic link inside the root whose target does not exist, e.g.
    /// `latest.json -> runs/7.json` after `runs/7.json` was deleted.
    DanglingLink,
    /// The way to the path cannot be walked: a directory without permission,
    /// a loop of links, a directory replaced by a link while it was walked.
    /// Only "not found" is not a refusal (a file about to be created).
    Unresolvable,
    /// The call's time ran out (or it was cancelled) while the path was
    /// walked, e.g. a link whose target climbs `..` 2,000 times in a tree
    /// 3,000 levels deep; the tools answer it as their own "out of time".
    TimedOut,
}

impl WorkspaceError {
    /// What kind of path was refused.
    pub fn kind(&self) -> WorkspaceErrorKind {
        self.kind
    }

    /// The path as it was given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Which of a tool's error kinds this refusal is; every tool asks here,
    /// so the same refusal has the same kind in `@json` and `@diff`.
    pub(crate) fn blame(&self) -> Blame {
        match self.kind {
            WorkspaceErrorKind::BadRoot
            | WorkspaceErrorKind::Empty
            | WorkspaceErrorKind::NotAFile => Blame::Argument,
            WorkspaceErrorKind::DanglingLink => Blame::Io,
            _ => Blame::Outside,
        }
    }
}

/// What a tool's error kind says of a workspace refusal (see
/// [`WorkspaceError::blame`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Blame {
    /// The workspace or the path is not one to give: invalid argument.
    Argument,
    /// A link leads nowhere: an input/output error.
    Io,
    /// The path leads out of the workspace (or into what it protects).
    Outside,
}

/// A path as messages show it: through [`shown_name`](crate::tools::shown_name),
/// so a name with a newline cannot forge a line of the message.
struct Shown<'a>(&'a Path);

impl fmt::Display for Shown<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&crate::tools::shown_name(&self.0.to_string_lossy()))
    }
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = Shown(&self.path);
        let root = Shown(&self.root);
        match (self.kind, &self.detail) {
            (WorkspaceErrorKind::Outside, _) => write!(
                f,
                "`{path}` is outside the workspace `{root}`: use a path inside it \
                 (relative paths start at the workspace root)"
            ),
            (WorkspaceErrorKind::Escapes, _) => write!(
                f,
                "`{path}` climbs out of the workspace `{root}` with `..`: use a path inside it"
            ),
            (WorkspaceErrorKind::SymlinkOut, Detail::Target(target)) => write!(
                f,
                "`{path}` leads out of the workspace `{root}` through a symbolic link \
                 (to `{}`): use a path inside it",
                Shown(target)
            ),
            (WorkspaceErrorKind::SymlinkOut, _) => write!(
                f,
                "`{path}` leads out of the workspace `{root}` through a symbolic link: \
                 use a path inside it"
            ),
            (WorkspaceErrorKind::Empty, _) => write!(f, "the path is empty: name a file"),
            (WorkspaceErrorKind::BadRoot, Detail::Io(error)) => {
                write!(f, "the workspace `{path}` cannot be used: {error}")
            }
            (WorkspaceErrorKind::BadRoot, _) => {
                write!(f, "the workspace `{path}` is not a directory")
            }
            (WorkspaceErrorKind::NotAFile, _) => write!(
                f,
                "`{path}` is neither a regular file nor a directory (a FIFO, a socket or a \
                 device): only files and directories can be read"
            ),
            (WorkspaceErrorKind::DanglingLink, Detail::Dangling(target)) => write!(
                f,
                "`{path}` is a symbolic link to `{}`, which does not exist: fix or remove the \
                 link, or use the file it should point to",
                Shown(target)
            ),
            (WorkspaceErrorKind::DanglingLink, _) => {
                write!(f, "`{path}` is a symbolic link whose target does not exist")
            }
            (WorkspaceErrorKind::Protected, Detail::Layout { dir, why }) => {
                if dir.as_os_str().is_empty() {
                    write!(f, "`{path}` lies in the workspace root, which {why}")?;
                } else {
                    write!(f, "`{path}` lies in `{}`, which {why}", Shown(dir))?;
                }
                f.write_str(": tools never read or write a repository's metadata")
            }
            (WorkspaceErrorKind::Protected, _) => write!(
                f,
                "`{path}` is inside version-control metadata ({}): tools never read or write \
                 there",
                PROTECTED_DIRS.join(", ")
            ),
            (WorkspaceErrorKind::Unresolvable, Detail::Io(error)) => write!(
                f,
                "`{path}` cannot be followed inside the workspace `{root}`: {error}"
            ),
            (WorkspaceErrorKind::Unresolvable, _) => write!(
                f,
                "`{path}` cannot be followed inside the workspace `{root}`"
            ),
            (WorkspaceErrorKind::TimedOut, _) => {
                write!(f, "out of time while `{path}` was walked")
            }
        }
    }
}

impl std::error::Error for WorkspaceError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.detail {
            Detail::Io(error) => Some(error),
            _ => None,
        }
    }
}
