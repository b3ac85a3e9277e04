//! The tree, its model, and the model's walk for
//! [`check_workspace_paths`](super::check_workspace_paths).
//!
//! The input, read a byte at a time (0 once it runs out):
//!
//! - byte 0, flags: the deep chain, read from the next two bytes
//!   (`4 + b % 20` levels, names `16 + b % 240` bytes long) when bits 0-1
//!   are `01`;
//! - `b % 24` operations: the kind (`% 8`: a directory (0, 1), a file (2),
//!   a link (3-5), two links to each other (6), a socket (7)), the parent
//!   (one of the directories below the root), the name, then for a link 3
//!   bytes of target (its kind `% 12`, two arguments), for two links the
//!   second name;
//! - `b % 24` paths: flags (`% 8` the start: relative (0-3), the root,
//!   `outside`, the outer directory, `/`; bit 3 a node's path next; bit 4 a
//!   trailing slash), then `b % 6` names;
//! - `b % 6` files of a patch (issue 43): a directory below the root, a
//!   name for a directory to create on the way (`% 12`: none below 6, else
//!   `HEAD`, `objects`, `refs`, `commondir`, `gitdir`, `config`), the file's
//!   name (the same list, `% 6`, or `x.txt`) and its content (`% 8`: a valid
//!   `HEAD`, an object id, a `commondir` naming a directory of the tree,
//!   relative or absolute, a `gitdir:` line, a config with a pager, `x`).
//!
//! The names include a repository's (`HEAD`, `objects`, `refs`,
//! `commondir`, `gitdir`), so links named `objects` or `refs` and files
//! named `commondir` occur, and lookalikes of `.git` and `.svn` (`.gıt`,
//! `.ſvn`, `．git`). A file the tree holds has content by its name (a valid
//! `HEAD`; a `commondir` holding `../c`), and `outside/wt` is a worktree's
//! administrative directory whose `commondir` is the root's `c`.
//!
//! Every run also tries, for each node below the root, its path, a new file
//! beneath it and its absolute path (only the path in the deep chain), and a
//! fixed list of paths in and out; `resolve_for_read` refuses, besides what
//! `resolve` refuses, version-control metadata and the paths through a
//! directory laid out as a repository. Then the patch is applied for real;
//! if argmend accepts it, a model of git's `is_git_directory` (setup.c: a
//! valid `HEAD`, `objects` and `refs` that `access(X_OK)` accepts in the
//! common directory `commondir` names) run on every directory of the outer
//! directory finds no repository it did not find before.

mod git;

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use argmend::tools::{PROTECTED_DIRS, Workspace, WorkspaceError, WorkspaceErrorKind as K};

/// The outer temp dir, the workspace root inside it, and its sibling.
const OUTER: usize = 0;
const ROOT: usize = 1;
const OUTSIDE: usize = 2;
/// Links a walk follows before it is refused: the kernel's `ELOOP`
/// bound, argmend's, and glibc `realpath`'s.
const MAX_LINKS: usize = 40;
/// A path this long is reached through a shorter route (a link) to
/// create what is beneath it, and is not checked on the disk with std.
const SHORT: usize = 2500;
/// A `realpath` whose working path grows past this may fail (PATH_MAX is
/// 4,096 bytes): both answers are allowed then.
const NEAR_PATH_MAX: usize = 3500;
/// Nodes whose paths every run tries.
const AUTO_NODES: usize = 40;
/// Names [`name_of`] knows before the generic `n<i>`.
const NAMES: usize = 20;

/// The names the tree and the paths are made of: version-control
/// metadata as file systems that fold case or ignore characters read it,
/// near misses, a 255-byte name and a 300-byte one (too long to exist).
fn name_of(i: usize) -> String {
    let name = match i {
        0 => "a",
        1 => "b",
        2 => "c",
        3 => "d",
        4 => "x.txt",
        5 => ".git",
        6 => ".GIT",
        7 => ".g\u{200c}it",
        8 => ".git.",
        9 => "GIT~1",
        10 => ".hg",
        11 => ".svn",
        12 => ".jj",
        13 => ".github",
        14 => "config",
        15 => "...",
        16 => "new",
        17 => "a b",
        18 => return "l".repeat(255),
        19 => return "m".repeat(300),
        20 => "HEAD",
        21 => "objects",
        22 => "refs",
        23 => "commondir",
        24 => "gitdir",
        25 => ".g\u{131}t",
        26 => ".\u{17f}vn",
        27 => "\u{ff0e}git",
        _ => return format!("n{i}"),
    };
    name.to_owned()
}

/// The input, a byte at a time; 0 once it is used up.
struct Bytes<'a> {
    data: &'a [u8],
    at: usize,
}

impl Bytes<'_> {
    fn next(&mut self) -> u8 {
        let byte = self.data.get(self.at).copied().unwrap_or(0);
        self.at = self.at.saturating_add(1);
        byte
    }

    fn pick(&mut self, n: usize) -> usize {
        usize::from(self.next()) % n.max(1)
    }
}

enum Kind {
    Dir(BTreeMap<String, usize>),
    File,
    Link(PathBuf),
    /// A socket: neither a file nor a directory, like a FIFO.
    Special,
}

struct Node {
    name: String,
    parent: usize,
    kind: Kind,
    /// For a directory: a path short enough to create things beneath it
    /// (through a link when the real path is long).
    fs: Option<PathBuf>,
    /// The length of the real absolute path.
    abs_len: usize,
    /// Below the root (or the root itself).
    in_root: bool,
    /// A level of the deep chain (its paths are not tried one by one).
    level: bool,
}

