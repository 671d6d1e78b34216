//! The services some tests need, PostgreSQL and Redis, each named by an environment
//! variable (`PARLOR_TEST_POSTGRES_URL`, `PARLOR_TEST_REDIS_URL`; `.ci/run` sets both),
//! the programs some run (nginx, found on the `PATH` or in `/usr/sbin`; `.ci/run`
//! installs it), and the count of the tests skipped for want of them: used by the
//! server's own tests and by the integration tests.
//!
//! Outside CI a test whose service is not named, or whose program is missing, says so
//! and passes. The test harness
//! keeps what a passing test prints to itself, so each skip is also counted, and as the
//! test process exits one line on stderr, after the harness's own summary, gives the
//! count: `SKIPPED 40 tests: 38 need PostgreSQL (set PARLOR_TEST_POSTGRES_URL), 12 need
//! Redis (set PARLOR_TEST_REDIS_URL)`. Under CI (`CI` set) a missing variable or program
//! fails the test instead of skipping it.

use std::path::PathBuf;
use std::sync::Once;
use std::sync::atomic::{AtomicUsize, Ordering};

/// A service that tests may need.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestService {
    /// A PostgreSQL database in which each test makes a schema of its own.
    Postgres,
    /// A Redis server in which each test uses a key prefix of its own.
    Redis,
}

impl TestService {
    /// Both services, in the order the report names them.
    const ALL: [TestService; 2] = [TestService::Postgres, TestService::Redis];

    /// The environment variable that names the service for tests.
    pub fn variable(self) -> &'static str {
        match self {
            TestService::Postgres => "PARLOR_TEST_POSTGRES_URL",
            TestService::Redis => "PARLOR_TEST_REDIS_URL",
        }
    }

    /// The service's name.
    pub fn name(self) -> &'static str {
        match self {
            TestService::Postgres => "PostgreSQL",
            TestService::Redis => "Redis",
        }
    }

    /// A value the variable may take on a developer's machine.
    fn example(self) -> &'static str {
        match self {
            TestService::Postgres => "postgres://postgres@127.0.0.1:5432/test",
            TestService::Redis => "redis://127.0.0.1:6379",
        }
    }

    fn index(self) -> usize {
        match self {
            TestService::Postgres => 0,
            TestService::Redis => 1,
        }
    }
}

/// A program that tests may run as a child process.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TestProgram {
    /// nginx, as a reverse proxy in front of a fleet.
    Nginx,
}

impl TestProgram {
    /// The program's file name.
    pub fn name(self) -> &'static str {
        match self {
            TestProgram::Nginx => "nginx",
        }
    }

    /// How to install it on Debian, as `.ci/run` does.
    fn install(self) -> &'static str {
        match self {
            TestProgram::Nginx => "apt-get install --no-install-recommends nginx",
        }
    }
}

/// What a skipped test lacked, in the order the report names them: the services, then
/// the programs.
const NEEDS: usize = 3;

/// Tests skipped so far in this process.
static SKIPPED: AtomicUsize = AtomicUsize::new(0);

/// Of those, how many lacked each service or program (a test that lacked two counts
/// under both), indexed as [`label`] names them.
static NEEDING: [AtomicUsize; NEEDS] = [
    AtomicUsize::new(0),
    AtomicUsize::new(0),
    AtomicUsize::new(0),
];

/// What the report says the tests counted at `index` of [`NEEDING`] lacked, and how to
/// give it to them.
fn label(index: usize) -> String {
    match index {
        0 | 1 => {
            let service = TestService::ALL[index];
            format!("{} (set {})", service.name(), service.variable())
        }
        _ => {
            let program = TestProgram::Nginx;
            format!("{} ({})", program.name(), program.install())
        }
    }
}

/// The index in [`NEEDING`] of `program`.
fn program_index(program: TestProgram) -> usize {
    match program {
        TestProgram::Nginx => 2,
    }
}

/// Arranges, at the first skip, for the count to be reported when the process exits.
static REPORT_AT_EXIT: Once = Once::new();

/// The URL of `service` for the test `test`, or `None` when its variable is unset
/// outside CI: the test should then return at once, skipped (see [`urls`]).
///
/// # Panics
///
/// Under CI (`CI` set) when the variable is unset.
pub fn url(test: &str, service: TestService) -> Option<String> {
    urls(test, [service]).map(|[url]| url)
}

/// The URLs of `services` for the test `test`, in their order, or `None` when any of
/// their variables is unset outside CI: the skip is then said on stderr and counted
/// once, for the report at the process's exit, and the test should return at once.
///
/// # Panics
///
/// Under CI (`CI` set) when a variable is unset: there every test must run.
pub fn urls<const N: usize>(test: &str, services: [TestService; N]) -> Option<[String; N]> {
    let found = services.map(|service| std::env::var(service.variable()).ok());
    let missing: Vec<TestService> = services
        .iter()
        .zip(&found)
        .filter(|(_, url)| url.is_none())
        .map(|(service, _)| *service)
        .collect();
    if missing.is_empty() {
        return Some(found.map(Option::unwrap_or_default));
    }
    let names = missing
        .iter()
        .map(|service| service.name())
        .collect::<Vec<_>>()
        .join(" and ");
    let settings = missing
        .iter()
        .map(|service| format!("{} (e.g. {})", service.variable(), service.example()))
        .collect::<Vec<_>>()
        .join(" and ");
    assert!(
        std::env::var_os("CI").is_none(),
        "{settings} unset under CI: {test} must run"
    );
    eprintln!("SKIPPED: {test} needs {names}; set {settings} to run it");
    let lacked: Vec<usize> = missing.iter().map(|service| service.index()).collect();
    count_skip(&lacked);
    None
}

