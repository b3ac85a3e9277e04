//! The walk behind `diff dirs`: both trees at once, one directory at a
//! time, each file compared while its directory's handles are open.
//!
//! Why both at once: a file is then opened by its one name beneath a
//! handle on its directory, never by a path from the tree's top (which
//! failed past PATH_MAX), and only the paths that differ are kept, not a
//! map of both trees.
//!
//! Why so few handles: a walk that kept one open directory per level
//! failed with "Too many open files" 1,000 levels down at `ulimit -n 1024`,
//! and made concurrent walks in the same process fail too. Here a directory
//! keeps its handles only while it has subdirectories left to enter, and at
//! most [`MAX_HELD`] directories below the top keep them at all: when more
//! would, the shallowest lets go, and is reopened later (name by name, no
//! link followed) from the nearest directory above it that kept its own. So
//! a walk holds at most `2 × (MAX_HELD + 1)` directory handles and 4 more
//! for a moment (two listings, or two files being compared), whatever the
//! depth.
//!
//! Names stay bytes (`OsString`): two names that are not UTF-8 are two
//! entries, shown apart ([`shown_bytes`](crate::tools::shown_bytes)).

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::io::{self, Read};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, FileType, OpenOptions};

use super::error::Error;
use super::glob::Glob;
use crate::tools::deadline::Ticker;
use crate::tools::{Layout, is_protected_name};

/// How a path differs between the two trees.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Change {
    /// Only in the new tree.
    Added,
    /// Only in the old tree.
    Removed,
    /// In both, with different content (or a file in one and a link in the other).
    Changed,
}

