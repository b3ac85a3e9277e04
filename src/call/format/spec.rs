//! What a format's table entry says: the markers around its calls, where a
//! call's name sits and how its arguments are written. The machine
//! (`machine.rs`) reads nothing else, so a new format is a new entry in
//! `table.rs` (and its conformance data), not new parsing code.

use super::value::{Kinds, Trim};

/// One wire format of tool calls in model text.
#[derive(Debug)]
pub(crate) struct Spec {
    /// The name `--format` takes (`qwen3_coder`).
    pub(crate) name: &'static str,
    /// Other names for the same table entry (`qwen3_xml`).
    pub(crate) aliases: &'static [&'static str],
    /// The wire shape in short, for the docs and `--help`.
    pub(crate) shape: &'static str,
    /// Markers that open a block of calls. Empty: calls stand in the text
    /// unmarked ([`Spec::bare`] says how one is recognised).
    pub(crate) open: &'static [&'static str],
    /// Markers that close a block. Empty: a block ends with its calls (after
    /// one call, or at the `]` of a list).
    pub(crate) close: &'static [&'static str],
    /// Markers dropped between the calls of a block (`<｜tool_sep｜>`).
    pub(crate) separators: &'static [&'static str],
    /// How calls without an opening marker are recognised.
    pub(crate) bare: Bare,
    /// Regions whose text is passed on without looking for calls in it
    /// (`<think>…</think>`: a call a model writes while it reasons is an
    /// example, not a request).
    pub(crate) quiet: &'static [(&'static str, &'static str)],
    /// Markers that tell this format in text read without one: special
    /// tokens and namespaced tags no other format writes and prose does not
    /// (`<|tool_calls_section_begin|>`, `<minimax:tool_call>`, `<|channel|>`
    /// for gpt-oss, whose calls open with `to=functions.`). Empty: the
    /// format is read only when it is chosen.
    pub(crate) detect: &'static [&'static str],
    /// How each call is written inside a block.
    pub(crate) calls: Calls,
}

impl Spec {
    /// Whether call objects are keyed by the tool's name (`{"N": {…}}`).
    pub(crate) fn calls_keyed(&self) -> bool {
        matches!(self.calls, Calls::Objects(Object::Keyed))
    }
}

/// Calls that stand in the text without a marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Bare {
    /// None: a call needs one of the block markers.
    No,
    /// A JSON object `{"name": …, "arguments"|"parameters": …}`, or a list
    /// `[{…}, …]` of them, whose head reads as a call (Llama 3, xLAM).
    Json,
    /// A Python call `name(…)` at the start of a line (Granite's pythonic form).
    PythonLine,
}

/// How the calls of a block are written.
#[derive(Debug)]
pub(crate) enum Calls {
    /// JSON call objects, alone or in a `[…]` list, separated by `,`, `;`
    /// or line breaks.
    Objects(Object),
    /// A name, then the arguments, each piece marked.
    Named(Named),
    /// Python calls: `name(key=value, …)`, in a `[…]` list or one per line.
    Python,
}

/// The keys of a JSON call object.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Object {
    /// `{"name": "N", "arguments": {…}}` (also `parameters`, `tool_name`).
    Fields,
    /// `{"N": {…}}`: the one key is the tool's name (Apertus).
    Keyed,
}

/// A call written as marked pieces: `<function=N>…</function>`,
/// `functions.N:0<|tool_call_argument_begin|>{…}`.
#[derive(Debug)]
pub(crate) struct Named {
    /// Markers before each call's name. Empty: the name follows the block's
    /// own marker (one call per block, or calls that follow one another).
    pub(crate) start: &'static [&'static str],
    /// Text that ends a call's name (consumed). The markers the arguments
    /// begin with end it too, and stay for the arguments.
    pub(crate) name_end: &'static [&'static str],
    /// Written before the name and dropped (`functions.`), or, when it ends
    /// with a `name_end` marker, a type word before the name
    /// (`function<｜tool▁sep｜>`).
    pub(crate) name_prefix: &'static [&'static str],
    /// A `:N` call index after the name is dropped (`functions.f:0`).
    pub(crate) name_index: Index,
    /// After the name's end, bytes are dropped up to and including this
    /// (the `>` of `<invoke name="N">`).
    pub(crate) name_tail: Option<&'static str>,
    /// How the arguments are written.
    pub(crate) args: Args,
    /// Markers that end a call. Empty: the block's close or the arguments'
    /// own end ends it.
    pub(crate) end: &'static [&'static str],
    /// JSON call objects may stand beside the named calls (dots).
    pub(crate) objects: Option<Object>,
}

/// Whether a name carries a call index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Index {
    /// No.
    No,
    /// `name:0`: the `:` and digits are dropped.
    Colon,
}

/// How a named call's arguments are written.
#[derive(Debug)]
pub(crate) enum Args {
    /// A JSON value (or a fenced one), passed to the engine as written.
    /// `open`: markers it follows (bytes before them are dropped; a `{` or
    /// `[` starts it too); empty, it starts right after the name. `close`:
    /// markers that end it; empty, the value's own end does.
    Json {
        /// Markers the arguments follow.
        open: &'static [&'static str],
        /// Markers that end them.
        close: &'static [&'static str],
    },
    /// Parameters as elements: `<parameter=K>V</parameter>`,
    /// `<arg_key>K</arg_key><arg_value>V</arg_value>`.
    Params(Params),
    /// Gemma's object with bare keys and marked strings:
    /// `{key:<|"|>text<|"|>,n:42}`; `quote` is the string marker, and
    /// `typed` says whether a marked string that reads as a number or a
    /// boolean is one (FunctionGemma) or stays text (Gemma 4).
    Gemma {
        /// The string delimiter.
        quote: &'static str,
        /// The kinds a marked string may turn into.
        quoted: Kinds,
    },
}

/// Parameters written as elements.
#[derive(Debug)]
pub(crate) struct Params {
    /// The marker before a key (`<parameter=`).
    pub(crate) open: &'static str,
    /// What ends the key (`>`, `"`, `</arg_key>`).
    pub(crate) key_end: &'static str,
    /// After the key's end, the element's attributes up to and including
    /// this are read (`" string="true">`): `None` when the key's end closes
    /// the tag.
    pub(crate) key_tail: Option<&'static str>,
    /// A marker between the key and the value (`<arg_value>`).
    pub(crate) value_open: Option<&'static str>,
    /// What ends the value (`</parameter>`).
    pub(crate) value_close: &'static str,
    /// What is trimmed from a value written as text.
    pub(crate) trim: Trim,
    /// The kinds a value may take when the schema does not say: what the
    /// model's chat template writes without one.
    pub(crate) untyped: Kinds,
    /// An attribute that says the value is a string (`string="true"`) or
    /// JSON (`string="false"`), as DeepSeek's DSML writes.
    pub(crate) string_attr: Option<&'static str>,
}
