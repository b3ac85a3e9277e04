//! Confinement of tool paths to a workspace root, held by the kernel.
//!
//! A model names files relative to the directory it works in. Every tool
//! reaches them through a [`Workspace`]: a directory handle on the root and a
//! walk beneath it ([`walk`]), one name at a time, so no path that a link,
//! a `..`, an absolute spelling or a tree deeper than PATH_MAX leads out of
//! the root is ever opened, and a name checked once is not looked up again
//! by its text. What is read is opened from the handle the walk ended on;
//! what is written is written beneath the handle of its directory, reopened
//! without following any link ([`Located`], `diff::write`).
//!
//! It also refuses what is neither a regular file nor a directory (a FIFO
//! would block the reader forever, a device is not text), and, for writes,
//! version-control metadata (`.git`, `.hg`, `.svn`, `.jj`, in any case and
//! with the characters a file system ignores): a patched `.git/config` can
//! run commands.

mod error;
mod located;
mod lock;
mod names;
mod repo;
mod walk;

use std::ffi::{OsStr, OsString};
use std::fmt;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use cap_std::ambient_authority;
use cap_std::fs::Dir;

pub(crate) use self::error::Blame;
use self::error::Detail;
pub use self::error::{WorkspaceError, WorkspaceErrorKind};
pub(crate) use self::located::{Located, NodeKind, not_a_file};
pub(crate) use self::lock::WriteLock;
pub(crate) use self::names::is_protected_name;
pub(crate) use self::repo::Layout;
use self::walk::{Stop, Tail};

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
#[derive(Clone)]
pub struct Workspace {
    /// The canonical root (symbolic links resolved), for messages and for
    /// absolute paths given inside it.
    root: PathBuf,
    /// The handle every walk starts from.
    dir: Arc<Dir>,
    /// The files being written, so two writes of one file wait for each
    /// other whatever names they used for it.
    locks: Arc<lock::Locks>,
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
        let dir = Dir::open_ambient_dir(&root, ambient_authority())
            .map_err(|error| bad_root(Detail::Io(error)))?;
        Ok(Workspace {
            root,
            dir: Arc::new(dir),
            locks: Arc::default(),
        })
    }

    /// The root directory, with symbolic links resolved.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The real location of `path` (relative paths start at the root), or why
    /// it is refused.
    ///
    /// The path need not exist (a file about to be created): the part that
    /// exists has its symbolic links resolved, and the rest is appended. The
    /// answer is for messages and checks: the tools themselves never open a
    /// path by this name, but through the handles [`locate`](Self::locate)
    /// keeps.
    pub fn resolve(&self, path: impl AsRef<Path>) -> Result<PathBuf, WorkspaceError> {
        self.locate(path.as_ref()).map(|located| located.real)
    }

    /// [`resolve`](Self::resolve) for a file about to be read: also refuses
    /// a repository's control files, as [`resolve_for_write`](Self::resolve_for_write)
    /// does. A model has no business reading `.git/config` (a token in a
    /// remote's URL) any more than writing it.
    ///
    /// ```
    /// use argmend::tools::{Workspace, WorkspaceErrorKind};
    /// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
    /// let error = workspace.resolve_for_read("repo/.git/config").unwrap_err();
    /// assert_eq!(error.kind(), WorkspaceErrorKind::Protected);
    /// assert!(workspace.resolve_for_read("repo/src/main.rs").is_ok());
    /// ```
    pub fn resolve_for_read(&self, path: impl AsRef<Path>) -> Result<PathBuf, WorkspaceError> {
        self.locate_for_read(path.as_ref())
            .map(|located| located.real)
    }

    /// [`resolve`](Self::resolve) for a file about to be written: also
    /// refuses a path inside version-control metadata ([`PROTECTED_DIRS`],
    /// compared as the file systems that ignore case or some characters
    /// compare them), where it really leads and as it was written, and a
    /// path beneath a directory git would take for a repository.
    ///
    /// ```
    /// use argmend::tools::{Workspace, WorkspaceErrorKind};
    /// let workspace = Workspace::new(std::env::temp_dir()).unwrap();
    /// let error = workspace.resolve_for_write("repo/.git/config").unwrap_err();
    /// assert_eq!(error.kind(), WorkspaceErrorKind::Protected);
    /// let error = workspace.resolve_for_write("repo/.G\u{200c}it/config").unwrap_err();
    /// assert_eq!(error.kind(), WorkspaceErrorKind::Protected);
    /// let error = workspace.resolve_for_write("repo/.g\u{131}t/config").unwrap_err();
    /// assert_eq!(error.kind(), WorkspaceErrorKind::Protected);
    /// assert!(workspace.resolve_for_write(".github/workflows/ci.yml").is_ok());
    /// ```
    pub fn resolve_for_write(&self, path: impl AsRef<Path>) -> Result<PathBuf, WorkspaceError> {
        self.locate_for_write(path.as_ref())
            .map(|located| located.real)
    }

    /// Walk `path` beneath the root and keep where it ended.
    pub(crate) fn locate(&self, path: &Path) -> Result<Located, WorkspaceError> {
        let refuse = |kind, detail| WorkspaceError {
            kind,
            path: path.to_path_buf(),
            root: self.root.clone(),
            detail,
        };
        let parts = self.relative(path)?;
        let walked = walk::walk(&self.dir, &self.root, parts).map_err(|stop| match stop {
            Stop::Out(target) => refuse(WorkspaceErrorKind::SymlinkOut, Detail::Target(target)),
            Stop::Dangling(target) => {
                refuse(WorkspaceErrorKind::DanglingLink, Detail::Dangling(target))
            }
            Stop::Io(error) => refuse(WorkspaceErrorKind::Unresolvable, Detail::Io(error)),
            Stop::TimedOut => refuse(WorkspaceErrorKind::TimedOut, Detail::None),
        })?;
        if let Tail::Entry(_, meta) = &walked.tail
            && !meta.is_file()
        {
            return Err(refuse(WorkspaceErrorKind::NotAFile, Detail::None));
        }
        Located::new(&self.root, &self.dir, walked)
            .map_err(|error| refuse(WorkspaceErrorKind::Unresolvable, Detail::Io(error)))
    }

    /// [`locate`](Self::locate), refusing a repository's control files:
    /// a place in version-control metadata, or beneath a directory laid
    /// out as a repository ([`Layout`]) on the way to it.
    pub(crate) fn locate_for_read(&self, path: &Path) -> Result<Located, WorkspaceError> {
        let located = self.locate(path)?;
        self.refuse_control_files(path, &located)?;
        Ok(located)
    }

    /// [`locate_for_read`](Self::locate_for_read), also refusing the link
    /// the path names when that is version-control metadata (deleting it
    /// would write there).
    pub(crate) fn locate_for_write(&self, path: &Path) -> Result<Located, WorkspaceError> {
        let located = self.locate(path)?;
        let link = located.leaf_link().map(|(dir, name)| dir.join(name));
        if link.as_deref().is_some_and(is_protected) {
            return Err(self.refuse_protected(path, Detail::None));
        }
        self.refuse_control_files(path, &located)?;
        Ok(located)
    }

    fn refuse_control_files(&self, path: &Path, located: &Located) -> Result<(), WorkspaceError> {
        if is_protected(&located.rel) {
            return Err(self.refuse_protected(path, Detail::None));
        }
        let names: Vec<&std::ffi::OsStr> = located
            .dir_rel
            .components()
            .map(Component::as_os_str)
            .collect();
        match repo::first_repository(&self.dir, &names) {
            Ok(None) => Ok(()),
            Ok(Some((depth, why))) => {
                let dir: PathBuf = names[..depth].iter().collect();
                Err(self.refuse_protected(path, Detail::Layout { dir, why }))
            }
            Err(error) => Err(WorkspaceError {
                kind: WorkspaceErrorKind::Unresolvable,
                path: path.to_path_buf(),
                root: self.root.clone(),
                detail: Detail::Io(error),
            }),
        }
    }

    fn refuse_protected(&self, path: &Path, detail: Detail) -> WorkspaceError {
        WorkspaceError {
            kind: WorkspaceErrorKind::Protected,
            path: path.to_path_buf(),
            root: self.root.clone(),
            detail,
        }
    }

    /// A refusal of `path` because the directory `dir` (relative to the
    /// root) would be laid out as a repository, for the reason `why`.
    pub(crate) fn protected_layout(
        &self,
        path: &Path,
        dir: PathBuf,
        why: &'static str,
    ) -> WorkspaceError {
        self.refuse_protected(path, Detail::Layout { dir, why })
    }

    /// The directory `rel` (relative to the root, as [`Located`] gives it)
    /// opened again without following any link: the handle a write goes
    /// through. A directory that became a link since is refused.
    pub(crate) fn open_dir_at(&self, rel: &Path) -> std::io::Result<Dir> {
        let names: Vec<&std::ffi::OsStr> = rel
            .components()
            .filter_map(|part| match part {
                Component::Normal(name) => Some(name),
                _ => None,
            })
            .collect();
        match walk::open_chain(&self.dir, &names)? {
            Some(dir) => Ok(dir),
            None => self.dir.try_clone(),
        }
    }

    /// Wait until no other write holds any of `paths` (relative to the
    /// root, as [`Located`] gives them), then hold them all until the guard
    /// is dropped. All at once, so two writes never wait for each other.
    pub(crate) fn lock(&self, paths: Vec<PathBuf>) -> WriteLock {
        lock::Locks::acquire(&self.locks, paths)
    }

    /// [`lock`](Self::lock), giving up (`None`) once `token` expires.
    pub(crate) fn lock_until(
        &self,
        paths: Vec<PathBuf>,
        token: &crate::tools::deadline::CancelToken,
    ) -> Option<WriteLock> {
        lock::Locks::acquire_until(&self.locks, paths, token)
    }

    /// `path` as names below the root, `..` taken lexically (before any
    /// link is followed), or why it is refused.
    fn relative(&self, path: &Path) -> Result<Vec<OsString>, WorkspaceError> {
        let refuse = |kind| WorkspaceError {
            kind,
            path: path.to_path_buf(),
            root: self.root.clone(),
            detail: Detail::None,
        };
        if path.as_os_str().is_empty() {
            return Err(refuse(WorkspaceErrorKind::Empty));
        }
        // Borrowed from `path`: an absolute path outside the root, however
        // long, is refused without a copy of each of its names.
        let mut parts: Vec<&OsStr> = Vec::new();
        let mut prefix: Option<PathBuf> = None;
        for component in path.components() {
            match component {
                Component::Prefix(_) | Component::RootDir => {
                    let mut at = prefix.take().unwrap_or_default();
                    at.push(component.as_os_str());
                    prefix = Some(at);
                    parts.clear();
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() && prefix.is_none() {
                        return Err(refuse(WorkspaceErrorKind::Escapes));
                    }
                }
                Component::Normal(part) => parts.push(part),
            }
        }
        let Some(prefix) = prefix else {
            return Ok(parts.into_iter().map(OsStr::to_owned).collect());
        };
        // An absolute path: inside the root as written, or through a linked
        // spelling of it (`/tmp/ws` for `/private/tmp/ws`).
        let mut absolute = prefix.clone();
        absolute.extend(&parts);
        if let Ok(inside) = absolute.strip_prefix(&self.root) {
            return Ok(names(inside));
        }
        enter_through_links(&prefix, &parts, &self.root)
            .ok_or_else(|| refuse(WorkspaceErrorKind::Outside))
    }
}

