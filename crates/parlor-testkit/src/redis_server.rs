//! A Redis server of one test's own (`redis-server` from the PATH, on a free port, with
//! nothing saved to disk), for the tests in which Redis goes away: the test kills it and
//! starts it again on the same port, and never touches the machine's shared Redis.

use std::io;
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// How long a started `redis-server` may take to answer before starting it fails.
const STARTING: Duration = Duration::from_secs(30);

/// A `redis-server` child process on 127.0.0.1; killed when dropped.
pub struct RedisServer {
    address: SocketAddr,
    child: Option<Child>,
}

impl RedisServer {
    /// Starts `redis-server` on a free port; returns once it answers `PING`.
    pub fn start() -> io::Result<RedisServer> {
        // A port the system just handed out and took back: free, as far as anyone knows.
        let address = TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        let mut server = RedisServer {
            address,
            child: None,
        };
        server.restart()?;
        Ok(server)
    }

    /// The server's URL, for `cluster.redis_url`.
    pub fn url(&self) -> String {
        format!("redis://{}", self.address)
    }

    /// Where it listens.
    pub fn address(&self) -> SocketAddr {
        self.address
    }

    /// Kills the server (SIGKILL), as a crash would, and reaps it; its data is gone.
    pub fn kill(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// Starts the server again on the same port (killing it first if it runs), empty;
    /// returns once it answers `PING`.
    pub fn restart(&mut self) -> io::Result<()> {
        self.kill();
        let child = Command::new("redis-server")
            .arg("--port")
            .arg(self.address.port().to_string())
            .args(["--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .map_err(|error| {
                io::Error::new(
                    error.kind(),
                    format!("could not start redis-server (is it on the PATH?): {error}"),
                )
            })?;
        self.child = Some(child);
        self.wait_until_answering()
    }

    /// Polls the server with `PING` until it answers `+PONG`.
    fn wait_until_answering(&mut self) -> io::Result<()> {
        let since = Instant::now();
        loop {
            if self.pong().is_ok() {
                return Ok(());
            }
            if let Some(child) = self.child.as_mut()
                && let Some(status) = child.try_wait()?
            {
                return Err(io::Error::other(format!(
                    "redis-server on {} exited at start: {status}",
                    self.address
                )));
            }
            if since.elapsed() > STARTING {
                return Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!("redis-server on {} did not answer", self.address),
                ));
            }
            // A pause between polls of a server that announces nothing when ready.
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// One `PING`, answered `+PONG`.
    fn pong(&self) -> io::Result<()> {
        use std::io::{Read, Write};
        let mut stream = TcpStream::connect(self.address)?;
        stream.set_read_timeout(Some(Duration::from_secs(1)))?;
        stream.write_all(b"PING\r\n")?;
        let mut answer = [0; 7];
        stream.read_exact(&mut answer)?;
        if &answer == b"+PONG\r\n" {
            Ok(())
        } else {
            Err(io::Error::other("not a PONG"))
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn it_answers_stops_when_killed_and_answers_again_on_its_port() {
        let mut server = RedisServer::start().expect("redis-server on the PATH");
        server.pong().expect("answers");
        server.kill();
        assert!(server.pong().is_err(), "killed");
        server.restart().expect("starts again");
        server.pong().expect("answers again");
        assert!(server.url().ends_with(&server.address().port().to_string()));
    }
}
