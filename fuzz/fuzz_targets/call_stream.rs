//! The call parser on arbitrary model text: it never panics, and the calls it
//! finds (names, mended arguments, errors) and the text around them are the
//! same whether the input comes whole or in chunks. The first byte of the
//! fuzz input picks the chunk length (1 to 64), the rest is the stream.

#![no_main]

use argmend::{CallParser, Event};
use libfuzzer_sys::fuzz_target;

fn run(input: &[u8], chunk: usize) -> (Vec<Event>, String) {
    let mut parser = CallParser::new();
    let mut events = Vec::new();
    for piece in input.chunks(chunk.max(1)) {
        events.extend(parser.feed(piece));
    }
    events.extend(parser.finish());
    let mut text = String::new();
    let calls = events
        .into_iter()
        .filter(|event| match event {
            Event::Text(piece) => {
                text.push_str(piece);
                false
            }
            Event::ArgsDelta { .. } | Event::ArgsJson { .. } => false,
            _ => true,
        })
        .collect();
    (calls, text)
}

fuzz_target!(|data: &[u8]| {
    let Some((&first, input)) = data.split_first() else {
        return;
    };
    let chunk = usize::from(first % 64) + 1;
    let whole = run(input, input.len().max(1));
    let chunked = run(input, chunk);
    assert_eq!(whole, chunked, "chunk length {chunk}, input {input:?}");
});
