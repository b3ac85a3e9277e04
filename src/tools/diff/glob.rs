//! A small glob matcher for `dirs`: `*` and `?` within one path segment,
//! `[abc]`, `[a-z]` and `[!x]` classes, `{a,b}` alternatives, and `**` for
//! any number of segments. A pattern without `/` matches the file name at
//! any depth (`*.go`); one with `/` matches the whole relative path
//! (`src/**/*.rs`).
//!
//! Matching runs the segments as a small automaton over the path's
//! segments: the set of pattern positions reached so far, advanced one path
//! segment at a time, with a run of `**` compiled to one position. So a
//! match costs the path's segments times the pattern's, never more: a
//! backtracking match tried every split for every `**`, and 12 of them took
//! 8.4 s on one path 20 levels deep (issue 43, hole 6).

use super::error::Error;

/// A compiled glob.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Glob {
    /// One entry per `{…}` alternative; each is a list of segments.
    alternatives: Vec<Vec<Segment>>,
    /// Whether the pattern matches the file name only.
    name_only: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Segment {
    /// `**`: any number of segments.
    Any,
    Tokens(Vec<Token>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Token {
    Char(char),
    One,
    Star,
    Class {
        negated: bool,
        ranges: Vec<(char, char)>,
    },
}

impl Glob {
    pub(crate) fn new(pattern: &str) -> Result<Self, Error> {
        let invalid = |why: &str| {
            Error::argument(format!(
                "`glob` {pattern:?} is not a valid pattern ({why}); examples: \"*.go\", \
                 \"src/**/*.rs\", \"*.{{yaml,yml}}\""
            ))
        };
        if pattern.is_empty() {
            return Err(invalid("it is empty"));
        }
        let expanded = expand_braces(pattern)
            .ok_or_else(|| invalid("an unclosed `{`, or more than 256 alternatives"))?;
        let name_only = !pattern.contains('/');
        let mut alternatives = Vec::new();
        for alternative in expanded {
            let mut segments = Vec::new();
            for part in alternative.trim_start_matches("./").split('/') {
                if part == "**" {
                    // `**/**` is `**`: one position of the automaton.
                    if segments.last() != Some(&Segment::Any) {
                        segments.push(Segment::Any);
                    }
                } else {
                    let tokens = tokens(part).ok_or_else(|| invalid("an unclosed `[`"))?;
                    segments.push(Segment::Tokens(tokens));
                }
            }
            alternatives.push(segments);
        }
        Ok(Glob {
            alternatives,
            name_only,
        })
    }

    /// Whether the `/`-separated relative `path` matches.
    pub(crate) fn matches(&self, path: &str) -> bool {
        let path: Vec<&str> = if self.name_only {
            path.rsplit('/').take(1).collect()
        } else {
            path.split('/').collect()
        };
        self.alternatives
            .iter()
            .any(|segments| match_segments(segments, &path))
    }
}

/// `a{b,c}d` → `abd`, `acd` (nested braces too). `None` if a brace is unclosed.
fn expand_braces(pattern: &str) -> Option<Vec<String>> {
    let Some(open) = pattern.find('{') else {
        return Some(vec![pattern.to_owned()]);
    };
    let mut depth = 0;
    let mut close = None;
    let mut commas = Vec::new();
    for (idx, c) in pattern[open..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    close = Some(open + idx);
                    break;
                }
            }
            ',' if depth == 1 => commas.push(open + idx),
            _ => {}
        }
    }
    let close = close?;
    let mut bounds = vec![open];
    bounds.extend(commas);
    bounds.push(close);
    let mut out = Vec::new();
    for pair in bounds.windows(2) {
        let choice = &pattern[pair[0] + 1..pair[1]];
        let joined = format!("{}{choice}{}", &pattern[..open], &pattern[close + 1..]);
        out.extend(expand_braces(&joined)?);
        if out.len() > 256 {
            return None;
        }
    }
    Some(out)
}

/// The tokens of one segment; `None` if a class is unclosed.
fn tokens(part: &str) -> Option<Vec<Token>> {
    let chars: Vec<char> = part.chars().collect();
    let mut out = Vec::new();
    let mut idx = 0;
    while idx < chars.len() {
        match chars[idx] {
            '*' => {
                if out.last() != Some(&Token::Star) {
                    out.push(Token::Star);
                }
            }
            '?' => out.push(Token::One),
            '[' => {
                let mut end = idx + 1;
                let negated = matches!(chars.get(end), Some('!' | '^'));
                if negated {
                    end += 1;
                }
                let first = end;
                let mut ranges = Vec::new();
                while end < chars.len() && (chars[end] != ']' || end == first) {
                    let low = chars[end];
                    if chars.get(end + 1) == Some(&'-')
                        && chars.get(end + 2).is_some_and(|&c| c != ']')
                    {
                        ranges.push((low, chars[end + 2]));
                        end += 3;
                    } else {
                        ranges.push((low, low));
                        end += 1;
                    }
                }
                if end >= chars.len() {
                    return None;
                }
                out.push(Token::Class { negated, ranges });
                idx = end;
            }
            c => out.push(Token::Char(c)),
        }
        idx += 1;
    }
    Some(out)
}