/// The path of `program` for the test `test`: the first found on the `PATH`, then in
/// `/usr/sbin` (where Debian puts nginx, outside a user's `PATH`). `None` when it is
/// missing outside CI: the skip is then said on stderr and counted, and the test should
/// return at once.
///
/// # Panics
///
/// Under CI (`CI` set) when the program is missing: `.ci/run` installs it.
pub fn program(test: &str, program: TestProgram) -> Option<PathBuf> {
    let name = program.name();
    let path = std::env::var_os("PATH").unwrap_or_default();
    let found = std::env::split_paths(&path)
        .chain([PathBuf::from("/usr/sbin")])
        .map(|dir| dir.join(name))
        .find(|candidate| candidate.is_file());
    if found.is_some() {
        return found;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{name} is missing under CI ({}): {test} must run",
        program.install()
    );
    eprintln!(
        "SKIPPED: {test} needs {name}; install it ({}) to run it",
        program.install()
    );
    count_skip(&[program_index(program)]);
    None
}

/// Counts one skipped test that lacked what `lacked` indexes in [`NEEDING`], and at the
/// first skip arranges for the report at exit.
fn count_skip(lacked: &[usize]) {
    SKIPPED.fetch_add(1, Ordering::Relaxed);
    for index in lacked {
        NEEDING[*index].fetch_add(1, Ordering::Relaxed);
    }
    REPORT_AT_EXIT.call_once(report_at_exit);
}

/// Has [`report`] run as the process exits, however it exits (the harness returns from
/// `main`, or calls `exit` when a test failed): after everything the harness prints.
#[cfg(unix)]
fn report_at_exit() {
    // SAFETY: atexit(3) only records the address of `report`, a plain `extern "C"`
    // function of no arguments that lives as long as the program. It runs once, as the
    // process exits; it reads atomics and writes to the unbuffered stderr, both usable
    // then, and it cannot unwind (a panic in an `extern "C"` function aborts).
    #[allow(unsafe_code)]
    let registered = unsafe { libc::atexit(report) } == 0;
    if !registered {
        eprintln!("the count of skipped tests cannot be reported at exit");
    }
}

/// Elsewhere only each skip's own line says it.
#[cfg(not(unix))]
fn report_at_exit() {}

/// Writes the count of skipped tests to stderr.
#[cfg(unix)]
extern "C" fn report() {
    let needing = NEEDING
        .each_ref()
        .map(|count| count.load(Ordering::Relaxed));
    if let Some(line) = summary(SKIPPED.load(Ordering::Relaxed), needing) {
        use std::io::Write;
        let _ = writeln!(std::io::stderr(), "\n{line}\n");
    }
}

/// The report's line for `skipped` tests, of which `needing[i]` lacked what [`label`]
/// names for `i`; `None` when nothing was skipped.
fn summary(skipped: usize, needing: [usize; NEEDS]) -> Option<String> {
    if skipped == 0 {
        return None;
    }
    let tests = |count: usize| if count == 1 { "test" } else { "tests" };
    let need = |count: usize| if count == 1 { "needs" } else { "need" };
    let parts: Vec<(usize, String)> = needing
        .into_iter()
        .enumerate()
        .filter(|(_, count)| *count > 0)
        .map(|(index, count)| (count, label(index)))
        .collect();
    Some(match parts.as_slice() {
        [(count, what)] if *count == skipped => {
            format!(
                "SKIPPED {skipped} {} that {} {what}",
                tests(skipped),
                need(skipped)
            )
        }
        _ => {
            let each = parts
                .iter()
                .map(|(count, what)| format!("{count} {} {what}", need(*count)))
                .collect::<Vec<_>>()
                .join(", ");
            format!("SKIPPED {skipped} {}: {each}", tests(skipped))
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_report_counts_the_tests_and_names_each_variable_to_set() {
        assert_eq!(summary(0, [0, 0, 0]), None);
        assert_eq!(
            summary(1, [1, 0, 0]).as_deref(),
            Some("SKIPPED 1 test that needs PostgreSQL (set PARLOR_TEST_POSTGRES_URL)")
        );
        assert_eq!(
            summary(3, [0, 3, 0]).as_deref(),
            Some("SKIPPED 3 tests that need Redis (set PARLOR_TEST_REDIS_URL)")
        );
        // A test that needs both services counts once in all, and under each.
        assert_eq!(
            summary(40, [38, 12, 0]).as_deref(),
            Some(
                "SKIPPED 40 tests: 38 need PostgreSQL (set PARLOR_TEST_POSTGRES_URL), \
                 12 need Redis (set PARLOR_TEST_REDIS_URL)"
            )
        );
        assert_eq!(
            summary(2, [2, 1, 0]).as_deref(),
            Some(
                "SKIPPED 2 tests: 2 need PostgreSQL (set PARLOR_TEST_POSTGRES_URL), \
                 1 needs Redis (set PARLOR_TEST_REDIS_URL)"
            )
        );
        // A missing program is counted beside the services.
        assert_eq!(
            summary(1, [0, 0, 1]).as_deref(),
            Some(
                "SKIPPED 1 test that needs nginx \
                 (apt-get install --no-install-recommends nginx)"
            )
        );
        assert_eq!(
            summary(3, [2, 2, 1]).as_deref(),
            Some(
                "SKIPPED 3 tests: 2 need PostgreSQL (set PARLOR_TEST_POSTGRES_URL), \
                 2 need Redis (set PARLOR_TEST_REDIS_URL), \
                 1 needs nginx (apt-get install --no-install-recommends nginx)"
            )
        );
    }
}
