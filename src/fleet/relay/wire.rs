//! What nodes of a fleet say to each other about rooms, as JSON on Redis: a gateway
//! (the node a client is connected to) passes the client's room messages to the room's
//! owner, and the owner answers each and sends the room's frames back.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::protocol::{ClientError, Updates};
use crate::room::ConnId;
use parlor_room::{Asked, PlayerInfo};
use parlor_room::{NodeId, RoomId, RoomOptions, SeatSpec};
use parlor_rules::GameKind;

/// A client connection on its gateway, and the request it is waiting on.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct Asker {
    /// The gateway node.
    pub(super) node: NodeId,
    /// The connection, as the gateway numbers it.
    pub(super) conn: ConnId,
    /// The gateway's number for the answer it waits for.
    pub(super) reply: u64,
    /// How the connection hears of moves (full states when a node that predates the
    /// choice leaves it out).
    #[serde(default)]
    pub(super) updates: Updates,
    /// Whether the gateway reads [`Envelope::Frames`]: its clients' frames then cross
    /// in batches, one message per batch. `false` from a node that predates them, whose
    /// clients are sent one [`Envelope::Frame`] per frame each.
    #[serde(default)]
    pub(super) batches: bool,
}

/// One frame in an [`Envelope::Frames`], and the gateway's connections it goes to.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub(super) struct SharedFrame {
    /// The gateway's connections, each to be sent the frame.
    pub(super) conns: Vec<ConnId>,
    /// The frame, as it is written to them.
    pub(super) text: String,
}

