//! A request's deadline, as the long loops of the tools see it.
//!
//! Why: a server answers "out of time" when a call's limit passes, but an
//! answer does not stop a thread. Without this, a 10,000-section patch or a
//! "did you mean" over 100,000 keys went on burning a core for minutes after
//! its client had been told it failed. The dispatcher sets the deadline on
//! the thread that runs the tool ([`scope`]); each long loop calls
//! [`Ticker::tick`] and returns its tool's "out of time" error once it has
//! passed, so the work ends soon after its answer.
//!
//! Why a thread-local and not a parameter: the tools' public functions
//! (`json::get`, `diff::apply`, …) are also called directly, with no
//! deadline; threading one through every signature would change each of
//! them for a concern only a server has. A call outside any scope never
//! expires.

use std::cell::Cell;
use std::time::Instant;

thread_local! {
    static DEADLINE: Cell<Option<Instant>> = const { Cell::new(None) };
}

/// While this guard lives, [`expired`] on this thread compares against
/// `deadline`; dropping it restores the deadline that was set before.
#[must_use = "the deadline holds only while the guard lives"]
pub(crate) struct Scope {
    previous: Option<Instant>,
}

/// Set this thread's deadline until the returned guard is dropped.
pub(crate) fn scope(deadline: Option<Instant>) -> Scope {
    let previous = DEADLINE.with(|cell| cell.replace(deadline));
    Scope { previous }
}

impl Drop for Scope {
    fn drop(&mut self) {
        DEADLINE.with(|cell| cell.set(self.previous));
    }
}

/// This thread's deadline (`None` outside any [`scope`]), for a library
/// that takes one itself (the `similar` crate's line diff).
pub(crate) fn current() -> Option<Instant> {
    DEADLINE.with(Cell::get)
}

/// Whether this thread's deadline has passed (never, outside a [`scope`]).
pub(crate) fn expired() -> bool {
    DEADLINE
        .with(Cell::get)
        .is_some_and(|deadline| Instant::now() >= deadline)
}

/// A cheap deadline check for a hot loop: the clock is read once every
/// `1 << SHIFT` ticks (a clock read costs about as much as a short loop's
/// body).
pub(crate) struct Ticker<const SHIFT: u32 = 10> {
    n: u32,
}

impl<const SHIFT: u32> Ticker<SHIFT> {
    pub(crate) const fn new() -> Self {
        Ticker { n: 0 }
    }

    /// `true` once the deadline has passed (checked every `1 << SHIFT` calls).
    pub(crate) fn tick(&mut self) -> bool {
        self.n = self.n.wrapping_add(1);
        self.n & ((1 << SHIFT) - 1) == 0 && expired()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_scope_sets_and_restores_the_deadline() {
        assert!(!expired());
        {
            let _outer = scope(Some(Instant::now() - Duration::from_millis(1)));
            assert!(expired());
            {
                let _inner = scope(None);
                assert!(!expired());
            }
            assert!(expired());
            let mut ticker = Ticker::<2>::new();
            assert_eq!(
                (0..4).map(|_| ticker.tick()).collect::<Vec<_>>(),
                [false, false, false, true]
            );
        }
        assert!(!expired());
    }

    /// Issue 26, hole 7: each tool's long loops see a passed deadline and
    /// return the tool's own "out of time" error at once, instead of
    /// working on after the caller was answered.
    #[test]
    fn the_tools_stop_past_the_deadline() {
        use crate::tools::Workspace;
        use crate::tools::diff::{self, DiffOptions};
        use crate::tools::json::{self, ErrorKind, Query, Source};

        let workspace = Workspace::new(std::env::temp_dir()).unwrap();
        // Two trees of 600 files for `diff dirs`.
        let trees = std::env::temp_dir().join(format!("argmend-deadline-{}", std::process::id()));
        for side in ["old", "new"] {
            std::fs::create_dir_all(trees.join(side)).unwrap();
            for i in 0..600 {
                std::fs::write(trees.join(side).join(format!("{i}.txt")), "x").unwrap();
            }
        }
        let tree_workspace = Workspace::new(&trees).unwrap();
        assert!(diff::diff_dirs(&tree_workspace, "old", "new", None).is_ok());
        let items: Vec<String> = (0..5_000).map(|i| format!(r#"{{"id":{i}}}"#)).collect();
        let text = format!("{{\"items\":[{}]}}", items.join(","));
        let members: Vec<String> = (0..5_000).map(|i| format!("\"k{i}\":{i}")).collect();
        let object = format!("{{{}}}", members.join(","));
        let lines: String = (0..5_000).map(|i| format!("{i}\n")).collect();
        let other: String = (0..5_000).map(|i| format!("{}\n", i * 7)).collect();
        let hunks: String = (1..=200)
            .map(|i| format!("@@ -{i},1 +{i},1 @@\n-{}\n+x\n", i - 1))
            .collect();
        let yaml: String = (0..5_000).map(|i| format!("k{i}: {i}\n")).collect();
        // Every call below answers at once without a deadline.
        assert!(json::get(&workspace, Source::Text(&text), "items[*].id").is_ok());

        let started = Instant::now();
        let _past = scope(Some(Instant::now()));
        let source = Source::Text(&text);
        let timed_out = |error: json::Error| {
            assert_eq!(error.kind(), ErrorKind::TimedOut, "{error}");
            assert!(error.to_string().starts_with("out of time"), "{error}");
        };
        timed_out(json::get(&workspace, source, "items[*].id").unwrap_err());
        timed_out(json::keys(&workspace, source, "items").unwrap_err());
        timed_out(json::keys(&workspace, Source::Text(&object), "").unwrap_err());
        let query = Query::new("id~7").path("items");
        timed_out(json::query(&workspace, source, &query).unwrap_err());
        timed_out(json::schema(&workspace, Source::Text(&object), 3).unwrap_err());
        timed_out(json::schema(&workspace, source, 3).unwrap_err());
        // YAML stops while it is read; the error says why.
        let error = json::get(&workspace, Source::Text(&yaml), "k1").unwrap_err();
        assert!(error.to_string().contains("out of time"), "{error}");

        let diff_timed_out = |error: diff::Error| {
            assert_eq!(error.kind(), diff::ErrorKind::TimedOut, "{error}");
            assert!(error.to_string().starts_with("out of time"), "{error}");
        };
        diff_timed_out(diff::apply_to(lines.as_bytes(), hunks.as_bytes()).unwrap_err());
        diff_timed_out(diff::diff_dirs(&tree_workspace, "old", "new", None).unwrap_err());
        let _ = std::fs::remove_dir_all(&trees);
        let error = diff::diff_text(&lines, &other, DiffOptions::default()).unwrap_err();
        diff_timed_out(error);
        let changed = text.replace(":1", ":2");
        diff_timed_out(diff::diff_json(&workspace, &text, &changed).unwrap_err());
        assert!(started.elapsed() < Duration::from_secs(1));
    }
}
