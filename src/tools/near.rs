//! "Did you mean …?": the name a model most likely meant, for a missing
//! key in `@json` and a missing file in either tool.

use std::io;
use std::path::Path;

use super::Located;

/// The key the model most likely meant: the same but for case, or at most
/// two edits away (one for short keys).
pub(crate) fn nearest<'a>(wanted: &str, keys: &'a [String]) -> Option<&'a String> {
    let lower = wanted.to_lowercase();
    if let Some(key) = keys.iter().find(|k| k.to_lowercase() == lower) {
        return Some(key);
    }
    let wanted: Vec<char> = lower.chars().collect();
    let limit = if wanted.len() <= 4 { 1 } else { 2 };
    keys.iter()
        .filter(|k| k.len() <= 64)
        .map(|k| {
            (
                edits(&wanted, &k.to_lowercase().chars().collect::<Vec<_>>()),
                k,
            )
        })
        .filter(|(n, _)| *n <= limit)
        .min_by_key(|(n, _)| *n)
        .map(|(_, k)| k)
}

/// Levenshtein distance (names are short: at most 64 characters).
fn edits(a: &[char], b: &[char]) -> usize {
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// The error for a file that does not exist, naming the nearest file in
/// the same directory when there is one (`src/mian.rs` → `src/main.rs`).
/// `shown` is the path as the caller gave it; the directory is listed
/// through the handle the walk ended on.
pub(crate) fn not_found(located: &Located, shown: &str) -> io::Error {
    let guess = (|| {
        let wanted = located.rel.file_name()?.to_str()?;
        let names = located.siblings();
        let best = nearest(wanted, &names)?;
        let shown = Path::new(shown);
        Some(match shown.parent() {
            Some(parent) if !parent.as_os_str().is_empty() => {
                parent.join(best).display().to_string()
            }
            _ => best.clone(),
        })
    })();
    match guess {
        Some(name) => io::Error::new(
            io::ErrorKind::NotFound,
            format!("no such file (did you mean `{name}`?)"),
        ),
        None => io::Error::new(io::ErrorKind::NotFound, "no such file or directory"),
    }
}
