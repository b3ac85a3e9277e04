//! The walk of a path beneath the root's directory handle, one name at a
//! time.
//!
//! Why by hand and not `canonicalize`: glibc's `realpath` gives up once the
//! resolved prefix passes PATH_MAX (4,096 bytes) while the kernel still
//! follows the link, and a name resolved once and used again later can have
//! become a link in between. Here every step is an `*at` call relative to a
//! handle that cap-std keeps beneath the root (openat2 `RESOLVE_BENEATH` on
//! Linux), a directory is entered only if it is not a link
//! (`open_dir_nofollow`), and a link is read and its target walked in turn,
//! so the walk sees exactly what the kernel will, at any depth. Even if this
//! walk were wrong, the handles could not leave the root: cap-std refuses.
//!
//! Links are followed as the kernel does, with two rules of ours: a target
//! that climbs above the root or is absolute outside it leads out (an
//! absolute target inside the root is taken from the root), and at most
//! [`MAX_LINKS`] links are followed (the kernel's own `ELOOP` bound).

use std::collections::VecDeque;
use std::ffi::{OsStr, OsString};
use std::io;
use std::path::{Component, Path, PathBuf};

use cap_fs_ext::DirExt;
use cap_std::fs::{Dir, Metadata};

use crate::tools::deadline::Ticker;

/// Links followed in one walk before it is refused (Linux's `ELOOP` limit).
const MAX_LINKS: u32 = 40;

/// Where a walk ended.
pub(super) struct Walked {
    /// The names of the directories entered below the root, none a link.
    pub(super) names: Vec<OsString>,
    /// The deepest directory entered (`None`: the root itself).
    pub(super) dir: Option<Dir>,
    /// What follows that directory.
    pub(super) tail: Tail,
    /// When the path's own last name is a link: the directory holding the
    /// link (relative to the root) and the link's name. Deleting the path
    /// removes that link, not its target.
    pub(super) leaf_link: Option<(PathBuf, OsString)>,
}

/// What follows the deepest directory of a walk.
pub(super) enum Tail {
    /// Nothing: the path is that directory.
    Dir,
    /// An existing entry that is not a directory (it may still be a FIFO or a
    /// device: the caller decides).
    Entry(OsString, Metadata),
    /// Names that do not exist yet, the first missing from the directory;
    /// none is `..` and none went through a link.
    Missing(Vec<OsString>),
}

/// Why a walk stopped.
pub(super) enum Stop {
    /// A link leads out of the root: where it leads, as far as can be told
    /// without following it.
    Out(PathBuf),
    /// A link whose target does not exist: the target as written.
    Dangling(PathBuf),
    /// Anything else on the way: no permission, a link loop, a directory
    /// swapped for a link while it was walked.
    Io(io::Error),
    /// The call's token expired during the walk.
    TimedOut,
}

impl From<io::Error> for Stop {
    fn from(error: io::Error) -> Self {
        Stop::Io(error)
    }
}

