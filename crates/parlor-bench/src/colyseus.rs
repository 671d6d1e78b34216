//! The Colyseus server's Node.js side: finding `node`, and installing the server's
//! packages from its lock file (`npm ci`) the first time it is measured.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::error::BenchError;

/// The Colyseus server's folder in this crate's sources.
pub(crate) const DEFAULT_DIR: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/colyseus");

/// The `node` that runs the Colyseus server in `dir`, once its packages are installed
/// (with `npm ci`, from the lock file, when `node_modules` is missing).
pub(crate) fn installed(dir: &Path) -> Result<PathBuf, BenchError> {
    let failed = |why: String| BenchError::Colyseus {
        dir: dir.to_owned(),
        why,
    };
    let node = on_path("node").ok_or_else(|| failed("`node` is not on the PATH".to_owned()))?;
    if !dir.join("node_modules").is_dir() {
        eprintln!(
            "parlor-bench: installing the Colyseus server's packages (npm ci in {})",
            dir.display()
        );
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(dir)
            .status()
            .map_err(|e| failed(format!("could not run npm: {e}")))?;
        if !status.success() {
            return Err(failed(format!("`npm ci` failed ({status})")));
        }
    }
    Ok(node)
}

/// The first file named `program` in the PATH's directories.
fn on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|candidate| candidate.is_file())
}
