//! Issue 26, holes 6, 7 and 14b: work bounded by the request, not by the
//! worst a client can write. The total regex a `where` compiles, a patch's
//! many sections planned on one split of the file, exact number comparison
//! whatever the exponent, and calls that stop working once their time is up.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use argmend::tools::diff::{self, Mode};
use argmend::tools::json::{self, ErrorKind, Query, Source};
use argmend::{Dispatcher, ToolErrorKind};

use crate::rng::Rng;
use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

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

/// Hole 14b: numbers compare as exact decimals, exponents of any size.
#[test]
fn query_compares_numbers_exactly_whatever_the_exponent() {
    let workspace = TempDir::new().workspace();
    let text = r#"[
        {"id": 0, "n": 1e400},
        {"id": 1, "n": 100000000000000000000},
        {"id": 2, "n": 1e-400},
        {"id": 3, "n": 10e99999999999999999998},
        {"id": 4, "n": 0e99999999999999999999},
        {"id": 5, "n": -1E+400},
        {"id": 6, "n": 1.00000000000000000000001e20}
    ]"#;
    let ids = |filter: &str| -> Vec<usize> {
        let answer = json::query(&workspace, Source::Text(text), &Query::new(filter)).unwrap();
        answer.rows().iter().map(|row| row.index).collect()
    };
    assert_eq!(ids("n=10e399"), [0]);
    assert_eq!(ids("n=1e20"), [1]);
    assert_eq!(ids("n=100000000000000000000.0"), [1]);
    assert_eq!(ids("n=0.1e-399"), [2]);
    assert_eq!(ids("n=1e99999999999999999999"), [3]);
    assert_eq!(ids("n=1e99999999999999999998"), Vec::<usize>::new());
    assert_eq!(ids("n=0"), [4]);
    assert_eq!(ids("n=-0.0"), [4]);
    assert_eq!(ids("n=-10e399"), [5]);
    assert_eq!(ids("n=100000000000000000001"), Vec::<usize>::new());
    assert_eq!(ids("n=100000000000000000000.001"), [6]);
    assert_eq!(ids("n!=1e400").len(), 6);
}

/// Lists searched once per key made wide objects quadratic: an object of
/// 100,000 keys each written twice (duplicate notes), and the keys of
/// sampled objects in `schema`. Both are maps now.
#[test]
fn wide_objects_cost_linear_time() {
    let workspace = TempDir::new().workspace();
    let members: Vec<String> = (0..100_000).map(|i| format!(r#""k{i}":{i}"#)).collect();
    let twice = format!("{{{},{}}}", members.join(","), members.join(","));
    let once = format!("[{{{}}}]", members.join(","));
    let started = Instant::now();
    let keys = json::keys(&workspace, Source::Text(&twice), "").unwrap();
    assert_eq!(keys.entries().len(), 100_000);
    let schema = json::schema(&workspace, Source::Text(&once), 2).unwrap();
    assert!(schema.shapes().len() > 1000);
    let spent = started.elapsed();
    assert!(spent < Duration::from_secs(3), "{spent:?}");
}
