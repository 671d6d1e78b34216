//! The command line both baselines share, and how they announce their address.

use std::io::Write as _;
use std::net::{IpAddr, Ipv4Addr, SocketAddr, TcpListener};

use clap::Parser;

/// A bare tic-tac-toe room server that parlor-bench measures Parlor against (see
/// BENCHMARKS.md).
#[derive(Debug, Parser)]
#[command(version)]
pub(crate) struct Args {
    /// The port to listen on (0 picks a free one).
    #[arg(long, default_value_t = 8090)]
    pub(crate) port: u16,
    /// The address to listen on.
    #[arg(long, default_value_t = IpAddr::V4(Ipv4Addr::LOCALHOST))]
    pub(crate) bind: IpAddr,
}

impl Args {
    /// Binds the listener and prints `listening on http://ADDR`, the line parlor-bench
    /// waits for (Parlor logs the same words).
    pub(crate) fn listen(&self, name: &str) -> Result<(TcpListener, SocketAddr), String> {
        let listener = TcpListener::bind((self.bind, self.port)).map_err(|e| {
            format!(
                "{name}: could not listen on {}:{}: {e}",
                self.bind, self.port
            )
        })?;
        let address = listener
            .local_addr()
            .map_err(|e| format!("{name}: the listener has no address: {e}"))?;
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "{name}: listening on http://{address}");
        let _ = out.flush();
        Ok((listener, address))
    }
}
