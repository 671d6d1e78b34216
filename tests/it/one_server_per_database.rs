//! The database at start-up, with real server processes: a second Parlor on the same
//! file is refused while the first runs (it would mark the first one's live games
//! interrupted), and a file that is not SQLite is refused at once (on reading it, not
//! after a pool's retries), by name.

use std::path::Path;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use std::io::{BufRead, BufReader};

/// How long a test waits for a server that should stop by itself before it fails. A
/// refused start is told apart from a slow one by what the server says (a pool that
/// gave up after its retries said neither what holds the file nor what the file is).
const EXIT_PATIENCE: Duration = Duration::from_secs(120);

fn parlor(db: &Path) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_parlor"));
    command
        .args(["--port", "0", "--config", "/dev/null"])
        .env("PARLOR_STORE__PATH", db)
        .env("RUST_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    command
}

/// Waits for a process that should stop by itself, killing it if it does not.
fn exits_within(mut child: Child, limit: Duration) -> Output {
    let started = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if started.elapsed() > limit {
            child.kill().unwrap();
            panic!("the server was still running after {limit:?}");
        }
        // A pause between looks at the child, which cannot be waited on with a limit.
        std::thread::sleep(Duration::from_millis(50));
    }
    child.wait_with_output().unwrap()
}

#[test]
fn a_second_server_on_the_same_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("parlor.db");
    let mut first = parlor(&db).spawn().unwrap();
    let lines = BufReader::new(first.stdout.take().unwrap()).lines();
    let mut ready = false;
    for line in lines {
        if line.unwrap().contains("listening on") {
            ready = true;
            break;
        }
    }
    assert!(ready, "the first server never said it was listening");

    let second = exits_within(parlor(&db).spawn().unwrap(), EXIT_PATIENCE);
    let said = String::from_utf8_lossy(&second.stderr);
    assert!(
        !second.status.success(),
        "the second server started: {said}"
    );
    assert!(said.contains("in use by another Parlor process"), "{said}");
    assert!(said.contains(&format!("pid {}", first.id())), "{said}");

    // SAFETY: kill(2) with a child's pid and SIGTERM has no memory effects.
    #[allow(unsafe_code)]
    unsafe {
        libc::kill(first.id() as i32, libc::SIGTERM)
    };
    let first = exits_within(first, EXIT_PATIENCE);
    assert!(
        first.status.success(),
        "the first server did not stop cleanly"
    );

    // Once the first has stopped, the database is free again.
    let mut third = parlor(&db).spawn().unwrap();
    let lines = BufReader::new(third.stdout.take().unwrap()).lines();
    assert!(
        lines
            .map_while(Result::ok)
            .any(|line| line.contains("listening on")),
        "the database stayed locked after the first server stopped"
    );
    third.kill().unwrap();
    third.wait().unwrap();
}

#[test]
fn a_file_that_is_not_sqlite_is_refused_at_once_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("scores.csv");
    std::fs::write(&db, "name,score\nann,3\n").unwrap();
    let output = exits_within(parlor(&db).spawn().unwrap(), EXIT_PATIENCE);
    let said = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "{said}");
    assert!(said.contains("scores.csv"), "{said}");
    assert!(said.contains("is not a SQLite database"), "{said}");
    // At once: refused on reading the file, not by a pool that gave up retrying.
    assert!(!said.contains("timed out"), "{said}");
    // The file is left as it was.
    assert_eq!(std::fs::read_to_string(&db).unwrap(), "name,score\nann,3\n");
}