enum Make {
    Dir,
    /// A file holding [`content_of`] its name.
    File,
    /// A file holding this.
    Text(String),
    Link(PathBuf),
    Socket,
}

/// One answer argmend may give.
#[derive(Debug, Clone, PartialEq)]
enum Outcome {
    /// The place (names below the root) and the link the path's own last
    /// name is, if it is one.
    Ok {
        rel: Vec<String>,
        leaf_link: Option<Vec<String>>,
    },
    Err(K),
}

/// What `realpath` makes of an absolute path, on the model.
enum Canon {
    /// A place in the root (these names below it).
    Inside(Vec<String>),
    /// Missing, or not in the root.
    NotInside,
    /// In the root if `realpath` copes with its length, else a failure.
    Maybe(Vec<String>),
    /// Beyond what the model knows.
    Unknown,
}

struct Tree {
    outer: PathBuf,
    root: PathBuf,
    outer_names: Vec<String>,
    root_names: Vec<String>,
    nodes: Vec<Node>,
    deep: bool,
    /// The files of the patch applied after the paths are checked.
    patch: Vec<PatchFile>,
}

static COUNTER: AtomicUsize = AtomicUsize::new(0);

pub(super) fn check(data: &[u8]) -> Result<(), String> {
    let base = std::env::temp_dir()
        .canonicalize()
        .map_err(|e| format!("the temp dir: {e}"))?;
    let n = COUNTER.fetch_add(1, Ordering::Relaxed);
    let outer = base.join(format!("argmend-wsfuzz-{}-{n}", std::process::id()));
    let _ = std::fs::remove_dir_all(&outer);
    let result = Tree::build(outer.clone(), data).and_then(|(tree, paths)| {
        let result = tree.check_all(&paths);
        result.map_err(|failure| tree.failure(&failure))
    });
    let cleaned = std::fs::remove_dir_all(&outer);
    result?;
    cleaned.map_err(|e| format!("removing {}: {e}", outer.display()))
}

fn normal_names(path: &Path) -> Vec<String> {
    path.components()
        .filter_map(|part| match part {
            Component::Normal(name) => Some(name.to_string_lossy().into_owned()),
            _ => None,
        })
        .collect()
}

/// `base` and then `part`, with one slash between.
fn push_part(s: &mut String, part: &str) {
    if !s.is_empty() && !s.ends_with('/') && !part.is_empty() {
        s.push('/');
    }
    s.push_str(part);
}

/// `anchor/names…`: a route to a deep directory through a link.
fn route(anchor: &str, since: &[String]) -> PathBuf {
    let mut s = anchor.to_owned();
    for name in since {
        push_part(&mut s, name);
    }
    PathBuf::from(s)
}

/// `name` as a case-insensitive file system may see it: without the
/// characters HFS+ ignores, the Turkish `ı` as `i` (NTFS upcases it to
/// `I`), cut at an NTFS stream's `:`, without trailing dots and spaces.
/// Case itself is left to [`same_name`].
fn trimmed(name: &str) -> String {
    let mut out: String = name
        .chars()
        .filter(|c| {
            !matches!(c,
                '\u{200B}'..='\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{206A}'..='\u{206F}'
                | '\u{FEFF}'
                | '\u{00AD}')
        })
        .map(|c| if c == '\u{131}' { 'i' } else { c })
        .collect();
    if let Some(colon) = out.find(':') {
        out.truncate(colon);
    }
    out.trim_end_matches(['.', ' ']).to_owned()
}

/// Whether `name` is `known` to a file system that folds names:
/// Unicode's compatibility caseless match (`ſ` is `s`, `．` is `.`).
fn same_name(name: &str, known: &str) -> bool {
    caseless::compatibility_caseless_match_str(&trimmed(name), known)
}

/// Whether names below the root pass through version-control metadata,
/// as argmend reads them (folded: [`same_name`]).
fn protected(names: &[String]) -> bool {
    names.iter().any(|name| {
        // An ASCII character outside these names stays in the folded
        // name: the deep chain's long names are ruled out at once.
        if name
            .bytes()
            .any(|b| b.is_ascii() && !b".gitGIThHsSvVnNjJ~1 :$".contains(&b))
        {
            return false;
        }
        PROTECTED_DIRS
            .iter()
            .chain(&["git~1"])
            .any(|known| same_name(name, known))
    })
}

/// Whether a directory with entries named `names` (on a file system
/// that compares names exactly, as the fuzzer's temp dir does) is laid
/// out as a repository for argmend: `HEAD` beside `commondir` or
/// `gitdir`, or `objects` beside `refs` (a common directory), of any
/// kind.
fn repository_layout<'a>(names: impl Iterator<Item = &'a String>) -> bool {
    let mut has = [false; 5];
    for name in names {
        for (idx, known) in GIT_NAMES[..5].iter().enumerate() {
            has[idx] |= name == known;
        }
    }
    let [head, objects, refs, commondir, gitdir] = has;
    (head && (commondir || gitdir)) || (objects && refs)
}

/// The names of a repository's entries, and `config`.
const GIT_NAMES: [&str; 6] = ["HEAD", "objects", "refs", "commondir", "gitdir", "config"];

/// A valid `HEAD`, and a config that runs a command.
const HEAD: &str = "ref: refs/heads/main\n";
const PAGER: &str = "[core]\n\tpager = touch pwned\n";

