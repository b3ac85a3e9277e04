//! The unified patch parser: file sections (`diff --git`, `---`/`+++`) and
//! `@@` hunks whose header counts are checked against their bodies. Every
//! error names the patch line (1-based).

use super::error::{Error, Repr};

/// How a line ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Eol {
    None,
    Lf,
    CrLf,
}

impl Eol {
    pub(crate) fn bytes(self) -> &'static [u8] {
        match self {
            Eol::None => b"",
            Eol::Lf => b"\n",
            Eol::CrLf => b"\r\n",
        }
    }
}

/// A line without its terminator, and the terminator.
pub(crate) fn split_eol(line: &[u8]) -> (&[u8], Eol) {
    if let Some(body) = line.strip_suffix(b"\r\n") {
        (body, Eol::CrLf)
    } else if let Some(body) = line.strip_suffix(b"\n") {
        (body, Eol::Lf)
    } else {
        (line, Eol::None)
    }
}

/// What a hunk line does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Context,
    Removed,
    Added,
}

/// One body line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HunkLine<'p> {
    pub(crate) kind: Kind,
    pub(crate) content: &'p [u8],
    pub(crate) eol: Eol,
    /// The line after its sign, terminator included.
    raw: &'p [u8],
}

impl HunkLine<'_> {
    /// `\ No newline at end of file` follows: the patch's `\n` after this
    /// line is not part of it (a `\r` before it is: the line ends in CR).
    fn lose_newline(&mut self) {
        self.content = self.raw.strip_suffix(b"\n").unwrap_or(self.raw);
        self.eol = Eol::None;
    }
}

/// One `@@` hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Hunk<'p> {
    /// `@@ -3,7 +3,8 @@` as written (without a section name after it).
    pub(crate) header: String,
    pub(crate) old_start: usize,
    pub(crate) old_count: usize,
    pub(crate) lines: Vec<HunkLine<'p>>,
}

/// The hunks for one file.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct FilePatch<'p> {
    /// The `---` path (`None` for `/dev/null`, or when there was no header).
    pub(crate) old_path: Option<String>,
    /// The `+++` path (`None` for `/dev/null`, or when there was no header).
    pub(crate) new_path: Option<String>,
    /// Whether a `---`/`+++` pair (or `diff --git`) named the file.
    pub(crate) named: bool,
    /// Whether `\ No newline at end of file` occurs in this section.
    pub(crate) has_markers: bool,
    /// The new-side name from a `diff --git` line, for messages about a
    /// section that has no `---`/`+++` pair.
    pub(crate) git_name: Option<String>,
    /// Whether an `old mode`/`new mode` line occurs in this section.
    pub(crate) mode_change: bool,
    pub(crate) hunks: Vec<Hunk<'p>>,
}

impl FilePatch<'_> {
    /// Whether the section creates its file (`--- /dev/null`).
    pub(crate) fn creates(&self) -> bool {
        self.named && self.old_path.is_none()
    }

    /// Whether the section deletes its file (`+++ /dev/null`).
    pub(crate) fn deletes(&self) -> bool {
        self.named && self.new_path.is_none()
    }

    /// The path the section changes (the new path, or the old one for a
    /// deletion).
    pub(crate) fn target(&self) -> Option<&str> {
        self.new_path.as_deref().or(self.old_path.as_deref())
    }

    /// The name to show in a message: the target, else the `diff --git` name.
    fn shown_name(&self) -> Option<&str> {
        self.target().or(self.git_name.as_deref())
    }
}

