//! The fewest edits that turn a run of written closers into the closers
//! the open containers expect: the cost of a reading of the run, and the
//! plan the machine follows (`RunOp`s, in input order). Kept apart from the
//! weighing of readings (`mod.rs`) because it knows nothing of what follows
//! the run: only the two lists of closers.

use smallvec::SmallVec;

use crate::repair::frame::Frame;

/// What to do at one step of the run, in input order.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum RunOp {
    /// The written closer closes the innermost container.
    Close(How),
    /// The innermost container's closer is supplied before the next written
    /// closer (or, at the end of the plan, after the last).
    Insert,
    /// The written closer is dropped.
    Drop,
}

/// How a written closer came to close the innermost container.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(in crate::repair) enum How {
    /// It is that container's closer.
    Same,
    /// It is the other kind of closer.
    Replaced,
    /// It traded places with its neighbour (`}]` written as `]}`).
    Reordered,
}

/// The closers of the innermost `k` of `frames`, innermost first.
///
/// A container opened with a doubled brace expects its closer twice: the
/// first of the pair is its twin ([`TWIN`] set), which a written closer
/// matches and is then dropped, and which is never supplied.
pub(super) fn expected(frames: &[Frame], k: usize, doubled: &[usize]) -> SmallVec<[u8; 8]> {
    let mut closers = SmallVec::new();
    for index in (frames.len() - k..frames.len()).rev() {
        let closer = frames[index].closer().as_bytes()[0];
        if doubled.contains(&index) {
            closers.push(closer | TWIN);
        }
        closers.push(closer);
    }
    closers
}

/// The mark of an expected closer that is a doubled container's twin.
const TWIN: u8 = 0x80;

/// The cost of an edit: a closer dropped, supplied or replaced, or two
/// neighbours swapped. Every slip costs the same; where two readings need
/// as many, what follows the run decides (`downstream`, in `mod.rs`).
pub(super) const EDIT: usize = 1;

/// The cost of dropping the written closer `j - 1`.
fn drop_cost(_written: &[u8], _j: usize) -> usize {
    EDIT
}

/// The fewest edits that turn the `written` closers into the `expected`
/// ones (a closer replaced, dropped, supplied, or two neighbours swapped),
/// and the plan that makes them, in input order.
pub(super) fn align(written: &[u8], expected: &[u8]) -> (usize, SmallVec<[RunOp; 8]>) {
    let (n, m) = (written.len(), expected.len());
    let width = m + 1;
    let mut cost = vec![usize::MAX; (n + 1) * width];
    let at = |j: usize, t: usize| j * width + t;
    cost[0] = 0;
    for j in 0..=n {
        for t in 0..=m {
            if j == 0 && t == 0 {
                continue;
            }
            let mut best = usize::MAX;
            if j > 0 && t > 0 {
                best = best.min(cost[at(j - 1, t - 1)] + replace_cost(written, expected, j, t));
            }
            if j > 0 {
                best = best.min(cost[at(j - 1, t)] + drop_cost(written, j));
            }
            if t > 0 {
                // A twin left out costs nothing: it was never needed.
                let supply = if expected[t - 1] & TWIN != 0 { 0 } else { EDIT };
                best = best.min(cost[at(j, t - 1)] + supply);
            }
            if swapped(written, expected, j, t) {
                best = best.min(cost[at(j - 2, t - 2)] + EDIT);
            }
            cost[at(j, t)] = best;
        }
    }
    // Back from the end; the first choice that reaches the cost, in an
    // order that prefers closing over dropping and supplying.
    let mut ops: SmallVec<[RunOp; 8]> = SmallVec::new();
    let (mut j, mut t) = (n, m);
    while j > 0 || t > 0 {
        let here = cost[at(j, t)];
        // (Dropping is tried first: from the end, so the closers dropped
        // are the later ones, `}  }` losing its second.)
        if j > 0 && cost[at(j - 1, t)] + drop_cost(written, j) == here {
            ops.push(RunOp::Drop);
            j -= 1;
        } else if j > 0
            && t > 0
            && cost[at(j - 1, t - 1)] + replace_cost(written, expected, j, t) == here
        {
            let how = if written[j - 1] == expected[t - 1] & !TWIN {
                How::Same
            } else {
                How::Replaced
            };
            // A twin's closer is the doubled one: dropped.
            ops.push(if expected[t - 1] & TWIN != 0 {
                RunOp::Drop
            } else {
                RunOp::Close(how)
            });
            (j, t) = (j - 1, t - 1);
        } else if swapped(written, expected, j, t) && cost[at(j - 2, t - 2)] + EDIT == here {
            ops.push(RunOp::Close(How::Reordered));
            ops.push(RunOp::Close(How::Reordered));
            (j, t) = (j - 2, t - 2);
        } else {
            debug_assert!(
                cost[at(j, t - 1)] + if expected[t - 1] & TWIN != 0 { 0 } else { EDIT } == here
            );
            if expected[t - 1] & TWIN == 0 {
                ops.push(RunOp::Insert);
            }
            t -= 1;
        }
    }
    ops.reverse();
    (cost[at(n, m)], ops)
}

/// The cost of reading the written closer `j - 1` as the expected `t - 1`.
fn replace_cost(written: &[u8], expected: &[u8], j: usize, t: usize) -> usize {
    if written[j - 1] == expected[t - 1] & !TWIN {
        0
    } else {
        EDIT
    }
}

/// Whether the two written closers before `j` are the two expected before
/// `t`, swapped.
fn swapped(written: &[u8], expected: &[u8], j: usize, t: usize) -> bool {
    j >= 2
        && t >= 2
        && written[j - 1] != written[j - 2]
        && written[j - 1] == expected[t - 2]
        && written[j - 2] == expected[t - 1]
}
