//! Tree diffs: which files were added, removed or changed between two
//! directories, names only, with a glob filter and caps.

use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use cap_fs_ext::{DirExt, FollowSymlinks, OpenOptionsFollowExt};
use cap_std::fs::{Dir, OpenOptions};

use super::error::Error;
use super::glob::Glob;
use super::unified::MAX_OUTPUT;
use crate::tools::Workspace;

/// Directories never walked.
const SKIPPED: [&str; 3] = [".git", "node_modules", "vendor"];
/// The most entries an answer lists.
const MAX_ENTRIES: usize = 2_000;
/// The most files walked in one tree.
const MAX_WALK: usize = 100_000;

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
    fn word(self) -> &'static str {
        match self {
            Change::Added => "added",
            Change::Removed => "removed",
            Change::Changed => "changed",
        }
    }
}

/// The differences between two trees.
///
/// Its `Display` is the answer a model reads: one line per path, capped at
/// 2,000 entries and 30,000 bytes, then a summary.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirDiff {
    names: [String; 2],
    entries: Vec<(String, Change)>,
    n_identical: usize,
    walk_capped: bool,
    glob: Option<String>,
}

impl DirDiff {
    /// Every differing path (relative, `/`-separated), sorted.
    pub fn entries(&self) -> &[(String, Change)] {
        &self.entries
    }

    /// How many files are the same in both trees.
    pub fn n_identical(&self) -> usize {
        self.n_identical
    }
}

impl fmt::Display for DirDiff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let skipped = ".git, node_modules and vendor skipped";
        let filter = self
            .glob
            .as_ref()
            .map(|g| format!(", names matching `{g}`"))
            .unwrap_or_default();
        if self.entries.is_empty() {
            return writeln!(
                f,
                "`{}` and `{}` hold the same files ({} compared{filter}; {skipped})",
                self.names[0], self.names[1], self.n_identical
            );
        }
        let mut n_bytes = 0;
        let mut n_shown = 0;
        for (path, change) in &self.entries {
            let line = format!("{:<8} {}\n", change.word(), crate::tools::shown_name(path));
            if n_shown == MAX_ENTRIES || n_bytes + line.len() > MAX_OUTPUT - 600 {
                break;
            }
            n_bytes += line.len();
            n_shown += 1;
            f.write_str(&line)?;
        }
        let count = |c| self.entries.iter().filter(|(_, e)| *e == c).count();
        writeln!(
            f,
            "{} differ ({} added, {} removed, {} changed), {} identical{filter}; {skipped}",
            self.entries.len(),
            count(Change::Added),
            count(Change::Removed),
            count(Change::Changed),
            self.n_identical
        )?;
        if n_shown < self.entries.len() {
            writeln!(
                f,
                "note: {} more not listed; narrow it with `glob` (e.g. \"src/**/*.rs\") or diff \
                 a subdirectory",
                self.entries.len() - n_shown
            )?;
        }
        if self.walk_capped {
            writeln!(
                f,
                "note: a tree has more than {MAX_WALK} files; only the first {MAX_WALK} were \
                 compared: diff a subdirectory"
            )?;
        }
        Ok(())
    }
}