/// What a file the tree makes holds, by its name.
fn content_of(name: &str) -> String {
    match name {
        "HEAD" => HEAD.to_owned(),
        "commondir" => "../c\n".to_owned(),
        "gitdir" => "../c/.git\n".to_owned(),
        _ => "x\n".to_owned(),
    }
}

/// A file of the patch: its path below the root, what it holds now
/// (`None`: the patch creates it) and what it will hold.
struct PatchFile {
    path: String,
    old: Option<String>,
    new: String,
}

/// The patch's text.
fn patch_text(files: &[PatchFile]) -> String {
    let mut patch = String::new();
    for file in files {
        let new: Vec<&str> = file.new.lines().collect();
        match &file.old {
            None => {
                let _ = write!(
                    patch,
                    "--- /dev/null\n+++ b/{}\n@@ -0,0 +1,{} @@\n",
                    file.path,
                    new.len()
                );
            }
            Some(old) => {
                let old: Vec<&str> = old.lines().collect();
                let _ = write!(
                    patch,
                    "--- a/{0}\n+++ b/{0}\n@@ -1,{1} +1,{2} @@\n",
                    file.path,
                    old.len(),
                    new.len()
                );
                for line in old {
                    let _ = writeln!(patch, "-{line}");
                }
            }
        }
        for line in new {
            let _ = writeln!(patch, "+{line}");
        }
    }
    patch
}

/// Runs of 8 or more of one character (the deep chain's long names) as
/// `x{n}`, so a failure stays readable.
fn abbreviate(text: &str) -> String {
    let mut out = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let mut n = 1;
        while chars.peek() == Some(&c) {
            chars.next();
            n += 1;
        }
        if n >= 8 {
            let _ = write!(out, "{c}{{{n}}}");
        } else {
            out.extend(std::iter::repeat_n(c, n));
        }
    }
    out
}

impl Tree {
    fn build(outer: PathBuf, data: &[u8]) -> Result<(Tree, Vec<PathBuf>), String> {
        std::fs::create_dir(&outer).map_err(|e| format!("{}: {e}", outer.display()))?;
        let root = outer.join("ws");
        let mut tree = Tree {
            outer_names: normal_names(&outer),
            root_names: normal_names(&root),
            root,
            nodes: vec![Node {
                name: String::new(),
                parent: OUTER,
                kind: Kind::Dir(BTreeMap::new()),
                fs: Some(outer.clone()),
                abs_len: outer.as_os_str().len(),
                in_root: false,
                level: false,
            }],
            outer,
            deep: false,
            patch: Vec::new(),
        };
        let root = tree.make(OUTER, "ws", Make::Dir);
        let outside = tree.make(OUTER, "outside", Make::Dir);
        if root != Some(ROOT) || outside != Some(OUTSIDE) {
            return Err("cannot create the root and its sibling".into());
        }
        tree.make(OUTSIDE, "secret", Make::File);
        tree.make(OUTSIDE, "sub", Make::Dir);
        tree.make(OUTSIDE, "back", Make::Link(tree.root.clone()));
        tree.make(OUTSIDE, "back2", Make::Link("../ws".into()));
        // A worktree's administrative directory outside, whose common
        // directory is the root's `c`: a patch that gives `c` objects
        // and refs makes it a repository.
        if let Some(wt) = tree.make(OUTSIDE, "wt", Make::Dir) {
            tree.make(wt, "HEAD", Make::File);
            let common = format!("{}/c\n", tree.root.display());
            tree.make(wt, "commondir", Make::Text(common));
        }

        let mut bytes = Bytes { data, at: 0 };
        let flags = bytes.next();
        if flags & 3 == 1 {
            let levels = 4 + bytes.pick(20);
            let len = 16 + bytes.pick(240);
            tree.deep_chain(levels, len);
        }
        for _ in 0..bytes.pick(24) {
            let kind = bytes.next() % 8;
            let dirs: Vec<usize> = (0..tree.nodes.len())
                .filter(|&i| tree.nodes[i].in_root && tree.nodes[i].fs.is_some())
                .collect();
            let parent = dirs[bytes.pick(dirs.len())];
            let name = name_of(bytes.pick(40));
            match kind {
                0 | 1 => {
                    tree.make(parent, &name, Make::Dir);
                }
                2 => {
                    tree.make(parent, &name, Make::File);
                }
                3..=5 => {
                    let target = tree.target(&mut bytes, parent, &name);
                    tree.make(parent, &name, Make::Link(target));
                }
                6 => {
                    let other = name_of(bytes.pick(40));
                    tree.make(parent, &name, Make::Link(other.clone().into()));
                    tree.make(parent, &other, Make::Link(name.into()));
                }
                _ => {
                    tree.make(parent, &name, Make::Socket);
                }
            }
        }
        let mut paths: Vec<PathBuf> = (0..bytes.pick(24)).map(|_| tree.path(&mut bytes)).collect();
        paths.extend(tree.auto_paths());
        for _ in 0..bytes.pick(6) {
            if let Some(file) = tree.patch_file(&mut bytes)
                && !tree.patch.iter().any(|other| other.path == file.path)
            {
                tree.patch.push(file);
            }
        }
        Ok((tree, paths))
    }

