//! What makes a directory a git repository, as git's own `setup.c` decides,
//! read as a layout of names: no write may make one, and no tool reads or
//! writes inside one.
//!
//! Git takes a directory `D` for a repository (`is_git_directory`) when:
//!
//! - `D/HEAD` is a link into `refs/`, or a file that holds `ref: refs/…`
//!   or an object id (`validate_headref`);
//! - its common directory `C` has `objects` and `refs` that `access(X_OK)`
//!   accepts: links are followed, so a link to a directory counts, and so
//!   does an executable file. `C` is `D` itself, or what `D/commondir` names
//!   (any path, relative to `D` or absolute: `get_common_dir_noenv`).
//!
//! Then git loads `C/config`, and with it `core.pager`, `core.fsmonitor`,
//! `core.hooksPath` and friends: commands that run on the user's next `git
//! log` there. A patch can plant that in one directory (`HEAD`, `objects/`,
//! `refs/`, `config`) or split it in two (`x/HEAD` and `x/commondir` holding
//! `../y`, then `y/objects/`, `y/refs/`, `y/config`).
//!
//! The rule here is git's, read without the contents, so it cannot be
//! fooled by what a file holds or will hold: a directory is refused when it
//! has (after a patch, or on the disk for a read), as entries of any kind
//! (file, directory, link, even a dangling one):
//!
//! - `HEAD` beside `commondir` or `gitdir` (a linked worktree's
//!   administrative directory: its config is elsewhere);
//! - `objects` and `refs` (a common directory, bare or not: any `commondir`,
//!   anywhere on the machine, may name it);
//!
//! and `HEAD` with `objects` and `refs` is the plain bare repository, already
//! covered by the second rule. Names are compared folded ([`fold`]), as a
//! case-insensitive file system would find them.

use std::ffi::OsStr;
use std::io;

use cap_std::fs::Dir;

use super::names::fold;

/// The entries of a directory that git's repository checks look at.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Layout(u8);

const HEAD: u8 = 1;
const OBJECTS: u8 = 2;
const REFS: u8 = 4;
const COMMONDIR: u8 = 8;
const GITDIR: u8 = 16;

/// The names, as they are spelled on the disk (a case-insensitive file
/// system finds `head` for `HEAD` by itself).
const NAMES: [(&str, u8); 5] = [
    ("HEAD", HEAD),
    ("objects", OBJECTS),
    ("refs", REFS),
    ("commondir", COMMONDIR),
    ("gitdir", GITDIR),
];

impl Layout {
    /// Note that the directory has (or will have) an entry called `name`.
    pub(crate) fn add(&mut self, name: &OsStr) {
        let folded = fold(&name.to_string_lossy());
        for (known, bit) in NAMES {
            if folded.eq_ignore_ascii_case(known) {
                self.0 |= bit;
            }
        }
    }

    /// The entries `dir` has on the disk now (`lstat`: a link counts as
    /// itself, dangling or not). An entry that cannot be looked at for any
    /// reason but "not there" counts as there.
    pub(crate) fn on_disk(dir: &Dir) -> Layout {
        let mut layout = Layout::default();
        for (name, bit) in NAMES {
            match dir.symlink_metadata(name) {
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                _ => layout.0 |= bit,
            }
        }
        layout
    }

    /// Why git would take a directory with these entries for a repository
    /// (or a repository's common directory), if it would.
    pub(crate) fn refusal(self) -> Option<&'static str> {
        let has = |bits: u8| self.0 & bits == bits;
        if has(HEAD) && (has(COMMONDIR) || has(GITDIR)) {
            Some(
                "holds `HEAD` beside a `commondir` or `gitdir` file, which git reads as a \
                 repository whose `config` lies wherever that file points",
            )
        } else if has(HEAD | OBJECTS | REFS) {
            Some(
                "is laid out as a git repository (`HEAD`, `objects/`, `refs/`), whose `config` \
                 git would load",
            )
        } else if has(OBJECTS | REFS) {
            Some(
                "is laid out as a git repository's common directory (`objects/`, `refs/`), \
                 whose `config` git loads for any repository whose `commondir` names it",
            )
        } else {
            None
        }
    }
}

/// The first directory from the root down `names` (the root included, the
/// last name's directory included) that is laid out as a repository: its
/// depth (0 for the root) and why. One handle is open at a time.
pub(super) fn first_repository(
    root: &Dir,
    names: &[&OsStr],
) -> io::Result<Option<(usize, &'static str)>> {
    if let Some(why) = Layout::on_disk(root).refusal() {
        return Ok(Some((0, why)));
    }
    let mut dir: Option<Dir> = None;
    for (idx, name) in names.iter().enumerate() {
        let next = cap_fs_ext::DirExt::open_dir_nofollow(dir.as_ref().unwrap_or(root), name)?;
        if let Some(why) = Layout::on_disk(&next).refusal() {
            return Ok(Some((idx + 1, why)));
        }
        dir = Some(next);
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layout(names: &[&str]) -> Layout {
        let mut layout = Layout::default();
        for name in names {
            layout.add(OsStr::new(name));
        }
        layout
    }

    #[test]
    fn the_layouts_git_takes_for_a_repository_are_refused() {
        for names in [
            &["HEAD", "objects", "refs"][..],
            &["HEAD", "commondir"],
            &["HEAD", "gitdir"],
            &["objects", "refs"],
            &["head", "Objects", "REFS."],
            &["ＨＥＡＤ", "ｃｏｍｍｏｎｄｉｒ"],
        ] {
            assert!(layout(names).refusal().is_some(), "{names:?}");
        }
        for names in [
            &["HEAD", "refs"][..],
            &["HEAD", "objects"],
            &["HEAD", "config"],
            &["commondir", "objects"],
            &["HEAD.bak", "objects.txt", "refs"],
        ] {
            assert!(layout(names).refusal().is_none(), "{names:?}");
        }
    }
}
