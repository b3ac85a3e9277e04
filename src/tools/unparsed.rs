//! A document that does not parse, as `@json` and `@diff` refuse it.
//!
//! `@diff`'s `json` verb reads its two documents with `@json`'s loader, so
//! the refusal is made once, in `@json`, and handed over whole: the name, the
//! format and what is wrong where are fields, not words to be read back out
//! of a message.

use std::fmt;

use crate::tools::json::Format;

/// A JSON or YAML document that does not parse.
#[derive(Debug, Clone)]
pub(crate) struct Unparsed {
    /// The document as messages name it: `` `a.json` ``, `b (inline)`.
    pub(crate) name: String,
    /// The grammar it breaks.
    pub(crate) format: Format,
    /// What is wrong where (for JSON: line, column and an excerpt).
    pub(crate) detail: String,
    /// 1-based line and column, when the parser knows them (YAML).
    pub(crate) at: Option<(usize, usize)>,
}

impl Unparsed {
    /// The refusal a model reads: `refused: NAME is not valid JSON: DETAIL`,
    /// with the tool's own `json_advice` on the next line for JSON (YAML
    /// has no repair to point to).
    pub(crate) fn refuse(&self, f: &mut fmt::Formatter<'_>, json_advice: &str) -> fmt::Result {
        let Unparsed { name, detail, .. } = self;
        match self.format {
            Format::Json => write!(
                f,
                "refused: {name} is not valid JSON: {detail}\n{json_advice}"
            ),
            Format::Yaml => write!(f, "refused: {name} is not valid YAML: {detail}"),
        }
    }
}
