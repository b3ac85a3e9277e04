//! Issue 7: the adversarial families of `tests/adversarial.rs`, each at two
//! sizes ten times apart, with `Throughput::Bytes`: linear time shows as the
//! same throughput at both sizes, a quadratic cost as a tenfold drop.
//!
//! ```sh
//! cargo bench --bench adversarial
//! cargo bench --bench adversarial -- lookahead   # one family
//! ```
//!
//! Ids are `{family}/{mode}/{size}`; `oneshot` is `repair_with`, `feed1` is
//! one-byte feeds through a `Repairer` (with `Retain::Unreturned`, as an
//! endless stream runs), `feed4k` 4093-byte feeds.

use std::hint::black_box;
use std::time::Duration;

use criterion::{
    BenchmarkId, Criterion, SamplingMode, Throughput, criterion_group, criterion_main,
};

use argmend::{Options, Repairer, Retain};

const KB: usize = 1_000;
const MB: usize = 1_000_000;

/// xorshift64*, fixed seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn pick<'a>(&mut self, items: &[&'a [u8]]) -> &'a [u8] {
        items[(self.next() % items.len() as u64) as usize]
    }
}

fn mixed(size: usize) -> Vec<u8> {
    const PIECES: &[&[u8]] = &[
        b"{name: 'John', tags: ['a', 'b',], admin: True}",
        b"{\"a\" 1, \"b\" = 2, 'c': None, d: undefined, e: NaN}",
        b"[1 2, .5, +1, 2., 2e, 1_000, 0789,]",
        b"{\"a\": \"say \"hi\" now\", \"b\": \"C:\\q\"}",
        b"// line comment\n{/* block */ \"x\": [1, ...]} # hash\n",
        b"{\"s\": \"raw\nnewline\ttab\", \"t\": \"a\" + \"b\"}",
        b"{\"a\":}",
        b"{\xe2\x80\x9ccurly\xe2\x80\x9d: \xe2\x80\x9cq\xe2\x80\x9d, `tick`: `t`}",
        b"{\"valid\": [1, 2.5e-3, -0, true, false, null, \"\\u00e9\\n\"]}",
        b"{'it\\'s': 'a \"quoted\" word'}",
    ];
    let mut rng = Rng(7);
    let mut out = b"[".to_vec();
    while out.len() < size {
        out.extend_from_slice(rng.pick(PIECES));
        out.extend_from_slice(rng.pick(&[b", ", b" ", b",\n", b",,"]));
    }
    out.truncate(size);
    out
}

fn in_string(body: &[u8]) -> Vec<u8> {
    let mut out = b"{\"a\": \"".to_vec();
    out.extend_from_slice(body);
    out.extend_from_slice(b"\"}");
    out
}

fn repeated(unit: &[u8], size: usize) -> Vec<u8> {
    unit.repeat(size / unit.len())
}

fn invalid_utf8(size: usize) -> Vec<u8> {
    const BAD: &[&[u8]] = &[
        b"\xff",
        b"\xc3",
        b"\xed\xa0\x80",
        b"\\ud800",
        b"\\udc00",
        b"\\ud800\\u0041",
    ];
    let mut rng = Rng(11);
    let mut out = b"[".to_vec();
    while out.len() < size {
        let bad = rng.pick(BAD);
        out.extend_from_slice(b"{\"k");
        out.extend_from_slice(bad);
        out.extend_from_slice(b"\": 'v");
        out.extend_from_slice(bad);
        out.extend_from_slice(b"'}, ");
        out.extend_from_slice(bad);
        out.extend_from_slice(b" 1, ");
    }
    out
}

fn nul_mixed(size: usize) -> Vec<u8> {
    let mut out = b"{".to_vec();
    while out.len() < size {
        out.extend_from_slice(b"\0\"k\0\": \"v\0\", \0\0 'a\0': [1,\0 2\0], ");
    }
    out
}

fn keys(n: usize) -> Vec<u8> {
    let mut out = String::from("{");
    for i in 0..n {
        match i % 4 {
            0 => out.push_str(&format!("\"key{i}\": {i}, ")),
            1 => out.push_str(&format!("'key{i}': 'v{i}', ")),
            2 => out.push_str(&format!("key{i}: True,")),
            _ => out.push_str(&format!("key{i} : [{i},],\n")),
        }
    }
    out.push('}');
    out.into_bytes()
}

fn long_string(size: usize) -> Vec<u8> {
    in_string(&repeated(
        b"fn main() { println!(\\\"h\xc3\xa9llo\\\\n\\\"); }\\n\t// \xe6\x9d\xb1\xe4\xba\xac ",
        size,
    ))
}

fn oneshot(input: &[u8], options: Options) -> usize {
    match argmend::repair_with(input, options) {
        Ok(outcome) => outcome.text().len(),
        Err(e) => e.offset(),
    }
}

fn fed(input: &[u8], chunk: usize) -> usize {
    let mut repairer = Repairer::new(Options::default().retain(Retain::Unreturned));
    let mut n = 0;
    for piece in input.chunks(chunk) {
        n += repairer.feed(piece).map_or(0, str::len);
        black_box(repairer.take_fixes());
    }
    n + repairer.finish().map_or(0, |o| o.text().len())
}

#[derive(Clone, Copy)]
enum Mode {
    Oneshot,
    Feed1,
    Feed4k,
}

type Make = fn(usize) -> Vec<u8>;

fn family(c: &mut Criterion, name: &str, mode: Mode, sizes: [usize; 2], make: Make) {
    family_with(c, name, mode, sizes, make, Options::default());
}