    /// A file of the patch (see the module's docs), or `None` when the
    /// tree has something other than a file at its path.
    fn patch_file(&self, bytes: &mut Bytes) -> Option<PatchFile> {
        let dirs: Vec<usize> = (0..self.nodes.len())
            .filter(|&i| {
                let node = &self.nodes[i];
                node.in_root && !node.level && matches!(node.kind, Kind::Dir(_))
            })
            .collect();
        let parent = dirs[bytes.pick(dirs.len())];
        let sub = usize::from(bytes.next() % 12);
        let name = usize::from(bytes.next() % 7);
        let content = bytes.next() % 8;
        let target = bytes.next();
        let mut names = self.rel(parent);
        if sub >= 6 {
            names.push(GIT_NAMES[sub - 6].to_owned());
        }
        let depth = names.len();
        names.push(GIT_NAMES.get(name).unwrap_or(&"x.txt").to_string());
        let node = self.rel_string(self.pick_node(target));
        let new = match content {
            0 => HEAD.to_owned(),
            1 => "0123456789abcdef0123456789abcdef01234567\n".to_owned(),
            2 => format!("{}{node}\n", "../".repeat(depth)),
            3 => format!("{}/{node}\n", self.root.display()),
            4 => "../c\n".to_owned(),
            5 => "gitdir: ../c\n".to_owned(),
            6 => PAGER.to_owned(),
            _ => "x\n".to_owned(),
        };
        // What the tree has there.
        let mut at = ROOT;
        let mut old = None;
        for (idx, name) in names.iter().enumerate() {
            match self
                .child(at, name)
                .map(|child| (child, &self.nodes[child].kind))
            {
                None => break,
                Some((child, Kind::Dir(_))) if idx + 1 < names.len() => at = child,
                Some((_, Kind::File)) if idx + 1 == names.len() => old = Some(content_of(name)),
                Some(_) => return None,
            }
        }
        Some(PatchFile {
            path: names.join("/"),
            old,
            new,
        })
    }

    /// `resolve`'s answer as `resolve_for_read` gives it: version-control
    /// metadata refused, and a place beneath a directory laid out as a
    /// repository.
    fn for_read(&self, outcome: &Outcome) -> Outcome {
        match outcome {
            Outcome::Ok { rel, .. } if protected(rel) || self.through_repository(rel) => {
                Outcome::Err(K::Protected)
            }
            other => other.clone(),
        }
    }

    /// `resolve`'s answer as `resolve_for_write` gives it: also the link
    /// the path names refused when it is version-control metadata.
    fn for_write(&self, outcome: &Outcome) -> Outcome {
        match outcome {
            Outcome::Ok {
                leaf_link: Some(link),
                ..
            } if protected(link) => Outcome::Err(K::Protected),
            other => self.for_read(other),
        }
    }

    /// Whether a directory from the root down `rel`, as far as the
    /// directories exist, is laid out as a repository.
    fn through_repository(&self, rel: &[String]) -> bool {
        let mut at = ROOT;
        let mut names = rel.iter();
        loop {
            if let Kind::Dir(children) = &self.nodes[at].kind
                && repository_layout(children.keys())
            {
                return true;
            }
            let next = names.next().and_then(|name| self.child(at, name));
            match next {
                Some(child) if matches!(self.nodes[child].kind, Kind::Dir(_)) => at = child,
                _ => return false,
            }
        }
    }

    /// Create `name` in `parent` on the disk and in the model; `None`
    /// (and nothing created) when it exists or the disk refuses it.
    fn make(&mut self, parent: usize, name: &str, what: Make) -> Option<usize> {
        let base = self.nodes[parent].fs.clone()?;
        if self.child(parent, name).is_some()
            || name.is_empty()
            || name == "."
            || name == ".."
            || name.contains(['/', '\0'])
        {
            return None;
        }
        let path = base.join(name);
        let kind = match what {
            Make::Dir => {
                std::fs::create_dir(&path).ok()?;
                Kind::Dir(BTreeMap::new())
            }
            Make::File => {
                std::fs::write(&path, content_of(name)).ok()?;
                Kind::File
            }
            Make::Text(text) => {
                std::fs::write(&path, text).ok()?;
                Kind::File
            }
            Make::Link(target) => {
                std::os::unix::fs::symlink(&target, &path).ok()?;
                Kind::Link(target)
            }
            Make::Socket => {
                std::os::unix::net::UnixListener::bind(&path).ok()?;
                Kind::Special
            }
        };
        let fs = (matches!(kind, Kind::Dir(_)) && path.as_os_str().len() < SHORT).then_some(path);
        let index = self.nodes.len();
        let node = Node {
            name: name.to_owned(),
            parent,
            kind,
            fs,
            abs_len: self.nodes[parent].abs_len + 1 + name.len(),
            in_root: index == ROOT || self.nodes[parent].in_root,
            level: false,
        };
        self.nodes.push(node);
        if let Kind::Dir(children) = &mut self.nodes[parent].kind {
            children.insert(name.to_owned(), index);
        }
        Some(index)
    }

