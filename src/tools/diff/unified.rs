//! Unified diffs of two byte strings: Myers by line (similar) under a
//! deadline, rendered as GNU `diff -u` does, capped at a hunk boundary.

use std::fmt;
use std::io::{self, Read, Write};
use std::ops::Range;
use std::path::Path;
use std::time::{Duration, Instant};

use similar::{Algorithm, DiffOp, DiffTag};

use super::error::{Error, Repr};
use crate::tools::{Located, Workspace, shown_name};

/// The default number of context lines around each change.
pub(crate) const DEFAULT_CONTEXT: usize = 3;
/// The largest `context` a caller may ask for.
pub(crate) const MAX_CONTEXT: usize = 50;
/// The most bytes of output a diff answer holds, note included.
pub(crate) const MAX_OUTPUT: usize = 30_000;
/// The largest file `files` and `apply` read.
pub(crate) const MAX_FILE: u64 = 4 * 1024 * 1024;
/// A NUL byte in this many first bytes makes a file binary.
pub(crate) const BINARY_PROBE: usize = 8_000;
/// Room kept under the output cap for the note that says where it was cut.
const NOTE_ROOM: usize = 400;

/// How a diff is computed and shown.
///
/// ```
/// use std::time::Duration;
/// use argmend::tools::diff::DiffOptions;
///
/// let options = DiffOptions::default().context(1).timeout(Duration::from_millis(500));
/// assert_eq!(options.context_lines(), 1);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DiffOptions {
    context: usize,
    timeout: Duration,
    max_output: usize,
}

impl Default for DiffOptions {
    fn default() -> Self {
        DiffOptions {
            context: DEFAULT_CONTEXT,
            timeout: Duration::from_secs(2),
            max_output: MAX_OUTPUT,
        }
    }
}

impl DiffOptions {
    setters! {
        /// Lines of context around each change (default 3, at most 50; more is
        /// an [`ErrorKind::InvalidArgument`](super::ErrorKind::InvalidArgument)).
        context(context): usize;

        /// How long the line diff may run (default 2 s). Past it the differing
        /// middle is shown as one block replacement with a warning.
        timeout(timeout): Duration;

        /// The output cap in bytes (default 30,000); the diff is cut at a hunk
        /// boundary with a note on how to narrow it.
        max_output(max_output): usize;
    }

    /// The context asked for.
    pub fn context_lines(&self) -> usize {
        self.context
    }

    pub(crate) fn check(&self) -> Result<(), Error> {
        if self.context > MAX_CONTEXT {
            return Err(Error::argument(format!(
                "`context` must be at most {MAX_CONTEXT} lines (got {}); the default is \
                 {DEFAULT_CONTEXT}",
                self.context
            )));
        }
        Ok(())
    }
}

/// A unified diff, or the news that there is none.
///
/// Its `Display` is what a model reads: a warning line if the diff was cut
/// short by its deadline, the patch, and a note if the output was capped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diff {
    names: [String; 2],
    patch: Vec<u8>,
    warning: Option<String>,
    note: Option<String>,
    stats: DiffStats,
}

/// Counts over the whole diff (shown or not).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct DiffStats {
    /// Hunks in the diff.
    pub n_hunks: usize,
    /// Hunks in the (possibly capped) patch.
    pub n_shown: usize,
    /// Lines only in the new side.
    pub n_added: usize,
    /// Lines only in the old side.
    pub n_removed: usize,
    /// Lines of the old side.
    pub n_old_lines: usize,
}

impl Diff {
    /// The unified patch (`---`, `+++` and `@@` hunks); empty when the two
    /// sides are identical. Bytes, since files need not be UTF-8.
    pub fn patch(&self) -> &[u8] {
        &self.patch
    }

    /// Whether the two sides are byte for byte the same.
    pub fn is_identical(&self) -> bool {
        self.patch.is_empty() && self.stats.n_hunks == 0
    }

    /// Whether the output cap left hunks out.
    pub fn is_truncated(&self) -> bool {
        self.stats.n_shown < self.stats.n_hunks
    }

    /// Whether the deadline cut the line diff short (the differing middle
    /// is then one block replacement).
    pub fn is_approximate(&self) -> bool {
        self.warning.is_some()
    }

    /// Hunk and line counts.
    pub fn stats(&self) -> DiffStats {
        self.stats
    }

