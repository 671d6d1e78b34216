//! Typed configuration: built-in defaults < `config.toml` < `PARLOR_<SECTION>__<KEY>`
//! environment variables < command-line flags. Unknown keys and bad values are refused at
//! start-up with a message naming the key.

use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};

use figment::Figment;
use figment::providers::{Env, Format, Serialized, Toml};
use serde::{Deserialize, Serialize};

use std::time::{Duration, Instant};

use parlor_room::RoomSettings;
use parlor_rules::GameSettings;
use parlor_rules::bots::{self, BotLevel, Limits, Strength};
use parlor_rules::games::{checkers, fox_geese};

mod admin;
mod auth;
mod limits;

pub use admin::AdminConfig;
pub use auth::AuthConfig;
pub use limits::LimitsConfig;
pub use parlor_room::options::Takeover;
pub use parlor_room::scoring::{ParConfig, ScoringConfig};

/// The whole server configuration. Every key is documented in the shipped `config.toml`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    /// Where to listen and how to keep connections healthy.
    pub server: ServerConfig,
    /// Where games, players and the leaderboard are stored.
    pub store: StoreConfig,
    /// Room lifetimes.
    pub rooms: RoomsConfig,
    /// Bots that fill empty seats.
    pub bots: BotsConfig,
    /// What one client, one address or the whole server may ask for.
    pub limits: LimitsConfig,
    /// The score formula's parameters.
    pub scoring: ScoringConfig,
    /// English checkers rules.
    pub checkers: checkers::Settings,
    /// Fox & Geese rules.
    pub fox_geese: fox_geese::Settings,
    /// Membership of a fleet of nodes sharing one PostgreSQL store.
    pub cluster: ClusterConfig,
    /// Signing in through a site's own accounts (JSON Web Tokens).
    pub auth: AuthConfig,
    /// The operator's controls over HTTP.
    pub admin: AdminConfig,
}

/// `[cluster]`: a node of a fleet (with `redis_url`), or a single server (without).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClusterConfig {
    /// The Redis server the fleet coordinates through; `None` is a single server.
    pub redis_url: Option<String>,
    /// The prefix of every Redis key the fleet uses, so that fleets can share a Redis.
    pub key_prefix: String,
    /// How long a node's hold on a room lasts without renewal, ms: how soon another
    /// node takes over the rooms of a node that died.
    pub lease_ms: u64,
    /// Whether this node holds rooms (creates them, takes over other nodes' games, runs
    /// their bots); `false` makes a node that only serves clients, opening their rooms
    /// on the nodes that hold rooms.
    pub owns_rooms: bool,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        Self {
            redis_url: None,
            key_prefix: "parlor".to_owned(),
            lease_ms: 3000,
            owns_rooms: true,
        }
    }
}

/// `[server]`: the listening address and WebSocket keep-alive.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ServerConfig {
    /// The address to listen on.
    pub bind: IpAddr,
    /// The TCP port; 0 picks a free one (tests).
    pub port: u16,
    /// Seconds between the server's pings to each WebSocket.
    pub ping_interval_secs: u64,
    /// A connection silent for this many seconds is closed.
    pub client_timeout_secs: u64,
    /// A connection that keeps a heartbeat (has sent a `ping` message) and is then silent
    /// for this many seconds is closed: its player shows as not connected sooner.
    pub heartbeat_timeout_secs: u64,
    /// A connection that has not said `hello` this many seconds after opening is closed.
    pub hello_timeout_secs: u64,
    /// A connection whose socket accepts none of a frame for this many seconds (a client
    /// that stopped reading) is closed.
    pub write_timeout_secs: u64,
    /// Origins (`scheme://host[:port]`) whose pages may open a WebSocket; the server's
    /// own origin and loopback pages are always allowed. `["*"]` allows any.
    pub allowed_origins: Vec<String>,
    /// Reverse proxies whose `X-Forwarded-For` names the client's address; from any
    /// other peer the header is ignored and the peer's address counts.
    pub trusted_proxies: Vec<IpAddr>,
    /// On SIGTERM or Ctrl-C, how many seconds rooms get to finish their work before the
    /// process exits anyway.
    pub shutdown_grace_secs: u64,
    /// On SIGTERM or Ctrl-C, end every game in progress (kept as `interrupted`) instead
    /// of leaving it for the next start to resume.
    pub end_games_on_shutdown: bool,
    /// How long the `shutdown` message tells clients to wait before reconnecting, ms.
    pub reconnect_after_ms: u64,
    /// A listener of its own for `GET /metrics` (e.g. `127.0.0.1:9464`); when set, the
    /// main listener answers `/metrics` with 404. `None`: `/metrics` is on the main one.
    pub metrics_bind: Option<SocketAddr>,
}