    /// `d/L00…/L01…/…`, deeper than PATH_MAX when the names are long,
    /// created through links `j1`, `j2`… (each to the chain's deepest
    /// directory so far, through the one before), `short` to its bottom,
    /// and at the bottom links out (`esc`: `../` up to the outer
    /// directory, then `outside/secret`; `esc_dir`, `esc_abs`), a link
    /// back up inside (`up`), a file and a `.git/config`.
    fn deep_chain(&mut self, levels: usize, len: usize) {
        let Some(mut dir) = self.make(ROOT, "d", Make::Dir) else {
            return;
        };
        self.deep = true;
        let mut anchor = "d".to_owned();
        let mut since: Vec<String> = Vec::new();
        for i in 0..levels {
            let name = format!("L{i:02}{}", "x".repeat(len.saturating_sub(3)));
            let short = self.nodes[dir]
                .fs
                .as_ref()
                .is_some_and(|fs| fs.as_os_str().len() + 1 + name.len() < SHORT);
            if !short {
                let jump = format!("j{i:02}");
                if self
                    .make(ROOT, &jump, Make::Link(route(&anchor, &since)))
                    .is_none()
                {
                    return;
                }
                self.nodes[dir].fs = Some(self.root.join(&jump));
                anchor = jump;
                since.clear();
            }
            let Some(next) = self.make(dir, &name, Make::Dir) else {
                return;
            };
            self.nodes[next].level = true;
            since.push(name);
            dir = next;
        }
        if self.nodes[dir].fs.is_none() {
            // The bottom's own route, for what is made in it.
            let jump = "j_bottom";
            if self
                .make(ROOT, jump, Make::Link(route(&anchor, &since)))
                .is_none()
            {
                return;
            }
            self.nodes[dir].fs = Some(self.root.join(jump));
        }
        self.make(ROOT, "short", Make::Link(route(&anchor, &since)));
        let depth = levels + 1;
        let out = "../".repeat(depth + 1);
        self.make(
            dir,
            "esc",
            Make::Link(format!("{out}outside/secret").into()),
        );
        self.make(dir, "esc_dir", Make::Link(format!("{out}outside").into()));
        let secret = self.outer.join("outside/secret");
        self.make(dir, "esc_abs", Make::Link(secret));
        let up = format!("{}d", "../".repeat(depth));
        self.make(dir, "up", Make::Link(up.into()));
        self.make(dir, "deep.txt", Make::File);
        if let Some(git) = self.make(dir, ".git", Make::Dir) {
            self.make(git, "config", Make::File);
        }
    }

    fn child(&self, dir: usize, name: &str) -> Option<usize> {
        match &self.nodes[dir].kind {
            Kind::Dir(children) => children.get(name).copied(),
            _ => None,
        }
    }

    /// The names from the root down to `node` (which is in the root).
    fn rel(&self, mut node: usize) -> Vec<String> {
        let mut names = Vec::new();
        while node != ROOT && self.nodes[node].in_root {
            names.push(self.nodes[node].name.clone());
            node = self.nodes[node].parent;
        }
        names.reverse();
        names
    }

    fn rel_string(&self, node: usize) -> String {
        self.rel(node).join("/")
    }

    /// The nodes below the root, the root first.
    fn in_root(&self) -> Vec<usize> {
        (0..self.nodes.len())
            .filter(|&i| self.nodes[i].in_root)
            .collect()
    }

    fn pick_node(&self, byte: u8) -> usize {
        let nodes = self.in_root();
        nodes[usize::from(byte) % nodes.len()]
    }

    /// A name for a path or a link's target: a known name, `.`, `..`,
    /// nothing, or the name of a node of the tree.
    fn component(&self, byte: u8) -> String {
        match usize::from(byte) % 48 {
            i if i < NAMES => name_of(i),
            20 => ".".into(),
            21 | 22 => "..".into(),
            23 => String::new(),
            _ => self.nodes[self.pick_node(byte / 48)].name.clone(),
        }
    }

    /// A link target for a link named `name` in `parent`.
    fn target(&self, bytes: &mut Bytes, parent: usize, name: &str) -> PathBuf {
        let depth = self.rel(parent).len();
        let kind = bytes.next() % 12;
        let a = bytes.next();
        let b = bytes.next();
        let node = self.rel_string(self.pick_node(a));
        let root = self.root.to_string_lossy().into_owned();
        let outer = self.outer.to_string_lossy().into_owned();
        let up = |n: usize| "../".repeat(n);
        let mut target = match kind {
            // Up a few levels (maybe above the root), then a name.
            0 => format!("{}{}", up(usize::from(a % 4)), self.component(b)),
            // Absolute, to a node inside the root.
            1 => format!("{root}/{node}"),
            // Absolute, outside.
            2 => match a % 3 {
                0 => format!("{outer}/outside/secret"),
                1 => format!("{outer}/outside"),
                _ => format!("{outer}/outside/sub"),
            },
            // Relative, to a node (maybe a link), by way of the root.
            3 => format!("{}{node}", up(depth)),
            // Itself: a loop.
            4 => name.to_owned(),
            // Dangling.
            5 => {
                let mut s = node;
                push_part(&mut s, &format!("missing{b}"));
                s
            }
            // Out of the root and back in: refused, though the kernel
            // lands inside.
            6 => format!("{}ws/{node}", up(depth + 1)),
            // The outer directory, `/`, the root's parent, the root.
            7 => match a % 4 {
                0 => outer,
                1 => "/".into(),
                2 => format!("{root}/.."),
                _ => root,
            },
            // Absolute with `..` inside it.
            8 => match b % 2 {
                0 => format!("{root}/../outside/secret"),
                _ => format!("{root}/{node}/../{}", self.component(b / 2)),
            },
            // `.`, `..`, `./name`.
            9 => match a % 3 {
                0 => ".".into(),
                1 => "..".into(),
                _ => format!("./{}", self.component(b)),
            },
            // A node's path, relative to the link's own directory.
            10 => node,
            // Up past the root to the secret.
            _ => format!("{}outside/secret", up(depth + 1 + usize::from(a % 2))),
        };
        if target.is_empty() {
            target.push('.');
        }
        target.into()
    }

