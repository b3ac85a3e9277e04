//! Issue 13, `@json`'s part: one rule for duplicate keys in every verb,
//! the YAML real files are written in (several documents, merge keys, big
//! integers, `.inf`), YAML read in memory near its size, and capped answers
//! that keep their counts.

use argmend::tools::json::{self, Layout, Query, Source};

use crate::support::TempDir;

const BIN: &str = env!("CARGO_BIN_EXE_argmend");

#[test]
fn duplicate_keys_take_the_last_value_in_every_verb_and_say_so() {
    let workspace = TempDir::new().workspace();
    let text = r#"{"a": 1, "b": {"x": 1}, "a": 2, "items": [{"id": 1, "id": 7}]}"#;
    let source = Source::Text(text);
    let warns = |answer: &str| {
        assert!(
            answer.contains("appears more than once") && answer.contains("the last one is used"),
            "{answer}"
        )
    };
    // get: the last `a`, as jq and JSON.parse.
    let got = json::get(&workspace, source, "a").unwrap();
    assert_eq!(got.matches()[0].json, "2");
    warns(&got.to_string());
    assert!(got.to_string().contains("the key `a`"), "{got}");
    // get through `*`: each key once, with its last value.
    let got = json::get(&workspace, source, "*").unwrap();
    let paths: Vec<_> = got
        .matches()
        .iter()
        .map(|m| (m.path.as_str(), m.json.as_str()))
        .collect();
    assert_eq!(paths[0], ("a", "2"));
    assert_eq!(paths.len(), 3, "{paths:?}");
    // keys: listed once; the count agrees.
    let keys = json::keys(&workspace, source, "").unwrap();
    assert_eq!(keys.summary(), "object{3}");
    assert_eq!(keys.entries().len(), 3);
    warns(&keys.to_string());
    // query: the element's last `id`.
    let matched = json::query(&workspace, source, &Query::new("id=7").path("items")).unwrap();
    assert_eq!(matched.n_matched(), 1);
    warns(&matched.to_string());
    let matched = json::query(&workspace, source, &Query::new("id=1").path("items")).unwrap();
    assert_eq!(matched.n_matched(), 0);
    // schema: one line per key.
    let schema = json::schema(&workspace, source, 3).unwrap();
    assert_eq!(schema.shapes().iter().filter(|s| s.path == "a").count(), 1);
    warns(&schema.to_string());
    // validate and pretty: valid JSON, with the warning.
    let valid = json::validate(&workspace, source).unwrap();
    assert!(valid.is_valid());
    assert!(
        valid
            .to_string()
            .contains("the other verbs use the last one"),
        "{valid}"
    );
    let pretty = json::pretty(&workspace, source, Layout::Compact).unwrap();
    assert!(
        pretty.to_string().contains("`pretty` keeps every copy"),
        "{pretty}"
    );
    // No duplicates, no note.
    let clean = json::get(&workspace, Source::Text(r#"{"a": 1, "b": 2}"#), "a").unwrap();
    assert!(clean.notes().is_empty());
    assert_eq!(clean.to_string(), "1\n");
}

#[test]
fn multi_document_yaml_is_an_array_of_its_documents() {
    let dir = TempDir::new();
    let manifest = "---\napiVersion: v1\nkind: Service\nmetadata:\n  name: web\n---\n\
                    apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: web\nspec:\n  replicas: 3\n---\n";
    dir.write("k8s.yaml", manifest.as_bytes());
    let workspace = dir.workspace();
    let source = Source::File("k8s.yaml".as_ref());
    let got = json::get(&workspace, source, "[1].spec.replicas").unwrap();
    assert_eq!(got.matches()[0].json, "3");
    assert!(got.to_string().contains("2 documents"), "{got}");
    let valid = json::validate(&workspace, source).unwrap();
    assert!(valid.is_valid(), "{valid}");
    assert!(valid.to_string().contains("2 documents"), "{valid}");
    let kinds = json::get(&workspace, source, "[*].kind").unwrap();
    let kinds: Vec<_> = kinds.matches().iter().map(|m| m.json.as_str()).collect();
    assert_eq!(kinds, ["\"Service\"", "\"Deployment\""]);
    // One document is read as itself, with no note.
    let one = json::get(&workspace, Source::Text("a: 1\nb: [x]\n"), "b[0]").unwrap();
    assert_eq!(one.to_string(), "\"x\"\n");
}

#[test]
fn yaml_merge_keys_are_applied() {
    let text = "defaults: &defaults\n  adapter: postgres\n  host: localhost\n\
                development:\n  <<: *defaults\n  database: dev\n  host: db.local\n";
    let workspace = TempDir::new().workspace();
    let keys = json::keys(&workspace, Source::Text(text), "development").unwrap();
    let names: Vec<_> = keys.entries().iter().map(|e| e.key.as_str()).collect();
    assert_eq!(names, ["database", "host", "adapter"]);
    let host = json::get(&workspace, Source::Text(text), "development.host").unwrap();
    assert_eq!(host.to_string(), "\"db.local\"\n");
    let adapter = json::get(&workspace, Source::Text(text), "development.adapter").unwrap();
    assert_eq!(adapter.to_string(), "\"postgres\"\n");
}

#[test]
fn yaml_numbers_stay_exact_and_non_finite_ones_are_noted() {
    let workspace = TempDir::new().workspace();
    let text = "big: 18446744073709551616\nneg: -170141183460469231731687303715884105729\n\
                pi: 3.14159265358979323846264338327950288\nhex: 0xFF\ninf: .inf\nnan: .NaN\n";
    let big = json::get(&workspace, Source::Text(text), "big").unwrap();
    assert_eq!(big.matches()[0].json, "18446744073709551616");
    let neg = json::get(&workspace, Source::Text(text), "neg").unwrap();
    assert_eq!(
        neg.matches()[0].json,
        "-170141183460469231731687303715884105729"
    );
    let pi = json::get(&workspace, Source::Text(text), "pi").unwrap();
    assert_eq!(
        pi.matches()[0].json,
        "3.14159265358979323846264338327950288"
    );
    let hex = json::get(&workspace, Source::Text(text), "hex").unwrap();
    assert_eq!(hex.matches()[0].json, "255");
    let inf = json::get(&workspace, Source::Text(text), "inf").unwrap();
    assert_eq!(inf.matches()[0].json, "null");
    assert!(
        inf.to_string()
            .contains("2 `.inf`/`.nan` values read as null"),
        "{inf}"
    );
    assert!(
        json::validate(&workspace, Source::Text(text))
            .unwrap()
            .is_valid()
    );
}

#[test]
fn invalid_yaml_says_where() {
    let dir = TempDir::new();
    dir.write("bad.yaml", b"a: 1\nb: [1, 2\nc: 3\n");
    let workspace = dir.workspace();
    let valid = json::validate(&workspace, Source::File("bad.yaml".as_ref())).unwrap();
    let error = valid.error().unwrap();
    assert!(error.line >= 2, "{error:?}");
    assert!(valid.to_string().starts_with("invalid YAML: "), "{valid}");
    // An alias bomb is refused, not expanded.
    let mut bomb = String::from("a: &a [x, x, x, x, x, x, x, x, x, x]\n");
    for n in 1..10u8 {
        let (prev, name) = ((b'a' + n - 1) as char, (b'a' + n) as char);
        bomb.push_str(&format!(
            "{name}: &{name} [{}]\n",
            vec![format!("*{prev}"); 10].join(", ")
        ));
    }
    let error = json::get(&workspace, Source::Text(&bomb), "a").unwrap_err();
    assert!(error.to_string().contains("alias bomb"), "{error}");
}

/// A 4 MB YAML file is read by the CLI within 60 MB of address space (the
/// process itself takes about 20): a value tree used to cost 38× the file.
#[test]
fn yaml_is_read_in_memory_near_its_size() {
    let dir = TempDir::new();
    let mut yaml = String::from("items:\n");
    let mut i = 0;
    while yaml.len() < 4_000_000 {
        yaml.push_str(&format!(
            "  - id: {i}\n    name: web-{i}\n    status: ok\n    tags: [a, b]\n    meta:\n      owner: team-{}\n",
            i % 13
        ));
        i += 1;
    }
    dir.write("big.yaml", yaml.as_bytes());
    let script =
        format!("ulimit -v 60000 && exec {BIN} json get --file big.yaml --path 'items[-1].id'");
    let output = std::process::Command::new("sh")
        .arg("-c")
        .arg(&script)
        .current_dir(dir.path())
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&output.stdout).trim(),
        (i - 1).to_string()
    );
}