/// The names below `root` of the absolute path `prefix` + `parts` (no `..`
/// among them), which is not inside `root` as written but may lead into it
/// through links in its directories (`/tmp/ws/a` when the root is
/// `/private/tmp/ws`): `None` when it does not. The path's last name is
/// never followed: a link outside the root is not a way into it.
///
/// Why one name at a time: each ancestor canonicalized in turn cost the
/// path's length each, so a 0.5 MB path took 6.3 s and a 2 MB one froze a
/// server (issue 43, hole 2). Here the ancestors are resolved from the top
/// as `realpath` would, each from the one before, one `lstat` per name (a
/// link read when it is one), and the longest one inside the root wins, as
/// before (the rest is walked beneath the root's handle). A name that does
/// not resolve, a place longer than `PATH_MAX` or more than 40 links end
/// the resolution, since no longer ancestor resolves either, so it costs at
/// most a few thousand steps whatever the path's length. Only names are
/// looked at here, never a file's content.
fn enter_through_links(prefix: &Path, parts: &[&OsStr], root: &Path) -> Option<Vec<OsString>> {
    const PATH_MAX: usize = 4096;
    const MAX_LINKS: u32 = 40;
    let mut real = prefix.to_path_buf();
    // The names still to take: those of links' targets on a stack (last
    // first), then the path's own from `next`.
    let mut from_links: Vec<OsString> = Vec::new();
    let mut next = 0;
    let mut n_links = 0;
    // The longest of the path's ancestors whose real place is inside the
    // root: that place, and how many of the path's names it covers. Only
    // ancestors: the path's own last name is an entry of a directory, and
    // is never followed here (writing or deleting it acts on that entry).
    let mut best: Option<(PathBuf, usize)> = None;
    let last = parts.len().saturating_sub(1);
    // The place is not a directory: it resolves, nothing longer does.
    let mut at_end = false;
    loop {
        if from_links.is_empty() {
            if real.starts_with(root) {
                best = Some((real.clone(), next));
            }
            if next >= last {
                break;
            }
        }
        if at_end {
            break;
        }
        let name = match from_links.pop() {
            Some(name) => name,
            None => {
                next += 1;
                parts[next - 1].to_owned()
            }
        };
        if name == ".." {
            real.pop();
            continue;
        }
        // Past these, `realpath` fails, and so for every longer ancestor.
        if real.as_os_str().len() + 1 + name.len() > PATH_MAX {
            break;
        }
        let here = real.join(&name);
        let Ok(meta) = std::fs::symlink_metadata(&here) else {
            break;
        };
        if meta.file_type().is_symlink() {
            n_links += 1;
            let target = std::fs::read_link(&here);
            let (true, Ok(target)) = (n_links <= MAX_LINKS, target) else {
                break;
            };
            let mut pieces = Vec::new();
            for part in target.components() {
                match part {
                    Component::Prefix(_) | Component::RootDir => {
                        real.clear();
                        real.push(part.as_os_str());
                        pieces.clear();
                    }
                    Component::CurDir => {}
                    Component::ParentDir => pieces.push(OsString::from("..")),
                    Component::Normal(piece) => pieces.push(piece.to_owned()),
                }
            }
            from_links.extend(pieces.into_iter().rev());
        } else {
            at_end = !meta.is_dir();
            real = here;
        }
    }
    let (place, covered) = best?;
    let mut out = names(place.strip_prefix(root).ok()?);
    out.extend(parts[covered..].iter().map(|&part| part.to_owned()));
    Some(out)
}