/// Whether `path` matches `segments`: the positions of `segments` the
/// path's segments so far can have reached, advanced one segment at a time.
fn match_segments(segments: &[Segment], path: &[&str]) -> bool {
    let n = segments.len();
    // `reached[i]`: the first `i` pattern segments can match the path so far.
    let mut reached = vec![false; n + 1];
    let mut next = vec![false; n + 1];
    reached[0] = true;
    close_over_any(segments, &mut reached);
    for part in path {
        next.fill(false);
        let mut any = false;
        for (i, segment) in segments.iter().enumerate() {
            if !reached[i] {
                continue;
            }
            match segment {
                // `**` takes this segment and stays.
                Segment::Any => next[i] = true,
                Segment::Tokens(tokens) => {
                    if match_tokens(tokens, part) {
                        next[i + 1] = true;
                    }
                }
            }
            any = true;
        }
        if !any {
            return false;
        }
        close_over_any(segments, &mut next);
        std::mem::swap(&mut reached, &mut next);
    }
    reached[n]
}

/// A `**` may also match no segment: a reached `**` reaches what follows it.
fn close_over_any(segments: &[Segment], reached: &mut [bool]) {
    for (i, segment) in segments.iter().enumerate() {
        if reached[i] && *segment == Segment::Any {
            reached[i + 1] = true;
        }
    }
}

/// Wildcard matching with one backtracking point (the last `*`): linear in
/// practice, never exponential.
fn match_tokens(tokens: &[Token], text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        match tokens.get(p) {
            Some(Token::Star) => {
                star = Some((p, t));
                p += 1;
            }
            Some(token) if single(token, text[t]) => {
                p += 1;
                t += 1;
            }
            _ => match star {
                Some((star_p, star_t)) => {
                    p = star_p + 1;
                    t = star_t + 1;
                    star = Some((star_p, star_t + 1));
                }
                None => return false,
            },
        }
    }
    tokens[p.min(tokens.len())..]
        .iter()
        .all(|t| *t == Token::Star)
}

fn single(token: &Token, c: char) -> bool {
    match token {
        Token::Char(x) => *x == c,
        Token::One => true,
        Token::Star => false,
        Token::Class { negated, ranges } => {
            ranges.iter().any(|&(lo, hi)| lo <= c && c <= hi) != *negated
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Glob;

    #[test]
    fn patterns() {
        let cases: &[(&str, &str, bool)] = &[
            ("*.go", "main.go", true),
            ("*.go", "cmd/tool/main.go", true),
            ("*.go", "main.gox", false),
            ("src/**/*.rs", "src/lib.rs", true),
            ("src/**/*.rs", "src/tools/diff/mod.rs", true),
            ("src/**/*.rs", "tests/main.rs", false),
            ("src/*.rs", "src/tools/mod.rs", false),
            ("*.{yaml,yml}", "k8s/deploy.yml", true),
            ("*.{yaml,yml}", "k8s/deploy.json", false),
            ("file?.[ch]", "file1.c", true),
            ("file?.[ch]", "file12.c", false),
            ("[!a]*", "abc", false),
            ("[!a]*", "bcd", true),
            ("**", "a/b/c", true),
            ("a*b*c", "axxbyyc", true),
            ("a*b*c", "axxbyy", false),
        ];
        for &(pattern, path, want) in cases {
            let glob = Glob::new(pattern).unwrap();
            assert_eq!(glob.matches(path), want, "{pattern} on {path}");
        }
        assert!(Glob::new("src/[a").is_err());
        assert!(Glob::new("*.{a,b").is_err());
    }

    /// Issue 43, hole 6: many `**` match in linear time, and as before.
    #[test]
    fn many_double_stars_match_at_once() {
        let pattern = format!("{}*.rs", "**/".repeat(12));
        let glob = Glob::new(&pattern).unwrap();
        let deep = format!("{}x.txt", "d/".repeat(20));
        let started = crate::tools::cpu_clock::CpuClock::start();
        assert!(!glob.matches(&deep));
        assert!(glob.matches(&format!("{}x.rs", "d/".repeat(20))));
        assert!(started.elapsed() < std::time::Duration::from_millis(100));
        let pattern = format!("{}z/**/y", "a/**/".repeat(12));
        let glob = Glob::new(&pattern).unwrap();
        let path = format!("{}b", "a/".repeat(40));
        assert!(!glob.matches(&path));
        assert!(Glob::new("a/**/b/**/c").unwrap().matches("a/b/c"));
        assert!(Glob::new("a/**/b/**/c").unwrap().matches("a/x/b/y/z/c"));
        assert!(!Glob::new("a/**/b/**/c").unwrap().matches("a/x/c/b"));
        assert!(Glob::new("**/**/x").unwrap().matches("x"));
    }
}
