//! What the generator reads from and asks of the operating system: the open-file limit,
//! CPU pinning, a process's memory and CPU time from /proc, and whether a directory is
//! on a tmpfs.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::BenchError;

/// Raises this process's soft open-file limit to its hard limit, so that thousands of
/// sockets can be opened; returns the soft limit before and after.
#[allow(unsafe_code)] // getrlimit(2)/setrlimit(2); see the SAFETY comment.
pub(crate) fn raise_open_file_limit() -> (u64, u64) {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed by pointer.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return (0, 0);
        }
        let before = limit.rlim_cur;
        limit.rlim_cur = limit.rlim_max;
        if libc::setrlimit(libc::RLIMIT_NOFILE, &limit) != 0 {
            return (before, before);
        }
        (before, limit.rlim_cur)
    }
}

/// Pins this process (and the threads it starts later) to `core` with `taskset`.
pub(crate) fn pin_self(core: usize) -> Result<(), BenchError> {
    let pid = std::process::id().to_string();
    let status = Command::new("taskset")
        .args(["-p", "-c", &core.to_string(), &pid])
        .stdout(std::process::Stdio::null())
        .status()
        .map_err(|source| BenchError::Spawn {
            what: "taskset (from util-linux) to pin the generator".to_owned(),
            source,
        })?;
    if status.success() {
        Ok(())
    } else {
        Err(BenchError::Usage(format!(
            "taskset could not pin the generator to core {core} ({status}); does this machine have that core?"
        )))
    }
}

/// Clock ticks per second, the unit of `/proc/<pid>/stat`'s CPU times.
#[allow(unsafe_code)] // sysconf(3); see the SAFETY comment.
fn ticks_per_second() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if ticks > 0 { ticks as f64 } else { 100.0 }
}

fn read(path: PathBuf) -> Result<String, BenchError> {
    std::fs::read_to_string(&path).map_err(|_| BenchError::Proc(path))
}

/// A process's resident memory, bytes (`VmRSS` in `/proc/<pid>/status`).
pub(crate) fn rss_bytes(pid: u32) -> Result<u64, BenchError> {
    let path = PathBuf::from(format!("/proc/{pid}/status"));
    let status = read(path.clone())?;
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|rest| {
            rest.trim()
                .trim_end_matches("kB")
                .trim()
                .parse::<u64>()
                .ok()
        })
        .map(|kib| kib * 1024)
        .ok_or(BenchError::Proc(path))
}

/// A process's user plus system CPU time so far, seconds (`/proc/<pid>/stat`).
pub(crate) fn cpu_seconds(pid: u32) -> Result<f64, BenchError> {
    let path = PathBuf::from(format!("/proc/{pid}/stat"));
    let stat = read(path.clone())?;
    // The command name may hold spaces; the fields after it are plain numbers.
    let after_name = stat.rsplit_once(')').map(|(_, rest)| rest);
    let fields: Vec<&str> = after_name.unwrap_or("").split_whitespace().collect();
    // utime and stime are fields 14 and 15; field 3 (the state) is fields[0] here.
    let utime = fields.get(11).and_then(|f| f.parse::<u64>().ok());
    let stime = fields.get(12).and_then(|f| f.parse::<u64>().ok());
    match (utime, stime) {
        (Some(u), Some(s)) => Ok((u + s) as f64 / ticks_per_second()),
        _ => Err(BenchError::Proc(path)),
    }
}

/// The bytes a process has caused to be written to storage so far (`write_bytes` in
/// `/proc/<pid>/io`: what reached the block device or would have, not what sat in a
/// tmpfs); `None` where the kernel does not account it.
pub(crate) fn written_bytes(pid: u32) -> Result<Option<u64>, BenchError> {
    let io = read(PathBuf::from(format!("/proc/{pid}/io")))?;
    Ok(io
        .lines()
        .find_map(|line| line.strip_prefix("write_bytes:"))
        .and_then(|rest| rest.trim().parse::<u64>().ok()))
}

/// The 1-, 5- and 15-minute load averages, to say how busy the machine was.
pub(crate) fn load_average() -> Option<[f64; 3]> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    let mut fields = text.split_whitespace().map(|f| f.parse::<f64>().ok());
    Some([fields.next()??, fields.next()??, fields.next()??])
}

/// Whether `path` is on a tmpfs (memory, not disk); `false` when it cannot be told.
#[allow(unsafe_code)] // statfs(2); see the SAFETY comment.
pub(crate) fn is_tmpfs(path: &Path) -> bool {
    /// `f_type` of a tmpfs, from statfs(2).
    const TMPFS_MAGIC: libc::__fsword_t = 0x0102_1994;
    let Ok(path) = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()) else {
        return false;
    };
    let mut stat = std::mem::MaybeUninit::<libc::statfs>::uninit();
    // SAFETY: `path` is a NUL-terminated string and `stat` is a buffer of the struct
    // statfs(2) fills; it is read only when the call succeeded.
    let filled = unsafe { libc::statfs(path.as_ptr(), stat.as_mut_ptr()) } == 0;
    // SAFETY: statfs succeeded, so it filled the struct.
    filled && unsafe { stat.assume_init() }.f_type == TMPFS_MAGIC
}