impl Change {
    pub(super) fn word(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// Directories below the top that may keep their handles at once.
const MAX_HELD: usize = 16;
/// Directories never entered besides version-control metadata (any
/// spelling a file system folds) and repositories.
const SKIPPED: [&str; 2] = ["node_modules", "vendor"];
/// The most files walked in one tree.
pub(super) const MAX_WALK: usize = 100_000;

/// What the walk found.
pub(super) struct Found {
    /// Every path that differs (`/`-separated bytes), unsorted.
    pub(super) entries: Vec<(Vec<u8>, Change)>,
    pub(super) n_identical: usize,
    /// Whether a tree had more than [`MAX_WALK`] files.
    pub(super) capped: bool,
}

/// A directory of the walk: present on one side or both.
struct Frame {
    /// Its handles (`None` where it is absent, or let go: see `present`).
    dirs: [Option<Dir>; 2],
    present: [bool; 2],
    /// Its name in its parent (empty at the top).
    name: OsString,
    /// The length of its path in [`Walk::path`].
    path_len: usize,
    /// Subdirectories still to enter, the next last.
    subdirs: Vec<(OsString, [bool; 2])>,
}

impl Frame {
    fn holds(&self) -> bool {
        (0..2).all(|side| !self.present[side] || self.dirs[side].is_some())
    }
}

/// What an entry is on one side.
#[derive(Debug, PartialEq)]
enum Node {
    /// A regular file and its size.
    File(u64),
    /// A symbolic link and its target (never followed).
    Link(std::path::PathBuf),
    /// A FIFO, a socket or a device: never opened (a FIFO would block the
    /// walk forever, `/dev/zero` would be read forever), compared by kind.
    Special(&'static str),
}

struct Walk<'a> {
    glob: Option<&'a Glob>,
    frames: Vec<Frame>,
    /// The frames below the top that hold handles.
    held: BTreeSet<usize>,
    /// The path of the directory last entered, `/`-separated bytes; each
    /// frame's own path is its first `path_len` bytes.
    path: Vec<u8>,
    found: Found,
    n_files: [usize; 2],
    ticker: Ticker<6>,
}

/// Compare the trees under `tops` (old, new), keeping the files that match
/// `glob`.
pub(super) fn compare(tops: [Dir; 2], glob: Option<&Glob>) -> Result<Found, Error> {
    let [a, b] = tops;
    let mut walk = Walk {
        glob,
        frames: Vec::new(),
        held: BTreeSet::new(),
        path: Vec::new(),
        found: Found {
            entries: Vec::new(),
            n_identical: 0,
            capped: false,
        },
        n_files: [0, 0],
        ticker: Ticker::new(),
    };
    let mut top = Frame {
        dirs: [Some(a), Some(b)],
        present: [true, true],
        name: OsString::new(),
        path_len: 0,
        subdirs: Vec::new(),
    };
    walk.list(&mut top)?;
    walk.frames.push(top);
    walk.run()?;
    Ok(walk.found)
}

impl Walk<'_> {
    fn run(&mut self) -> Result<(), Error> {
        while let Some(idx) = self.frames.len().checked_sub(1) {
            if self.found.capped {
                return Ok(());
            }
            if self.ticker.tick() {
                return Err(Error::timed_out("walking the trees"));
            }
            let Some((name, present)) = self.frames[idx].subdirs.pop() else {
                self.frames.pop();
                self.held.remove(&idx);
                continue;
            };
            if !self.frames[idx].holds() {
                self.reopen(idx)?;
            }
            let parent = &mut self.frames[idx];
            let mut dirs = [None, None];
            for side in 0..2 {
                if let (true, Some(dir)) = (present[side], &parent.dirs[side]) {
                    let sub = dir
                        .open_dir_nofollow(&name)
                        .map_err(|error| walk_error(&self.path[..parent.path_len], &name, error))?;
                    dirs[side] = Some(sub);
                }
            }
            if parent.subdirs.is_empty() && idx > 0 {
                parent.dirs = [None, None];
                self.held.remove(&idx);
            }
            self.path.truncate(parent.path_len);
            if !self.path.is_empty() {
                self.path.push(b'/');
            }
            self.path.extend_from_slice(name.as_encoded_bytes());
            let mut frame = Frame {
                dirs,
                present,
                name,
                path_len: self.path.len(),
                subdirs: Vec::new(),
            };
            self.list(&mut frame)?;
            if frame.subdirs.is_empty() {
                frame.dirs = [None, None];
            } else {
                self.held.insert(self.frames.len());
            }
            self.frames.push(frame);
            self.bound();
        }
        Ok(())
    }

    /// Let the shallowest directories go until at most [`MAX_HELD`] hold.
    fn bound(&mut self) {
        while self.held.len() > MAX_HELD {
            if let Some(idx) = self.held.pop_first() {
                self.frames[idx].dirs = [None, None];
            }
        }
    }

    /// Open the frame `idx` again from the nearest frame above it that
    /// holds its handles, name by name, without following a link.
    fn reopen(&mut self, idx: usize) -> Result<(), Error> {
        let mut from = idx - 1;
        while from > 0 && !self.frames[from].holds() {
            from -= 1;
        }
        for at in from + 1..=idx {
            let (above, below) = self.frames.split_at_mut(at);
            let (parent, frame) = (&above[at - 1], &mut below[0]);
            for side in 0..2 {
                if let (true, Some(dir)) = (frame.present[side], &parent.dirs[side]) {
                    let sub = dir.open_dir_nofollow(&frame.name).map_err(|error| {
                        walk_error(&self.path[..parent.path_len], &frame.name, error)
                    })?;
                    frame.dirs[side] = Some(sub);
                }
            }
            // The directories on the way let go again, unless they have
            // subdirectories left (then they are the next to need it).
            let parent_idx = at - 1;
            if parent_idx > 0 && self.frames[parent_idx].subdirs.is_empty() {
                self.frames[parent_idx].dirs = [None, None];
                self.held.remove(&parent_idx);
            } else if parent_idx > 0 {
                self.held.insert(parent_idx);
                // Within the bound at every step, not only at the end: the
                // way back may be thousands of directories long.
                self.bound();
            }
        }
        // `idx` is the deepest frame, so `bound` (the shallowest first)
        // keeps it.
        self.held.insert(idx);
        self.bound();
        Ok(())
    }

    /// Read the directory `frame` on each side, compare the files in it,
    /// and note its subdirectories.
    fn list(&mut self, frame: &mut Frame) -> Result<(), Error> {
        let mut sides: [Vec<(OsString, FileType)>; 2] = [Vec::new(), Vec::new()];
        for (entries, dir) in sides.iter_mut().zip(&frame.dirs) {
            if let Some(dir) = dir {
                *entries = sorted(dir).map_err(|e| walk_error(&self.path, OsStr::new(""), e))?;
            }
        }
        // A directory laid out as a repository on either side is skipped
        // on both, as `.git` is: its files are a repository's metadata.
        if frame.path_len > 0 && sides.iter().any(|entries| is_repository(entries)) {
            return Ok(());
        }
        let [a, b] = sides;
        let (mut a, mut b) = (a.into_iter().peekable(), b.into_iter().peekable());
        loop {
            if self.ticker.tick() {
                return Err(Error::timed_out("walking the trees"));
            }
            // The two sorted listings merged: a name on one side or both.
            let take_a = match (a.peek(), b.peek()) {
                (None, None) => break,
                (Some((x, _)), Some((y, _))) => x <= y,
                (Some(_), None) => true,
                (None, Some(_)) => false,
            };
            let (name, kinds) = if take_a {
                let Some((name, kind_a)) = a.next() else {
                    break;
                };
                let kind_b = b.next_if(|(y, _)| *y == name).map(|(_, kind)| kind);
                (name, [Some(kind_a), kind_b])
            } else {
                let Some((name, kind_b)) = b.next() else {
                    break;
                };
                (name, [None, Some(kind_b)])
            };
            self.entry(frame, name, kinds)?;
            if self.found.capped {
                return Ok(());
            }
        }
        // Entered in name order: the next is popped from the end.
        frame.subdirs.reverse();
        Ok(())
    }

    /// One name of the directory `frame`, as each side has it.
    fn entry(
        &mut self,
        frame: &mut Frame,
        name: OsString,
        kinds: [Option<FileType>; 2],
    ) -> Result<(), Error> {
        let text = name.to_string_lossy();
        if is_protected_name(&text) {
            return Ok(());
        }
        let skipped_dir = SKIPPED.contains(&text.as_ref());
        let mut subdir = [false, false];
        let mut nodes: [Option<Node>; 2] = [None, None];
        let mut rel = self.path.clone();
        if !rel.is_empty() {
            rel.push(b'/');
        }
        rel.extend_from_slice(name.as_encoded_bytes());
        let matches = self
            .glob
            .is_none_or(|glob| glob.matches(&String::from_utf8_lossy(&rel)));
        for side in 0..2 {
            let (Some(kind), Some(dir)) = (&kinds[side], &frame.dirs[side]) else {
                continue;
            };
            if kind.is_dir() {
                subdir[side] = !skipped_dir;
                continue;
            }
            if !matches {
                continue;
            }
            if self.n_files[side] == MAX_WALK {
                self.found.capped = true;
                return Ok(());
            }
            self.n_files[side] += 1;
            let node = node(dir, &name, kind).map_err(|e| walk_error(&self.path, &name, e))?;
            nodes[side] = Some(node);
        }
        if subdir != [false, false] {
            frame.subdirs.push((name.clone(), subdir));
        }
        let change = match nodes {
            [None, None] => return Ok(()),
            [Some(_), None] => Change::Removed,
            [None, Some(_)] => Change::Added,
            [Some(x), Some(y)] => {
                let dirs = [frame.dirs[0].as_ref(), frame.dirs[1].as_ref()];
                let [Some(dir_a), Some(dir_b)] = dirs else {
                    return Ok(());
                };
                let same = same([dir_a, dir_b], &name, &x, &y).map_err(|e| read_error(&rel, e))?;
                if same {
                    self.found.n_identical += 1;
                    return Ok(());
                }
                Change::Changed
            }
        };
        self.found.entries.push((rel, change));
        Ok(())
    }
}

/// Whether a directory's entries make it a repository (or a repository's
/// common directory), as the write guard reads a layout.
fn is_repository(entries: &[(OsString, FileType)]) -> bool {
    let mut layout = Layout::default();
    for (name, _) in entries {
        layout.add(name);
    }
    layout.refusal().is_some()
}

/// The error for a walk that failed at `name` in the directory `path`;
/// past the deadline, the time-out (a listing cut short by it).
fn walk_error(path: &[u8], name: &OsStr, error: io::Error) -> Error {
    if error.kind() == io::ErrorKind::TimedOut {
        return Error::timed_out("comparing the trees");
    }
    let mut rel = path.to_vec();
    if !rel.is_empty() && !name.is_empty() {
        rel.push(b'/');
    }
    rel.extend_from_slice(name.as_encoded_bytes());
    let shown = if rel.is_empty() {
        ".".to_owned()
    } else {
        crate::tools::shown_bytes(&rel).into_owned()
    };
    Error::io("walk", shown, error)
}

fn read_error(rel: &[u8], error: io::Error) -> Error {
    if error.kind() == io::ErrorKind::TimedOut {
        return Error::timed_out("comparing the trees");
    }
    Error::io("read", crate::tools::shown_bytes(rel).into_owned(), error)
}

/// The entries of `dir` with their types, sorted by name (as bytes).
fn sorted(dir: &Dir) -> io::Result<Vec<(OsString, FileType)>> {
    let mut entries = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        entries.push((entry.file_name(), entry.file_type()?));
    }
    entries.sort_by(|x, y| x.0.cmp(&y.0));
    Ok(entries)
}