impl Default for ServerConfig {
    fn default() -> Self {
        Self {
            bind: IpAddr::from([127, 0, 0, 1]),
            port: 8080,
            ping_interval_secs: 15,
            client_timeout_secs: 45,
            heartbeat_timeout_secs: 15,
            hello_timeout_secs: 10,
            write_timeout_secs: 10,
            allowed_origins: Vec::new(),
            trusted_proxies: Vec::new(),
            shutdown_grace_secs: 10,
            end_games_on_shutdown: false,
            reconnect_after_ms: 1000,
            metrics_bind: None,
        }
    }
}

/// The longest `store.write_timeout_ms`: a move held up by the database is refused
/// within 5 s, and a fleet's relay waits for a room's answer longer than the store may
/// take to give it (`fleet::relay`).
pub const MAX_STORE_WAIT_MS: u64 = 3000;

/// `[store]`: the database. SQLite at `path` unless `url` names a PostgreSQL server.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct StoreConfig {
    /// A PostgreSQL URL (`postgres://user:password@host:port/database`); when set, the
    /// store is that database and `path`, `busy_timeout_ms` and `synchronous` are unused.
    pub url: Option<String>,
    /// The SQLite file; created with its folder on first run.
    pub path: PathBuf,
    /// How long a write waits for a lock held by another process before it fails.
    pub busy_timeout_ms: u64,
    /// How hard SQLite syncs a commit to disk.
    pub synchronous: Synchronous,
    /// PostgreSQL only: how long, in milliseconds, any wait on the database may last
    /// (a connection, a statement, a batch of moves from its start to its commit) before
    /// it is given up and its connection dropped.
    pub write_timeout_ms: u64,
    /// SQLite only: the niceness (0 to 19) of the thread that writes the game log, so
    /// that it gives way to the threads serving rooms and commits more moves at once.
    pub writer_nice: i32,
    /// Take a PostgreSQL database over from the servers holding it (the
    /// `--take-over-database` flag; never read from the file or the environment).
    #[serde(skip)]
    pub take_over: bool,
}

impl Default for StoreConfig {
    fn default() -> Self {
        Self {
            url: None,
            path: PathBuf::from("data/parlor.db"),
            busy_timeout_ms: 5000,
            synchronous: Synchronous::Full,
            write_timeout_ms: 3000,
            writer_nice: 10,
            take_over: false,
        }
    }
}

/// SQLite's `synchronous` setting (in WAL mode): what a committed move survives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Synchronous {
    /// Every commit is synced to the write-ahead log: it survives a crash of the process
    /// and a power cut.
    Full,
    /// The log is synced at checkpoints only: a commit survives a crash of the process
    /// but the last ones may be lost in a power cut. Cheaper per commit.
    Normal,
}

/// How the bot threads are scheduled below the threads serving connections and rooms.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BotPriority {
    /// Linux's `SCHED_IDLE` policy: a bot thread runs only when no normal thread wants
    /// its core. Falls back to niceness `bots.nice` where the policy cannot be set.
    Idle,
    /// Niceness `bots.nice` only: a bot thread keeps a small share of a busy core.
    Nice,
}

