//! The CPU time the calling thread has used, for the tests that hold a piece
//! of work to linear cost. Wall time is what a loaded machine disturbs: with
//! other builds running, a 2-second bound on 50 ms of work failed in CI
//! while the work itself had not changed. A thread's CPU time is not spent
//! while it waits for a core, so the bound holds what it means to hold (a
//! quadratic blow-up is hundreds of times over it) on any load.

use std::time::Duration;

/// A point on the thread's CPU clock; [`CpuClock::elapsed`] measures from it.
pub(crate) struct CpuClock(Duration);

impl CpuClock {
    pub(crate) fn start() -> Self {
        CpuClock(now())
    }

    pub(crate) fn elapsed(&self) -> Duration {
        now().saturating_sub(self.0)
    }
}

#[cfg(unix)]
fn now() -> Duration {
    let spec = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
    Duration::new(
        u64::try_from(spec.tv_sec).unwrap_or(0),
        u32::try_from(spec.tv_nsec).unwrap_or(0),
    )
}

/// Elsewhere the wall clock stands in for it.
#[cfg(not(unix))]
fn now() -> Duration {
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START.get_or_init(std::time::Instant::now).elapsed()
}
