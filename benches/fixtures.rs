//! Deterministic benchmark fixtures: realistic API-response JSON and a
//! malformed twin of each, generated in code so no large files are committed.
//!
//! The generator builds one record at a time as a small value tree and writes
//! it twice: once as strict JSON (the valid document) and once with the
//! mistakes language models make (the malformed twin). Every malformation is
//! one the engine should undo exactly, so `repair(malformed)` must parse to the
//! same value as `valid`; the benches assert this in their setup.
//!
//! Malformations used (each chosen per site by a separate PRNG stream, so the
//! valid document does not depend on them):
//! - single-quoted strings and keys (`'abc'`, with `\'` for an apostrophe and
//!   a raw `"` left unescaped inside),
//! - unquoted identifier keys (`id: 1`),
//! - trailing commas in arrays and objects,
//! - Python literals `True`, `False`, `None`,
//! - `// line` and `/* block */` comments between members and elements,
//! - missing commas between members and elements (a space or a newline instead).

#![allow(dead_code)] // each bench binary uses a different subset

/// A valid JSON document and its malformed twin.
pub struct Twin {
    /// Strict JSON (RFC 8259), one value.
    pub valid: Vec<u8>,
    /// The same value written with LLM-style mistakes.
    pub malformed: Vec<u8>,
}

/// xorshift64* (Vigna): tiny, fast, deterministic; good enough for fixtures.
pub struct Rng(u64);

impl Rng {
    /// A generator from a seed (0 is mapped to a fixed non-zero state).
    pub fn new(seed: u64) -> Self {
        Rng(if seed == 0 {
            0x9E37_79B9_7F4A_7C15
        } else {
            seed
        })
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `percent`/100.
    pub fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }

    /// One element of a non-empty slice.
    pub fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len() as u64) as usize]
    }
}

/// A JSON value, as the generator builds it before writing it twice.
enum V {
    Null,
    Bool(bool),
    /// Number text, already valid JSON (`-12`, `0.25`, `1.5e-3`).
    Num(String),
    /// The logical string and whether the valid writer uses `\uXXXX` for non-ASCII.
    Str(String, bool),
    Arr(Vec<V>),
    Obj(Vec<(&'static str, V)>),
}

const FIRST: &[&str] = &[
    "Ada",
    "Grace",
    "Linus",
    "Margaret",
    "Dennis",
    "Barbara",
    "Ken",
    "Frances",
    "José",
    "Zoë",
    "Björn",
    "Chloé",
    "Søren",
    "Łukasz",
    "Nguyễn",
    "Jürgen",
    "Ayşe",
    "Олег",
    "美咲",
    "Θεόδωρος",
];
const LAST: &[&str] = &[
    "Lovelace",
    "Hopper",
    "Torvalds",
    "Hamilton",
    "Ritchie",
    "Liskov",
    "Thompson",
    "Allen",
    "García",
    "O'Brien",
    "Müller",
    "Ångström",
    "Dvořák",
    "Kowalski",
    "田中",
    "Smith-Jones",
];
const CITIES: &[&str] = &[
    "Paris",
    "München",
    "São Paulo",
    "Kraków",
    "Zürich",
    "東京",
    "Reykjavík",
    "Montréal",
    "New York",
    "Cape Town",
    "Düsseldorf",
    "İstanbul",
];
const STREETS: &[&str] = &[
    "Main St",
    "Rue de Rivoli",
    "Königsallee",
    "Avenida Paulista",
    "Shibuya 2-chōme",
    "Baker Street",
    "Calle Mayor",
    "Nørrebrogade",
];
const TAGS: &[&str] = &[
    "admin",
    "beta",
    "vip",
    "trial",
    "enterprise",
    "eu-west",
    "us-east",
    "legacy",
    "🚀 early",
    "ops/on-call",
    "ünïcödé",
    "c++",
    "team:core",
    "2fa",
];
const WORDS: &[&str] = &[
    "the",
    "quick",
    "brown",
    "fox",
    "jumps",
    "over",
    "lazy",
    "dog",
    "service",
    "request",
    "timeout",
    "retry",
    "cache",
    "latency",
    "deploy",
    "rollback",
    "config",
    "token",
    "naïve",
    "café",
    "résumé",
    "日本語",
    "テスト",
    "emoji 🎉",
    "ok ✅",
    "it's",
    "isn't",
    "path",
];
const SNIPPETS: &[&str] = &[
    "Line one\nLine two",
    "Tab\tseparated\tvalues",
    "She said \"hello\" and left",
    "C:\\Users\\admin\\AppData",
    "quote: \"to be, or not\"",
    "price: 5€ / 4£ / ¥500",
    "mixed: \u{00e9}\u{00e8}\u{00ea} and \u{1F600}",
    "a/b/c \\ d",
    "multi\nline\r\nwith\tcontrols",
];
const COMMENTS: &[&str] = &[
    "TODO: check",
    "generated",
    "user record",
    "see #1234",
    "FIXME",
];

/// A random word sequence of `words` words, with occasional escapes.
fn text(rng: &mut Rng, words: usize) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        if rng.chance(6) {
            s.push_str(rng.pick(SNIPPETS));
        } else {
            s.push_str(rng.pick(WORDS));
        }
    }
    s
}

