//! The `parlor` command: reads the configuration, starts logging, and runs the server
//! until Ctrl-C or SIGTERM.

use std::io::IsTerminal;
use std::net::TcpListener;
use std::path::PathBuf;
use std::process::ExitCode;

use clap::Parser;
use parlor::config::{Config, Overrides};
use tokio_util::sync::CancellationToken;
use tracing_subscriber::EnvFilter;

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
    };
    let config = match Config::load(args.config.as_deref(), &overrides) {
        Ok(config) => config,
        Err(error) => {
            eprintln!("parlor: {error}");
            return ExitCode::FAILURE;
        }
    };
    let address = (config.server.bind, config.server.port);
    let listener = match TcpListener::bind(address) {
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
    tokio::spawn(stop_on_signal(shutdown.clone()));
    match parlor::run(config, listener, shutdown).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("parlor: {error}");
            ExitCode::FAILURE
        }
    }
}

/// Cancels `shutdown` on Ctrl-C or SIGTERM.
async fn stop_on_signal(shutdown: CancellationToken) {
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
    shutdown.cancel();
}