/// Walk `parts` (no `..` among them, no empty name) beneath `root_dir`,
/// whose path is `root`.
pub(super) fn walk(root_dir: &Dir, root: &Path, parts: Vec<OsString>) -> Result<Walked, Stop> {
    let mut names: Vec<OsString> = Vec::new();
    let mut dir: Option<Dir> = None;
    // Each name with whether it came from a link's target.
    let mut pending: VecDeque<(OsString, bool)> = parts.into_iter().map(|p| (p, false)).collect();
    let mut n_links = 0;
    let mut last_target = PathBuf::new();
    let mut leaf_link = None;
    // Each step is a system call or two; a walk is long only through links
    // whose targets climb and descend a deep tree, and stops with its call.
    let mut ticker = Ticker::<6>::new();
    // After a `..`, the handle of the directory above is opened again from
    // the root only when a name needs it: a run of `..` costs one reopening,
    // not one per `..` (each is as long as the tree is deep).
    let mut stale = false;
    while let Some((name, from_link)) = pending.pop_front() {
        if ticker.tick() {
            return Err(Stop::TimedOut);
        }
        if name == ".." {
            if names.pop().is_none() {
                let rest = pending.iter().map(|(n, _)| n.as_os_str());
                let above = root.parent().unwrap_or(root).to_path_buf();
                return Err(Stop::Out(lexical(above, rest)));
            }
            stale = true;
            continue;
        }
        if stale {
            dir = open_chain(root_dir, &names)?;
            stale = false;
        }
        let here = dir.as_ref().unwrap_or(root_dir);
        // Most names on a path are directories: try to enter one first (one
        // call), and look at what the name is only when that fails.
        if let Ok(next) = here.open_dir_nofollow(&name) {
            dir = Some(next);
            names.push(name);
            continue;
        }
        let meta = match here.symlink_metadata(&name) {
            Ok(meta) => meta,
            Err(error) if is_missing(&error) => {
                if from_link || pending.iter().any(|(_, linked)| *linked) {
                    return Err(Stop::Dangling(last_target));
                }
                let mut missing = vec![name];
                missing.extend(pending.into_iter().map(|(n, _)| n));
                return Ok(Walked {
                    names,
                    dir,
                    tail: Tail::Missing(missing),
                    leaf_link,
                });
            }
            Err(error) => return Err(Stop::Io(error)),
        };
        if meta.file_type().is_symlink() {
            n_links += 1;
            if n_links > MAX_LINKS {
                return Err(Stop::Io(io::Error::other(format!(
                    "more than {MAX_LINKS} symbolic links on the way (a loop?)"
                ))));
            }
            let target = here.read_link_contents(&name)?;
            if pending.is_empty() && !from_link {
                leaf_link = Some((names.iter().collect(), name.clone()));
            }
            let inside = if target.is_absolute() {
                match target.strip_prefix(root) {
                    Ok(inside) => {
                        names.clear();
                        dir = None;
                        inside.to_path_buf()
                    }
                    Err(_) => {
                        let rest = pending.iter().map(|(n, _)| n.as_os_str());
                        return Err(Stop::Out(lexical(target.clone(), rest)));
                    }
                }
            } else {
                target.clone()
            };
            for part in inside.components().rev() {
                match part {
                    Component::Normal(part) => pending.push_front((part.to_owned(), true)),
                    Component::ParentDir => pending.push_front(("..".into(), true)),
                    // `.`, and the root of an absolute target already stripped.
                    _ => {}
                }
            }
            last_target = target;
            continue;
        }
        if meta.is_dir() {
            // A directory that could not be entered (no permission), or
            // one that was a link a moment ago.
            dir = Some(here.open_dir_nofollow(&name)?);
            names.push(name);
            continue;
        }
        if !pending.is_empty() {
            if from_link || pending.iter().any(|(_, linked)| *linked) {
                return Err(Stop::Dangling(last_target));
            }
            return Err(Stop::Io(io::Error::new(
                io::ErrorKind::NotADirectory,
                format!("`{}` is a file, not a directory", name.to_string_lossy()),
            )));
        }
        return Ok(Walked {
            names,
            dir,
            tail: Tail::Entry(name, meta),
            leaf_link,
        });
    }
    if stale {
        dir = open_chain(root_dir, &names)?;
    }
    Ok(Walked {
        names,
        dir,
        tail: Tail::Dir,
        leaf_link,
    })
}

/// Open the directory `names` below `root_dir`, entering no link: a name
/// that has become a link since it was walked is refused (`ELOOP`), so the
/// handle is the directory the walk saw, not one a swap put there.
pub(super) fn open_chain(root_dir: &Dir, names: &[impl AsRef<OsStr>]) -> io::Result<Option<Dir>> {
    let mut dir: Option<Dir> = None;
    for name in names {
        let next = dir
            .as_ref()
            .unwrap_or(root_dir)
            .open_dir_nofollow(name.as_ref())?;
        dir = Some(next);
    }
    Ok(dir)
}

/// A name that is not there (or a file where a directory was expected).
fn is_missing(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
    )
}

/// `base` with `rest` appended, `..` taken lexically: where a link that
/// leads out would land, for the message.
fn lexical<'a>(base: PathBuf, rest: impl Iterator<Item = &'a OsStr>) -> PathBuf {
    let mut out = PathBuf::new();
    let rest: Vec<&OsStr> = rest.collect();
    for part in base
        .components()
        .chain(rest.iter().map(|p| Component::Normal(p)))
    {
        match part {
            Component::ParentDir => {
                out.pop();
            }
            Component::Normal(p) if p == ".." => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}