/// What the entry `name` of `dir`, of type `kind`, is.
fn node(dir: &Dir, name: &OsStr, kind: &FileType) -> io::Result<Node> {
    Ok(if kind.is_symlink() {
        Node::Link(dir.read_link_contents(name)?)
    } else if kind.is_file() {
        Node::File(dir.symlink_metadata(name)?.len())
    } else {
        Node::Special(special(kind))
    })
}

/// What a special file is, in a word.
fn special(kind: &FileType) -> &'static str {
    #[cfg(unix)]
    {
        use cap_std::fs::FileTypeExt;
        if kind.is_fifo() {
            return "fifo";
        }
        if kind.is_socket() {
            return "socket";
        }
        if kind.is_block_device() || kind.is_char_device() {
            return "device";
        }
    }
    let _ = kind;
    "special"
}

/// Whether two nodes hold the same: links by target, special files by
/// kind, files by size, then by content, read in blocks through the two
/// directories' handles, the deadline checked at every block (two 1 TB
/// sparse files of zeros are read at memory speed, for minutes).
fn same(dirs: [&Dir; 2], name: &OsStr, a: &Node, b: &Node) -> io::Result<bool> {
    match (a, b) {
        (Node::File(x_len), Node::File(y_len)) => {
            if x_len != y_len {
                return Ok(false);
            }
            let (mut x, mut y) = (open_regular(dirs[0], name)?, open_regular(dirs[1], name)?);
            let (mut x_buf, mut y_buf) = (vec![0; 64 * 1024], vec![0; 64 * 1024]);
            // A clock read per 128 KiB read costs nothing next to the reads.
            let mut ticker = Ticker::<0>::new();
            loop {
                if ticker.tick() {
                    return Err(io::Error::new(io::ErrorKind::TimedOut, "out of time"));
                }
                let n = read_full(&mut x, &mut x_buf)?;
                let m = read_full(&mut y, &mut y_buf)?;
                if n != m || x_buf[..n] != y_buf[..m] {
                    return Ok(false);
                }
                if n == 0 {
                    return Ok(true);
                }
            }
        }
        (x, y) => Ok(x == y),
    }
}

/// A file the walk saw as regular, opened beneath its directory without
/// following its name, and refused if it is not regular now.
fn open_regular(dir: &Dir, name: &OsStr) -> io::Result<std::fs::File> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = dir.open_with(name, &options)?.into_std();
    if !file.metadata()?.is_file() {
        return Err(crate::tools::not_a_file());
    }
    Ok(file)
}

/// Read until `buf` is full or the file ends.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> io::Result<usize> {
    let mut n = 0;
    while n < buf.len() {
        match file.read(&mut buf[n..]) {
            Ok(0) => break,
            Ok(k) => n += k,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => {}
            Err(error) => return Err(error),
        }
    }
    Ok(n)
}
