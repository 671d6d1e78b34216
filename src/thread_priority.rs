//! Lowering the calling thread's scheduling priority (Linux), for the threads that must
//! give way to those serving connections and rooms: the bots' (`thinkers.rs`) and the
//! SQLite game log's (`store/sql/sqlite/log_thread.rs`). Elsewhere niceness belongs to
//! the whole process, so both calls then do nothing.

use std::io;

/// Gives the calling thread Linux's `SCHED_IDLE` policy: it runs only when no normal
/// thread wants its core (allowed without privileges).
#[allow(unsafe_code)] // One libc call, with its SAFETY comment.
pub(crate) fn idle_policy() -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        let param = libc::sched_param { sched_priority: 0 };
        // SAFETY: `param` is a valid sched_param that outlives the call; on Linux, pid 0
        // applies the policy to the calling thread only.
        if unsafe { libc::sched_setscheduler(0, libc::SCHED_IDLE, &param) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Gives the calling thread niceness `nice` (0 to 19): a busy core then gives it about
/// 1.25^-`nice` of a normal thread's share (a tenth at 10), and its wake-ups seldom
/// preempt the normal threads there.
#[allow(unsafe_code)] // One libc call, with its SAFETY comment.
pub(crate) fn niceness(nice: i32) -> io::Result<()> {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: setpriority takes plain integers; on Linux, PRIO_PROCESS with who = 0
        // applies to the calling thread only.
        if unsafe { libc::setpriority(libc::PRIO_PROCESS, 0, nice) } != 0 {
            return Err(io::Error::last_os_error());
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = nice;
    Ok(())
}

/// What the tests read back of the threads whose priority was set.
#[cfg(all(test, target_os = "linux"))]
pub(crate) mod probe {
    use std::time::{Duration, Instant};

    /// The `(niceness, scheduling policy)` of every thread of this process whose name
    /// starts with `prefix`.
    fn priorities_of_threads(prefix: &str) -> Vec<(i64, i64)> {
        let mut found = Vec::new();
        for task in std::fs::read_dir("/proc/self/task").unwrap() {
            let dir = task.unwrap().path();
            let name = std::fs::read_to_string(dir.join("comm")).unwrap_or_default();
            if !name.starts_with(prefix) {
                continue;
            }
            // A thread that ended since its name was read has no `stat` left to read.
            let Ok(stat) = std::fs::read_to_string(dir.join("stat")) else {
                continue;
            };
            // Fields after the parenthesised name, counted from state (field 3): nice is
            // field 19, the scheduling policy field 41.
            let fields: Vec<&str> = stat.rsplit(") ").next().unwrap().split(' ').collect();
            let (Some(nice), Some(policy)) = (fields.get(16), fields.get(38)) else {
                continue;
            };
            found.push((nice.parse().unwrap(), policy.parse().unwrap()));
        }
        found
    }

    /// Waits up to 5 s for a thread named `prefix…` at `(niceness, policy)`.
    pub(crate) fn wait_for_thread_at(prefix: &str, wanted: (i64, i64)) {
        let deadline = Instant::now() + Duration::from_secs(5);
        while !priorities_of_threads(prefix).contains(&wanted) {
            assert!(
                Instant::now() < deadline,
                "no {prefix} thread at (nice, policy) {wanted:?}: {:?}",
                priorities_of_threads(prefix)
            );
            // A pause between looks at /proc, which nothing can wait on.
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}
