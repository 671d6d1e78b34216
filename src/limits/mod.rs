//! What one connection, one client address or the whole server may ask for, so that no
//! stranger can stall the rooms others play in: a message budget per connection, room
//! and new-player quotas per minute, and open connections per address. Built from
//! `[limits]`, where 0 turns a limit off; docs/RELIABILITY.md lists them all. On a node
//! of a fleet the per-minute quotas of an address are counted across the fleet
//! (`per_address`); open connections are counted per node.

mod address;
mod connections;
mod per_address;
mod rate;

use std::net::IpAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio_util::sync::CancellationToken;

use crate::config::LimitsConfig;
use crate::fleet::Cluster;
use crate::protocol::{ClientError, ErrorCode};
use parlor_room::PlayerId;

pub(crate) use address::client_address;
pub(crate) use connections::{ConnectionPermit, Connections};
pub(crate) use rate::{Budget, KeyedBudget};

use per_address::{AddressQuota, RedisOutage};

/// How often the per-address tables forget addresses that have gone quiet.
const PRUNE_EVERY: Duration = Duration::from_secs(60);

/// The server-wide state of the limits: counts and buckets keyed by client address.
pub(crate) struct Limits {
    config: LimitsConfig,
    connections: Connections,
    rooms_per_address: AddressQuota,
    players_per_address: AddressQuota,
    /// Whether Redis answers the fleet's quotas.
    outage: RedisOutage,
    /// Each player's Bot API requests but for their games' (moves, chat, streams).
    bot_requests: KeyedBudget<PlayerId>,
}

/// A connection's own budgets.
pub(crate) struct ConnectionBudgets {
    /// Every message but pings and pongs takes one.
    pub(crate) messages: Budget,
    /// Every room created takes one.
    pub(crate) rooms: Budget,
    /// Every chat line takes one.
    pub(crate) chat: Budget,
}

impl Limits {
    /// The limits `config` sets, all counts at zero; the per-minute quotas of an
    /// address counted across `fleet` if this node is part of one.
    pub(crate) fn new(config: &LimitsConfig, fleet: Option<&Cluster>) -> Limits {
        let quota = |kind, count| AddressQuota::per_minute(kind, count, fleet.cloned());
        Limits {
            config: config.clone(),
            connections: Connections::new(config.connections_per_ip),
            rooms_per_address: quota("rooms", config.rooms_per_minute_per_ip),
            players_per_address: quota("players", config.players_per_minute_per_ip),
            outage: RedisOutage::default(),
            bot_requests: KeyedBudget::per_minute(config.bot_requests_per_minute),
        }
    }

    /// A place for a new connection from `address`; `Err` says why there is none.
    pub(crate) fn open_connection(&self, address: IpAddr) -> Result<ConnectionPermit, String> {
        self.connections.open(address).ok_or_else(|| {
            format!(
                "{address} already has {} connections open, the most allowed; close one first",
                self.config.connections_per_ip
            )
        })
    }

    /// Fresh budgets for a new connection.
    pub(crate) fn connection_budgets(&self) -> ConnectionBudgets {
        ConnectionBudgets {
            messages: Budget::per_second(self.config.messages_per_sec, self.config.messages_burst),
            rooms: Budget::per_minute(self.config.rooms_per_minute_per_connection),
            chat: Budget::per_minute_in_bursts(
                self.config.chat_lines_per_minute,
                self.config.chat_burst,
            ),
        }
    }

    /// A connection is closed after this many `rate_limited` refusals in a row (0: never).
    pub(crate) fn close_after_refusals(&self) -> u32 {
        self.config.close_after_refusals
    }

    /// The `rate_limited` error for a message over the connection's budget.
    pub(crate) fn message_refused(&self) -> ClientError {
        ClientError::new(
            ErrorCode::RateLimited,
            format!(
                "Too many messages: a connection may send {} a second (bursts of {}). This one was ignored; slow down.",
                self.config.messages_per_sec,
                self.config.messages_burst.max(self.config.messages_per_sec)
            ),
        )
    }

    /// Takes one room creation from the connection's and the address's quotas, or says
    /// which is used up.
    pub(crate) async fn create_room(
        &self,
        connection: &Budget,
        address: IpAddr,
    ) -> Result<(), ClientError> {
        if !connection.allow() {
            return Err(ClientError::new(
                ErrorCode::RateLimited,
                format!(
                    "This connection has created {} rooms in the last minute, the most allowed; wait a little before creating another.",
                    self.config.rooms_per_minute_per_connection
                ),
            ));
        }
        if !self.rooms_per_address.allow(address, &self.outage).await {
            return Err(ClientError::new(
                ErrorCode::RateLimited,
                format!(
                    "Your address has created {} rooms in the last minute, the most allowed; wait a little before creating another.",
                    self.config.rooms_per_minute_per_ip
                ),
            ));
        }
        Ok(())
    }

    /// Takes one chat line from the connection's budget, or says it is used up.
    pub(crate) fn chat_line(&self, connection: &Budget) -> Result<(), ClientError> {
        if connection.allow() {
            return Ok(());
        }
        Err(ClientError::new(
            ErrorCode::RateLimited,
            format!(
                "Too many chat lines: a connection may send {} a minute ({} at once). This one was not sent; wait a few seconds.",
                self.config.chat_lines_per_minute,
                self.config.chat_burst.max(1)
            ),
        ))
    }

    /// Takes one new player from the address's quota, or says it is used up.
    pub(crate) async fn new_player(&self, address: IpAddr) -> Result<(), ClientError> {
        if self.players_per_address.allow(address, &self.outage).await {
            return Ok(());
        }
        Err(ClientError::new(
            ErrorCode::RateLimited,
            format!(
                "Your address has made {} new players in the last minute, the most allowed; wait a little, or say hello with the token of a player you already have.",
                self.config.players_per_minute_per_ip
            ),
        ))
    }

    /// Takes one of `player`'s Bot API requests (any but their games' moves, chat and
    /// streams, which are never refused for their rate); `Err` says why not.
    pub(crate) fn bot_request(&self, player: &PlayerId) -> Result<(), String> {
        if self.bot_requests.allow(player.clone()) {
            return Ok(());
        }
        Err(format!(
            "this token has made {} requests in the last minute, the most allowed (limits.bot_requests_per_minute); wait a minute",
            self.config.bot_requests_per_minute
        ))
    }

    /// Forgets the addresses and players whose quotas have refilled.
    pub(crate) fn prune(&self) {
        self.rooms_per_address.prune();
        self.players_per_address.prune();
        self.bot_requests.prune();
    }

    /// Prunes every minute until `shutdown`.
    pub(crate) async fn prune_until(self: Arc<Self>, shutdown: CancellationToken) {
        let mut every = tokio::time::interval(PRUNE_EVERY);
        loop {
            tokio::select! {
                () = shutdown.cancelled() => return,
                _ = every.tick() => self.prune(),
            }
        }
    }
}