fn str_v(s: String, rng: &mut Rng) -> V {
    let uescape = rng.chance(15);
    V::Str(s, uescape)
}

fn float(rng: &mut Rng) -> String {
    match rng.below(4) {
        0 => format!("{}.{:02}", rng.below(10_000), rng.below(100)),
        1 => format!("-{}.{:06}", rng.below(1000), rng.below(1_000_000)),
        2 => format!(
            "{}.{}e-{}",
            1 + rng.below(9),
            rng.below(1000),
            1 + rng.below(9)
        ),
        _ => format!("0.{:08}", rng.below(100_000_000)),
    }
}

/// One user-like record of roughly 700–900 bytes.
fn record(rng: &mut Rng, id: u64) -> V {
    let first = rng.pick(FIRST);
    let last = rng.pick(LAST);
    let name = format!("{first} {last}");
    let email = format!(
        "{}.{}{}@example.com",
        first.to_lowercase(),
        last.to_lowercase().replace('\'', ""),
        rng.below(100)
    );
    let ntags = rng.below(5) as usize;
    let tags = (0..ntags)
        .map(|_| str_v(rng_pick_string(rng, TAGS), rng))
        .collect();
    let nmetrics = 2 + rng.below(6) as usize;
    let metrics = (0..nmetrics).map(|_| V::Num(float(rng))).collect();
    let bio_words = 12 + rng.below(30) as usize;
    let bio = text(rng, bio_words);
    let manager = if rng.chance(30) {
        V::Null
    } else {
        V::Num(format!("{}", rng.below(100_000)))
    };
    let nevents = rng.below(3) as usize;
    let events = (0..nevents)
        .map(|i| {
            V::Obj(vec![
                (
                    "type",
                    str_v(
                        rng_pick_string(rng, &["login", "logout", "purchase", "refund"]),
                        rng,
                    ),
                ),
                (
                    "at",
                    V::Num(format!("{}", 1_700_000_000 + rng.below(50_000_000))),
                ),
                ("ok", V::Bool(rng.chance(90))),
                ("seq", V::Num(format!("{i}"))),
                (
                    "note",
                    if rng.chance(50) {
                        V::Null
                    } else {
                        str_v(text(rng, 4), rng)
                    },
                ),
            ])
        })
        .collect();
    V::Obj(vec![
        ("id", V::Num(format!("{id}"))),
        (
            "uuid",
            V::Str(
                format!("{:016x}-{:08x}", rng.next_u64(), rng.next_u64() as u32),
                false,
            ),
        ),
        ("name", str_v(name, rng)),
        ("email", V::Str(email, false)),
        ("active", V::Bool(rng.chance(70))),
        ("verified", V::Bool(rng.chance(40))),
        ("score", V::Num(float(rng))),
        ("balance", V::Num(float(rng))),
        (
            "created_at",
            V::Str(
                format!(
                    "2024-{:02}-{:02}T{:02}:{:02}:{:02}Z",
                    1 + rng.below(12),
                    1 + rng.below(28),
                    rng.below(24),
                    rng.below(60),
                    rng.below(60)
                ),
                false,
            ),
        ),
        ("tags", V::Arr(tags)),
        (
            "address",
            V::Obj(vec![
                (
                    "street",
                    str_v(format!("{} {}", 1 + rng.below(300), rng.pick(STREETS)), rng),
                ),
                ("city", str_v(rng_pick_string(rng, CITIES), rng)),
                ("zip", V::Str(format!("{:05}", rng.below(100_000)), false)),
                (
                    "geo",
                    V::Obj(vec![
                        (
                            "lat",
                            V::Num(format!("{}.{:06}", rng.below(90), rng.below(1_000_000))),
                        ),
                        (
                            "lng",
                            V::Num(format!("-{}.{:06}", rng.below(180), rng.below(1_000_000))),
                        ),
                    ]),
                ),
            ]),
        ),
        ("bio", str_v(bio, rng)),
        ("manager_id", manager),
        ("metrics", V::Arr(metrics)),
        ("events", V::Arr(events)),
        ("deleted_at", V::Null),
    ])
}

fn rng_pick_string(rng: &mut Rng, items: &[&str]) -> String {
    rng.pick(items).to_owned()
}

/// Writes a value as strict JSON.
fn write_valid(out: &mut String, v: &V) {
    match v {
        V::Null => out.push_str("null"),
        V::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        V::Num(n) => out.push_str(n),
        V::Str(s, uescape) => write_dq(out, s, *uescape),
        V::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_valid(out, item);
            }
            out.push(']');
        }
        V::Obj(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_dq(out, k, false);
                out.push_str(": ");
                write_valid(out, item);
            }
            out.push('}');
        }
    }
}

