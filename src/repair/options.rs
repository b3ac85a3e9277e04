//! The engine's options: limits, what to do with several top-level values,
//! how much output to keep, and whether to record where output came from.

/// What to do with several top-level values (`{"a":1} {"b":2}`).
///
/// Committed output is never rewritten, so this is chosen up front.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Values {
    /// The first complete top-level value is the result; what follows is
    /// dropped and reported as [`FixKind::RemovedTrailingText`](crate::FixKind::RemovedTrailingText).
    #[default]
    First,
    /// Every top-level value is repaired and written on its own line (NDJSON).
    Lines,
    /// Every top-level value goes into one array: `[` is written before the
    /// first value and `]` at the end.
    Array,
}

/// How much of the output a [`Repairer`](crate::Repairer) keeps.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Retain {
    /// Keep everything: [`Repairer::snapshot`](crate::Repairer::snapshot) and [`Repairer::finish`](crate::Repairer::finish) see the whole text.
    #[default]
    All,
    /// Forget output once [`Repairer::feed`](crate::Repairer::feed) has returned it, so memory stays
    /// bounded on endless streams. `finish` then returns only the rest, and a
    /// snapshot starts with the piece the last `feed` returned.
    Unreturned,
}

/// Limits and policies for a [`Repairer`](crate::Repairer).
///
/// ```
/// use argmend::{Options, Values};
/// let options = Options::default().max_depth(64).values(Values::Lines);
/// assert_eq!(options.depth_limit(), 64);
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Options {
    pub(super) max_depth: usize,
    pub(super) max_input: usize,
    pub(super) values: Values,
    pub(super) retain: Retain,
    pub(super) sources: bool,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            max_depth: 512,
            max_input: usize::MAX,
            values: Values::First,
            retain: Retain::All,
            sources: false,
        }
    }
}

impl Options {
    setters! {
        /// Nesting deeper than this many containers is an [`Error`](crate::Error) (default 512).
        max_depth(max_depth): usize;

        /// More input bytes than this in all is an [`Error`](crate::Error) (default: no limit).
        max_input_bytes(max_input): usize;

        /// What to do with several top-level values (default [`Values::First`]).
        values(values): Values;

        /// How much output to keep (default [`Retain::All`]).
        retain(retain): Retain;

        /// Record where each piece of output came from in the input, so that
        /// [`Outcome::input_offset`](crate::Outcome::input_offset) can answer (default: off). It costs one
        /// entry per token that writes output; a tool-argument layer that
        /// reports its own fixes by input offset wants it, a plain repair does not.
        ///
        /// ```
        /// use argmend::{repair_with, Options};
        /// let outcome = repair_with(b"{'a': True}", Options::default().source_map(true)).unwrap();
        /// assert_eq!(outcome.text(), r#"{"a": true}"#);
        /// assert_eq!(outcome.input_offset(6), Some(6)); // `true` came from `True`
        /// ```
        source_map(sources): bool;
    }

    /// Whether output sources are recorded (see [`Options::source_map`]).
    pub fn records_sources(&self) -> bool {
        self.sources
    }

    /// The depth limit in force.
    pub fn depth_limit(&self) -> usize {
        self.max_depth
    }

    /// The input size limit in force.
    pub fn input_limit(&self) -> usize {
        self.max_input
    }
}
