//! Names as the file systems that fold them read them: the protected
//! version-control directories, and the entries git looks for in a
//! repository, compared after the same folding.
//!
//! Why fold at all: a workspace may sit on a file system that ignores case
//! (macOS, Windows, a casefolded ext4 directory), some characters (HFS+
//! drops zero-width joiners), or trailing dots and spaces (NTFS). There,
//! `.GIT`, `.g\u{200c}it` and `.git.` are the directory `.git`. Git itself
//! refuses the same spellings (`core.protectHFS`, `core.protectNTFS`).

use caseless::Caseless;
use unicode_normalization::UnicodeNormalization;

/// `name` as a file system that folds names might compare it: the
/// characters HFS+ ignores dropped, Unicode's compatibility case folding
/// applied (`ſ` is `s`, the full-width `．ｇ` are `.g`), the Turkish dotless
/// `ı` taken as `i` (NTFS upcases it to `I`), an NTFS stream suffix
/// (`:$DATA`) cut, and trailing dots and spaces trimmed (NTFS drops them).
pub(crate) fn fold(name: &str) -> String {
    let mut folded: String = if name.is_ascii() {
        name.to_ascii_lowercase()
    } else {
        // Compatibility caseless matching (Unicode 3.13, D146): case
        // folding alone leaves `ｇ` full-width and `ﬁ` a ligature.
        name.chars()
            .filter(|c| !is_ignorable(*c))
            .nfd()
            .default_case_fold()
            .nfkd()
            .default_case_fold()
            .nfkd()
            .filter(|c| !is_ignorable(*c))
            .map(|c| if c == 'ı' { 'i' } else { c })
            .collect()
    };
    if let Some(colon) = folded.find(':') {
        folded.truncate(colon);
    }
    let kept = folded.trim_end_matches(['.', ' ']).len();
    folded.truncate(kept);
    folded
}

/// Whether a name, folded, is version-control metadata: one of
/// [`PROTECTED_DIRS`](super::PROTECTED_DIRS), or `GIT~1` (the short name
/// Windows gives `.git`).
pub(crate) fn is_protected_name(name: &str) -> bool {
    let folded = fold(name);
    super::PROTECTED_DIRS.contains(&folded.as_str()) || folded == "git~1"
}

/// The code points HFS+ ignores in names (git's list for `protectHFS`),
/// with the byte-order mark and the soft hyphen.
fn is_ignorable(c: char) -> bool {
    matches!(c,
        '\u{200B}'..='\u{200F}'
        | '\u{202A}'..='\u{202E}'
        | '\u{206A}'..='\u{206F}'
        | '\u{FEFF}'
        | '\u{00AD}'
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookalikes_fold_to_the_names_they_imitate() {
        for name in [
            ".git",
            ".GIT",
            ".g\u{200c}it",
            "\u{feff}.git",
            ".git.",
            ".git . ",
            ".git::$INDEX_ALLOCATION",
            ".gıt",
            ".GİT".replace('İ', "I").as_str(),
            "\u{ff0e}git",
            "\u{ff0e}\u{ff27}\u{ff29}\u{ff34}",
            ".ſvn",
            ".svn",
            ".Hg",
            ".jJ",
            "GIT~1",
            "git~1.",
        ] {
            assert!(is_protected_name(name), "{name:?}");
        }
        for name in [
            ".github",
            "git",
            ".gitignore",
            "a.git",
            ".gi",
            "svn",
            ".g-it",
        ] {
            assert!(!is_protected_name(name), "{name:?}");
        }
        assert_eq!(fold("ＨＥＡＤ"), "head");
        assert_eq!(fold("Objects."), "objects");
    }
}
