//! The files being written, so two writes of one file wait for each other.
//!
//! Why keyed on where a write lands and not on the name it was given: an
//! apply of a multi-file patch to `.` and an apply to `a.txt` name the same
//! file differently, took two different locks, and one change was lost.
//! The keys are the places [`Located`](super::Located) resolved (relative
//! to the root, no link, no `..`), every file a patch writes together with
//! its backup, all taken at once so two writes can never wait for each other.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};

/// The set of places held, and the condition writes wait on.
#[derive(Default)]
pub(super) struct Locks {
    held: Mutex<HashSet<PathBuf>>,
    freed: Condvar,
}

/// Places held by one write until this guard is dropped.
#[must_use = "the places are held only while the guard lives"]
pub(crate) struct WriteLock {
    locks: Arc<Locks>,
    paths: Vec<PathBuf>,
}

impl Locks {
    /// Wait until none of `paths` is held, then hold them all.
    pub(super) fn acquire(locks: &Arc<Locks>, mut paths: Vec<PathBuf>) -> WriteLock {
        paths.sort();
        paths.dedup();
        let mut held = locks.held.lock().unwrap_or_else(PoisonError::into_inner);
        while paths.iter().any(|path| held.contains(path)) {
            held = locks
                .freed
                .wait(held)
                .unwrap_or_else(PoisonError::into_inner);
        }
        held.extend(paths.iter().cloned());
        WriteLock {
            locks: Arc::clone(locks),
            paths,
        }
    }
}

impl Drop for WriteLock {
    fn drop(&mut self) {
        let mut held = self
            .locks
            .held
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        for path in &self.paths {
            held.remove(path);
        }
        drop(held);
        self.locks.freed.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn a_write_waits_for_any_place_it_shares_and_not_for_others() {
        let locks = Arc::new(Locks::default());
        let first = Locks::acquire(&locks, vec!["a".into(), "b".into()]);
        let _other = Locks::acquire(&locks, vec!["c".into()]);
        let (send, receive) = std::sync::mpsc::channel();
        let waiting = Arc::clone(&locks);
        let thread = std::thread::spawn(move || {
            let _second = Locks::acquire(&waiting, vec!["b".into(), "d".into()]);
            send.send(()).unwrap();
        });
        assert!(receive.recv_timeout(Duration::from_millis(100)).is_err());
        drop(first);
        assert!(receive.recv_timeout(Duration::from_secs(5)).is_ok());
        thread.join().unwrap();
    }
}
