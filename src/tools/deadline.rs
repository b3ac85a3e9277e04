//! A call's stop signal, as the long loops of the tools see it.
//!
//! Why: a server answers "out of time" when a call's limit passes, but an
//! answer does not stop a thread. Without this, a 10,000-section patch or a
//! "did you mean" over 100,000 keys went on burning a core for minutes after
//! its client had been told it failed (issue 26), and work a client had
//! cancelled, or that nobody could read any more, ran to its end (issue 43).
//! The dispatcher sets the call's [`CancelToken`] on the thread that runs
//! the tool ([`scope_token`]); each long loop calls [`Ticker::tick`] (or
//! [`expired`]) and returns its tool's "out of time" error once the token has
//! tripped, so the work ends soon after its answer.
//!
//! One token carries everything that can end a call: its deadline, and a
//! flag that its owner trips (an MCP `notifications/cancelled`) or that a
//! parent's flag trips (a server's session token, tripped when the client
//! has gone). A loop asks one question, "has it expired?", whatever the
//! reason.
//!
//! Why a thread-local and not a parameter: the tools' public functions
//! (`json::get`, `diff::apply`, …) are also called directly, with no
//! deadline; threading one through every signature would change each of
//! them for a concern only a server has. A call outside any scope never
//! expires.

use std::cell::RefCell;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

/// When a tool call must stop: a deadline, a flag anyone holding a clone can
/// trip, and the flags of the tokens it was made from.
///
/// A server gives each call a token (its deadline counted from when the
/// request was read, so work that waited past it is refused without
/// starting), trips it when the client cancels the call, and makes it a
/// [`child`](Self::child) of a token for the whole session, which it trips
/// when the client has gone. [`Dispatcher::run_with`](crate::Dispatcher::run_with)
/// runs a call under one; the tools' long loops check it.
///
/// ```
/// use std::time::{Duration, Instant};
/// use argmend::CancelToken;
///
/// let session = CancelToken::new();
/// let call = session.child(Some(Instant::now() + Duration::from_secs(30)));
/// assert!(!call.is_expired());
/// session.cancel(); // the client has gone: every call of the session ends
/// assert!(call.is_cancelled() && call.is_expired());
/// let late = CancelToken::with_deadline(Instant::now());
/// assert!(late.is_expired() && !late.is_cancelled());
/// ```
#[derive(Debug, Clone, Default)]
pub struct CancelToken {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    /// The earlier of its own deadline and its parent's.
    deadline: Option<Instant>,
    parent: Option<CancelToken>,
}

impl CancelToken {
    /// A token with no deadline, expired only once cancelled.
    pub fn new() -> Self {
        Self::default()
    }

    /// A token that expires at `deadline` (or when cancelled before).
    pub fn with_deadline(deadline: Instant) -> Self {
        CancelToken {
            inner: Arc::new(Inner {
                deadline: Some(deadline),
                ..Inner::default()
            }),
        }
    }

    /// A token cancelled with this one (not the other way round), expiring
    /// at the earlier of this one's deadline and `deadline`.
    pub fn child(&self, deadline: Option<Instant>) -> Self {
        let deadline = match (self.inner.deadline, deadline) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        };
        CancelToken {
            inner: Arc::new(Inner {
                cancelled: AtomicBool::new(false),
                deadline,
                parent: Some(self.clone()),
            }),
        }
    }

    /// Trip the flag: every loop that checks this token (or a child of it)
    /// stops at its next check.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Release);
    }

    /// Whether this token, or one it was made from, was cancelled.
    pub fn is_cancelled(&self) -> bool {
        let mut token = self;
        loop {
            if token.inner.cancelled.load(Ordering::Acquire) {
                return true;
            }
            match &token.inner.parent {
                Some(parent) => token = parent,
                None => return false,
            }
        }
    }

    /// The deadline (the earliest along its parents), if any.
    pub fn deadline(&self) -> Option<Instant> {
        self.inner.deadline
    }

    /// Whether the work must stop: cancelled, or past the deadline.
    pub fn is_expired(&self) -> bool {
        self.is_cancelled() || self.inner.deadline.is_some_and(|d| Instant::now() >= d)
    }

    /// The token of the call running on this thread, for a [`Tool`](crate::Tool)
    /// of your own with a long loop (`None` outside a dispatcher's call).
    pub fn current() -> Option<CancelToken> {
        TOKEN.with(|cell| cell.borrow().clone())
    }
}

thread_local! {
    static TOKEN: RefCell<Option<CancelToken>> = const { RefCell::new(None) };
}

/// While this guard lives, [`expired`] on this thread asks its token;
/// dropping it restores the token that was set before.
#[must_use = "the deadline holds only while the guard lives"]
pub(crate) struct Scope {
    previous: Option<CancelToken>,
}

/// Set this thread's token until the returned guard is dropped.
pub(crate) fn scope_token(token: Option<CancelToken>) -> Scope {
    let previous = TOKEN.with(|cell| cell.replace(token));
    Scope { previous }
}

/// Set a plain deadline as this thread's token until the guard is dropped
/// (the tests' way to put a tool past its deadline).
#[cfg_attr(not(test), allow(dead_code))]
pub(crate) fn scope(deadline: Option<Instant>) -> Scope {
    scope_token(deadline.map(CancelToken::with_deadline))
}

impl Drop for Scope {
    fn drop(&mut self) {
        let previous = self.previous.take();
        TOKEN.with(|cell| cell.replace(previous));
    }
}

/// This thread's deadline (`None` outside any [`scope`]), for a library
/// that takes one itself (the `similar` crate's line diff).
pub(crate) fn current() -> Option<Instant> {
    TOKEN.with(|cell| cell.borrow().as_ref().and_then(CancelToken::deadline))
}

/// Whether this thread's token has expired: cancelled, or past its
/// deadline (never, outside a [`scope`]).
pub(crate) fn expired() -> bool {
    TOKEN.with(|cell| cell.borrow().as_ref().is_some_and(CancelToken::is_expired))
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
        // Issue 43: the search for repeated keys of `validate` stops too.
        let wide: String = (0..5_000).map(|i| format!("\"k{i}\":[{i}],")).collect();
        let wide = format!("{{{}\"end\":0}}", wide);
        timed_out(json::validate(&workspace, Source::Text(&wide)).unwrap_err());
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