/// Parse a unified patch into its file sections.
pub(crate) fn parse(patch: &[u8]) -> Result<Vec<FilePatch<'_>>, Error> {
    let lines = super::unified::split_lines(patch);
    let mut files: Vec<FilePatch<'_>> = Vec::new();
    // Whether the current section came from `diff --git` and has no hunk yet.
    let mut git_open = false;
    // Inside a section, after its headers: body lines may no longer be stray.
    let mut in_section = false;
    let mut idx = 0;
    // A patch may be 64 MiB of lines: the call's token is read as it goes.
    let mut ticker = crate::tools::deadline::Ticker::<10>::new();
    while idx < lines.len() {
        if ticker.tick() {
            return Err(Error::timed_out("reading the patch"));
        }
        let line = lines[idx];
        let text = trim_eol(line);
        let line_no = idx + 1;
        if text.starts_with(b"diff --git ") {
            files.push(FilePatch {
                named: true,
                git_name: git_line_name(&text[b"diff --git ".len()..]),
                ..FilePatch::default()
            });
            git_open = true;
            in_section = true;
            idx += 1;
            continue;
        }
        if git_open && let Some(what) = unsupported_git_header(text) {
            let file = files.last().and_then(FilePatch::shown_name).unwrap_or("?");
            return Err(Error::new(Repr::Unsupported {
                file: file.to_owned(),
                what,
            }));
        }
        if git_open
            && (text.starts_with(b"old mode ") || text.starts_with(b"new mode "))
            && let Some(file) = files.last_mut()
        {
            file.mode_change = true;
        }
        if text.starts_with(b"--- ") {
            let Some(plus) = lines.get(idx + 1).map(|l| trim_eol(l)) else {
                return Err(Error::new(Repr::MissingPlus {
                    patch_line: line_no,
                }));
            };
            if !plus.starts_with(b"+++ ") {
                return Err(Error::new(Repr::MissingPlus {
                    patch_line: line_no,
                }));
            }
            let reuse = git_open && files.last().is_some_and(|f| f.hunks.is_empty());
            if !reuse {
                files.push(FilePatch::default());
            }
            if let Some(file) = files.last_mut() {
                file.named = true;
                file.old_path = header_path(&text[4..]);
                file.new_path = header_path(&plus[4..]);
            }
            git_open = false;
            in_section = true;
            idx += 2;
            continue;
        }
        if text.starts_with(b"@@") {
            git_open = false;
            in_section = true;
            if files.is_empty() {
                files.push(FilePatch::default());
            }
            let n_hunks = files.last().map_or(0, |f| f.hunks.len());
            let (hunk, next, markers) = parse_hunk(&lines, idx, n_hunks + 1)?;
            if let Some(file) = files.last_mut() {
                file.hunks.push(hunk);
                file.has_markers |= markers;
            }
            idx = next;
            continue;
        }
        if text == b"-- " || text == b"--" {
            // A mail signature (`git format-patch`): the patch is over.
            break;
        }
        if in_section && matches!(text.first(), Some(b'+' | b'-' | b' ')) {
            return Err(Error::new(Repr::StrayLine {
                patch_line: line_no,
                text: String::from_utf8_lossy(text).into_owned(),
            }));
        }
        // Anything else (prose, `index …`, mode lines, a commit message) is
        // not part of the patch.
        idx += 1;
    }
    // A `diff --git` section with a mode change and no hunk changes nothing
    // argmend can write: say so, naming the file, rather than "no hunk".
    if let Some(file) = files
        .iter()
        .find(|file| file.mode_change && file.hunks.is_empty())
    {
        return Err(Error::new(Repr::Unsupported {
            file: file.shown_name().unwrap_or("?").to_owned(),
            what: "only changes the file's mode (`old mode`/`new mode`)",
        }));
    }
    files.retain(|file| !file.hunks.is_empty() || file.creates() || file.deletes());
    if files.iter().all(|file| file.hunks.is_empty()) {
        return Err(Error::new(Repr::NoHunks));
    }
    if files
        .iter()
        .any(|file| file.named && file.old_path.is_none() && file.new_path.is_none())
    {
        return Err(Error::new(Repr::Unsupported {
            file: "/dev/null".to_owned(),
            what: "names /dev/null on both sides",
        }));
    }
    strip_git_prefixes(&mut files);
    Ok(files)
}

/// `diff --git` extended headers that ask for more than line changes.
fn unsupported_git_header(text: &[u8]) -> Option<&'static str> {
    let mode = |prefix: &[u8]| text.strip_prefix(prefix).map(|rest| rest.trim_ascii());
    let symlink = [
        &b"new file mode "[..],
        b"deleted file mode ",
        b"old mode ",
        b"new mode ",
    ]
    .iter()
    .any(|prefix| mode(prefix) == Some(b"120000"))
        || (text.starts_with(b"index ") && text.ends_with(b" 120000"));
    if symlink {
        Some("is for a symbolic link (mode 120000), which argmend does not create or change")
    } else if text.starts_with(b"rename from ") || text.starts_with(b"copy from ") {
        Some("renames or copies a file")
    } else if text.starts_with(b"GIT binary patch") || text.starts_with(b"Binary files ") {
        Some("is a binary patch")
    } else {
        None
    }
}

/// The path of a `---`/`+++` header: up to a tab (a timestamp may follow),
/// `None` for `/dev/null`. A quoted path is decoded as git writes it.
fn header_path(text: &[u8]) -> Option<String> {
    let path = if text.first() == Some(&b'"') {
        unquote(text).map_or_else(|| String::from_utf8_lossy(text).into_owned(), |(p, _)| p)
    } else {
        let path = text.split(|&b| b == b'\t').next().unwrap_or(text);
        String::from_utf8_lossy(path).trim_end().to_owned()
    };
    (path != "/dev/null").then_some(path)
}

