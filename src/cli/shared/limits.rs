//! The bounds `call`, `serve` and `mcp` share, in one place so the three
//! front ends cannot drift apart.
//!
//! Why shared: `serve` was bounded (a pool and a queue) while `mcp` ran
//! every call at once and `call` read a call of any size; each hole was a
//! front end that had its own idea of a limit, or none.

use std::thread;

/// The most one request line (`serve`, `mcp`) or one call (`call`) may
/// hold: a 20 MB file's text, JSON-escaped, fits.
pub(crate) const MAX_LINE: usize = 64 << 20;

/// How many calls run at once: one per core, 2 to 4. Each running call may
/// hold a file and its parsed form, so this is what sets a server's memory.
pub(crate) fn workers() -> usize {
    thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4))
}

/// How many requests may wait for a worker: as many as there are workers.
/// Past that a server reads no more input until one is answered, so a
/// client that pipelines thousands of calls gets back-pressure instead of
/// a server that grows with them.
pub(crate) fn queue() -> usize {
    workers()
}