/// `[rooms]`: how long rooms and absent players are kept.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RoomsConfig {
    /// A finished room, or a waiting one with nobody connected, is removed after this many seconds.
    pub idle_secs: u64,
    /// A disconnected player keeps their seat this many seconds before `takeover` applies.
    pub reconnect_grace_secs: u64,
    /// Once a disconnected player has been away this many seconds, the player present
    /// may claim the game (`claim_victory`, `claim_draw`); at most `reconnect_grace_secs`,
    /// 0 for at once.
    pub claim_after_secs: u64,
    /// What then happens to their seat, unless the room's `options.takeover` says otherwise.
    pub takeover: Takeover,
    /// A game in which either side has not made its first move this many seconds after
    /// it became their turn is aborted (no result, no score).
    pub first_move_secs: u64,
    /// The longest chat line, in characters (0: no chat on this server).
    pub chat_max_chars: u32,
}

impl Default for RoomsConfig {
    fn default() -> Self {
        Self {
            idle_secs: 300,
            reconnect_grace_secs: 60,
            claim_after_secs: 15,
            takeover: Takeover::None,
            first_move_secs: 30,
            chat_max_chars: 140,
        }
    }
}

/// `[bots]`: bots that fill seats nobody takes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BotsConfig {
    /// An open seat opposite a connected human gets a bot after this many seconds.
    pub fill_after_secs: u64,
    /// The level of that bot.
    pub fill_level: BotLevel,
    /// A bot never moves sooner than this many milliseconds after the previous move.
    pub min_delay_ms: u64,
    /// Worker threads bots think on; 0 means one per core.
    pub threads: usize,
    /// Bot requests that may wait for a thread; beyond that a bot answers with an easy move.
    pub queue: usize,
    /// How the bot threads are scheduled: `idle` (`SCHED_IDLE`, the default) or `nice`.
    pub priority: BotPriority,
    /// The bot threads' niceness (0 to 19, Linux) under `priority = "nice"`, and the
    /// fallback should `SCHED_IDLE` be refused: how far below the threads serving
    /// connections and rooms the operating system schedules them.
    pub nice: i32,
    /// `bot:medium`'s strength.
    pub medium: Strength,
    /// `bot:hard`'s strength.
    pub hard: Strength,
}

impl BotsConfig {
    /// How many threads bots think on: `threads`, or one per core when it is 0.
    pub fn thread_count(&self) -> usize {
        match self.threads {
            0 => std::thread::available_parallelism().map_or(1, usize::from),
            threads => threads,
        }
    }

    /// The limits of one move by a bot of `level` thinking from now, on the real clock
    /// (the levels that do not search ignore them).
    pub fn limits(&self, level: BotLevel) -> Limits {
        bots::limits_for(level, self.medium, self.hard, Instant::now)
    }
}

impl Default for BotsConfig {
    fn default() -> Self {
        Self {
            fill_after_secs: 20,
            fill_level: BotLevel::Easy,
            min_delay_ms: 400,
            threads: 0,
            queue: 64,
            priority: BotPriority::Idle,
            nice: 10,
            medium: Strength::MEDIUM,
            hard: Strength::HARD,
        }
    }
}

/// Values given on the command line, which override everything else.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Overrides {
    /// `--bind`.
    pub bind: Option<IpAddr>,
    /// `--port`.
    pub port: Option<u16>,
    /// `--take-over-database`.
    pub take_over_database: bool,
}

/// Why the configuration was refused.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    /// The file given with `--config` does not exist.
    #[error("config file {0} does not exist")]
    MissingFile(PathBuf),
    /// A key is unknown, mistyped or malformed (the message names the key and its source).
    #[error("invalid configuration: {0}")]
    Invalid(#[from] Box<figment::Error>),
    /// A value parsed but is out of range.
    #[error("invalid configuration: `{key}` {problem}")]
    OutOfRange {
        /// The dotted key, e.g. `server.client_timeout_secs`.
        key: &'static str,
        /// What is wrong with it.
        problem: String,
    },
}

