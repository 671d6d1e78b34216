//! The `parlor` command: reads the configuration, starts logging, and runs the server
//! until Ctrl-C or SIGTERM; then exits within `server.shutdown_grace_secs` (plus a
//! short margin) whatever is stuck.

use std::io::IsTerminal;
use std::net::{SocketAddr, TcpListener};
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use clap::Parser;
use parlor::config::{Config, Overrides};
use socket2::{Domain, Socket, Type};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

/// The server's allocator: mimalloc, whose small allocations (frames, messages, the
/// rooms' views) cost a fraction of glibc's and share pages by size class.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Parlor: a real-time multiplayer board-game server.
#[derive(Debug, Parser)]
#[command(version, about)]
struct Args {
    /// The configuration file (default: ./config.toml if it exists).
    #[arg(long, value_name = "PATH")]
    config: Option<PathBuf>,
    /// The port to listen on, overriding the file and PARLOR_SERVER__PORT (0 picks a free one).
    #[arg(long)]
    port: Option<u16>,
    /// The address to listen on, overriding the file and PARLOR_SERVER__BIND.
    #[arg(long)]
    bind: Option<std::net::IpAddr>,
    /// Take the PostgreSQL database (store.url) over from the servers holding it: a
    /// live fleet, or a single server. They give up their games and stop; this server
    /// takes the games on. Without it, a server refuses to start beside servers it may
    /// not share the database with. See docs/OPERATIONS.md.
    #[arg(long)]
    take_over_database: bool,
}

#[tokio::main]
async fn main() -> ExitCode {
    let args = Args::parse();
    tracing_subscriber::fmt()
        .with_env_filter(
            EnvFilter::try_from_default_env().unwrap_or_else(|_| EnvFilter::new("info,sqlx=warn")),
        )
        .with_ansi(std::io::stdout().is_terminal())
        .init();
    let overrides = Overrides {
        bind: args.bind,
        port: args.port,
        take_over_database: args.take_over_database,
    };
    let config = match Config::load(args.config.as_deref(), &overrides) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("parlor: {error}");
            return ExitCode::FAILURE;
        }
    };
    let address = (config.server.bind, config.server.port);
    let listener = match listen(address.into()) {
        Ok(listener) => listener,
        Err(error) => {
            eprintln!(
                "parlor: could not listen on {}:{}: {error}",
                address.0, address.1
            );
            return ExitCode::FAILURE;
        }
    };
    let shutdown = CancellationToken::new();
    let grace = Duration::from_secs(config.server.shutdown_grace_secs);
    tokio::spawn(stop_on_signal(shutdown.clone(), grace));
    match parlor::run(config, listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("parlor: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Connections the kernel may hold waiting to be accepted. Beyond it a new connection's
/// SYN is dropped and the client retries a second later: after a restart every client
/// reconnects at once, and the standard library's 128 would cost most of them that
/// second. The kernel caps it at `net.core.somaxconn` (4096 by default).
const LISTEN_BACKLOG: i32 = 4096;

/// A listening socket on `address`, with room for a reconnecting crowd.
fn listen(address: SocketAddr) -> std::io::Result<TcpListener> {
    let socket = Socket::new(Domain::for_address(address), Type::STREAM, None)?;
    socket.set_reuse_address(true)?;
    socket.bind(&address.into())?;
    socket.listen(LISTEN_BACKLOG)?;
    Ok(socket.into())
}

/// How long past the shutdown grace the watchdog lets a graceful shutdown run (closing
/// the database, flushing logs) before it ends the process.
const WATCHDOG_MARGIN: Duration = Duration::from_secs(5);

/// Cancels `shutdown` on Ctrl-C or SIGTERM, and arms the watchdog.
async fn stop_on_signal(shutdown: CancellationToken, grace: Duration) {
    let ctrl_c = tokio::signal::ctrl_c();
    #[cfg(unix)]
    {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut terminate) => {
                tokio::select! {
                    _ = ctrl_c => {}
                    _ = terminate.recv() => {}
                }
            }
            Err(_) => {
                let _ = ctrl_c.await;
            }
        }
    }
    #[cfg(not(unix))]
    {
        let _ = ctrl_c.await;
    }
    arm_watchdog(grace + WATCHDOG_MARGIN);
    shutdown.cancel();
}

/// Ends the process `after` from now, whatever is still running: a plain thread, so it
/// fires even if every runtime thread is stuck (a room blocked in a computation or a
/// write that never returns). A graceful shutdown normally returns from `main` first.
fn arm_watchdog(after: Duration) {
    let armed = std::thread::Builder::new()
        .name("parlor-shutdown-watchdog".into())
        .spawn(move || {
            std::thread::sleep(after);
            tracing::error!(
                after_secs = after.as_secs(),
                "shutdown did not finish in time (see the rooms still busy above); exiting now"
            );
            std::process::exit(1);
        });
    if let Err(error) = armed {
        tracing::error!(%error, "could not start the shutdown watchdog");
    }
}
