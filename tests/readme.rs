//! The guide's "What it mends" table (`docs/guide.md`) is a test: every row whose output is
//! code, as many spans as its input, is repaired as shown.

/// The code spans of a table cell (single backticks only); in an input, a
/// `\n` stands for the raw line break a model wrote.
fn spans(cell: &str, input: bool) -> Vec<String> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|span| {
            if input {
                span.replace("\\n", "\n")
            } else {
                span.to_owned()
            }
        })
        .collect()
}

#[test]
fn the_what_it_mends_table_holds() {
    let guide = include_str!("../docs/guide.md");
    let table = guide
        .split("## What it mends")
        .nth(1)
        .and_then(|rest| rest.split("\n\n").nth(1))
        .expect("the README has its table");
    let mut checked = 0;
    for row in table.lines().skip(2) {
        let cells: Vec<&str> = row.trim_matches('|').split(" | ").collect();
        let [input, output] = cells[..] else {
            panic!("a row of two cells: {row}");
        };
        // (Rows that say it in words, or use double-backtick spans, are read.)
        if row.contains("``") || !output.starts_with('`') {
            continue;
        }
        let (inputs, outputs) = (spans(input, true), spans(output, false));
        if inputs.len() != outputs.len() {
            continue;
        }
        for (input, output) in inputs.iter().zip(&outputs) {
            let got = argmend::repair(input.as_bytes());
            assert_eq!(got.text(), output, "docs/guide.md row: {row}");
        }
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} rows checked");
}