/// The prefix of environment variables that configure Parlor.
pub const ENV_PREFIX: &str = "PARLOR_";

/// Variables under [`ENV_PREFIX`] that are not settings: `PARLOR_TEST_*` name the
/// services the tests use (`PARLOR_TEST_POSTGRES_URL`…), and a developer's shell that
/// exports them must still start the server.
const NOT_SETTINGS_PREFIX: &str = "TEST_";

impl Config {
    /// The rule settings games are created with (`[checkers]`, `[fox_geese]`).
    pub fn game_settings(&self) -> GameSettings {
        GameSettings {
            checkers: self.checkers.clone(),
            fox_geese: self.fox_geese.clone(),
        }
    }

    /// What every room's rules read of this configuration.
    pub fn room_settings(&self) -> RoomSettings {
        let rooms = &self.rooms;
        RoomSettings {
            games: self.game_settings(),
            idle: Duration::from_secs(rooms.idle_secs),
            reconnect_grace: Duration::from_secs(rooms.reconnect_grace_secs),
            claim_after: Duration::from_secs(rooms.claim_after_secs),
            takeover: rooms.takeover,
            first_move: Duration::from_secs(rooms.first_move_secs),
            chat_max_chars: rooms.chat_max_chars as usize,
            spectators_per_room: self.limits.spectators_per_room,
            fill_after: Duration::from_secs(self.bots.fill_after_secs),
            fill_level: self.bots.fill_level,
            bot_min_delay: Duration::from_millis(self.bots.min_delay_ms),
            scoring: self.scoring.clone(),
        }
    }

    /// Loads the configuration: defaults, then the file at `path` (which must exist when
    /// given; `config.toml` in the working directory is used if present and `path` is
    /// `None`), then `PARLOR_*` environment variables, then `overrides`.
    pub fn load(path: Option<&Path>, overrides: &Overrides) -> Result<Config, ConfigError> {
        let file = match path {
            Some(path) if !path.exists() => return Err(ConfigError::MissingFile(path.into())),
            Some(path) => Some(path.to_path_buf()),
            None => Some(PathBuf::from("config.toml")).filter(|p| p.exists()),
        };
        let mut figment = Figment::from(Serialized::defaults(Config::default()));
        if let Some(file) = file {
            figment = figment.merge(Toml::file_exact(file));
        }
        let settings = Env::prefixed(ENV_PREFIX)
            .filter(|key| !key.as_str().starts_with(NOT_SETTINGS_PREFIX))
            .split("__");
        figment = figment.merge(settings);
        if let Some(bind) = overrides.bind {
            figment = figment.merge(Serialized::default("server.bind", bind));
        }
        if let Some(port) = overrides.port {
            figment = figment.merge(Serialized::default("server.port", port));
        }
        let mut config: Config = figment.extract().map_err(Box::new)?;
        config.store.take_over = overrides.take_over_database;
        config.validate()?;
        Ok(config)
    }

