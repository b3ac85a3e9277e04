//! `argmend serve` under bad input and load (issue 14): every line gets one
//! answer with the id it carries, and pipelined work runs in bounded memory.

use std::io::Write;
use std::process::{Command, Stdio};

use serde_json::{Value, json};

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

/// Run `serve` in `dir` on `input` (under `limit`, a shell `ulimit -v` in
/// KB, when given); the answers by id, and the exit status.
fn serve(dir: &TempDir, input: &[u8], limit: Option<u64>) -> (Vec<Value>, bool) {
    let script = match limit {
        Some(kb) => format!("ulimit -v {kb} && exec {BIN} serve"),
        None => format!("exec {BIN} serve"),
    };
    let mut child = Command::new("sh")
        .args(["-c", &script])
        .current_dir(dir.path())
        // One malloc arena: the address-space limit then measures the heap,
        // not per-thread arena reservations.
        .env("MALLOC_ARENA_MAX", "1")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_vec();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(&input);
    });
    let output = child.wait_with_output().unwrap();
    writer.join().unwrap();
    let answers = String::from_utf8_lossy(&output.stdout)
        .lines()
        .map(|line| serde_json::from_str(line).unwrap())
        .collect();
    (answers, output.status.success())
}

#[test]
fn every_line_gets_one_answer_with_its_id() {
    let dir = TempDir::new();
    dir.write("a.json", "{\"a\": [1, 2]}");
    let mut input = Vec::new();
    input.extend_from_slice(b"{\"id\": 1, \"tool\": \"@json\", \"args\": \"\xff\"}\n");
    input.extend_from_slice(b"{\"id\": 2, \"args\": {}}\n");
    input.extend_from_slice(b"{\"id\": 3, \"tool\": \n");
    input.extend_from_slice(b"garbage\n");
    input.extend_from_slice(
        b"{\"id\": 4, \"tool\": \"json\", \"args\": \"get a.json --path a[1]\"}\n",
    );
    input.extend_from_slice(b"{\"id\": 5, \"tool\": \"diff\", \"args\": {\"cmd\": \"text\", \"args\": {\"a\": \"x\\n\", \"b\": \"y\\n\"}}}\n");
    let (answers, ok) = serve(&dir, &input, None);
    assert!(ok);
    assert_eq!(answers.len(), 6, "{answers:?}");
    let by_id = |id: Value| {
        answers
            .iter()
            .find(|a| a["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no answer for {id}: {answers:?}"))
    };
    assert!(
        by_id(json!(1))["error"]
            .as_str()
            .unwrap()
            .contains("not valid UTF-8")
    );
    assert!(
        by_id(json!(2))["error"]
            .as_str()
            .unwrap()
            .contains("needs \"tool\"")
    );
    assert!(
        by_id(json!(3))["error"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
    assert!(
        by_id(Value::Null)["error"]
            .as_str()
            .unwrap()
            .contains("not JSON")
    );
    assert_eq!(by_id(json!(4))["output"], "2\n");
    assert_eq!(by_id(json!(5))["ok"], true);
}

/// 40 pipelined `get`s on a 3 MB file within 160 MB of address space: a
/// thread per request held every file at once (4.7 GB for 400 on 15 MB).
#[test]
fn pipelined_requests_run_in_bounded_memory() {
    let dir = TempDir::new();
    let items: Vec<String> = (0..30_000)
        .map(|i| format!("{{\"id\": {i}, \"pad\": \"{}\"}}", "p".repeat(80)))
        .collect();
    dir.write("big.json", format!("{{\"items\": [{}]}}", items.join(",")));
    let mut input = String::new();
    for i in 0..40 {
        input.push_str(&format!(
            "{{\"id\": {i}, \"tool\": \"@json\", \"args\": {{\"cmd\": \"get\", \"args\": {{\"file\": \"big.json\", \"path\": \"items[{i}].id\"}}}}}}\n"
        ));
    }
    let (answers, ok) = serve(&dir, input.as_bytes(), Some(160_000));
    assert!(ok, "{answers:?}");
    assert_eq!(answers.len(), 40);
    for answer in &answers {
        assert_eq!(answer["output"], format!("{}\n", answer["id"]), "{answer}");
    }
}

/// Issue 26, hole 13, `serve`'s side (it held already; kept so): a request
/// with a readable id and a bad shape is refused with that id, a
/// fractional id is echoed, and two requests with one id are each answered.
#[test]
fn refusals_carry_the_id_and_duplicate_ids_are_each_answered() {
    let dir = TempDir::new();
    dir.write("a.json", "{\"a\": [1, 2]}");
    let input = concat!(
        "{\"id\": 1.5, \"tool\": 5}\n",
        "{\"jsonrpc\": \"1.0\", \"id\": \"x\", \"method\": \"tools/list\"}\n",
        "{\"id\": 3, \"tool\": \"@json\", \"args\": \n",
        "{\"id\": 7, \"tool\": \"@json\", \"args\": \"get --file a.json --path a[0]\"}\n",
        "{\"id\": 7, \"tool\": \"@json\", \"args\": \"get --file a.json --path a[1]\"}\n",
    );
    let (answers, ok) = serve(&dir, input.as_bytes(), None);
    assert!(ok);
    assert_eq!(answers.len(), 5, "{answers:?}");
    let ids: Vec<&Value> = answers.iter().map(|a| &a["id"]).collect();
    for id in [json!(1.5), json!("x"), json!(3)] {
        assert!(ids.contains(&&id), "no answer for {id}: {answers:?}");
    }
    let mut sevens: Vec<&Value> = answers
        .iter()
        .filter(|a| a["id"] == 7)
        .map(|a| &a["output"])
        .collect();
    sevens.sort_by_key(|output| output.to_string());
    assert_eq!(sevens, [&json!("1\n"), &json!("2\n")]);
}