/// What a path is in a tree.
#[derive(Debug)]
enum Node {
    /// A regular file and its size.
    File(u64),
    /// A symbolic link and its target (never followed).
    Link(PathBuf),
    /// A FIFO, a socket or a device: never opened (a FIFO would block the
    /// walk forever, `/dev/zero` would be read forever), compared by kind.
    Special(&'static str),
}

/// Compare two directory trees inside the workspace, optionally only the
/// paths that match `glob` (`*.go`, `src/**/*.rs`, `*.{yaml,yml}`).
///
/// ```
/// use argmend::tools::{Workspace, diff::{Change, diff_dirs}};
///
/// let dir = std::env::temp_dir().join(format!("argmend-doc-dirs-{}", std::process::id()));
/// for side in ["old", "new"] {
///     std::fs::create_dir_all(dir.join(side)).unwrap();
///     std::fs::write(dir.join(side).join("same.txt"), "x").unwrap();
/// }
/// std::fs::write(dir.join("new/extra.rs"), "fn main() {}").unwrap();
/// let workspace = Workspace::new(&dir).unwrap();
/// let diff = diff_dirs(&workspace, "old", "new", None).unwrap();
/// assert_eq!(diff.entries(), &[("extra.rs".to_owned(), Change::Added)]);
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn diff_dirs(
    workspace: &Workspace,
    a: impl AsRef<Path>,
    b: impl AsRef<Path>,
    glob: Option<&str>,
) -> Result<DirDiff, Error> {
    let (a, b) = (a.as_ref(), b.as_ref());
    let matcher = glob.map(Glob::new).transpose()?;
    let mut walk_capped = false;
    let mut trees = Vec::new();
    let mut handles = Vec::new();
    for side in [a, b] {
        let located = workspace.locate_for_read(side)?;
        let name = side.display().to_string();
        let tree = located
            .open_dir()
            .map_err(|error| Error::io("walk", name.clone(), error))?;
        let mut nodes = BTreeMap::new();
        walk(&tree, matcher.as_ref(), &mut nodes, &mut walk_capped).map_err(|error| {
            if crate::tools::deadline::expired() {
                Error::timed_out("walking the trees")
            } else {
                Error::io("walk", name, error)
            }
        })?;
        trees.push(nodes);
        handles.push(tree);
    }
    let new = trees.pop().unwrap_or_default();
    let old = trees.pop().unwrap_or_default();
    let mut entries = Vec::new();
    let mut n_identical = 0;
    let mut ticker = crate::tools::deadline::Ticker::<6>::new();
    for (path, node) in &old {
        if ticker.tick() {
            return Err(Error::timed_out("comparing the trees"));
        }
        match new.get(path) {
            None => entries.push((path.clone(), Change::Removed)),
            Some(other) => {
                let same = same([&handles[0], &handles[1]], path, node, other)
                    .map_err(|error| Error::io("read", path.clone(), error))?;
                if same {
                    n_identical += 1;
                } else {
                    entries.push((path.clone(), Change::Changed));
                }
            }
        }
    }
    for path in new.keys() {
        if !old.contains_key(path) {
            entries.push((path.clone(), Change::Added));
        }
    }
    entries.sort();
    Ok(DirDiff {
        names: [a.display().to_string(), b.display().to_string()],
        entries,
        n_identical,
        walk_capped,
        glob: glob.map(str::to_owned),
    })
}

/// Collect the files and links under `tree` (not following links), keyed
/// by their `/`-separated path relative to it. A loop over a stack of open
/// directories, not recursion: a deep tree cannot overflow the stack.
fn walk(
    tree: &Dir,
    glob: Option<&Glob>,
    nodes: &mut BTreeMap<String, Node>,
    capped: &mut bool,
) -> io::Result<()> {
    let mut stack = vec![(tree.try_clone()?, String::new(), sorted(tree)?.into_iter())];
    let mut ticker = crate::tools::deadline::Ticker::<8>::new();
    while let Some((dir, prefix, entries)) = stack.last_mut() {
        if ticker.tick() {
            return Err(io::Error::new(io::ErrorKind::TimedOut, "out of time"));
        }
        let Some((name, kind)) = entries.next() else {
            stack.pop();
            continue;
        };
        let rel = if prefix.is_empty() {
            name.clone()
        } else {
            format!("{prefix}/{name}")
        };
        if kind.is_dir() {
            if !SKIPPED.contains(&name.as_str()) {
                let sub = dir.open_dir_nofollow(&name)?;
                let entries = sorted(&sub)?.into_iter();
                stack.push((sub, rel, entries));
            }
            continue;
        }
        if glob.is_some_and(|g| !g.matches(&rel)) {
            continue;
        }
        if nodes.len() >= MAX_WALK {
            *capped = true;
            return Ok(());
        }
        let node = if kind.is_symlink() {
            Node::Link(dir.read_link_contents(&name)?)
        } else if kind.is_file() {
            Node::File(dir.symlink_metadata(&name)?.len())
        } else {
            Node::Special(special(&kind))
        };
        nodes.insert(rel, node);
    }
    Ok(())
}

/// The entries of `dir` (names as text) with their types, sorted by name.
fn sorted(dir: &Dir) -> io::Result<Vec<(String, cap_std::fs::FileType)>> {
    let mut entries = Vec::new();
    for entry in dir.entries()? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        entries.push((name, entry.file_type()?));
    }
    entries.sort_by(|x, y| x.0.cmp(&y.0));
    Ok(entries)
}

/// What a special file is, in a word.
fn special(kind: &cap_std::fs::FileType) -> &'static str {
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
/// trees' handles.
fn same(trees: [&Dir; 2], rel: &str, a: &Node, b: &Node) -> io::Result<bool> {
    match (a, b) {
        (Node::Link(x), Node::Link(y)) => Ok(x == y),
        (Node::Special(x), Node::Special(y)) => Ok(x == y),
        (Node::File(x_len), Node::File(y_len)) => {
            if x_len != y_len {
                return Ok(false);
            }
            let (mut x, mut y) = (open_regular(trees[0], rel)?, open_regular(trees[1], rel)?);
            let (mut x_buf, mut y_buf) = (vec![0; 64 * 1024], vec![0; 64 * 1024]);
            loop {
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
        _ => Ok(false),
    }
}

/// A file the walk saw as regular, opened beneath its tree without
/// following its last name, and refused if it is not regular now.
fn open_regular(tree: &Dir, rel: &str) -> io::Result<std::fs::File> {
    let mut options = OpenOptions::new();
    options.read(true).follow(FollowSymlinks::No);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK);
    }
    let file = tree.open_with(rel, &options)?.into_std();
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