/// The normal names of `path`.
fn names(path: &Path) -> Vec<OsString> {
    path.components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name.to_owned()),
            _ => None,
        })
        .collect()
}

/// Whether a path (relative to the root) passes through version-control
/// metadata, its names folded as file systems that ignore case or some
/// characters would read them ([`names::fold`]).
pub(crate) fn is_protected(rel: &Path) -> bool {
    rel.components()
        .any(|part| names::is_protected_name(&part.as_os_str().to_string_lossy()))
}

impl fmt::Debug for Workspace {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Workspace")
            .field("root", &self.root)
            .finish()
    }
}

impl PartialEq for Workspace {
    fn eq(&self, other: &Self) -> bool {
        self.root == other.root
    }
}

impl Eq for Workspace {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Issue 43, hole 2: an absolute path through a link to the root (as
    /// `/tmp` is on macOS) is walked into the root one name at a time; one
    /// that does not lead there is refused, at once however long it is.
    #[cfg(unix)]
    #[test]
    fn absolute_paths_through_links_are_resolved_one_name_at_a_time() {
        let base = std::env::temp_dir().join(format!("argmend-links-{}", std::process::id()));
        let root = base.join("real/ws");
        std::fs::create_dir_all(root.join("sub")).unwrap();
        std::fs::write(root.join("sub/a.txt"), "a").unwrap();
        std::os::unix::fs::symlink(base.join("real"), base.join("alias")).unwrap();
        std::os::unix::fs::symlink("real/./ws/sub", base.join("rel")).unwrap();
        std::os::unix::fs::symlink("alias/ws/sub/..", base.join("up")).unwrap();
        let workspace = Workspace::new(&root).unwrap();
        let real = workspace.root().join("sub/a.txt");
        for spelling in [
            base.join("alias/ws/sub/a.txt"),
            base.join("rel/a.txt"),
            base.join("alias/../alias/ws/sub/new/b.txt"),
            base.join("up/sub/a.txt"),
        ] {
            let resolved = workspace.resolve(&spelling);
            assert!(resolved.is_ok(), "{spelling:?}: {resolved:?}");
        }
        for spelling in ["alias/ws/sub/a.txt", "rel/a.txt", "up/sub/a.txt"] {
            assert_eq!(workspace.resolve(base.join(spelling)).unwrap(), real);
        }
        for outside in ["real/a.txt", "rel", "alias"] {
            let error = workspace.resolve(base.join(outside)).unwrap_err();
            assert_eq!(error.kind(), WorkspaceErrorKind::Outside, "{outside}");
        }
        let long = format!("{}/{}x", base.display(), "a/".repeat(500_000));
        let started = crate::tools::cpu_clock::CpuClock::start();
        let error = workspace.resolve(&long).unwrap_err();
        assert_eq!(error.kind(), WorkspaceErrorKind::Outside);
        assert!(started.elapsed() < std::time::Duration::from_secs(2));
        let _ = std::fs::remove_dir_all(&base);
    }

    #[test]
    fn protected_names_are_compared_as_file_systems_read_them() {
        for name in [
            ".git/config",
            "a/.GIT/hooks/x",
            "a/.g\u{200c}it/config",
            "a/\u{feff}.git/config",
            ".git./config",
            ".git . /config",
            "GIT~1/config",
            ".jj/repo",
            ".Hg/hgrc",
            "a/.g\u{131}t/config",
            "a/.\u{17f}vn/entries",
            "\u{ff0e}git/config",
        ] {
            assert!(is_protected(Path::new(name)), "{name:?}");
        }
        for name in [
            ".github/workflows/ci.yml",
            "git/config",
            ".gitignore",
            "a.git",
        ] {
            assert!(!is_protected(Path::new(name)), "{name:?}");
        }
    }
}