/// The new-side name on a `diff --git a/X b/Y` line (prefix kept; see
/// [`strip_git_prefixes`]), so a section with no `---`/`+++` (a rename, a
/// binary or mode change) can still be named.
fn git_line_name(text: &[u8]) -> Option<String> {
    let rest = if text.first() == Some(&b'"') {
        let (_, used) = unquote(text)?;
        text[used..].trim_ascii_start()
    } else {
        // Unquoted names hold no `"`; the new one starts at the last ` b/`.
        let at = text.windows(3).rposition(|w| w == b" b/")?;
        &text[at + 1..]
    };
    let name = if rest.first() == Some(&b'"') {
        unquote(rest)?.0
    } else {
        String::from_utf8_lossy(rest.trim_ascii_end()).into_owned()
    };
    Some(name.strip_prefix("b/").map(str::to_owned).unwrap_or(name))
}

/// A C-style quoted name as git writes one (`"a/\303\274.txt"`): the
/// decoded name and the bytes the quoted form took. Octal escapes are raw
/// bytes (UTF-8 spelled out byte by byte), as `git apply` reads them.
fn unquote(text: &[u8]) -> Option<(String, usize)> {
    let mut out = Vec::new();
    let mut i = 1;
    loop {
        match *text.get(i)? {
            b'"' => return Some((String::from_utf8_lossy(&out).into_owned(), i + 1)),
            b'\\' => {
                let c = *text.get(i + 1)?;
                i += 2;
                out.push(match c {
                    b'a' => 0x07,
                    b'b' => 0x08,
                    b't' => b'\t',
                    b'n' => b'\n',
                    b'v' => 0x0B,
                    b'f' => 0x0C,
                    b'r' => b'\r',
                    b'0'..=b'3' => {
                        let digits = text.get(i..i + 2)?;
                        if !digits.iter().all(|d| (b'0'..=b'7').contains(d)) {
                            return None;
                        }
                        i += 2;
                        (c - b'0') * 64 + (digits[0] - b'0') * 8 + (digits[1] - b'0')
                    }
                    other => other,
                });
            }
            b => {
                out.push(b);
                i += 1;
            }
        }
    }
}