    /// A path to resolve.
    fn path(&self, bytes: &mut Bytes) -> PathBuf {
        let flags = bytes.next();
        let mut s = match flags % 8 {
            0..=3 => String::new(),
            4 => self.root.to_string_lossy().into_owned(),
            5 => self.outer.join("outside").to_string_lossy().into_owned(),
            6 => self.outer.to_string_lossy().into_owned(),
            _ => "/".into(),
        };
        if flags & 8 != 0 {
            let node = self.rel_string(self.pick_node(bytes.next()));
            push_part(&mut s, &node);
        }
        for _ in 0..bytes.next() % 6 {
            push_part(&mut s, &self.component(bytes.next()));
        }
        if flags & 16 != 0 {
            s.push('/');
        }
        PathBuf::from(s)
    }

    /// The paths every run tries.
    fn auto_paths(&self) -> Vec<PathBuf> {
        let root = self.root.to_string_lossy().into_owned();
        let outer = self.outer.to_string_lossy().into_owned();
        let mut paths: Vec<String> = vec![
            String::new(),
            ".".into(),
            "..".into(),
            "../outside/secret".into(),
            root.clone(),
            format!("{root}/"),
            format!("{root}/.."),
            format!("{root}/../outside/secret"),
            format!("{outer}/outside/secret"),
            format!("{outer}/outside/back"),
            format!("{outer}/outside/back/new"),
            format!("{outer}/outside/back2/a/b"),
            "/".into(),
        ];
        let nodes: Vec<usize> = self
            .in_root()
            .into_iter()
            .filter(|&i| i != ROOT && !self.nodes[i].level)
            .take(AUTO_NODES)
            .collect();
        for node in nodes {
            let rel = self.rel_string(node);
            // A path of the deep chain costs a walk of every level: once.
            if rel.len() < SHORT {
                paths.push(format!("{rel}/new.txt"));
                paths.push(format!("{root}/{rel}"));
            }
            paths.push(rel);
        }
        if self.deep {
            for tail in [
                "esc",
                "esc/x",
                "esc_dir/secret",
                "esc_abs",
                "up/x",
                "deep.txt",
                "new/x",
                ".git/config",
            ] {
                paths.push(format!("short/{tail}"));
            }
            paths.push(format!("{root}/short/esc"));
            paths.push(format!("{outer}/outside/back/short/esc"));
            paths.push(format!("{outer}/outside/back/short/new"));
        }
        paths.into_iter().map(PathBuf::from).collect()
    }

    /// Every answer argmend may give for `path`: one, or two where a
    /// `realpath` of an absolute path's ancestor (which argmend asks for
    /// a linked spelling of the root) may fail at PATH_MAX; `None` when
    /// the model cannot tell.
    fn expect(&self, path: &Path) -> Option<Vec<Outcome>> {
        if path.as_os_str().is_empty() {
            return Some(vec![Outcome::Err(K::Empty)]);
        }
        let mut parts: Vec<String> = Vec::new();
        let mut absolute = false;
        for part in path.components() {
            match part {
                Component::Prefix(_) | Component::RootDir => {
                    absolute = true;
                    parts.clear();
                }
                Component::CurDir => {}
                Component::ParentDir => {
                    if parts.pop().is_none() && !absolute {
                        return Some(vec![Outcome::Err(K::Escapes)]);
                    }
                }
                Component::Normal(name) => parts.push(name.to_string_lossy().into_owned()),
            }
        }
        if !absolute {
            return Some(vec![self.walk(parts)]);
        }
        if parts.starts_with(&self.root_names) {
            return Some(vec![self.walk(parts[self.root_names.len()..].to_vec())]);
        }
        let mut outcomes = Vec::new();
        for n_up in 1..=parts.len() {
            let (ancestor, rest) = parts.split_at(parts.len() - n_up);
            let start = |mut inside: Vec<String>| {
                inside.extend_from_slice(rest);
                inside
            };
            match self.canonical(ancestor) {
                Canon::Inside(inside) => {
                    outcomes.push(self.walk(start(inside)));
                    return Some(outcomes);
                }
                Canon::NotInside => {}
                Canon::Maybe(inside) => outcomes.push(self.walk(start(inside))),
                Canon::Unknown => return None,
            }
        }
        outcomes.push(Outcome::Err(K::Outside));
        Some(outcomes)
    }

