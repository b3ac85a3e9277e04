//! The files being written, so two writes of one file wait for each other.
//!
//! Why keyed on where a write lands and not on the name it was given: an
//! apply of a multi-file patch to `.` and an apply to `a.txt` name the same
//! file differently, took two different locks, and one change was lost.
//! The keys are the places [`Located`](super::Located) resolved (relative
//! to the root, no link, no `..`), every file a patch writes together with
//! its backup, all taken at once so two writes can never wait for each other.
//!
//! The set holds only the places held now: a place is removed when its
//! write ends (the dispatcher keyed a table of its own on every path ever
//! written, refused ones too, and 600 requests with 1 MB paths grew it by
//! 600 MB; issue 43).

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::Duration;

use crate::tools::deadline::CancelToken;

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

impl Locks {
    /// [`acquire`](Self::acquire), giving up (`None`) once `token` expires:
    /// a write that waits for another write of its file past its own
    /// deadline is refused without starting.
    pub(super) fn acquire_until(
        locks: &Arc<Locks>,
        mut paths: Vec<PathBuf>,
        token: &CancelToken,
    ) -> Option<WriteLock> {
        paths.sort();
        paths.dedup();
        let mut held = locks.held.lock().unwrap_or_else(PoisonError::into_inner);
        while paths.iter().any(|path| held.contains(path)) {
            if token.is_expired() {
                return None;
            }
            // A cancel has no wake-up of its own: look again every 10 ms.
            held = locks
                .freed
                .wait_timeout(held, Duration::from_millis(10))
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
        held.extend(paths.iter().cloned());
        Some(WriteLock {
            locks: Arc::clone(locks),
            paths,
        })
    }

    /// How many places are held now (for the test that the set shrinks).
    #[cfg(test)]
    fn n_held(&self) -> usize {
        self.held
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
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

    /// Issue 43, hole 9: the set holds only the places in use, and a wait
    /// past the token's deadline gives up.
    #[test]
    fn the_set_shrinks_and_a_wait_ends_with_its_token() {
        let locks = Arc::new(Locks::default());
        for i in 0..100 {
            let token = CancelToken::new();
            let lock = Locks::acquire_until(&locks, vec![format!("f{i}").into()], &token);
            assert!(lock.is_some());
        }
        assert_eq!(locks.n_held(), 0);
        let _held = Locks::acquire(&locks, vec!["a".into()]);
        let token =
            CancelToken::with_deadline(std::time::Instant::now() + Duration::from_millis(30));
        assert!(Locks::acquire_until(&locks, vec!["a".into()], &token).is_none());
        assert_eq!(locks.n_held(), 1);
    }
}
