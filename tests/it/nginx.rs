//! A real nginx (Debian's package) in front of a fleet, run as a child process on a
//! port of its own with a folder of its own, its configuration taken from the
//! ```` ```nginx ```` block in docs/OPERATIONS.md, so that what the operators are told
//! to run is what the tests run.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use parlor_testkit::test_services::{self, TestProgram};

use crate::waiting::eventually;

/// The operators' guide, as compiled into the tests.
const OPERATIONS: &str = include_str!("../../docs/OPERATIONS.md");

/// The upstream servers' address in the guide's block, `10.0.0.1N:8080`, before the
/// node's number.
const DOC_NODE_PREFIX: &str = "10.0.0.1";

/// How long nginx may take to start listening before the test fails.
const START_PATIENCE: Duration = Duration::from_secs(30);

/// A running nginx, stopped (and reaped) when dropped.
pub(crate) struct Nginx {
    child: Child,
    /// Where it listens, `127.0.0.1:port`.
    pub(crate) address: String,
    /// Its own folder: configuration, error log, pid and temporary files.
    dir: tempfile::TempDir,
}

impl Nginx {
    /// The nginx binary for `test`, or `None` (the skip said and counted) when it is
    /// missing outside CI; under CI a missing nginx fails the test.
    pub(crate) fn binary(test: &str) -> Option<PathBuf> {
        test_services::program(test, TestProgram::Nginx)
    }

    /// Starts `binary` with the guide's block in front of `nodes` (`host:port` each,
    /// in the block's order), each upstream server's flags replaced by `server_flags`
    /// if given; returns once it accepts connections.
    pub(crate) async fn start(
        binary: &Path,
        nodes: &[String],
        server_flags: Option<&str>,
    ) -> Nginx {
        let dir = tempfile::tempdir().unwrap();
        // Its workers run as `nobody` when the tests run as root: they must reach the
        // folder.
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(dir.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        }
        let port = free_port();
        let block = site_block(&documented_block(), nodes, port, server_flags);
        let config = main_config(dir.path(), &block);
        let config_path = dir.path().join("nginx.conf");
        std::fs::write(&config_path, config).unwrap();
        let error_log = dir.path().join("error.log");
        let child = Command::new(binary)
            .arg("-p")
            .arg(dir.path())
            .arg("-e")
            .arg(&error_log)
            .arg("-c")
            .arg(&config_path)
            .arg("-g")
            .arg("daemon off;")
            .stdin(Stdio::null())
            .stdout(Stdio::inherit())
            .stderr(Stdio::inherit())
            .spawn()
            .unwrap();
        let mut nginx = Nginx {
            child,
            address: format!("127.0.0.1:{port}"),
            dir,
        };
        nginx.wait_listening().await;
        nginx
    }

    /// Waits until nginx accepts connections; fails the test, with its error log, if it
    /// exits first or never does.
    async fn wait_listening(&mut self) {
        let address = self.address.clone();
        eventually("nginx accepts connections", START_PATIENCE, async || {
            if let Some(status) = self.child.try_wait().unwrap() {
                panic!("nginx exited ({status}): {}", self.error_log());
            }
            tokio::net::TcpStream::connect(&address)
                .await
                .map(drop)
                .map_err(|error| error.to_string())
        })
        .await;
    }

    /// Everything nginx has logged as an error or warning so far.
    pub(crate) fn error_log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("error.log")).unwrap_or_default()
    }

    /// What nginx has logged so far, each kind of line with its count: the line's
    /// level and message, without its time, process, connection or request.
    pub(crate) fn logged_kinds(&self) -> BTreeMap<String, usize> {
        let mut kinds = BTreeMap::new();
        for line in self.error_log().lines() {
            // `2024/01/02 03:04:05 [error] 12#12: *34 message, client: …`
            let level = line
                .split_once(" [")
                .and_then(|(_, rest)| rest.split_once(']'));
            let Some((level, rest)) = level else {
                continue;
            };
            let message = rest.split_once(": ").map_or(rest, |(_, message)| message);
            let message = message
                .strip_prefix('*')
                .and_then(|rest| rest.split_once(' '))
                .map_or(message, |(_, message)| message);
            let message = message.split(", client:").next().unwrap_or(message);
            *kinds.entry(format!("[{level}] {message}")).or_default() += 1;
        }
        kinds
    }
}

impl Drop for Nginx {
    fn drop(&mut self) {
        // SIGTERM: the master stops its workers and exits at once.
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: kill(2) takes plain integers; `pid` is our own child.
            #[allow(unsafe_code)]
            let _ = unsafe { libc::kill(pid, libc::SIGTERM) };
        }
        let _ = self.child.wait();
    }
}