/// Git writes `a/` and `b/` before the paths; the files are without them.
fn strip_git_prefixes(files: &mut [FilePatch<'_>]) {
    for file in files {
        let old_ok = file.old_path.as_deref().is_none_or(|p| p.starts_with("a/"));
        let new_ok = file.new_path.as_deref().is_none_or(|p| p.starts_with("b/"));
        if old_ok && new_ok && (file.old_path.is_some() || file.new_path.is_some()) {
            for path in [&mut file.old_path, &mut file.new_path]
                .into_iter()
                .flatten()
            {
                path.drain(..2);
            }
        }
    }
}

fn trim_eol(line: &[u8]) -> &[u8] {
    split_eol(line).0
}

/// `@@ -START[,COUNT] +START[,COUNT] @@[ section]` → the two ranges.
fn parse_header(text: &[u8]) -> Option<(usize, usize, usize, usize)> {
    let text = std::str::from_utf8(text).ok()?;
    let rest = text.strip_prefix("@@ -")?;
    let (old, rest) = rest.split_once(" +")?;
    let (new, _) = rest.split_once(" @@")?;
    let range = |s: &str| -> Option<(usize, usize)> {
        let (start, count) = match s.split_once(',') {
            Some((start, count)) => (start, count.parse().ok()?),
            None => (s, 1),
        };
        if start.is_empty() || !start.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        Some((start.parse().ok()?, count))
    };
    let (old_start, old_count) = range(old)?;
    let (new_start, new_count) = range(new)?;
    // A non-empty range starts at line 1 or later, and ends where a line
    // number can still be counted.
    if (old_start == 0 && old_count > 0) || (new_start == 0 && new_count > 0) {
        return None;
    }
    old_start.checked_add(old_count)?;
    new_start.checked_add(new_count)?;
    Some((old_start, old_count, new_start, new_count))
}

/// Parse the hunk whose header is `lines[at]`. Returns it, the index of the
/// line after it, and whether it had `\ No newline` markers.
fn parse_hunk<'p>(
    lines: &[&'p [u8]],
    at: usize,
    number: usize,
) -> Result<(Hunk<'p>, usize, bool), Error> {
    let text = trim_eol(lines[at]);
    let Some((old_start, old_count, _, new_count)) = parse_header(text) else {
        return Err(Error::new(Repr::MalformedHeader {
            patch_line: at + 1,
            text: String::from_utf8_lossy(text).into_owned(),
        }));
    };
    let header = String::from_utf8_lossy(text);
    let header = match header.get(2..).and_then(|rest| rest.find("@@")) {
        Some(end) => header[..end + 4].to_owned(),
        None => header.into_owned(),
    };
    let mut hunk = Hunk {
        header,
        old_start,
        old_count,
        lines: Vec::new(),
    };
    let (mut n_old, mut n_new) = (0, 0);
    let mut markers = false;
    let mut idx = at + 1;
    let bad_counts = |patch_line, got| {
        Error::new(Repr::BadCounts {
            patch_line,
            hunk: number,
            header: String::from_utf8_lossy(text).into_owned(),
            want: (old_count, new_count),
            got,
        })
    };
    while n_old < old_count || n_new < new_count {
        let Some(&line) = lines.get(idx) else {
            return Err(bad_counts(idx, (n_old, n_new)));
        };
        let Some(line) = body_line(line, idx + 1 == lines.len()) else {
            if line.starts_with(b"\\") && !hunk.lines.is_empty() {
                markers = true;
                if let Some(last) = hunk.lines.last_mut() {
                    last.lose_newline();
                }
                idx += 1;
                continue;
            }
            return Err(bad_counts(idx + 1, (n_old, n_new)));
        };
        let (old_side, new_side) = match line.kind {
            Kind::Context => (1, 1),
            Kind::Removed => (1, 0),
            Kind::Added => (0, 1),
        };
        if n_old + old_side > old_count || n_new + new_side > new_count {
            let (more_old, more_new) = count_body(&lines[idx..]);
            return Err(bad_counts(idx + 1, (n_old + more_old, n_new + more_new)));
        }
        n_old += old_side;
        n_new += new_side;
        hunk.lines.push(line);
        idx += 1;
    }
    if lines.get(idx).is_some_and(|l| l.starts_with(b"\\")) {
        markers = true;
        if let Some(last) = hunk.lines.last_mut() {
            last.lose_newline();
        }
        idx += 1;
    }
    // Lines right after a full hunk that look like its body mean the header
    // counts too few (a new file header or a mail signature does not).
    if let Some(&next) = lines.get(idx) {
        let text = trim_eol(next);
        let header =
            text.starts_with(b"--- ") && lines.get(idx + 1).is_some_and(|l| l.starts_with(b"+++ "));
        let signature = text == b"-- " || text == b"--";
        if !header && !signature && matches!(next.first(), Some(b'+' | b'-' | b' ')) {
            let (more_old, more_new) = count_body(&lines[idx..]);
            return Err(bad_counts(idx + 1, (n_old + more_old, n_new + more_new)));
        }
    }
    Ok((hunk, idx, markers))
}

/// A hunk body line, or `None` for anything else. A blank line counts as an
/// empty context line (editors strip the space); the patch's last line may
/// lack its newline.
fn body_line(line: &[u8], last: bool) -> Option<HunkLine<'_>> {
    let (kind, rest) = match line.first() {
        Some(b' ') => (Kind::Context, &line[1..]),
        Some(b'-') => (Kind::Removed, &line[1..]),
        Some(b'+') => (Kind::Added, &line[1..]),
        Some(b'\n') => (Kind::Context, line),
        Some(b'\r') if line == b"\r\n" => (Kind::Context, line),
        _ => return None,
    };
    let (content, mut eol) = split_eol(rest);
    if eol == Eol::None && last {
        // A patch whose last line lost its newline in transit; a missing
        // final newline is said with a `\` marker, not like this.
        eol = Eol::Lf;
    }
    Some(HunkLine {
        kind,
        content,
        eol,
        raw: rest,
    })
}

/// How many old-side and new-side lines the run of body lines at the start
/// of `lines` holds (to report a count mismatch in full).
fn count_body(lines: &[&[u8]]) -> (usize, usize) {
    let (mut n_old, mut n_new) = (0, 0);
    for (idx, line) in lines.iter().enumerate() {
        let header =
            line.starts_with(b"--- ") && lines.get(idx + 1).is_some_and(|l| l.starts_with(b"+++ "));
        if header || line.starts_with(b"@@") {
            break;
        }
        match line.first() {
            Some(b' ' | b'\n') => {
                n_old += 1;
                n_new += 1;
            }
            Some(b'-') => n_old += 1,
            Some(b'+') => n_new += 1,
            Some(b'\\') => {}
            _ => break,
        }
    }
    (n_old, n_new)
}