    /// `realpath` of `/names…` on the model: links followed as the
    /// kernel does, `..` taken physically.
    fn canonical(&self, names: &[String]) -> Canon {
        /// Where the walk is.
        enum At {
            Node(usize),
            /// The first `n` names of the outer directory's path: real
            /// directories (it is canonical).
            Above(usize),
            /// Somewhere else on the disk, not in our tree.
            Elsewhere,
        }
        let mut at = At::Above(0);
        let mut pending: VecDeque<String> = names.iter().cloned().collect();
        let mut links = 0;
        let mut long = false;
        while let Some(name) = pending.pop_front() {
            let here = match at {
                At::Node(node) => self.nodes[node].abs_len,
                At::Above(n) => self.outer_names[..n].iter().map(|s| s.len() + 1).sum(),
                At::Elsewhere => 0,
            };
            let ahead: usize = pending.iter().map(|s| s.len() + 1).sum();
            if here + name.len() + 1 + ahead > NEAR_PATH_MAX {
                long = true;
            }
            if name == ".." {
                at = match at {
                    At::Node(OUTER) => At::Above(self.outer_names.len().saturating_sub(1)),
                    At::Node(node) => At::Node(self.nodes[node].parent),
                    At::Above(n) => At::Above(n.saturating_sub(1)),
                    // Whatever is there may be a link.
                    At::Elsewhere => return Canon::Unknown,
                };
                continue;
            }
            at = match at {
                At::Above(n) if self.outer_names.get(n) == Some(&name) => {
                    if n + 1 == self.outer_names.len() {
                        At::Node(OUTER)
                    } else {
                        At::Above(n + 1)
                    }
                }
                At::Above(_) | At::Elsewhere => At::Elsewhere,
                At::Node(dir) => {
                    let Some(child) = self.child(dir, &name) else {
                        return Canon::NotInside;
                    };
                    match &self.nodes[child].kind {
                        Kind::Dir(_) => At::Node(child),
                        Kind::File | Kind::Special if pending.is_empty() => At::Node(child),
                        Kind::File | Kind::Special => return Canon::NotInside,
                        Kind::Link(target) => {
                            links += 1;
                            if links > MAX_LINKS {
                                return Canon::NotInside;
                            }
                            for part in target.components().rev() {
                                match part {
                                    Component::Normal(name) => {
                                        pending.push_front(name.to_string_lossy().into_owned())
                                    }
                                    Component::ParentDir => pending.push_front("..".into()),
                                    _ => {}
                                }
                            }
                            if target.is_absolute() {
                                At::Above(0)
                            } else {
                                At::Node(dir)
                            }
                        }
                    }
                }
            };
        }
        match at {
            At::Node(node) if self.nodes[node].in_root && long => Canon::Maybe(self.rel(node)),
            At::Node(node) if self.nodes[node].in_root => Canon::Inside(self.rel(node)),
            _ => Canon::NotInside,
        }
    }

    /// argmend's walk on the model: `parts` (no `..`) one name at a time
    /// from the root; a link's target walked in turn, `..` in it taken
    /// physically and refused above the root, an absolute one taken from
    /// the root if it is inside it and refused if not.
    fn walk(&self, parts: Vec<String>) -> Outcome {
        let names = |dirs: &[usize]| -> Vec<String> {
            dirs.iter().map(|&d| self.nodes[d].name.clone()).collect()
        };
        let mut dirs: Vec<usize> = Vec::new();
        let mut pending: VecDeque<(String, bool)> = parts.into_iter().map(|p| (p, false)).collect();
        let mut links = 0;
        let mut leaf_link = None;
        while let Some((name, from_link)) = pending.pop_front() {
            if name == ".." {
                if dirs.pop().is_none() {
                    return Outcome::Err(K::SymlinkOut);
                }
                continue;
            }
            if name.len() > 255 {
                return Outcome::Err(K::Unresolvable);
            }
            let here = dirs.last().copied().unwrap_or(ROOT);
            let linked_ahead = pending.iter().any(|(_, linked)| *linked);
            let Some(child) = self.child(here, &name) else {
                if from_link || linked_ahead {
                    return Outcome::Err(K::DanglingLink);
                }
                let mut rel = names(&dirs);
                rel.push(name);
                rel.extend(pending.into_iter().map(|(n, _)| n));
                return Outcome::Ok { rel, leaf_link };
            };
            match &self.nodes[child].kind {
                Kind::Link(target) => {
                    links += 1;
                    if links > MAX_LINKS {
                        return Outcome::Err(K::Unresolvable);
                    }
                    if pending.is_empty() && !from_link {
                        let mut link = names(&dirs);
                        link.push(name);
                        leaf_link = Some(link);
                    }
                    let inside = if target.is_absolute() {
                        let Ok(inside) = target.strip_prefix(&self.root) else {
                            return Outcome::Err(K::SymlinkOut);
                        };
                        dirs.clear();
                        inside
                    } else {
                        target.as_path()
                    };
                    for part in inside.components().rev() {
                        match part {
                            Component::Normal(name) => {
                                pending.push_front((name.to_string_lossy().into_owned(), true))
                            }
                            Component::ParentDir => pending.push_front(("..".into(), true)),
                            _ => {}
                        }
                    }
                }
                Kind::Dir(_) => dirs.push(child),
                Kind::File | Kind::Special if !pending.is_empty() => {
                    return Outcome::Err(if from_link || linked_ahead {
                        K::DanglingLink
                    } else {
                        K::Unresolvable
                    });
                }
                Kind::Special => return Outcome::Err(K::NotAFile),
                Kind::File => {
                    let mut rel = names(&dirs);
                    rel.push(name);
                    return Outcome::Ok { rel, leaf_link };
                }
            }
        }
        Outcome::Ok {
            rel: names(&dirs),
            leaf_link,
        }
    }