    /// Write the answer (warning, patch, note) as bytes.
    pub fn write_to(&self, out: &mut impl Write) -> io::Result<()> {
        if self.is_identical() {
            return writeln!(out, "{}", self.identical_line());
        }
        if let Some(warning) = &self.warning {
            writeln!(out, "{warning}")?;
        }
        out.write_all(&self.patch)?;
        if let Some(note) = &self.note {
            writeln!(out, "{note}")?;
        }
        Ok(())
    }

    fn identical_line(&self) -> String {
        let lines = self.stats.n_old_lines;
        let plural = if lines == 1 { "" } else { "s" };
        format!(
            "`{}` and `{}` are identical ({lines} line{plural})",
            shown_name(&self.names[0]),
            shown_name(&self.names[1])
        )
    }
}

impl fmt::Display for Diff {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut bytes = Vec::new();
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut bytes);
        f.write_str(&String::from_utf8_lossy(&bytes))
    }
}

/// Unified diff of two texts, labelled `a` and `b`.
///
/// ```
/// use argmend::tools::diff::{DiffOptions, diff_text};
///
/// let diff = diff_text("one\ntwo\n", "one\n2\n", DiffOptions::default()).unwrap();
/// assert_eq!(diff.to_string(), "--- a\n+++ b\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n");
/// ```
pub fn diff_text(a: &str, b: &str, options: DiffOptions) -> Result<Diff, Error> {
    diff_bytes(a.as_bytes(), b.as_bytes(), ["a", "b"], options)
}

/// Unified diff of two byte strings, with the names shown in `---`/`+++`.
///
/// A side with a NUL byte in its first 8,000 bytes is binary: the answer is
/// an [`ErrorKind::Binary`](super::ErrorKind::Binary) refusal (unless both
/// sides are identical).
///
/// ```
/// use argmend::tools::diff::{DiffOptions, diff_bytes};
///
/// let diff = diff_bytes(b"x", b"y", ["old.txt", "new.txt"], DiffOptions::default()).unwrap();
/// assert!(diff.to_string().contains("\\ No newline at end of file"));
/// ```
pub fn diff_bytes(
    a: &[u8],
    b: &[u8],
    names: [&str; 2],
    options: DiffOptions,
) -> Result<Diff, Error> {
    options.check()?;
    let old = split_lines(a);
    let mut diff = Diff {
        names: names.map(str::to_owned),
        patch: Vec::new(),
        warning: None,
        note: None,
        stats: DiffStats {
            n_old_lines: old.len(),
            ..DiffStats::default()
        },
    };
    if a == b {
        return Ok(diff);
    }
    for (side, name) in [a, b].into_iter().zip(names) {
        if let Some(offset) = binary_offset(side) {
            return Err(Error::new(Repr::Binary {
                file: name.to_owned(),
                offset,
            }));
        }
    }
    let new = split_lines(b);
    let deadline = Instant::now() + options.timeout;
    // The call's own deadline, when sooner, stops the diff too: then the
    // call is over and its answer is "out of time", not a rough diff.
    let call = crate::tools::deadline::current();
    let sooner = call.map_or(deadline, |call| call.min(deadline));
    let mut ops = similar::capture_diff_slices_deadline(Algorithm::Myers, &old, &new, Some(sooner));
    if crate::tools::deadline::expired() {
        return Err(Error::timed_out("diffing the texts"));
    }
    if Instant::now() >= deadline {
        let (ops_block, old_mid, new_mid) = block_replacement(&old, &new);
        ops = ops_block;
        diff.warning = Some(format!(
            "warning: the line diff took longer than {:.1} s and was stopped; lines {} of `{}` \
             and {} of `{}` are shown as one block replacement (diff smaller pieces for a \
             finer answer)",
            options.timeout.as_secs_f64(),
            shown_range(&old_mid),
            shown_name(names[0]),
            shown_range(&new_mid),
            shown_name(names[1])
        ));
    }
    render(&mut diff, &old, &new, ops, options);
    Ok(diff)
}

