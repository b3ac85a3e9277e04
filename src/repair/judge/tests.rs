use super::*;

fn subject(frames: &[Frame]) -> Subject<'_> {
    Subject {
        valid_so_far: true,
        ..Subject::clean_value(frames, Quote::Double)
    }
}

const OBJ: &[Frame] = &[Frame::Object];
const ARR: &[Frame] = &[Frame::Array];

fn verdict(s: &Subject<'_>, after: &[u8]) -> Judgement {
    judge(s, after, true).judgement
}

/// Each of `afters` after the quote gets `want`.
fn each(s: &Subject<'_>, afters: &[&[u8]], want: Judgement) {
    for after in afters {
        assert_eq!(
            verdict(s, after),
            want,
            "{:?}",
            String::from_utf8_lossy(after)
        );
    }
}

#[test]
fn valid_continuations_end_a_clean_string() {
    let s = subject(OBJ);
    each(
        &s,
        &[
            &b", \"b\": 1}"[..],
            b"}",
            b"",
            b"  \n, 'b': 2}",
            b",b:1}",
            b" /* c */ }",
        ],
        Judgement::End,
    );
}

#[test]
fn every_fault_the_engine_mends_ends_a_clean_string() {
    let s = subject(OBJ);
    each(
        &s,
        &[
            &b",, \"b\": 1}"[..],
            b"; \"b\": 1}",
            b";\"b\":\"y\"}",
            b" \"b\": 1}",
            b"\n  b: 1}",
            b", 2.17: \"e\"}",
            b", true: 1}",
            b", \"b\" = 1}",
            b", \"b\" => 1}",
            b", \xE2\x80\x9Cb\xE2\x80\x9D: 1}",
            b", \xE2\x80\x98b\xE2\x80\x99: 1}",
            b", `b`: 1}",
            b" // note\n, \"b\": 1}",
            b" <!-- note --> }",
            b", ...}",
            b", ..., \"z\": 1}",
            b"\xEF\xBC\x8C\xEF\xBC\x82b\xEF\xBC\x82\xEF\xBC\x9A1\xEF\xBD\x9D",
        ],
        Judgement::End,
    );
    let s = subject(ARR);
    each(
        &s,
        &[
            &b",,\"b\"]"[..],
            b", ...]",
            b",\n  ...\n]",
            b", ..., \"z\"]",
            b";\"b\"]",
            b" \"b\"]",
            b", \xE2\x80\x9Cb\xE2\x80\x9D]",
        ],
        Judgement::End,
    );
}

#[test]
fn text_after_a_quote_makes_it_inner() {
    let s = subject(OBJ);
    each(
        &s,
        &[
            &b"hello, world\")\"}"[..],
            b": 1}\"}",
            b", then left\"}",
            b"; echo \"b\"}",
        ],
        Judgement::Inner,
    );
}

#[test]
fn short_input_waits() {
    let s = subject(OBJ);
    assert_eq!(judge(&s, b", \"b", false).judgement, Judgement::Need);
    assert_eq!(judge(&s, b", \"b\":", false).judgement, Judgement::End);
}

#[test]
fn enclosed_keys_do_not_end_a_string_with_inner_quotes() {
    let mut s = subject(OBJ);
    s.inner_quotes = 3;
    s.enclosed = [false, false, true];
    assert_eq!(verdict(&s, b", \"b\": \"y\"}\"}"), Judgement::Inner);
    s.enclosed = [false; 3];
    assert_eq!(
        verdict(&s, b", \"new\": \"if x == \"b\":\\n pass\"}"),
        Judgement::End
    );
}

#[test]
fn after_code_only_the_documents_own_forms_end_a_string() {
    let mut s = subject(OBJ);
    s.inner_quotes = 1;
    // TOML in the content: `version = "1"` on the next line is code.
    assert_eq!(verdict(&s, b"\nversion = \"1\"\n\"}"), Judgement::Inner);
    assert_eq!(verdict(&s, b"; \"b\": \"y\"}"), Judgement::Inner);
    s.style = Faults::SEPARATOR;
    assert_eq!(verdict(&s, b"; \"b\": \"y\"}"), Judgement::End);
}

#[test]
fn a_twin_quote_ends_only_where_no_own_quote_does() {
    let mut s = subject(OBJ);
    s.closer = Closer::Twin;
    assert_eq!(verdict(&s, b"}"), Judgement::End);
    assert_eq!(verdict(&s, b", \"b\": 1}"), Judgement::End);
    // `"a ” b", "c": 1}`: the straight quote further on ends it.
    assert_eq!(verdict(&s, b" b\", \"c\": 1}"), Judgement::Inner);
    assert_eq!(verdict(&s, b", b\", \"c\": 1}"), Judgement::Inner);
}

#[test]
fn a_comma_then_a_key_means_the_end_quote_was_missing() {
    let mut s = subject(OBJ);
    s.trailing_comma = true;
    assert_eq!(verdict(&s, b"c\":\"d\"}"), Judgement::EndBeforeComma);
    assert_eq!(verdict(&s, b"c is here\"}"), Judgement::Inner);
}

#[test]
fn a_glued_block_comment_across_lines_is_text() {
    let s = subject(OBJ);
    assert_eq!(verdict(&s, b"/* c */}"), Judgement::End);
    assert_eq!(
        verdict(
            &s,
            b"/*\"\\n  [headers.values]\\n    X = \"DENY\"\\n\", \"path\": \"c.toml\"}"
        ),
        Judgement::Inner
    );
}

#[test]
fn the_quick_rule_reads_comments_after_a_comma_and_a_key_on_the_next_line() {
    for after in [
        &b", // note\n  b: 1}"[..],
        b", /* note */ 'b': 1}",
        b", /* a */ // b\n \"b\": 1}",
        b"\n  b: 1}",
        b"\n  \"b\": 1}",
        b"\n  'b': 1}",
    ] {
        let quick = quick_clean_end(OBJ, after, true);
        assert_eq!(quick, Quick::End, "{:?}", String::from_utf8_lossy(after));
        // The general rule (a `'` string skips the quick one) agrees.
        let mut s = subject(OBJ);
        s.open = Quote::Single;
        assert_eq!(verdict(&s, after), Judgement::End, "{after:?}");
    }
    // Not a key, or a comment cut by the end of what arrived: the general
    // rule decides.
    for after in [&b" b: 1}"[..], b", // note", b"\n  b c: 1}", b",\n  /* x"] {
        assert_ne!(quick_clean_end(OBJ, after, false), Quick::End, "{after:?}");
    }
}

/// A twin inside a key after the comma is text unless a colon follows it,
/// as the machine reads the key: one-shot (the lane's quick rule) and
/// byte-at-a-time feeds (this rule) then agree.
#[test]
fn a_twin_inside_the_next_key_is_text() {
    let s = Subject {
        open: Quote::Single,
        ..subject(OBJ)
    };
    each(
        &s,
        &[
            b", '`': 1}",
            b", '```': 1}",
            b", 'it\xE2\x80\x99s': 1}",
            b", 'it\xE2\x80\x99': 1}",
        ],
        Judgement::End,
    );
}