/// A port on 127.0.0.1 that was free a moment ago: nginx cannot be asked for one.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.local_addr().unwrap().port()
}

/// The ```` ```nginx ```` block of docs/OPERATIONS.md: the one the operators copy.
pub(crate) fn documented_block() -> String {
    let mut blocks = OPERATIONS.split("```nginx\n").skip(1);
    let block = blocks
        .next()
        .expect("docs/OPERATIONS.md has an ```nginx block");
    assert!(
        blocks.next().is_none(),
        "docs/OPERATIONS.md has one ```nginx block"
    );
    let (block, _) = block
        .split_once("\n```")
        .expect("the ```nginx block of docs/OPERATIONS.md ends");
    block.to_owned()
}

/// `block` made to run here: its upstream servers (`10.0.0.1N:8080`, in order) become
/// `nodes`, with their flags replaced by `server_flags` if given, it listens on
/// 127.0.0.1:`port` in plain HTTP, and its TLS lines go.
pub(crate) fn site_block(
    block: &str,
    nodes: &[String],
    port: u16,
    server_flags: Option<&str>,
) -> String {
    let mut nodes_left = nodes.iter();
    let mut listens = 0;
    let mut lines = Vec::new();
    for line in block.lines() {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["server", address, flags @ ..] if address.starts_with(DOC_NODE_PREFIX) => {
                let node = nodes_left
                    .next()
                    .expect("the guide's upstream has no more servers than the fleet nodes");
                let flags = server_flags.map_or_else(
                    || flags.join(" ").trim_end_matches(';').to_owned(),
                    str::to_owned,
                );
                lines.push(format!("    server {node} {flags};"));
            }
            ["listen", ..] => {
                listens += 1;
                lines.push(format!("    listen 127.0.0.1:{port};"));
            }
            [directive, ..] if directive.starts_with("ssl_") => {}
            _ => lines.push(line.to_owned()),
        }
    }
    assert!(
        nodes_left.next().is_none(),
        "the guide's upstream has as many servers as the fleet has nodes"
    );
    assert_eq!(listens, 1, "the guide's server block listens once");
    lines.join("\n")
}

/// nginx's main configuration around the site `block`: one worker, every file in
/// `dir`, and the block in its `http` context as the guide's would be in `conf.d`.
fn main_config(dir: &Path, block: &str) -> String {
    let dir = dir.display();
    format!(
        "worker_processes 1;\n\
         pid {dir}/nginx.pid;\n\
         error_log {dir}/error.log warn;\n\
         events {{\n    worker_connections 512;\n}}\n\
         http {{\n\
         access_log off;\n\
         client_body_temp_path {dir}/client_body;\n\
         proxy_temp_path {dir}/proxy;\n\
         fastcgi_temp_path {dir}/fastcgi;\n\
         uwsgi_temp_path {dir}/uwsgi;\n\
         scgi_temp_path {dir}/scgi;\n\
         {block}\n\
         }}\n"
    )
}

/// The port of `address` (`host:port`).
pub(crate) fn port_of(address: &str) -> u16 {
    address.parse::<SocketAddr>().unwrap().port()
}

/// The guide's block, made to run here, as the test sees it: it can fail.
mod tests {
    use super::*;

    #[test]
    fn the_guides_block_is_made_to_run_here() {
        let nodes = [
            "127.0.0.1:1".to_owned(),
            "127.0.0.1:2".to_owned(),
            "127.0.0.1:3".to_owned(),
        ];
        let block = site_block(&documented_block(), &nodes, 9, None);
        assert!(block.contains("server 127.0.0.1:2 max_fails=0;"), "{block}");
        assert!(block.contains("listen 127.0.0.1:9;"), "{block}");
        assert!(!block.contains("ssl"), "{block}");
        assert!(!block.contains("10.0.0."), "{block}");
        assert!(block.contains("proxy_pass http://parlor;"), "{block}");
        let old = site_block(
            &documented_block(),
            &nodes,
            9,
            Some("max_fails=2 fail_timeout=5s"),
        );
        assert!(
            old.contains("server 127.0.0.1:3 max_fails=2 fail_timeout=5s;"),
            "{old}"
        );
    }

    #[test]
    #[should_panic(expected = "as many servers as the fleet has nodes")]
    fn a_fleet_larger_than_the_guides_upstream_is_caught() {
        let nodes: Vec<String> = (1..=4).map(|n| format!("127.0.0.1:{n}")).collect();
        site_block(&documented_block(), &nodes, 9, None);
    }
}
