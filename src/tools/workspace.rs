//! Confinement of tool paths to a workspace root.
//!
//! A model names files relative to the directory it works in. Every tool
//! resolves those names through [`Workspace::resolve`], which refuses three
//! ways out: an absolute path elsewhere, a `..` that climbs above the root, and
//! a symbolic link (anywhere along the path) whose target lies outside. It
//! also refuses what is neither a regular file nor a directory (a FIFO would
//! block the reader forever, a device is not text). Writes go through
//! [`Workspace::resolve_for_write`], which refuses version-control metadata
//! (`.git`, `.hg`, `.svn`, `.jj`): a patched `.git/config` can run commands.

use std::fmt;
use std::io;
use std::path::{Component, Path, PathBuf};

/// A directory that tool paths must stay inside.
///
/// ```
/// use argmend::tools::{Workspace, WorkspaceErrorKind};
///
/// let dir = std::env::temp_dir();
/// let workspace = Workspace::new(&dir).unwrap();
/// assert!(workspace.resolve("notes.txt").unwrap().starts_with(workspace.root()));
/// let error = workspace.resolve("../../etc/passwd").unwrap_err();
/// assert_eq!(error.kind(), WorkspaceErrorKind::Escapes);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Workspace {
    /// The canonical root (symbolic links resolved), so prefixes compare.
    root: PathBuf,
}

/// Why a path was refused.
#[derive(Debug)]
pub struct WorkspaceError {
    kind: WorkspaceErrorKind,
    /// The path as the caller gave it.
    path: PathBuf,
    /// The workspace root (canonical).
    root: PathBuf,
    /// The place the path really leads to (symbolic links), or the I/O error.
    detail: Detail,
}

#[derive(Debug)]
enum Detail {
    None,
    Target(PathBuf),
    /// A dangling link: its target as written, and where that lands.
    Dangling(PathBuf, PathBuf),
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
    /// A place a tool must never write: version-control metadata, e.g.
    /// `.git/config` (only refused by [`Workspace::resolve_for_write`]).
    Protected,
    /// A symbolic link inside the root whose target does not exist, e.g.
    /// `latest.json -> runs/7.json` after `runs/7.json` was deleted.
    DanglingLink,
}

/// Directories no tool writes into, anywhere in the workspace.
pub const PROTECTED_DIRS: [&str; 4] = [".git", ".hg", ".svn", ".jj"];

impl Workspace {
    /// A workspace rooted at `root`, which must be an existing directory.
    pub fn new(root: impl AsRef<Path>) -> Result<Self, WorkspaceError> {
        let given = root.as_ref();
        let bad_root = |detail| WorkspaceError {
            kind: WorkspaceErrorKind::BadRoot,
            path: given.to_path_buf(),
            root: given.to_path_buf(),
            detail,
        };
        let root = given
            .canonicalize()
            .map_err(|error| bad_root(Detail::Io(error)))?;
        if !root.is_dir() {
            return Err(bad_root(Detail::None));
        }
        Ok(Workspace { root })
    }

    /// The root directory, with symbolic links resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real location of `path` (relative paths start at the root), or why
    /// it is refused.
    ///
    /// The path need not exist (a file about to be created): the part that
    /// exists has its symbolic links resolved, and the rest is appended.
    pub fn resolve(&self, path: impl AsRef<Path>) -> Result<PathBuf, WorkspaceError> {
        let path = path.as_ref();
        let refuse = |kind, detail| WorkspaceError {
            kind,
            path: path.to_path_buf(),
            root: self.root.clone(),
            detail,
        };
        if path.as_os_str().is_empty() {
            return Err(refuse(WorkspaceErrorKind::Empty, Detail::None));
        }
        // Lexical normalization first: `..` is judged on the path as written,
        // before any link is followed.
        let mut parts: Vec<&std::ffi::OsStr> = Vec::new();
        let mut base = self.root.clone();
        for component in path.components() {
            match component {
                Component::Prefix(_) | Component::RootDir => {
                    base = PathBuf::from(component.as_os_str());
                    parts.clear();
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() {
                        let kind = if path.is_absolute() {
                            WorkspaceErrorKind::Outside
                        } else {
                            WorkspaceErrorKind::Escapes
                        };
                        return Err(refuse(kind, Detail::None));
                    }
                }
                Component::Normal(part) => parts.push(part),
            }
        }
        let mut lexical = base;
        lexical.extend(&parts);
        let real = real_path(&lexical).map_err(|detail| {
            let kind = match &detail {
                Detail::Dangling(_, lands) if lands.starts_with(&self.root) => {
                    WorkspaceErrorKind::DanglingLink
                }
                Detail::Dangling(target, _) => {
                    return refuse(
                        WorkspaceErrorKind::SymlinkOut,
                        Detail::Target(target.clone()),
                    );
                }
                Detail::Target(_) => WorkspaceErrorKind::SymlinkOut,
                _ => WorkspaceErrorKind::Outside,
            };
            refuse(kind, detail)
        })?;
        if real.starts_with(&self.root) {
            // `metadata` follows the path without opening it, so a FIFO
            // cannot block here.
            if let Ok(meta) = std::fs::metadata(&real)
                && !meta.is_file()
                && !meta.is_dir()
            {
                return Err(refuse(WorkspaceErrorKind::NotAFile, Detail::None));
            }
            return Ok(real);
        }
        // An absolute path that was never inside is "outside"; one that was
        // inside as written but really leads elsewhere went through a link.
        if !lexical.starts_with(&self.root) && !real_prefix_inside(&lexical, &self.root) {
            Err(refuse(WorkspaceErrorKind::Outside, Detail::None))
        } else {
            Err(refuse(WorkspaceErrorKind::SymlinkOut, Detail::Target(real)))
        }
    }
}