/// Unified diff of two files inside the workspace (each at most 4 MB).
///
/// ```
/// use argmend::tools::{Workspace, diff::{DiffOptions, diff_files}};
///
/// let dir = std::env::temp_dir().join(format!("argmend-doc-files-{}", std::process::id()));
/// std::fs::create_dir_all(&dir).unwrap();
/// std::fs::write(dir.join("old.txt"), "a\nb\n").unwrap();
/// std::fs::write(dir.join("new.txt"), "a\nc\n").unwrap();
/// let workspace = Workspace::new(&dir).unwrap();
/// let diff = diff_files(&workspace, "old.txt", "new.txt", DiffOptions::default()).unwrap();
/// assert!(diff.to_string().starts_with("--- old.txt\n+++ new.txt\n@@ -1,2 +1,2 @@\n"));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// ```
pub fn diff_files(
    workspace: &Workspace,
    a: impl AsRef<Path>,
    b: impl AsRef<Path>,
    options: DiffOptions,
) -> Result<Diff, Error> {
    options.check()?;
    let (a, b) = (a.as_ref(), b.as_ref());
    let old = read_file(workspace, a)?;
    let new = read_file(workspace, b)?;
    let names = [a.display().to_string(), b.display().to_string()];
    diff_bytes(&old, &new, [&names[0], &names[1]], options)
}

/// Read a workspace file of at most 4 MB.
pub(crate) fn read_file(workspace: &Workspace, path: &Path) -> Result<Vec<u8>, Error> {
    let located = workspace.locate_for_read(path)?;
    read_located(&located, &path.display().to_string())
}

