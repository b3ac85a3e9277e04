//! The document layer: complete JSON text read strictly, shared by
//! everything above the engine.
//!
//! The engine (`repair`) reads broken JSON as it streams in; everything
//! after it reads text that is whole and, once repaired, valid: `normalize`
//! walks the repaired arguments to coerce them to a schema, `@json` answers
//! questions about a payload, `@diff json` compares two. They share one
//! grammar here: [`syntax::validate`] checks a text and says where and why
//! it is not JSON, [`lazy::Doc`] reads values as byte spans of the text,
//! skipping what a question does not touch, and [`tree`] builds every value
//! with its span for the rules that visit them all. Numbers are
//! [`crate::lex::number_len`], the tokenizer's own grammar, so the engine's
//! number check and this layer cannot disagree.

#[cfg(feature = "tools")]
pub(crate) mod decimal;
#[cfg(feature = "tools")]
pub(crate) mod lazy;
// Without the tools, only normalize's tree uses this layer: its string
// scanner, not the validator and its caret messages.
#[cfg_attr(not(feature = "tools"), allow(dead_code))]
pub(crate) mod syntax;
pub(crate) mod tree;