impl Workspace {
    /// [`resolve`](Self::resolve) for a file about to be written: also
    /// refuses a path inside version-control metadata ([`PROTECTED_DIRS`],
    /// compared without case, as some file systems do).
    ///
    /// ```
    /// use argmend::tools::{Workspace, WorkspaceErrorKind};
    /// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
    /// let error = workspace.resolve_for_write("repo/.git/config").unwrap_err();
    /// assert_eq!(error.kind(), WorkspaceErrorKind::Protected);
    /// assert!(workspace.resolve_for_write(".github/workflows/ci.yml").is_ok());
    /// ```
    pub fn resolve_for_write(&self, path: impl AsRef<Path>) -> Result<PathBuf, WorkspaceError> {
        let real = self.resolve(path.as_ref())?;
        let inside = real.strip_prefix(&self.root).unwrap_or(&real);
        let protected = inside.components().any(|component| {
            let name = component.as_os_str().to_string_lossy();
            PROTECTED_DIRS
                .iter()
                .any(|dir| name.eq_ignore_ascii_case(dir))
        });
        if protected {
            return Err(WorkspaceError {
                kind: WorkspaceErrorKind::Protected,
                path: path.as_ref().to_path_buf(),
                root: self.root.clone(),
                detail: Detail::None,
            });
        }
        Ok(real)
    }
}

/// Whether `path` names a place inside `root` before its last existing
/// component's links are followed (an absolute path given through a
/// symlinked spelling of the root, such as `/tmp` for `/private/tmp`).
fn real_prefix_inside(path: &Path, root: &Path) -> bool {
    path.ancestors()
        .skip(1)
        .filter_map(|ancestor| ancestor.canonicalize().ok())
        .any(|real| real.starts_with(root))
}

/// `path` with the symbolic links of its existing part resolved and the
/// missing rest appended. A dangling link is refused (writing through it
/// would create its target, wherever that is).
fn real_path(path: &Path) -> Result<PathBuf, Detail> {
    let mut existing = path;
    let mut rest: Vec<&std::ffi::OsStr> = Vec::new();
    loop {
        match existing.canonicalize() {
            Ok(mut real) => {
                rest.reverse();
                real.extend(rest);
                return Ok(real);
            }
            Err(error) => {
                if let Ok(meta) = existing.symlink_metadata() {
                    if meta.file_type().is_symlink() {
                        let target = std::fs::read_link(existing).unwrap_or_default();
                        // Where the target would be: relative to the link's
                        // own (resolved) directory, `..` taken lexically.
                        let base = existing
                            .parent()
                            .and_then(|parent| parent.canonicalize().ok())
                            .unwrap_or_default();
                        let mut lands = PathBuf::new();
                        for component in base.join(&target).components() {
                            match component {
                                Component::ParentDir => {
                                    lands.pop();
                                }
                                Component::CurDir => {}
                                other => lands.push(other),
                            }
                        }
                        return Err(Detail::Dangling(target, lands));
                    }
                    // It exists but cannot be resolved (no permission): nothing
                    // can be followed through it either, so the path as written
                    // is where any access would go.
                    drop(error);
                    return Ok(path.to_path_buf());
                }
                let (Some(parent), Some(name)) = (existing.parent(), existing.file_name()) else {
                    return Err(Detail::Io(error));
                };
                rest.push(name);
                existing = parent;
            }
        }
    }
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
}

impl fmt::Display for WorkspaceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let path = self.path.display();
        let root = self.root.display();
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
                target.display()
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
            (WorkspaceErrorKind::DanglingLink, Detail::Dangling(target, _)) => write!(
                f,
                "`{path}` is a symbolic link to `{}`, which does not exist: fix or remove the \
                 link, or use the file it should point to",
                target.display()
            ),
            (WorkspaceErrorKind::DanglingLink, _) => {
                write!(f, "`{path}` is a symbolic link whose target does not exist")
            }
            (WorkspaceErrorKind::Protected, _) => write!(
                f,
                "`{path}` is inside version-control metadata ({}): tools never write there",
                PROTECTED_DIRS.join(", ")
            ),
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
