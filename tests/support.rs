//! Helpers shared by the integration tests.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

use argmend::tools::Workspace;

/// A fresh directory under the system temp dir, removed on drop.
pub(crate) struct TempDir(PathBuf);

impl TempDir {
    pub(crate) fn new() -> Self {
        static COUNTER: AtomicUsize = AtomicUsize::new(0);
        let n = COUNTER.fetch_add(1, Ordering::Relaxed);
        let path = std::env::temp_dir().join(format!("argmend-test-{}-{n}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        TempDir(path.canonicalize().unwrap())
    }

    pub(crate) fn path(&self) -> &Path {
        &self.0
    }

    pub(crate) fn write(&self, name: &str, bytes: impl AsRef<[u8]>) -> PathBuf {
        let path = self.0.join(name);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap();
        }
        fs::write(&path, bytes).unwrap();
        path
    }

    pub(crate) fn read(&self, name: &str) -> Vec<u8> {
        fs::read(self.0.join(name)).unwrap()
    }

    pub(crate) fn workspace(&self) -> Workspace {
        Workspace::new(&self.0).unwrap()
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// Writes `line` to the test binary's stderr handle, past libtest's capture
/// of `eprintln!`, so a passing test's summary line (pytest's counts,
/// node's) is seen in the run's output and `scripts/test` can show it.
pub(crate) fn tell(line: &str) {
    use std::io::Write as _;
    let _ = std::io::stderr()
        .lock()
        .write_all(format!("{line}\n").as_bytes());
}

/// The CPU time the calling thread has used: what the tests that hold a
/// piece of work to linear cost measure. A loaded machine inflates wall
/// time (at a load average of 15, CI failed three 5-second bounds on work
/// of a few hundred milliseconds), not the time the thread itself ran, and a
/// quadratic blow-up is still hundreds of times over the bound.
pub(crate) fn thread_cpu() -> std::time::Duration {
    #[cfg(unix)]
    {
        let spec = rustix::time::clock_gettime(rustix::time::ClockId::ThreadCPUTime);
        std::time::Duration::new(
            u64::try_from(spec.tv_sec).unwrap_or(0),
            u32::try_from(spec.tv_nsec).unwrap_or(0),
        )
    }
    #[cfg(not(unix))]
    {
        use std::sync::OnceLock;
        static START: OnceLock<std::time::Instant> = OnceLock::new();
        START.get_or_init(std::time::Instant::now).elapsed()
    }
}