/// Read a located regular file of at most 4 MB, through the handle its walk
/// ended on; `name` is how messages show it.
pub(crate) fn read_located(located: &Located, name: &str) -> Result<Vec<u8>, Error> {
    let file = located.open_file().map_err(|error| {
        let error = if error.kind() == std::io::ErrorKind::NotFound {
            crate::tools::near::not_found(located, name)
        } else {
            error
        };
        Error::io("read", name, error)
    })?;
    let size = file
        .metadata()
        .map_err(|e| Error::io("read", name, e))?
        .len();
    let too_large = |size| {
        Error::new(Repr::TooLarge {
            file: name.to_owned(),
            size,
            limit: MAX_FILE,
        })
    };
    if size > MAX_FILE {
        return Err(too_large(size));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    // The file may grow while it is read: read one byte past the limit to see.
    file.take(MAX_FILE + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io("read", name, e))?;
    if bytes.len() as u64 > MAX_FILE {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(bytes)
}

/// Where the first NUL byte is among the first 8,000, if there is one.
pub(crate) fn binary_offset(bytes: &[u8]) -> Option<usize> {
    memchr::memchr(0, &bytes[..bytes.len().min(BINARY_PROBE)])
}

/// The lines of `bytes`, each with its `\n` (the last may have none).
pub(crate) fn split_lines(bytes: &[u8]) -> Vec<&[u8]> {
    let mut lines = Vec::new();
    let mut start = 0;
    for end in memchr::memchr_iter(b'\n', bytes) {
        lines.push(&bytes[start..=end]);
        start = end + 1;
    }
    if start < bytes.len() {
        lines.push(&bytes[start..]);
    }
    lines
}

/// The common prefix and suffix as equal runs and everything between as one
/// replacement: the answer when the deadline passed.
fn block_replacement(old: &[&[u8]], new: &[&[u8]]) -> (Vec<DiffOp>, Range<usize>, Range<usize>) {
    let prefix = old.iter().zip(new).take_while(|(x, y)| x == y).count();
    let suffix = old[prefix..]
        .iter()
        .rev()
        .zip(new[prefix..].iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let old_mid = prefix..old.len() - suffix;
    let new_mid = prefix..new.len() - suffix;
    let mut ops = Vec::new();
    if prefix > 0 {
        ops.push(DiffOp::Equal {
            old_index: 0,
            new_index: 0,
            len: prefix,
        });
    }
    ops.push(match (old_mid.is_empty(), new_mid.is_empty()) {
        (false, false) => DiffOp::Replace {
            old_index: prefix,
            old_len: old_mid.len(),
            new_index: prefix,
            new_len: new_mid.len(),
        },
        (false, true) => DiffOp::Delete {
            old_index: prefix,
            old_len: old_mid.len(),
            new_index: prefix,
        },
        _ => DiffOp::Insert {
            old_index: prefix,
            new_index: prefix,
            new_len: new_mid.len(),
        },
    });
    if suffix > 0 {
        ops.push(DiffOp::Equal {
            old_index: old_mid.end,
            new_index: new_mid.end,
            len: suffix,
        });
    }
    (ops, old_mid, new_mid)
}

/// `12-40` (1-based, inclusive), or `none` for an empty range.
fn shown_range(range: &Range<usize>) -> String {
    match range.len() {
        0 => "none".to_owned(),
        1 => format!("{}", range.start + 1),
        _ => format!("{}-{}", range.start + 1, range.end),
    }
}

/// Render the grouped ops as hunks into `diff`, up to the output cap.
fn render(diff: &mut Diff, old: &[&[u8]], new: &[&[u8]], ops: Vec<DiffOp>, options: DiffOptions) {
    let groups = similar::group_diff_ops(ops, options.context);
    diff.stats.n_hunks = groups.len();
    let mut out = format!(
        "--- {}\n+++ {}\n",
        git_quoted(&diff.names[0]),
        git_quoted(&diff.names[1])
    )
    .into_bytes();
    let budget = options.max_output.saturating_sub(NOTE_ROOM);
    let warning_len = diff.warning.as_ref().map_or(0, |w| w.len() + 1);
    let mut cut: Option<(usize, usize)> = None;
    let mut hunk = Vec::new();
    for (idx, group) in groups.iter().enumerate() {
        hunk.clear();
        let (n_added, n_removed) = render_hunk(&mut hunk, group, old, new);
        diff.stats.n_added += n_added;
        diff.stats.n_removed += n_removed;
        if cut.is_some() {
            continue;
        }
        if warning_len + out.len() + hunk.len() > budget {
            let first_line = group.first().map_or(0, |op| op.old_range().start) + 1;
            cut = Some((idx, first_line));
            continue;
        }
        out.extend_from_slice(&hunk);
        diff.stats.n_shown += 1;
    }
    diff.patch = out;
    if let Some((idx, line)) = cut {
        let (max, n_hunks) = (options.max_output, diff.stats.n_hunks);
        let name = shown_name(&diff.names[0]);
        let narrow = "narrow it: a smaller `context`, one file at a time, or a piece of the file";
        diff.note = Some(if idx == 0 {
            format!(
                "note: output cut at {max} bytes: hunk 1 of {n_hunks} alone is larger (it \
                 starts at line {line} of `{name}`); {narrow}"
            )
        } else {
            format!(
                "note: output cut at {max} bytes after hunk {idx} of {n_hunks} (the rest starts \
                 at line {line} of `{name}`); {narrow}"
            )
        });
    }
}

/// One hunk: its header and lines. Returns the lines added and removed.
fn render_hunk(
    out: &mut Vec<u8>,
    group: &[DiffOp],
    old: &[&[u8]],
    new: &[&[u8]],
) -> (usize, usize) {
    let (Some(first), Some(last)) = (group.first(), group.last()) else {
        return (0, 0);
    };
    let old_range = first.old_range().start..last.old_range().end;
    let new_range = first.new_range().start..last.new_range().end;
    out.extend_from_slice(
        format!(
            "@@ -{} +{} @@\n",
            header_range(&old_range),
            header_range(&new_range)
        )
        .as_bytes(),
    );
    let (mut n_added, mut n_removed) = (0, 0);
    for op in group {
        let (tag, old_ops, new_ops) = op.as_tag_tuple();
        match tag {
            DiffTag::Equal => {
                for line in &old[old_ops] {
                    push_line(out, b' ', line);
                }
            }
            DiffTag::Delete | DiffTag::Insert | DiffTag::Replace => {
                n_removed += old_ops.len();
                n_added += new_ops.len();
                for line in &old[old_ops] {
                    push_line(out, b'-', line);
                }
                for line in &new[new_ops] {
                    push_line(out, b'+', line);
                }
            }
        }
    }
    (n_added, n_removed)
}

/// `START,COUNT` as GNU diff writes it: the count left out when it is 1, and
/// an empty range named by the line before it.
fn header_range(range: &Range<usize>) -> String {
    match range.len() {
        0 => format!("{},0", range.start),
        1 => format!("{}", range.start + 1),
        n => format!("{},{n}", range.start + 1),
    }
}

fn push_line(out: &mut Vec<u8>, sign: u8, line: &[u8]) {
    out.push(sign);
    out.extend_from_slice(line);
    if !line.ends_with(b"\n") {
        out.extend_from_slice(b"\n\\ No newline at end of file\n");
    }
}

/// A header name as git writes it: as it is, or C-quoted when it holds a
/// control character or starts with `"` (a newline in a name would forge a
/// header line). The patch parser decodes the same form.
fn git_quoted(name: &str) -> std::borrow::Cow<'_, str> {
    if !name.chars().any(char::is_control) && !name.starts_with('"') {
        return std::borrow::Cow::Borrowed(name);
    }
    let mut out = String::from("\"");
    for c in name.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => {
                let mut buf = [0; 4];
                for byte in c.encode_utf8(&mut buf).bytes() {
                    out.push_str(&format!("\\{byte:03o}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
    std::borrow::Cow::Owned(out)
}
