//! What the judge is asked about: the string whose quote it judges
//! ([`Subject`], all it knows of the string and its containers), and what
//! it answers ([`Judged`]); with the bounds on how far it reads. Apart from
//! the rule (`mod.rs`) so that the rule's helpers can share them without
//! importing the rule.

use crate::lex::{Closer, Quote};
use crate::repair::context::ObjContext;
use crate::repair::doubt::DoubtKind;
use crate::repair::frame::Frame;
use crate::repair::grammar::Faults;
use crate::repair::hints::Hints;

/// The longest key the continuation check reads; a longer "key" is text.
pub(super) const MAX_KEY: usize = 256;

/// How many later quotes a look further ahead examines. With the window of
/// bytes this bounds the work per quote, so a run of quotes costs linear
/// time (every quote would otherwise scan the whole window).
pub(super) const MAX_CANDIDATES: usize = 64;

/// The longest comment the continuation check skips; a longer one is text.
pub(super) const MAX_COMMENT: usize = 1024;

/// Whether the string is a key or a value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum Role {
    Key,
    Value,
}

/// What the string knows about itself when one of its quotes is judged.
#[derive(Debug, Clone, Copy)]
pub(in crate::repair) struct Subject<'a> {
    /// The open containers, outermost first (the string's own is last).
    pub(in crate::repair) frames: &'a [Frame],
    pub(in crate::repair) role: Role,
    pub(in crate::repair) open: Quote,
    /// Whether the quote judged is of the string's own kind or its twin.
    pub(in crate::repair) closer: Closer,
    /// How many quotes inside this string were already judged inner.
    pub(in crate::repair) inner_quotes: u32,
    /// One of them was followed by a colon: the body holds `"key": …`
    /// members of its own (JSON, YAML, a dict).
    pub(in crate::repair) keyish: bool,
    /// Per kind (`()`, `[]`, `{}`): a bracket the body opened before its last
    /// inner quote is still open.
    pub(in crate::repair) enclosed: [bool; 3],
    /// Which closers (`)`, `]`, `}`) would close a bracket opened in the body.
    pub(in crate::repair) open_brackets: [bool; 3],
    /// How many brackets of each kind the body has open.
    pub(in crate::repair) balance: [u32; 3],
    /// The body ends with a comma and perhaps whitespace.
    pub(in crate::repair) trailing_comma: bool,
    /// The body's last byte, when it has one and it is known.
    pub(in crate::repair) last: Option<u8>,
    /// That comma and the whitespace after it, as read (empty when unknown).
    pub(in crate::repair) comma_gap: &'a [u8],
    /// The lenient forms the document's structure has used so far.
    pub(in crate::repair) style: Faults,
    /// No fix was made so far: the document may be valid JSON.
    pub(in crate::repair) valid_so_far: bool,
    pub(in crate::repair) hints: Option<&'a Hints>,
    /// The object the string sits in, when the machine could read it.
    pub(in crate::repair) context: Option<&'a ObjContext>,
}

impl Subject<'_> {
    /// A value string opened by `open` in `frames`, with no inner quote
    /// yet and nothing else known of it or its document.
    pub(in crate::repair) fn clean_value(frames: &[Frame], open: Quote) -> Subject<'_> {
        Subject {
            frames,
            role: Role::Value,
            open,
            closer: Closer::Own,
            inner_quotes: 0,
            keyish: false,
            enclosed: [false; 3],
            open_brackets: [false; 3],
            balance: [0; 3],
            trailing_comma: false,
            last: None,
            comma_gap: &[],
            style: Faults::NONE,
            valid_so_far: false,
            hints: None,
            context: None,
        }
    }

    pub(in crate::repair) fn clean(&self) -> bool {
        self.inner_quotes == 0
    }

    /// A clean string's quote of its own kind, as valid JSON has them.
    pub(in crate::repair) fn plain(&self) -> bool {
        self.clean() && self.closer == Closer::Own
    }

    /// Whether a member glued to the quote (`"text"rating": 4`, `"x""b":
    /// [1]`) may be the next one: the body ends in text, where a model cut
    /// it or dropped its separator. After whitespace or an opener the quote
    /// more likely opens text of the body's own (`python3 -c ""obj": {…}`,
    /// `"{"a": 1}"` written unescaped).
    pub(in crate::repair) fn may_glue(&self) -> bool {
        self.last.is_some_and(|b| {
            !crate::lex::is_ws(b) && !matches!(b, b'{' | b'[' | b'(' | b',' | b':' | b'=' | b'\\')
        })
    }
}

/// The decision on one quote.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum Judgement {
    /// The quote ends the string.
    End,
    /// The quote is inside the string.
    Inner,
    /// The string ended before the comma its body ends with; the quote opens
    /// what comes next.
    EndBeforeComma,
    /// A key ended before the whitespace its body ends with, and its colon
    /// was dropped: the quote opens its value (`{"title "K2", "x": 1}`).
    KeyThenValue,
    /// The bytes that decide it have not arrived.
    Need,
}

/// A decision, and the doubt it carries when the input did not settle it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) struct Judged {
    pub(in crate::repair) judgement: Judgement,
    pub(in crate::repair) doubt: Option<DoubtKind>,
}

impl Judged {
    pub(in crate::repair) fn sure(judgement: Judgement) -> Self {
        Judged {
            judgement,
            doubt: None,
        }
    }

    pub(in crate::repair) fn ends(ends: bool, doubt: Option<DoubtKind>) -> Self {
        Judged {
            judgement: if ends {
                Judgement::End
            } else {
                Judgement::Inner
            },
            doubt,
        }
    }
}
