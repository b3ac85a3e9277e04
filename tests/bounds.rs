//! Issue 26: work bounded by the request, not by the worst a client can
//! write.

use std::time::{Duration, Instant};

use argmend::tools::json::{self, ErrorKind, Query, Source};

use crate::support::TempDir;

/// Hole 6: 600 clauses `x~a{150000}` compiled about 4 GB of regex in 7 to
/// 17 s. The patterns now share one budget, so the request is refused at
/// once, naming the limit.
#[test]
fn a_where_of_many_huge_patterns_is_refused_at_once() {
    let workspace = TempDir::new().workspace();
    let filter = vec!["x~a{150000}"; 600].join(" && ");
    assert!(filter.len() < 10_000);
    let started = Instant::now();
    let error = json::query(
        &workspace,
        Source::Text(r#"[{"x":"a"}]"#),
        &Query::new(&filter),
    )
    .unwrap_err();
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(error.kind(), ErrorKind::InvalidRegex);
    let message = error.to_string();
    assert!(
        message.contains("600 `~` patterns of one `where` share 32 MiB"),
        "{message}"
    );
    // A few ordinary patterns keep the regex crate's usual room.
    let text = r#"[{"x":"web-1","y":"é"},{"x":"db","y":"e"}]"#;
    let query = Query::new(r"x~^\w+-\d{1,3}$ && y~\p{L}{1,50}");
    let answer = json::query(&workspace, Source::Text(text), &query).unwrap();
    assert_eq!(answer.n_matched(), 1, "{answer}");
}
