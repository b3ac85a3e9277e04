//! A small glob matcher for `dirs`: `*` and `?` within one path segment,
//! `[abc]`, `[a-z]` and `[!x]` classes, `{a,b}` alternatives, and `**` for
//! any number of segments. A pattern without `/` matches the file name at
//! any depth (`*.go`); one with `/` matches the whole relative path
//! (`src/**/*.rs`).

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
                    segments.push(Segment::Any);
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

fn match_segments(segments: &[Segment], path: &[&str]) -> bool {
    match segments.split_first() {
        None => path.is_empty(),
        Some((Segment::Any, rest)) => {
            (0..=path.len()).any(|skip| match_segments(rest, &path[skip..]))
        }
        Some((Segment::Tokens(tokens), rest)) => match path.split_first() {
            Some((first, others)) => match_tokens(tokens, first) && match_segments(rest, others),
            None => false,
        },
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
}