/// A double-quoted JSON string.
fn write_dq(out: &mut String, s: &str, uescape: bool) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if uescape && !c.is_ascii() => {
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{unit:04x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

/// A single-quoted string: `'` and `\` escaped, `"` left raw.
fn write_sq(out: &mut String, s: &str) {
    out.push('\'');
    for c in s.chars() {
        match c {
            '\'' => out.push_str("\\'"),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('\'');
}

/// Writes a string the malformed way: sometimes single-quoted.
fn write_mal_str(out: &mut String, s: &str, uescape: bool, m: &mut Rng) {
    if m.chance(35) {
        write_sq(out, s)
    } else {
        write_dq(out, s, uescape)
    }
}

/// Writes what goes between two elements or members: usually `, `, sometimes
/// a comment, sometimes no comma at all.
///
/// After a string the missing comma is always a line break: `"x" b: "1"` on
/// one line could also be read as one string with unescaped inner quotes
/// (`"x\" b: "` followed by `1"`), and the engine is free to read it so.
fn write_mal_sep(out: &mut String, after_string: bool, m: &mut Rng) {
    match m.below(100) {
        0..4 if !after_string => out.push(' '), // missing comma
        0..6 => out.push('\n'),                 // missing comma at a line break
        6..9 => {
            out.push_str(", // ");
            out.push_str(m.pick(COMMENTS));
            out.push('\n');
        }
        9..12 => {
            out.push_str(", /* ");
            out.push_str(m.pick(COMMENTS));
            out.push_str(" */ ");
        }
        _ => out.push_str(", "),
    }
}

/// Writes a value with LLM-style mistakes (decided by `m`).
fn write_malformed(out: &mut String, v: &V, m: &mut Rng) {
    match v {
        V::Null => out.push_str(if m.chance(50) { "None" } else { "null" }),
        V::Bool(b) => out.push_str(match (*b, m.chance(50)) {
            (true, true) => "True",
            (true, false) => "true",
            (false, true) => "False",
            (false, false) => "false",
        }),
        V::Num(n) => out.push_str(n),
        V::Str(s, uescape) => write_mal_str(out, s, *uescape, m),
        V::Arr(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    write_mal_sep(out, matches!(items[i - 1], V::Str(..)), m);
                }
                write_malformed(out, item, m);
            }
            if !items.is_empty() && m.chance(25) {
                out.push(',');
            }
            out.push(']');
        }
        V::Obj(members) => {
            out.push('{');
            for (i, (k, item)) in members.iter().enumerate() {
                if i > 0 {
                    write_mal_sep(out, matches!(members[i - 1].1, V::Str(..)), m);
                }
                match m.below(10) {
                    0..5 => out.push_str(k), // every key is an identifier
                    5..7 => write_sq(out, k),
                    _ => write_dq(out, k, false),
                }
                out.push_str(": ");
                write_malformed(out, item, m);
            }
            if !members.is_empty() && m.chance(25) {
                out.push(',');
            }
            out.push('}');
        }
    }
}

/// An API response `{"data": [record, …], "meta": {…}}` of at least
/// `target` bytes (valid form), with its malformed twin.
pub fn api_doc(target: usize, seed: u64) -> Twin {
    let mut rng = Rng::new(seed);
    let mut m = Rng::new(seed ^ 0xA5A5_5A5A_DEAD_BEEF);
    let mut valid = String::with_capacity(target + 1024);
    let mut malformed = String::with_capacity(target + target / 4 + 1024);
    valid.push_str("{\"data\": [\n");
    malformed.push_str("// API response\n{data: [\n");
    let mut id = 1000;
    loop {
        let rec = record(&mut rng, id);
        if id > 1000 {
            valid.push_str(",\n");
            if m.chance(5) {
                malformed.push('\n'); // missing comma between records
            } else {
                malformed.push_str(",\n");
            }
        }
        write_valid(&mut valid, &rec);
        write_malformed(&mut malformed, &rec, &mut m);
        id += 1;
        // The closing part below is ~90 bytes.
        if valid.len() + 90 >= target {
            break;
        }
    }
    let count = id - 1000;
    valid.push_str(&format!(
        "\n], \"meta\": {{\"total\": {count}, \"page\": 1, \"per_page\": {count}, \"next\": null, \"cached\": false}}}}"
    ));
    malformed.push_str(&format!(
        ",\n], meta: {{total: {count}, 'page': 1, per_page: {count}, next: None, cached: False,}},}}\n"
    ));
    Twin {
        valid: valid.into_bytes(),
        malformed: malformed.into_bytes(),
    }
}

/// A ~200-byte tool call's arguments, malformed the usual ways, and its valid twin.
pub fn tool_call() -> Twin {
    let valid = r#"{"path": "src/main.rs", "old_string": "fn main() {\n    println!(\"hi\");\n}", "new_string": "fn main() {\n    println!(\"héllo ✅\");\n}", "replace_all": false, "line": 12, "context": null}"#;
    let malformed = "```json\n{path: 'src/main.rs', 'old_string': \"fn main() {\\n    println!(\\\"hi\\\");\\n}\", new_string: 'fn main() {\\n    println!(\"héllo ✅\");\\n}', replace_all: False, line: 12 context: None,}\n```";
    Twin {
        valid: valid.as_bytes().to_vec(),
        malformed: malformed.as_bytes().to_vec(),
    }
}
