//! The SQLite file's guards at start-up: one Parlor process per database at a time, and a
//! clear refusal of a file that is not a SQLite database.
//!
//! A second server on the same file would mark the first one's live games `interrupted`
//! at its start-up, so the server holds an exclusive OS lock on `<database>.lock` for as
//! long as its store is open. The lock is advisory and released by the OS when the
//! process dies, so a crash never leaves a stale lock behind.

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use crate::store::StoreError;

/// The first 16 bytes of every SQLite 3 database file.
const SQLITE_HEADER: &[u8; 16] = b"SQLite format 3\0";

/// An exclusive hold on a database file, released when dropped.
#[derive(Debug)]
pub(crate) struct FileLock {
    _file: File,
}

/// The lock file that guards `database`: the same path with `.lock` appended.
fn lock_path(database: &Path) -> PathBuf {
    let mut path = database.as_os_str().to_owned();
    path.push(".lock");
    PathBuf::from(path)
}

/// Takes the exclusive lock on `database`, or says which process holds it.
pub(super) fn lock(database: &Path) -> Result<FileLock, StoreError> {
    let path = lock_path(database);
    let io_error = |source| StoreError::Lock {
        path: path.display().to_string(),
        source,
    };
    let mut file = OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .open(&path)
        .map_err(io_error)?;
    match file.try_lock() {
        Ok(()) => {}
        Err(TryLockError::WouldBlock) => {
            let mut holder = String::new();
            // Best effort: the holder's pid is only there to help the operator.
            let _ = file.read_to_string(&mut holder);
            return Err(StoreError::InUse {
                path: database.display().to_string(),
                holder: holder.trim().parse().ok(),
            });
        }
        Err(TryLockError::Error(source)) => return Err(io_error(source)),
    }
    file.set_len(0)
        .and_then(|()| file.seek(SeekFrom::Start(0)))
        .and_then(|_| writeln!(file, "{}", std::process::id()))
        .map_err(io_error)?;
    Ok(FileLock { _file: file })
}

/// Refuses a file that exists, is not empty, and does not start like a SQLite database
/// (SQLite itself would only say "file is not a database" when first queried, and the
/// connection pool would retry that until it timed out).
pub(super) fn check_is_sqlite(database: &Path) -> Result<(), StoreError> {
    let mut file = match File::open(database) {
        Ok(file) => file,
        // A missing file is created by SQLite; any other problem it reports itself.
        Err(_) => return Ok(()),
    };
    let mut header = [0u8; 16];
    let mut read = 0;
    while read < header.len() {
        match file.read(&mut header[read..]) {
            Ok(0) => break,
            Ok(n) => read += n,
            Err(_) => return Ok(()),
        }
    }
    if read == 0 || &header == SQLITE_HEADER {
        return Ok(());
    }
    Err(StoreError::NotSqlite {
        path: database.display().to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_on_the_same_file_is_refused_and_names_the_holder() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("parlor.db");
        let held = lock(&db).unwrap();
        match lock(&db) {
            Err(StoreError::InUse { path, holder }) => {
                assert!(path.ends_with("parlor.db"), "{path}");
                assert_eq!(holder, Some(std::process::id()));
            }
            other => panic!("expected InUse, got {other:?}"),
        }
        drop(held);
        lock(&db).unwrap();
    }

    #[test]
    fn only_sqlite_files_and_missing_or_empty_ones_pass() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("parlor.db");
        check_is_sqlite(&db).unwrap();
        std::fs::write(&db, b"").unwrap();
        check_is_sqlite(&db).unwrap();
        std::fs::write(&db, b"SQLite format 3\0and the rest of a page").unwrap();
        check_is_sqlite(&db).unwrap();
        std::fs::write(&db, b"name,score\nann,3\n").unwrap();
        let error = check_is_sqlite(&db).unwrap_err();
        assert!(matches!(error, StoreError::NotSqlite { .. }), "{error:?}");
        assert!(error.to_string().contains("parlor.db"), "{error}");
    }
}
