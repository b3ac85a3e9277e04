//! What the machine lends the lane: a view of where it stands, its frame
//! stack and the lane's scratch space. Apart from the scan (`mod.rs`) so
//! that the scan's helpers can read the view without importing the scan.

use smallvec::SmallVec;

use super::edit::LaneEdit;
use crate::repair::frame::{Frame, Stack, State};
use crate::repair::open_string::Str;

/// What the machine lends the lane for one scan: the input and where the
/// machine stands in it, read only; the frame stack, which the scan moves
/// as it goes (the frames it pops below its start are kept in the scratch
/// space, to be put back should the run not be taken); and the scratch
/// space.
pub(in crate::repair) struct Lane<'m> {
    /// The input kept (`Machine::src`); `src[0]` is input position `base`.
    pub(in crate::repair) src: &'m [u8],
    pub(in crate::repair) base: usize,
    /// Whether the input ends where `src` does.
    pub(in crate::repair) eof: bool,
    /// Whether this is a one-shot repair (see `Machine::lazy`).
    pub(in crate::repair) lazy: bool,
    /// Whether the document's strings hold quoted code (the machine's
    /// `inner_at`): its keys are then the machine's to read.
    pub(in crate::repair) wary: bool,
    /// Whether the document's structure has used a bare key: until it has,
    /// a bare word where a key belongs is the machine's (it may begin a line
    /// of prose, `Machine::prose_line`).
    pub(in crate::repair) bare_keys: bool,
    pub(in crate::repair) depth_limit: usize,
    pub(in crate::repair) state: State,
    /// The string the machine has open, if any.
    pub(in crate::repair) string: Option<&'m Str>,
    /// The machine's mark: where the last value ended in the output.
    pub(in crate::repair) mark: usize,
    /// Whether the machine holds a comma after the last value.
    pub(in crate::repair) pending_comma: bool,
    /// The output's length: where `src[start]` goes.
    pub(in crate::repair) out_start: usize,
    pub(in crate::repair) stack: &'m mut Stack,
    pub(in crate::repair) scratch: &'m mut Scratch,
}

/// The lane's working space, kept by the machine so that scans reuse one
/// allocation.
#[derive(Debug, Clone, Default)]
pub(in crate::repair) struct Scratch {
    /// The lenient tokens the current scan took.
    pub(in crate::repair) edits: Vec<LaneEdit>,
    /// Frames the current scan closed below the height it started at, in
    /// order, so a scan that must be redone can put them back.
    pub(in crate::repair) undo: SmallVec<[Frame; 16]>,
}
