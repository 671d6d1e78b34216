//! The one vocabulary of what a client may ask of a room. A command is carried as it is
//! by the room's handle on its own node and by the fleet's envelope to the node that
//! holds the room; each way in (a WebSocket session today) only parses its own frames
//! into it. A new request touches the rules that answer it, this enum and the edge that
//! parses it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::PlayerInfo;
use parlor_rules::bots::BotLevel;
use parlor_rules::games::Seat;

/// What a client asks of a room, and the operator's [`RoomCommand::Close`], which no
/// client edge may parse: the room does not ask who sent it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum RoomCommand {
    /// Take `seat` (or take it back from another connection of the same player).
    Join {
        /// The seat.
        seat: Seat,
        /// The last `seq` the client saw of the room, when it comes back: it then gets
        /// what it missed instead of a snapshot, if the room still has it.
        since: Option<u64>,
    },
    /// Spectate.
    Watch {
        /// As in [`RoomCommand::Join`].
        since: Option<u64>,
    },
    /// Come back to the seat this player holds, or watch if it holds none: what the
    /// server asks for a connection whose room moved between the nodes of a fleet.
    Return {
        /// As in [`RoomCommand::Join`].
        since: Option<u64>,
    },
    /// Hold `seat` of a waiting room for the asking player, who is not connected: the
    /// seat is theirs when they join it (or return), and the game starts once both seats
    /// are held. No client can send it: the Bot API makes it when a challenge is
    /// accepted, for each of its two players.
    Reserve {
        /// The seat held for the player.
        seat: Seat,
    },
    /// Play a move, in the game's notation.
    Move {
        /// The move as the client wrote it.
        text: String,
        /// How many moves the game had when the client chose it, if it said: a move
        /// that reaches the room after the game moved on is refused, never played in a
        /// position its sender did not see.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        after: Option<u32>,
    },
    /// A seated player's request other than a move.
    Request(Request),
    /// Say something in the room's chat: the players' chat from a seat, the spectators'
    /// when watching.
    Chat {
        /// The line.
        text: String,
    },
    /// Stop watching, or give up a seat (which during a game loses it by `abandoned`,
    /// or aborts it while no move has been played).
    Leave,
    /// The server's operator closes the room: a game in progress ends `aborted`
    /// (unrated), and then the room stops. No client can send it: only the operator's
    /// edge makes it, with the operator's reason.
    Close {
        /// Why, as the operator said it; everyone in the room is told.
        reason: String,
    },
}

impl RoomCommand {
    /// Whether the command brings its connection into the room, so that the room's
    /// frames go to it from then on.
    pub fn enters(&self) -> bool {
        matches!(
            self,
            RoomCommand::Join { .. } | RoomCommand::Watch { .. } | RoomCommand::Return { .. }
        )
    }

    /// The last `seq` a returning client says it saw.
    pub fn since(&self) -> Option<u64> {
        match self {
            RoomCommand::Join { since, .. }
            | RoomCommand::Watch { since }
            | RoomCommand::Return { since } => *since,
            _ => None,
        }
    }
}

/// What a seated player may ask of the room besides moving.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Request {
    /// Give the open seat of a waiting room to a bot now, rather than wait for a
    /// person: of `level`, or the server's `bots.fill_level` when `None`.
    FillWithBot {
        /// The bot's level.
        level: Option<BotLevel>,
    },
    /// End the game as won, the opponent having been away long enough
    /// (`rooms.claim_after_secs`).
    ClaimVictory,
    /// End the game as a draw, the opponent having been away long enough.
    ClaimDraw,
    /// Give up the game in progress.
    Resign,
    /// Offer the opponent a draw (accepts the opponent's open offer, if there is one).
    OfferDraw,
    /// Accept the opponent's open draw offer.
    AcceptDraw,
    /// Decline the opponent's open draw offer.
    DeclineDraw,
    /// Ask for another game, seats swapped, once this one is over.
    Rematch,
}

/// A command with who asks it and the `ref` the room echoes (in `joined`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Asked {
    /// The player asking.
    pub player: PlayerInfo,
    /// What they ask.
    pub command: RoomCommand,
    /// The `ref` of the client's message.
    pub reference: Option<Value>,
}

impl PlayerInfo {
    /// This player asking `command`, in a client message that carried `reference`.
    pub fn ask(self, command: RoomCommand, reference: Option<Value>) -> Asked {
        Asked {
            player: self,
            command,
            reference,
        }
    }
}
