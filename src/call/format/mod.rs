//! The tool-call formats of open-weight models, as data, and the one
//! streaming machine that reads them.
//!
//! A format is a table entry (`table.rs`): the markers around its calls,
//! where a call's name sits, and how the arguments are written (JSON, XML
//! parameters, key/value pairs, Python call syntax, Gemma's object with
//! marked strings). `machine.rs` runs any entry; what the arguments mean
//! as JSON is `value.rs` (parameters typed by the tool's schema),
//! `python.rs` and `gemma.rs`. The JSON they make goes to the call's engine
//! like any other call's arguments, so every format is mended, previewed
//! and reported the same way.

mod calls;
mod free;
mod gemma;
mod judge;
mod machine;
mod objects;
mod python;
mod spec;
mod table;
mod unquote;
mod value;

pub(crate) use self::machine::{FormatParser, is_tool_name_byte};
use self::spec::Spec;

/// A wire format of tool calls in model text, by the name vLLM gives its
/// parser (`qwen3_coder`, `kimi_k2`, `gpt_oss`, `pythonic`, …).
///
/// ```
/// use argmend::{CallParser, Event, Format, ToolOptions};
/// let format = Format::from_name("qwen3_coder").unwrap();
/// let mut parser = CallParser::with_format(format, ToolOptions::default());
/// let mut events = parser.feed(b"<tool_call>\n<function=read_file>\n<parameter=path>\na.json\n</parameter>\n");
/// events.extend(parser.feed(b"</function>\n</tool_call>"));
/// events.extend(parser.finish());
/// let Some(Event::CallReady { name, args, .. }) = events.last() else { panic!() };
/// assert_eq!((name.as_str(), args.as_str()), ("read_file", r#"{"path": "a.json"}"#));
/// ```
#[derive(Clone, Copy)]
pub struct Format {
    spec: &'static Spec,
}

impl Format {
    /// The format named `name` (or one of its aliases: `qwen3_xml` is
    /// `qwen3_coder`, `glm47` is `glm45`), ignoring case and reading `-` as
    /// `_`; `None` for a name no entry has.
    pub fn from_name(name: &str) -> Option<Format> {
        let wanted = name.trim().to_ascii_lowercase().replace('-', "_");
        table::FORMATS
            .iter()
            .find(|spec| {
                spec.name == wanted
                    || spec
                        .aliases
                        .iter()
                        .any(|alias| alias.replace('-', "_") == wanted)
            })
            .map(|spec| Format { spec })
    }

    /// Every format, in the table's order.
    pub fn all() -> impl Iterator<Item = Format> {
        table::FORMATS.iter().map(|spec| Format { spec })
    }

    /// The format's name (`qwen3_coder`).
    pub fn name(self) -> &'static str {
        self.spec.name
    }

    /// Other names it answers to (`qwen3_xml`, `step3p5`).
    pub fn aliases(self) -> &'static [&'static str] {
        self.spec.aliases
    }

    /// The wire shape in short: `<tool_call><function=N><parameter=K>V</parameter></function></tool_call>`.
    pub fn shape(self) -> &'static str {
        self.spec.shape
    }

    pub(crate) fn spec(self) -> &'static Spec {
        self.spec
    }
}

impl PartialEq for Format {
    fn eq(&self, other: &Format) -> bool {
        std::ptr::eq(self.spec, other.spec)
    }
}

impl Eq for Format {}

impl std::fmt::Debug for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Format({})", self.spec.name)
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.spec.name)
    }
}

impl std::str::FromStr for Format {
    type Err = String;

    fn from_str(name: &str) -> Result<Format, String> {
        Format::from_name(name).ok_or_else(|| {
            let names: Vec<&str> = Format::all().map(Format::name).collect();
            format!(
                "unknown format `{name}`: the formats are {}",
                names.join(", ")
            )
        })
    }
}

/// What bytes held at a `<` in text read without a format say about one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Marker {
    /// No format's marker starts so.
    No,
    /// A marker may still come.
    Prefix,
    /// A marker that tells its format.
    Whole(Format),
}

/// The markers that tell a format in text read without one, with it: each
/// format's `detect` list (special tokens and namespaced tags that prose
/// does not write; `<tools>` or `<function_calls>` in a sentence stays text).
fn telling() -> &'static [(&'static str, Format)] {
    static TELLING: std::sync::OnceLock<Vec<(&'static str, Format)>> = std::sync::OnceLock::new();
    TELLING.get_or_init(|| {
        (table::FORMATS.iter())
            .flat_map(|spec| {
                spec.detect
                    .iter()
                    .map(move |marker| (*marker, Format { spec }))
            })
            .collect()
    })
}

/// Whether `held` (from a `<` in text) is a marker that tells a format.
pub(crate) fn told_by(held: &[u8]) -> Marker {
    let mut prefix = false;
    for (marker, format) in telling() {
        let marker = marker.as_bytes();
        if marker == held {
            return Marker::Whole(*format);
        }
        prefix |= marker.starts_with(held);
    }
    if prefix { Marker::Prefix } else { Marker::No }
}
