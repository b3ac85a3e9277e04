//! Whether the client of `serve` or `mcp` has gone: the read end of our
//! stdout closed. Then no answer can reach anyone, and every call in flight
//! or queued is cancelled through the session's token.
//!
//! Why watch and not wait for a write to fail: a write fails only when an
//! answer is ready, and a call may run until its time limit first; queued
//! calls would each start and run in turn. A thread parked in `poll` on
//! stdout, asking for no event, wakes only on `POLLERR` or `POLLHUP`, which
//! a pipe or socket reports as soon as its reader closes.

use argmend::CancelToken;

/// Cancel `session` once stdout's reader has closed (on Unix; elsewhere
/// only a failed write shows it, and the servers cancel then too).
pub(crate) fn watch_stdout(session: &CancelToken) {
    #[cfg(unix)]
    {
        use rustix::event::{PollFd, PollFlags, poll};
        let session = session.clone();
        let watch = move || {
            let stdout = std::io::stdout();
            loop {
                let mut fds = [PollFd::new(&stdout, PollFlags::empty())];
                match poll(&mut fds, None) {
                    Ok(_) => {
                        let events = fds[0].revents();
                        if events.intersects(PollFlags::ERR | PollFlags::HUP | PollFlags::NVAL) {
                            session.cancel();
                            return;
                        }
                    }
                    Err(rustix::io::Errno::INTR) => {}
                    Err(_) => return,
                }
            }
        };
        // A thread that cannot start leaves the failed write to tell.
        let _ = std::thread::Builder::new()
            .name("argmend-client-gone".to_owned())
            .spawn(watch);
    }
    #[cfg(not(unix))]
    let _ = session;
}
