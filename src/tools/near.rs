//! "Did you mean …?": the name a model most likely meant, for a missing
//! key in `@json` and a missing file in either tool.

use std::io;
use std::path::Path;

use super::Located;
use super::deadline::Ticker;

/// The longest name, in characters, that gets a near (not exact) guess.
///
/// Why: the guess costs a comparison per candidate, each as long as both
/// names; a 10,000-character key against a 100,000-key object took over
/// a minute. Names a model mistypes are short; past this only a match but
/// for case is offered.
const MAX_NEAR: usize = 64;

/// The key the model most likely meant: the same but for case, or at most
/// two edits away (one for short keys).
///
/// The work is bounded in both lengths: a wanted name over [`MAX_NEAR`]
/// characters gets only a case-insensitive match, candidates over it and
/// those whose length differs by more than the edits allowed are skipped,
/// and the comparison stops as soon as it exceeds them. Past the call's
/// deadline there is no guess (it is only a hint).
pub(crate) fn nearest<'a>(wanted: &str, keys: &'a [String]) -> Option<&'a String> {
    let mut ticker = Ticker::<10>::new();
    let lower = wanted.to_lowercase();
    for key in keys {
        if ticker.tick() {
            return None;
        }
        if key.to_lowercase() == lower {
            return Some(key);
        }
    }
    let wanted: Vec<char> = lower.chars().collect();
    if wanted.len() > MAX_NEAR {
        return None;
    }
    let limit = if wanted.len() <= 4 { 1 } else { 2 };
    let mut best: Option<(usize, &String)> = None;
    let mut candidate = Vec::with_capacity(MAX_NEAR);
    for key in keys {
        if ticker.tick() {
            return None;
        }
        // Bytes first: a key of more than 4 bytes a character is not one.
        if key.len() > 4 * MAX_NEAR {
            continue;
        }
        candidate.clear();
        candidate.extend(key.chars().flat_map(char::to_lowercase));
        let Some(n) = edits_within(&wanted, &candidate, limit) else {
            continue;
        };
        if best.is_none_or(|(m, _)| n < m) {
            best = Some((n, key));
        }
    }
    best.map(|(_, key)| key)
}

/// The Levenshtein distance between `a` and `b` if it is at most `limit`.
///
/// Only the band of cells within `limit` of the diagonal is computed, and
/// the work stops once a whole row of the band exceeds it: at most
/// `a.len() × (2 × limit + 1)` cells, whatever the names.
fn edits_within(a: &[char], b: &[char], limit: usize) -> Option<usize> {
    if a.len().abs_diff(b.len()) > limit {
        return None;
    }
    const FAR: usize = usize::MAX / 2;
    let mut previous: Vec<usize> = (0..=b.len())
        .map(|j| if j <= limit { j } else { FAR })
        .collect();
    let mut row = vec![FAR; b.len() + 1];
    for (i, ca) in a.iter().enumerate() {
        let i = i + 1;
        let lo = i.saturating_sub(limit);
        let hi = (i + limit).min(b.len());
        let mut least = FAR;
        if lo == 0 {
            row[0] = i;
            least = i;
        } else {
            row[lo - 1] = FAR;
        }
        for j in lo.max(1)..=hi {
            let cell = (previous[j] + 1)
                .min(row[j - 1] + 1)
                .min(previous[j - 1] + usize::from(*ca != b[j - 1]));
            row[j] = cell;
            least = least.min(cell);
        }
        if hi < b.len() {
            row[hi + 1] = FAR;
        }
        if least > limit {
            return None;
        }
        std::mem::swap(&mut previous, &mut row);
    }
    Some(previous[b.len()]).filter(|&n| n <= limit)
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The full Levenshtein distance, the oracle of the banded one.
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

    #[test]
    fn the_band_agrees_with_the_full_distance() {
        let words = [
            "", "a", "ab", "ba", "abc", "acb", "name", "nmae", "names", "nam", "status", "statsu",
            "stauts", "xstatus", "statusxx", "kitten", "sitting", "aaaa", "aaab", "baaa",
        ];
        for a in words {
            for b in words {
                let (x, y): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
                let full = edits(&x, &y);
                for limit in 0..4 {
                    let want = (full <= limit).then_some(full);
                    assert_eq!(edits_within(&x, &y, limit), want, "{a:?} {b:?} {limit}");
                }
            }
        }
    }

    #[test]
    fn guesses_stay_as_they_were() {
        let keys: Vec<String> = ["items", "Name", "status", "id"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(nearest("item", &keys).map(String::as_str), Some("items"));
        assert_eq!(nearest("NAME", &keys).map(String::as_str), Some("Name"));
        assert_eq!(nearest("stauts", &keys).map(String::as_str), Some("status"));
        assert_eq!(nearest("xyz", &keys), None);
    }

    /// Issue 26, hole 7: a 10,000-character key against 100,000 keys took
    /// over a minute; now the long key gets only a case-insensitive match,
    /// and the near search skips keys of another length without comparing.
    #[test]
    fn a_long_key_against_many_keys_is_cheap() {
        let keys: Vec<String> = (0..100_000).map(|n| format!("key_{n:06}")).collect();
        let long = "k".repeat(10_000);
        let started = crate::tools::cpu_clock::CpuClock::start();
        assert_eq!(nearest(&long, &keys), None);
        // 64 characters wanted, every key 10: no comparison at all.
        assert_eq!(nearest(&"k".repeat(64), &keys), None);
        assert_eq!(
            nearest("key_00001", &keys).map(String::as_str),
            Some("key_000001")
        );
        let spent = started.elapsed();
        assert!(spent.as_secs_f64() < 2.0, "{spent:?}");
        let mut long_keys = keys.clone();
        long_keys.push(long.to_uppercase());
        assert_eq!(nearest(&long, &long_keys), long_keys.last());
    }

    #[test]
    fn no_guess_past_the_deadline() {
        let keys: Vec<String> = (0..5_000).map(|n| format!("key_{n:06}")).collect();
        assert!(nearest("key_00001", &keys).is_some());
        let _past = super::super::deadline::scope(Some(std::time::Instant::now()));
        assert_eq!(nearest("key_00001", &keys), None);
    }
}