/// One message between two nodes.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(super) enum Envelope {
    /// A gateway's client asks something of a room.
    Ask {
        asker: Asker,
        room: RoomId,
        asked: Asked,
    },
    /// A gateway's client opens the room `room` (the gateway names it) on a node that
    /// holds rooms (its own node does not), and is seated in it if a seat says `me`.
    Create {
        asker: Asker,
        room: RoomId,
        player: PlayerInfo,
        game: GameKind,
        seats: [SeatSpec; 2],
        options: RoomOptions,
        reference: Option<Value>,
    },
    /// A gateway's client has closed its connection.
    Disconnect { node: NodeId, conn: ConnId },
    /// The owner's answer to a request: `None` when it was done; for `Create`, the room
    /// it opened.
    Answer {
        reply: u64,
        refusal: Option<ClientError>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        room: Option<RoomId>,
    },
    /// A frame of one of `node`'s rooms for the gateway's client `conn`.
    Frame {
        node: NodeId,
        conn: ConnId,
        text: String,
    },
    /// Frames of `node`'s rooms for the gateway's clients, in the order the rooms sent
    /// them to each client: a frame several of them are sent crosses once.
    Frames {
        node: NodeId,
        frames: Vec<SharedFrame>,
    },
    /// The gateway's client `conn` could not keep up with the room and is dropped.
    Kick { conn: ConnId },
    /// A room the gateway's client `conn` is in stopped here and is played on another
    /// node: the gateway puts the client back into it there. `room` is `None` from a
    /// node of an earlier version, which meant every room the client is in there.
    Moved {
        conn: ConnId,
        #[serde(default)]
        room: Option<RoomId>,
    },
    /// A node to itself, to know its subscription still delivers.
    Heartbeat,
    /// A node asks for one of the owner's rooms' current state (`GET /api/rooms/{id}`).
    Look {
        node: NodeId,
        reply: u64,
        room: RoomId,
    },
    /// The owner's answer to `Look`: the room's state, or `None` if it has no such room.
    Seen { reply: u64, state: Option<String> },
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::protocol::ErrorCode;
    use parlor_room::PlayerId;
    use parlor_room::{Request, RoomCommand};
    use parlor_rules::bots::BotLevel;
    use parlor_rules::games::Seat;
    use serde_json::Map;
    use serde_json::json;

    fn ann() -> PlayerInfo {
        PlayerInfo {
            player_id: PlayerId::from("p"),
            name: "Ann".to_owned(),
            bot_account: false,
        }
    }

    #[test]
    fn every_envelope_reads_back_as_written() {
        let asker = Asker {
            node: NodeId::from("n1"),
            conn: 7,
            reply: 9,
            updates: Updates::Moves,
            batches: true,
        };
        let envelopes = [
            Envelope::Ask {
                asker: asker.clone(),
                room: RoomId::from("r"),
                asked: Asked {
                    player: ann(),
                    command: RoomCommand::Join {
                        seat: Seat::Second,
                        since: Some(4),
                    },
                    reference: Some(json!({"n": 1})),
                },
            },
            Envelope::Ask {
                asker: asker.clone(),
                room: RoomId::from("r"),
                asked: Asked {
                    player: ann(),
                    command: RoomCommand::Request(Request::OfferDraw),
                    reference: None,
                },
            },
            Envelope::Ask {
                asker,
                room: RoomId::from("r"),
                asked: Asked {
                    player: ann(),
                    command: RoomCommand::Request(Request::FillWithBot {
                        level: Some(BotLevel::Hard),
                    }),
                    reference: None,
                },
            },
            Envelope::Answer {
                reply: 9,
                refusal: Some(ClientError::new(ErrorCode::IllegalMove, "No.")),
                room: None,
            },
            Envelope::Answer {
                reply: 10,
                refusal: None,
                room: Some(RoomId::from("r2")),
            },
            Envelope::Create {
                asker: Asker {
                    node: NodeId::from("n1"),
                    conn: 8,
                    reply: 10,
                    updates: Updates::States,
                    batches: false,
                },
                room: RoomId::from("r2"),
                player: ann(),
                game: GameKind::Chess,
                seats: [SeatSpec::Me, SeatSpec::Bot(BotLevel::Easy)],
                options: RoomOptions::parse(Some(Map::from_iter([
                    ("private".to_owned(), json!(true)),
                    ("bot_fill".to_owned(), json!(true)),
                ])))
                .expect("options"),
                reference: None,
            },
            Envelope::Heartbeat,
            Envelope::Look {
                node: NodeId::from("n1"),
                reply: 3,
                room: RoomId::from("r"),
            },
            Envelope::Seen {
                reply: 3,
                state: Some("{\"type\":\"state\"}".to_owned()),
            },
            Envelope::Frame {
                node: NodeId::from("n2"),
                conn: 7,
                text: "{\"type\":\"state\"}".to_owned(),
            },
            Envelope::Frames {
                node: NodeId::from("n2"),
                frames: vec![
                    SharedFrame {
                        conns: vec![7, 8],
                        text: "{\"type\":\"state\",\"seq\":3}".to_owned(),
                    },
                    SharedFrame {
                        conns: vec![8],
                        text: "{\"type\":\"chat\"}".to_owned(),
                    },
                ],
            },
        ];
        for envelope in envelopes {
            let text = serde_json::to_string(&envelope).expect("encode");
            let back: Envelope = serde_json::from_str(&text).expect("decode");
            assert_eq!(back, envelope, "{text}");
        }
    }

    #[test]
    fn a_gateway_that_predates_batches_is_sent_one_frame_per_message() {
        let earlier = r#"{"node":"n1","conn":7,"reply":9,"updates":"states"}"#;
        let asker: Asker = serde_json::from_str(earlier).expect("decode");
        assert!(!asker.batches);
    }

    #[test]
    fn a_refusal_keeps_its_code_and_sentence_and_an_unknown_code_reads_as_unavailable() {
        let error = ClientError::new(ErrorCode::SeatTaken, "Taken.");
        let text = serde_json::to_string(&error).expect("encode");
        assert_eq!(
            serde_json::from_str::<ClientError>(&text).expect("decode"),
            error
        );
        let newer = r#"{"code":"something_new","message":"Why."}"#;
        let read: ClientError = serde_json::from_str(newer).expect("decode");
        assert_eq!(read.code, ErrorCode::StorageUnavailable);
        assert_eq!(read.message, "Why.");
    }
}