    /// Checks the ranges serde cannot express.
    pub fn validate(&self) -> Result<(), ConfigError> {
        let out_of_range = |key, problem: &str| {
            Err(ConfigError::OutOfRange {
                key,
                problem: problem.to_owned(),
            })
        };
        if self.server.ping_interval_secs == 0 {
            return out_of_range("server.ping_interval_secs", "must be at least 1");
        }
        if self.server.client_timeout_secs <= self.server.ping_interval_secs {
            return out_of_range(
                "server.client_timeout_secs",
                "must be greater than server.ping_interval_secs",
            );
        }
        if self.server.heartbeat_timeout_secs == 0
            || self.server.heartbeat_timeout_secs > self.server.client_timeout_secs
        {
            return out_of_range(
                "server.heartbeat_timeout_secs",
                "must be from 1 to server.client_timeout_secs",
            );
        }
        if self.server.hello_timeout_secs == 0 {
            return out_of_range("server.hello_timeout_secs", "must be at least 1");
        }
        if self.server.write_timeout_secs == 0 {
            return out_of_range("server.write_timeout_secs", "must be at least 1");
        }
        if self.limits.messages_per_sec > 0 && self.limits.messages_burst == 0 {
            return out_of_range(
                "limits.messages_burst",
                "must be at least 1 while limits.messages_per_sec is set",
            );
        }
        if self.limits.lobby_flush_ms == 0 {
            return out_of_range("limits.lobby_flush_ms", "must be at least 1");
        }
        if self.limits.rooms_page_size == 0 {
            return out_of_range("limits.rooms_page_size", "must be at least 1");
        }
        if self.store.path.as_os_str().is_empty() {
            return out_of_range("store.path", "must name a file");
        }
        if !(100..=MAX_STORE_WAIT_MS).contains(&self.store.write_timeout_ms) {
            return out_of_range(
                "store.write_timeout_ms",
                "must be from 100 to 3000: a move held up by the database is refused within 5 s",
            );
        }
        if self.bots.queue == 0 {
            return out_of_range("bots.queue", "must be at least 1");
        }
        if self.store.take_over && self.store.url.is_none() {
            return out_of_range(
                "--take-over-database",
                "applies only to a PostgreSQL store (store.url): a SQLite file is held by one process at a time",
            );
        }
        if self.cluster.redis_url.is_none() && !self.cluster.owns_rooms {
            return out_of_range(
                "cluster.owns_rooms",
                "can be false only on a node of a fleet (with cluster.redis_url): a single server holds its own rooms",
            );
        }
        if self.cluster.redis_url.is_some() {
            if self.store.url.is_none() {
                return out_of_range(
                    "cluster.redis_url",
                    "needs store.url: the nodes of a fleet share one PostgreSQL store",
                );
            }
            if self.cluster.lease_ms < 1000 {
                return out_of_range("cluster.lease_ms", "must be at least 1000");
            }
            if self.cluster.key_prefix.is_empty() {
                return out_of_range("cluster.key_prefix", "must not be empty");
            }
            if self.server.end_games_on_shutdown {
                return out_of_range(
                    "server.end_games_on_shutdown",
                    "must be false on a node of a fleet, which hands its games to the other nodes when it stops",
                );
            }
        }
        if !(0..=19).contains(&self.bots.nice) {
            return out_of_range("bots.nice", "must be from 0 to 19");
        }
        if !(0..=19).contains(&self.store.writer_nice) {
            return out_of_range("store.writer_nice", "must be from 0 to 19");
        }
        if self.rooms.idle_secs == 0 {
            return out_of_range("rooms.idle_secs", "must be at least 1");
        }
        if self.rooms.claim_after_secs > self.rooms.reconnect_grace_secs {
            return out_of_range(
                "rooms.claim_after_secs",
                "must be at most rooms.reconnect_grace_secs: a claim comes before the grace ends",
            );
        }
        if self.scoring.par.tictactoe < 10 {
            // Tic-tac-toe lasts up to 9 moves; a par of 10 or more keeps every win's
            // move component distinct, so fewer moves always score strictly higher.
            return out_of_range("scoring.par.tictactoe", "must be at least 10");
        }
        for (key, par) in [
            ("scoring.par.checkers", self.scoring.par.checkers),
            ("scoring.par.chess", self.scoring.par.chess),
            ("scoring.par.fox_geese", self.scoring.par.fox_geese),
        ] {
            if par == 0 {
                return out_of_range(key, "must be at least 1");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
#[allow(
    clippy::result_large_err,
    reason = "figment's Jail closures must return figment::Error, which is large"
)]
mod tests;