#[test]
fn a_capped_query_keeps_its_count_and_tells_the_true_size() {
    let items: Vec<String> = (0..300)
        .map(|i| format!(r#"{{"id": {i}, "blob": "{}"}}"#, "x".repeat(400)))
        .collect();
    let doc = format!("[{}]", items.join(","));
    let workspace = TempDir::new().workspace();
    let answer = json::query(
        &workspace,
        Source::Text(&doc),
        &Query::new("id!=-1").limit(200),
    )
    .unwrap()
    .to_string();
    assert!(
        answer.starts_with("300 of 300 elements matched; showing the first 200"),
        "{}",
        &answer[..100]
    );
    let note = answer.lines().last().unwrap();
    let of: usize = note
        .split(" of ")
        .nth(1)
        .and_then(|rest| rest.split(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("{note}"));
    let row = |i: usize| format!("[{i}] {{\"id\":{i},\"blob\":\"{}\"}}\n", "x".repeat(400)).len();
    let truth = (0..200).map(row).sum::<usize>()
        + "300 of 300 elements matched; showing the first 200 (raise `limit`, at most 200, or narrow `where`)\n".len();
    assert_eq!(of, truth, "{note}");
}

/// Documents over 1 MiB skip their big containers through an index built in
/// one pass; every answer must still be the one a full parse gives.
#[test]
fn big_documents_answer_like_a_full_parse() {
    let row = |i: usize| format!(r#"{{"id": {i}, "tags": ["a", "b]"], "n": {{"x": "}}{i}"}}}}"#);
    let big_array = |n: usize, from: usize| {
        format!(
            "[{}]",
            (from..from + n).map(row).collect::<Vec<_>>().join(",")
        )
    };
    let doc = format!(
        r#"{{"a": {}, "b": {{"inner": {}, "c": {{"deep": {}, "k": 1}}, "last": "x"}}, "a2": [{}, {}], "z": 7, "a": {}}}"#,
        big_array(9000, 0),
        big_array(9000, 10_000),
        big_array(6000, 20_000),
        big_array(3000, 30_000),
        big_array(3000, 40_000),
        big_array(2000, 50_000),
    );
    assert!(doc.len() > 1 << 20, "{}", doc.len());
    let truth: serde_json::Value = serde_json::from_str(&doc).unwrap();
    let workspace = TempDir::new().workspace();
    let paths: [(&str, &serde_json::Value); 9] = [
        ("z", &truth["z"]),
        ("b.last", &truth["b"]["last"]),
        ("b.c.k", &truth["b"]["c"]["k"]),
        (
            "b.c.deep[5999].n.x",
            &truth["b"]["c"]["deep"][5999]["n"]["x"],
        ),
        ("b.inner[4500].id", &truth["b"]["inner"][4500]["id"]),
        ("a2[1][2999].tags[1]", &truth["a2"][1][2999]["tags"][1]),
        ("a2[0][0].id", &truth["a2"][0][0]["id"]),
        // The last `a` wins.
        ("a[1999].id", &truth["a"][1999]["id"]),
        ("a[-1].n", &truth["a"][1999]["n"]),
    ];
    for (path, want) in paths {
        let got = json::get(&workspace, Source::Text(&doc), path).unwrap();
        let got: serde_json::Value = serde_json::from_str(&got.matches()[0].json).unwrap();
        assert_eq!(&got, want, "{path}");
    }
    let keys = json::keys(&workspace, Source::Text(&doc), "b").unwrap();
    let names: Vec<_> = keys.entries().iter().map(|e| e.key.as_str()).collect();
    assert_eq!(names, ["inner", "c", "last"]);
}