fn family_with(
    c: &mut Criterion,
    name: &str,
    mode: Mode,
    sizes: [usize; 2],
    make: Make,
    options: Options,
) {
    let mode_name = match mode {
        Mode::Oneshot => "oneshot",
        Mode::Feed1 => "feed1",
        Mode::Feed4k => "feed4k",
    };
    let mut group = c.benchmark_group(format!("{name}/{mode_name}"));
    group.sample_size(10).sampling_mode(SamplingMode::Flat);
    for size in sizes {
        let input = make(size);
        group.throughput(Throughput::Bytes(input.len() as u64));
        // The input's own size (the `keys` family's parameter is a count).
        let label = if input.len() >= MB {
            format!("{}MB", input.len().div_ceil(MB / 10) as f64 / 10.0)
        } else {
            format!("{}KB", input.len().div_ceil(KB))
        };
        group.bench_with_input(BenchmarkId::from_parameter(label), &input, |b, input| {
            b.iter(|| match mode {
                Mode::Oneshot => oneshot(black_box(input), options),
                Mode::Feed1 => fed(black_box(input), 1),
                Mode::Feed4k => fed(black_box(input), 4093),
            })
        });
    }
    group.finish();
}

fn benches(c: &mut Criterion) {
    let big = [MB, 10 * MB];
    let feed = [100 * KB, MB];
    // A million (and ten million) nested `[`, closed with the limit raised.
    family_with(
        c,
        "deep",
        Mode::Oneshot,
        big,
        |n| vec![b'['; n],
        Options::default().max_depth(usize::MAX),
    );
    // The default limit: a typed error at byte 512 whatever follows.
    family(c, "deep_limit", Mode::Oneshot, big, |n| vec![b'['; n]);
    family(c, "long_string", Mode::Oneshot, big, long_string);
    family(c, "long_string", Mode::Feed1, feed, long_string);
    family(c, "mixed", Mode::Oneshot, big, mixed);
    family(c, "mixed", Mode::Feed1, feed, mixed);
    family(c, "quotes", Mode::Oneshot, big, |n| repeated(b"\"", n));
    family(c, "quotes_in_string", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"\"", n))
    });
    family(c, "backslashes_in_string", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"\\", n))
    });
    family(c, "escaped_quotes_in_string", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"\\\"", n))
    });
    // Issue 11: code whose quotes were not escaped, so every quote is judged
    // (and looks further ahead): calls, a dict inside an opened bracket (the
    // later-quote searches), and `", "k": ` patterns that look like members.
    family(c, "unescaped_code", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"print(\"a\", \"b\"); ", n))
    });
    family(c, "unescaped_code", Mode::Feed1, feed, |n| {
        in_string(&repeated(b"print(\"a\", \"b\"); ", n))
    });
    family(c, "unescaped_dict", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"d = {\"k\": \"v\", \"n\": 1, ", n))
    });
    family(c, "unescaped_dict", Mode::Feed1, feed, |n| {
        in_string(&repeated(b"d = {\"k\": \"v\", \"n\": 1, ", n))
    });
    family(c, "invalid_utf8", Mode::Oneshot, big, invalid_utf8);
    family(c, "invalid_utf8", Mode::Feed4k, big, invalid_utf8);
    family(c, "nul", Mode::Oneshot, big, |n| vec![0; n]);
    family(c, "nul_mixed", Mode::Oneshot, big, nul_mixed);
    // A run of control characters inside a string (NUL, and tabs as in Go
    // source) is quadratic one shot (issue 7 report): 10 KB and 100 KB only.
    family(
        c,
        "nul_in_string",
        Mode::Oneshot,
        [10 * KB, 100 * KB],
        |n| in_string(&vec![0; n]),
    );
    family(
        c,
        "tabs_in_string",
        Mode::Oneshot,
        [10 * KB, 100 * KB],
        |n| in_string(&vec![b'\t'; n]),
    );
    family(c, "long_number", Mode::Oneshot, big, |n| {
        repeated(b"1234567890", n)
    });
    // 4093-byte feeds of one long token re-lex it from its start: 100 KB
    // and 1 MB.
    family(c, "long_number", Mode::Feed4k, [100 * KB, MB], |n| {
        repeated(b"1234567890", n)
    });
    // One-byte feeds of one long token: the known re-lexing gap; 1 KB and
    // 10 KB so that a quadratic cost stays measurable.
    family(c, "long_number", Mode::Feed1, [KB, 10 * KB], |n| {
        repeated(b"1234567890", n)
    });
    family(c, "long_bare_word", Mode::Feed1, [KB, 10 * KB], |n| {
        let mut out = b"[".to_vec();
        out.extend_from_slice(&vec![b'x'; n]);
        out.push(b']');
        out
    });
    // 10,000 and 100,000 keys (about 0.2 and 2.2 MB).
    family(c, "keys", Mode::Oneshot, [10_000, 100_000], keys);
    family(c, "lookahead_quote_every_3", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"ab\"", n))
    });
    family(c, "lookahead_next_key", Mode::Oneshot, big, |n| {
        in_string(&repeated(b"x\", \"k\": ", n))
    });
    family(c, "lookahead_quote_every_3", Mode::Feed1, feed, |n| {
        in_string(&repeated(b"ab\"", n))
    });
    family(c, "lookahead_quote_every_4097", Mode::Oneshot, big, |n| {
        let mut unit = vec![b'z'; 4096];
        unit.push(b'"');
        in_string(&repeated(&unit, n))
    });
}

criterion_group! {
    name = adversarial;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2));
    targets = benches
}
criterion_main!(adversarial);
