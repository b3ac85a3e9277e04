//! What a model does with an excerpt: an edit of it (a line changed, a
//! line of the same file added, or a line removed), or a shell command
//! built from its text (`grep`, `sed`, `python3 -c`, `echo`, a heredoc).

use super::sources::Excerpt;
use crate::rng::Rng;

/// The shell command's form.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Form {
    Grep,
    Sed,
    PythonC,
    Echo,
    Heredoc,
}

impl Form {
    const ALL: [Form; 5] = [
        Form::Grep,
        Form::Sed,
        Form::PythonC,
        Form::Echo,
        Form::Heredoc,
    ];

    pub(super) fn name(self) -> &'static str {
        match self {
            Form::Grep => "grep -n \"…\" file",
            Form::Sed => "sed -i 's/\"…\"/\"…\"/'",
            Form::PythonC => "python3 -c \"…\"",
            Form::Echo => "echo \"…\" >> out.txt",
            Form::Heredoc => "cat > file << 'EOF'",
        }
    }
}

/// The phrases between two double quotes on one line of the excerpt: at
/// most 60 bytes, with a letter or digit (a `", "` is nothing to grep for).
fn quoted_phrases(lines: &[String]) -> Vec<&str> {
    let mut phrases = Vec::new();
    for line in lines {
        let quotes: Vec<usize> = line.match_indices('"').map(|(at, _)| at).collect();
        for pair in quotes.chunks_exact(2) {
            let phrase = &line[pair[0] + 1..pair[1]];
            if phrase.chars().any(char::is_alphanumeric) && phrase.len() <= 60 {
                phrases.push(phrase);
            }
        }
    }
    phrases
}

/// The identifiers of a text: letters, digits and `_`, at least three,
/// starting with a letter.
fn words(text: &str) -> Vec<(usize, &str)> {
    let mut words = Vec::new();
    let mut start = None;
    for (at, c) in text.char_indices().chain([(text.len(), ' ')]) {
        let is_word = c.is_ascii_alphanumeric() || c == '_';
        match (start, is_word) {
            (None, true) => start = Some(at),
            (Some(s), false) => {
                let word = &text[s..at];
                if word.len() >= 3 && word.starts_with(|c: char| c.is_ascii_alphabetic()) {
                    words.push((s, word));
                }
                start = None;
            }
            _ => {}
        }
    }
    words
}

/// A word renamed as an edit might: a suffix, or the first letter's case swapped.
fn renamed(rng: &mut Rng, word: &str) -> String {
    match rng.below(3) {
        0 => format!("{word}_new"),
        1 => format!("{word}2"),
        _ => {
            let mut chars = word.chars();
            let first = chars.next().expect("a word is not empty");
            let swapped = if first.is_ascii_uppercase() {
                first.to_ascii_lowercase()
            } else {
                first.to_ascii_uppercase()
            };
            format!("{swapped}{}", chars.as_str())
        }
    }
}

/// The line changed: a word renamed (inside a quoted phrase when it has
/// one, half the time), or, without a word, indented further.
fn changed_line(rng: &mut Rng, line: &str) -> String {
    let words = words(line);
    let in_quotes: Vec<(usize, &str)> = {
        let quotes: Vec<usize> = line.match_indices('"').map(|(at, _)| at).collect();
        words
            .iter()
            .copied()
            .filter(|&(at, _)| {
                quotes
                    .chunks_exact(2)
                    .any(|pair| pair[0] < at && at < pair[1])
            })
            .collect()
    };
    let pool = if !in_quotes.is_empty() && rng.chance(50) {
        &in_quotes
    } else {
        &words
    };
    match pool.is_empty() {
        true => format!("    {line}"),
        false => {
            let (at, word) = *rng.pick(pool);
            format!(
                "{}{}{}",
                &line[..at],
                renamed(rng, word),
                &line[at + word.len()..]
            )
        }
    }
}

/// A line index of `lines`, preferring lines with a double quote half the time.
fn some_line(rng: &mut Rng, lines: &[String]) -> usize {
    let quoted: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].contains('"'))
        .collect();
    if !quoted.is_empty() && rng.chance(50) {
        return *rng.pick(&quoted);
    }
    let filled: Vec<usize> = (0..lines.len())
        .filter(|&i| !lines[i].trim().is_empty())
        .collect();
    *rng.pick(&filled)
}

/// The old and new text of an edit: the excerpt, and the excerpt with a
/// line changed, a line of the same file added, or a line removed.
pub(super) fn edit_pair(rng: &mut Rng, excerpt: &Excerpt) -> (String, String) {
    let old = excerpt.text();
    let mut lines = excerpt.lines.clone();
    let choice = rng.below(100);
    if choice < 45 || (choice >= 75 && lines.len() < 2) {
        let i = some_line(rng, &lines);
        lines[i] = changed_line(rng, &lines[i]);
    } else if choice < 75 {
        let added = excerpt.line_elsewhere(rng);
        let at = rng.below(lines.len() + 1);
        lines.insert(at, added);
    } else {
        let i = some_line(rng, &lines);
        lines.remove(i);
    }
    (old, lines.join("\n"))
}

/// A trimmed line of the excerpt that a command could carry: one with a
/// word (a lone `}` is no line to grep for or run), with a double quote
/// half the time when there is one.
fn command_line<'a>(rng: &mut Rng, lines: &'a [String]) -> Option<&'a str> {
    let telling: Vec<&str> = lines
        .iter()
        .map(|l| l.trim())
        .filter(|l| !words(l).is_empty())
        .collect();
    let quoted: Vec<&str> = telling
        .iter()
        .copied()
        .filter(|l| l.contains('"'))
        .collect();
    if !quoted.is_empty() && rng.chance(50) {
        return Some(*rng.pick(&quoted));
    }
    (!telling.is_empty()).then(|| *rng.pick(&telling))
}

/// A shell command built from the excerpt, with the form it took. An
/// excerpt without a line that has a word is written with a heredoc.
pub(super) fn shell_command(rng: &mut Rng, excerpt: &Excerpt) -> (String, Form) {
    let path = &excerpt.file;
    let phrases = quoted_phrases(&excerpt.lines);
    let mut form = *rng.pick(&Form::ALL);
    let line = command_line(rng, &excerpt.lines).unwrap_or_else(|| {
        form = Form::Heredoc;
        ""
    });
    let command = match form {
        Form::Grep => {
            let phrase = match phrases.is_empty() {
                true => line.to_owned(),
                false => (*rng.pick(&phrases)).to_owned(),
            };
            format!("grep -n \"{phrase}\" {path}")
        }
        Form::Sed => {
            let (old, new) = match phrases.is_empty() {
                true => {
                    let words = words(line);
                    let word = match words.is_empty() {
                        true => "TODO".to_owned(),
                        false => rng.pick(&words).1.to_owned(),
                    };
                    (word.clone(), renamed(rng, &word))
                }
                false => {
                    let phrase = *rng.pick(&phrases);
                    (
                        format!("\"{phrase}\""),
                        format!("\"{}\"", changed_line(rng, phrase)),
                    )
                }
            };
            let separator = if old.contains('/') || new.contains('/') {
                '|'
            } else {
                '/'
            };
            format!("sed -i 's{separator}{old}{separator}{new}{separator}' {path}")
        }
        Form::PythonC => format!("python3 -c \"{line}\""),
        Form::Echo => format!("echo \"{line}\" >> out.txt"),
        Form::Heredoc => {
            let delimiter = rng.pick(&["'EOF'", "EOF"]);
            format!("cat > {path} << {delimiter}\n{}\nEOF", excerpt.text())
        }
    };
    (command, form)
}