    /// What holds of any answer, whatever the model expects: it is below
    /// the root, with no `..` and no link in it (on the model, and on the
    /// disk where the path is short enough for std).
    fn check_real(&self, real: &Path) -> Result<(), String> {
        let rel = real
            .strip_prefix(&self.root)
            .map_err(|_| "not below the root".to_owned())?;
        let mut names = Vec::new();
        for part in rel.components() {
            match part {
                Component::Normal(name) => names.push(name.to_string_lossy().into_owned()),
                other => return Err(format!("has a {other:?} in it")),
            }
        }
        let mut at = ROOT;
        for (i, name) in names.iter().enumerate() {
            let Some(child) = self.child(at, name) else {
                break;
            };
            match &self.nodes[child].kind {
                Kind::Link(_) => return Err(format!("passes through the link {name:?}")),
                Kind::Dir(_) => at = child,
                Kind::File | Kind::Special if i + 1 < names.len() => {
                    return Err(format!("goes on past the file {name:?}"));
                }
                Kind::File | Kind::Special => {}
            }
        }
        if real.as_os_str().len() < SHORT {
            let mut here = self.root.clone();
            for (i, name) in names.iter().enumerate() {
                here.push(name);
                match std::fs::symlink_metadata(&here) {
                    Ok(meta) if meta.file_type().is_symlink() => {
                        return Err(format!("{} is a link on the disk", here.display()));
                    }
                    Ok(meta) if !meta.is_dir() && i + 1 < names.len() => {
                        return Err(format!("{} is not a directory", here.display()));
                    }
                    Ok(_) => {}
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => break,
                    Err(e) => return Err(format!("{}: {e}", here.display())),
                }
            }
        }
        Ok(())
    }

    fn compare(
        &self,
        call: &str,
        path: &Path,
        outcomes: Option<&[Outcome]>,
        got: &Result<PathBuf, WorkspaceError>,
    ) -> Result<(), String> {
        if let Ok(real) = got {
            self.check_real(real)
                .map_err(|why| format!("SECURITY: {call}({path:?}) = Ok({real:?}), which {why}"))?;
        }
        let Some(outcomes) = outcomes else {
            return Ok(());
        };
        let agrees = |outcome: &Outcome| match (outcome, got) {
            (Outcome::Ok { rel, .. }, Ok(real)) => {
                *real == self.root.join(rel.iter().collect::<PathBuf>())
            }
            (Outcome::Err(kind), Err(error)) => error.kind() == *kind,
            _ => false,
        };
        if outcomes.iter().any(agrees) {
            return Ok(());
        }
        let refused = outcomes.iter().all(|outcome| {
            matches!(
                outcome,
                Outcome::Err(K::SymlinkOut | K::Escapes | K::Outside | K::Protected)
            )
        });
        let tag = if got.is_ok() && refused {
            "SECURITY"
        } else {
            "MISMATCH"
        };
        let got = match got {
            Ok(real) => format!("Ok({real:?})"),
            Err(error) => format!("Err({:?}: {error})", error.kind()),
        };
        Err(format!(
            "{tag}: {call}({path:?}) = {got}, the model expects one of {outcomes:?}"
        ))
    }

    fn check_all(&self, paths: &[PathBuf]) -> Result<(), String> {
        let workspace = Workspace::new(&self.root).map_err(|e| format!("Workspace::new: {e}"))?;
        if workspace.root() != self.root {
            return Err(format!("the root is {:?}", workspace.root()));
        }
        for path in paths {
            let outcomes = self.expect(path);
            let got = workspace.resolve(path);
            self.compare("resolve", path, outcomes.as_deref(), &got)?;
            let for_read: Option<Vec<Outcome>> = outcomes
                .as_ref()
                .map(|all| all.iter().map(|o| self.for_read(o)).collect());
            let got = workspace.resolve_for_read(path);
            self.compare("resolve_for_read", path, for_read.as_deref(), &got)?;
            let for_write: Option<Vec<Outcome>> =
                outcomes.map(|all| all.iter().map(|o| self.for_write(o)).collect());
            let got = workspace.resolve_for_write(path);
            self.compare("resolve_for_write", path, for_write.as_deref(), &got)?;
        }
        self.check_patch(&workspace)
    }

    /// Apply the patch; if argmend accepts it, git must take no
    /// directory for a repository that it did not before.
    fn check_patch(&self, workspace: &Workspace) -> Result<(), String> {
        use argmend::tools::diff::{Mode, apply};
        if self.patch.is_empty() {
            return Ok(());
        }
        let patch = patch_text(&self.patch);
        let before = git::repositories(&self.outer, SHORT);
        if apply(workspace, ".", patch.as_bytes(), Mode::Write).is_err() {
            return Ok(());
        }
        let after = git::repositories(&self.outer, SHORT);
        let made: Vec<&PathBuf> = after.difference(&before).collect();
        if made.is_empty() {
            return Ok(());
        }
        Err(format!(
            "SECURITY: the patch was accepted, and git now takes {made:?} for \
             repositories\n  the patch:\n{patch}"
        ))
    }

    /// `failure`, with the tree listed.
    fn failure(&self, failure: &str) -> String {
        let mut out = format!("{failure}\n  the tree, in {}:", self.outer.display());
        for (i, node) in self.nodes.iter().enumerate().skip(1) {
            let mut names = Vec::new();
            let mut at = i;
            while at != OUTER {
                names.push(self.nodes[at].name.as_str());
                at = self.nodes[at].parent;
            }
            names.reverse();
            let what = match &node.kind {
                Kind::Dir(_) => "/".to_owned(),
                Kind::File => String::new(),
                Kind::Link(target) => format!(" -> {}", target.display()),
                Kind::Special => " (socket)".to_owned(),
            };
            let _ = write!(out, "\n    {}{what}", names.join("/"));
        }
        abbreviate(&out)
    }
}
