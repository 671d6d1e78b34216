//! A property test against a live server. Each case starts a real server on a fresh
//! database, seats two players in a room of a random game (with or without a clock)
//! and adds a spectator, then runs a random script: legal and illegal moves from
//! anyone, junk messages, draw offers and answers, dropped connections, returns with
//! `since`, and restarts of the server on the same database. Throughout:
//!
//! * no client is ever refused for a reason other than the one its message deserves,
//!   and every refusal leaves its connection open;
//! * a room's `seq` only rises, for every client, across restarts too, and no `seq`
//!   names two different states;
//! * only the seat whose turn it is moves, with a move that was legal in the state
//!   before; the spectator never moves;
//! * a restart resumes the game in progress (a finished game's room ends with its
//!   server, and the script with it);
//! * at the end, every client that left and came back shows the same game as a client
//!   that has just arrived.
//!
//! `PARLOR_LIVE_CASES` sets the number of cases (default 12).

use std::cell::Cell;
use std::collections::HashMap;
use std::time::Duration;

use proptest::prelude::*;
use proptest::test_runner::{Config as ProptestConfig, TestRunner};
use serde_json::{Value, json};

use crate::common::{Client, TestServer, comparable, temp_dir, test_config};

/// The games a case may play.
const GAMES: [&str; 4] = ["tictactoe", "checkers", "chess", "fox_geese"];

/// How long to wait for what a step must bring.
const WAIT: Duration = Duration::from_secs(10);

/// Seats 0 and 1, then the spectator.
const PEOPLE: usize = 3;
const SPECTATOR: usize = 2;

/// One step of a script.
#[derive(Clone, Debug)]
enum Step {
    /// `who` plays the legal move at `pick` (modulo their number), whether or not it is
    /// their turn.
    Move { who: usize, pick: usize },
    /// `who` sends something that must be refused.
    Junk { who: usize, kind: Junk },
    /// A player offers a draw (accepting the opponent's open offer, if any).
    OfferDraw { who: usize },
    /// A player declines the opponent's offer.
    DeclineDraw { who: usize },
    /// `who`'s connection drops.
    Drop { who: usize },
    /// `who` comes back: a new connection, `hello` with the token, then `join` (or
    /// `watch`) with `since`.
    Back { who: usize },
    /// The server is stopped (SIGTERM's path) and started again on the same database.
    Restart,
}

/// Messages the server must refuse, each with the error code it must answer.
#[derive(Clone, Copy, Debug)]
enum Junk {
    NotJson,
    UnknownType,
    UnknownRoom,
    NotAMove,
    MoveAsNumber,
    JoinTakenSeat,
}

impl Junk {
    const ALL: [Junk; 6] = [
        Junk::NotJson,
        Junk::UnknownType,
        Junk::UnknownRoom,
        Junk::NotAMove,
        Junk::MoveAsNumber,
        Junk::JoinTakenSeat,
    ];
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        8 => (0..PEOPLE, any::<u16>()).prop_map(|(who, pick)| Step::Move { who, pick: usize::from(pick) }),
        3 => (0..PEOPLE, 0..Junk::ALL.len()).prop_map(|(who, kind)| Step::Junk { who, kind: Junk::ALL[kind] }),
        1 => (0..2usize).prop_map(|who| Step::OfferDraw { who }),
        1 => (0..2usize).prop_map(|who| Step::DeclineDraw { who }),
        2 => (0..PEOPLE).prop_map(|who| Step::Drop { who }),
        2 => (0..PEOPLE).prop_map(|who| Step::Back { who }),
        1 => Just(Step::Restart),
    ]
}

/// One person: their token, their connection while they have one, and what they saw.
struct Person {
    name: String,
    token: String,
    client: Option<Client>,
    /// The latest state they saw, and its `seq`.
    state: Option<Value>,
    /// Whether their next state may repeat the last `seq` (the snapshot after `joined`).
    rejoining: bool,
}

/// What every client saw, across the whole case.
#[derive(Default)]
struct Ledger {
    /// What each `seq` showed, as [`comparable`] sees it.
    by_seq: HashMap<u64, Value>,
    /// The highest `seq` anyone saw.
    highest: u64,
    /// The highest `seq` seen before the latest restart: every later state is above it.
    before_restart: u64,
    /// The moves each player sent when it was their turn, by the number of moves
    /// played then (a client may see a move long after its player sent another).
    sent: [HashMap<(Value, u64), String>; 2],
}

impl Ledger {
    /// Checks a state `who` received after their previous one, and records it.
    fn check(&mut self, who: usize, previous: Option<&Value>, state: &Value, rejoining: bool) {
        let seq = state["seq"].as_u64().expect("a state has a seq");
        if let Some(previous) = previous {
            let last = previous["seq"].as_u64().unwrap();
            assert!(
                seq > last || (rejoining && seq == last),
                "person {who} saw seq {seq} after {last}"
            );
        }
        assert!(
            seq > self.before_restart,
            "seq {seq} after a restart is not above {} seen before it",
            self.before_restart
        );
        let moves = state["moves"].as_u64().unwrap();
        let shown = comparable(state);
        let earlier = self.by_seq.entry(seq).or_insert_with(|| shown.clone());
        assert_eq!(*earlier, shown, "seq {seq} named two different states");
        self.highest = self.highest.max(seq);
        // A move appears: it was sent by the seat that was to move, and it was legal.
        if let Some(previous) = previous
            && previous["game_id"] == state["game_id"]
            && moves == previous["moves"].as_u64().unwrap() + 1
        {
            let mover = state["last_move"]["seat"].as_u64().unwrap() as usize;
            assert_eq!(previous["to_move"], json!(mover), "the side to move moved");
            let text = state["last_move"]["move"].as_str().unwrap();
            assert!(
                previous["legal_moves"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .any(|legal| legal == text),
                "{text} was legal before it was played"
            );
            let sent = self.sent[mover].get(&(state["game_id"].clone(), moves - 1));
            assert_eq!(
                sent.map(String::as_str),
                Some(text),
                "seat {mover}'s move was one its player sent"
            );
        }
    }
}

/// A live case: the server, the room and the three people.
struct Case {
    dir: tempfile::TempDir,
    server: Option<TestServer>,
    room: String,
    people: Vec<Person>,
    ledger: Ledger,
    refs: u64,
    /// The game had finished when the server restarted, so the room did not come back
    /// (only games in progress are resumed); the script ends there.
    gone: bool,
}

impl Case {
    async fn start(game: &str, clock: bool) -> Case {
        let dir = temp_dir();
        let server = TestServer::start(config(&dir)).await;
        let mut people = Vec::new();
        for name in ["Ann", "Ben", "Cy"] {
            let mut client = server.connect().await;
            let welcome = client.hello(name, None).await;
            people.push(Person {
                name: name.to_owned(),
                token: welcome["token"].as_str().unwrap().to_owned(),
                client: Some(client),
                state: None,
                rejoining: true,
            });
        }
        let options = if clock {
            json!({"time_control": {"kind": "fischer", "base_ms": 600_000, "increment_ms": 0}})
        } else {
            json!({})
        };
        let creator = people[0].client.as_mut().unwrap();
        let (room, snapshot) = creator.create_game(game, ["me", "open"], options).await;
        let mut case = Case {
            dir,
            server: Some(server),
            room,
            people,
            ledger: Ledger::default(),
            refs: 0,
            gone: false,
        };
        case.saw(0, snapshot.unwrap());
        case.enter(1, None).await;
        case.enter(SPECTATOR, None).await;
        case
    }

    fn server(&self) -> &TestServer {
        self.server.as_ref().unwrap()
    }

    /// Checks and keeps a state `who` received.
    fn saw(&mut self, who: usize, state: Value) {
        let person = &mut self.people[who];
        self.ledger
            .check(who, person.state.as_ref(), &state, person.rejoining);
        person.rejoining = false;
        person.state = Some(state);
    }

    /// Reads `who`'s messages until one satisfies `done` (states are checked and kept on
    /// the way); `None` if their connection closed.
    async fn read_until(&mut self, who: usize, done: impl Fn(&Value) -> bool) -> Option<Value> {
        loop {
            let client = self.people[who].client.as_mut()?;
            let message = match tokio::time::timeout(WAIT, client.next_json()).await {
                Ok(Some(message)) => message,
                Ok(None) => {
                    self.people[who].client = None;
                    return None;
                }
                Err(_) => panic!("person {who} waited {WAIT:?} in vain"),
            };
            if message["type"] == "state" {
                self.saw(who, message.clone());
            }
            if done(&message) {
                return Some(message);
            }
            assert!(
                message["type"] != "error" || !message["ref"].is_null(),
                "person {who} got an error for no message of theirs: {message}"
            );
        }
    }

    /// Lets every connected person catch up with the room's current state, as the
    /// server publishes it.
    async fn settle(&mut self) {
        let (status, current) = self
            .server()
            .get_json(&format!("/api/rooms/{}", self.room))
            .await;
        assert_eq!(status, 200, "the room is live: {current}");
        let highest = current["seq"].as_u64().unwrap();
        for who in 0..PEOPLE {
            let behind = self.people[who]
                .state
                .as_ref()
                .is_none_or(|state| state["seq"].as_u64().unwrap() < highest);
            if behind && self.people[who].client.is_some() {
                self.read_until(who, |m| {
                    m["type"] == "state" && m["seq"].as_u64().unwrap() >= highest
                })
                .await;
            }
        }
    }

    /// `who` (re)enters the room on their current connection, saying `since`.
    async fn enter(&mut self, who: usize, since: Option<u64>) {
        let mut message = if who == SPECTATOR {
            json!({"type": "watch", "room": self.room})
        } else {
            json!({"type": "join", "room": self.room, "seat": who})
        };
        if let Some(since) = since {
            message["since"] = json!(since);
        }
        self.people[who].rejoining = true;
        let reference = self.send(who, message).await;
        let joined = self.read_until(who, |m| m["ref"] == reference).await;
        let joined = joined.expect("the connection stays open");
        assert_eq!(joined["type"], "joined", "{joined}");
    }

    /// Sends `message` from `who` with a fresh `ref`; returns the ref.
    async fn send(&mut self, who: usize, mut message: Value) -> String {
        let reference = self.fresh_ref(&mut message);
        self.people[who]
            .client
            .as_mut()
            .unwrap()
            .send(message)
            .await;
        reference
    }

    /// As [`Case::send`], for junk that is no message of the protocol's schema: sent
    /// unchecked.
    async fn send_junk(&mut self, who: usize, mut message: Value) -> String {
        let reference = self.fresh_ref(&mut message);
        self.people[who]
            .client
            .as_mut()
            .unwrap()
            .send_unchecked(message)
            .await;
        reference
    }

    /// Gives `message` a `ref` no earlier message had; returns it.
    fn fresh_ref(&mut self, message: &mut Value) -> String {
        self.refs += 1;
        let reference = format!("r{}", self.refs);
        message["ref"] = json!(reference);
        reference
    }

    /// Waits for the error answering `reference`, which must have `code`.
    async fn refused(&mut self, who: usize, reference: &str, codes: &[&str]) {
        let reply = self
            .read_until(who, |m| m["ref"] == reference)
            .await
            .expect("a refusal keeps the connection open");
        assert_eq!(reply["type"], "error", "{reply}");
        let code = reply["code"].as_str().unwrap();
        assert!(codes.contains(&code), "expected one of {codes:?}: {reply}");
    }

    async fn ensure_connected(&mut self, who: usize) {
        if self.people[who].client.is_none() {
            self.back(who).await;
        }
    }

    async fn back(&mut self, who: usize) {
        if self.people[who].client.is_some() {
            return;
        }
        let mut client = self.server().connect().await;
        let person = &self.people[who];
        let welcome = client.hello(&person.name, Some(&person.token)).await;
        assert_eq!(welcome["name"], person.name.as_str());
        let since = person.state.as_ref().and_then(|s| s["seq"].as_u64());
        self.people[who].client = Some(client);
        self.enter(who, since).await;
    }

    async fn run(&mut self, step: &Step) {
        if self.gone {
            return;
        }
        match *step {
            Step::Move { who, pick } => {
                self.ensure_connected(who).await;
                self.settle().await;
                let state = self.people[who].state.clone().unwrap();
                let legal = state["legal_moves"].as_array().unwrap().clone();
                let finished = state["status"] == "finished";
                // A finished game has no legal moves: try the first move of a new one.
                let text = match legal.len() {
                    0 => "a1".to_owned(),
                    n => legal[pick % n].as_str().unwrap().to_owned(),
                };
                let my_turn = who != SPECTATOR && state["to_move"] == json!(who);
                if my_turn {
                    let moves = state["moves"].as_u64().unwrap();
                    self.ledger.sent[who].insert((state["game_id"].clone(), moves), text.clone());
                }
                let room = self.room.clone();
                let reference = self
                    .send(who, json!({"type": "move", "room": room, "move": text}))
                    .await;
                if my_turn {
                    let moves = state["moves"].as_u64().unwrap();
                    self.read_until(who, |m| {
                        m["type"] == "state" && m["moves"].as_u64() > Some(moves)
                    })
                    .await
                    .expect("the mover sees their move");
                } else if who == SPECTATOR {
                    self.refused(who, &reference, &["not_a_player"]).await;
                } else if finished {
                    self.refused(who, &reference, &["game_finished"]).await;
                } else {
                    self.refused(who, &reference, &["not_your_turn"]).await;
                }
            }
            Step::Junk { who, kind } => {
                self.ensure_connected(who).await;
                self.junk(who, kind).await;
            }
            Step::OfferDraw { who } | Step::DeclineDraw { who } => {
                self.ensure_connected(who).await;
                self.settle().await;
                let state = self.people[who].state.clone().unwrap();
                let offer = matches!(step, Step::OfferDraw { .. });
                let kind = if offer { "offer_draw" } else { "decline_draw" };
                let room = self.room.clone();
                let reference = self.send(who, json!({"type": kind, "room": room})).await;
                let open_to_me = state["draw_offer"] == json!(1 - who);
                if state["status"] == "finished" {
                    self.refused(who, &reference, &["game_finished"]).await;
                } else if !offer && !open_to_me {
                    self.refused(who, &reference, &["no_draw_offer"]).await;
                } else {
                    let seq = state["seq"].as_u64().unwrap();
                    self.read_until(who, |m| {
                        m["type"] == "state" && m["seq"].as_u64() > Some(seq)
                    })
                    .await
                    .expect("the answer is a state");
                }
            }
            Step::Drop { who } => {
                if let Some(client) = self.people[who].client.take() {
                    client.close().await;
                }
            }
            Step::Back { who } => self.back(who).await,
            Step::Restart => self.restart().await,
        }
    }

    async fn junk(&mut self, who: usize, kind: Junk) {
        let room = self.room.clone();
        match kind {
            Junk::NotJson => {
                self.people[who]
                    .client
                    .as_mut()
                    .unwrap()
                    .send_raw("{not json")
                    .await;
                // Without a ref the error cannot be told from others but by its code.
                let reply = self
                    .read_until(who, |m| m["type"] == "error")
                    .await
                    .expect("the connection stays open");
                assert_eq!(reply["code"], "bad_json", "{reply}");
            }
            Junk::UnknownType => {
                let reference = self.send_junk(who, json!({"type": "teleport"})).await;
                self.refused(who, &reference, &["unknown_type"]).await;
            }
            Junk::UnknownRoom => {
                let message = json!({"type": "move", "room": "nowhere", "move": "a1"});
                let reference = self.send(who, message).await;
                self.refused(who, &reference, &["unknown_room"]).await;
            }
            Junk::NotAMove => {
                let message = json!({"type": "move", "room": room, "move": "zz99"});
                let reference = self.send(who, message).await;
                self.refused(
                    who,
                    &reference,
                    &[
                        "bad_move",
                        "illegal_move",
                        "not_your_turn",
                        "not_a_player",
                        "game_finished",
                    ],
                )
                .await;
            }
            Junk::MoveAsNumber => {
                let message = json!({"type": "move", "room": room, "move": 4});
                let reference = self.send_junk(who, message).await;
                self.refused(who, &reference, &["bad_message"]).await;
            }
            Junk::JoinTakenSeat => {
                // The seat that is not theirs (the spectator tries seat 0).
                let seat = if who == 0 { 1 } else { 0 };
                let message = json!({"type": "join", "room": room, "seat": seat});
                let reference = self.send(who, message).await;
                let codes: &[&str] = if who == SPECTATOR {
                    &["seat_taken"]
                } else {
                    &["already_seated"]
                };
                self.refused(who, &reference, codes).await;
            }
        }
    }

    /// Stops the server (everyone connected is told `shutdown` and closed) and starts a
    /// new one on the same database.
    async fn restart(&mut self) {
        let server = self.server.take().unwrap();
        let mut readers = Vec::new();
        for who in 0..PEOPLE {
            if let Some(mut client) = self.people[who].client.take() {
                readers.push(tokio::spawn(async move {
                    let mut states = Vec::new();
                    loop {
                        match tokio::time::timeout(WAIT, client.next_json()).await {
                            Ok(Some(message)) if message["type"] == "shutdown" => {
                                assert_eq!(message["reason"], "restarting");
                            }
                            Ok(Some(message)) if message["type"] == "state" => {
                                states.push(message);
                            }
                            Ok(Some(_)) => {}
                            Ok(None) => return (who, states),
                            Err(_) => panic!("person {who} was not closed at shutdown"),
                        }
                    }
                }));
            }
        }
        server.stop().await;
        for reader in readers {
            let (who, states) = reader.await.unwrap();
            for state in states {
                self.saw(who, state);
            }
        }
        self.ledger.before_restart = self.ledger.highest;
        let finished = self
            .people
            .iter()
            .filter_map(|person| person.state.as_ref())
            .any(|state| state["status"] == "finished");
        let server = TestServer::start(config(&self.dir)).await;
        let (status, _) = server.get_json(&format!("/api/rooms/{}", self.room)).await;
        if finished {
            assert_eq!(status, 404, "a finished game's room ends with its server");
            self.gone = true;
        } else {
            assert_eq!(status, 200, "a game in progress is resumed");
        }
        self.server = Some(server);
    }

    /// Brings everyone back, then checks each sees the game a newcomer sees.
    async fn finish(mut self) {
        if self.gone {
            self.server.take().unwrap().stop().await;
            return;
        }
        for who in 0..PEOPLE {
            self.back(who).await;
        }
        self.settle().await;
        let mut newcomer = self.server().connect().await;
        newcomer.hello("Dee", None).await;
        let room = self.room.clone();
        newcomer
            .send(json!({"type": "watch", "room": room, "ref": "look"}))
            .await;
        newcomer.until("joined").await;
        let fresh = newcomer.expect("state").await;
        self.settle().await;
        for who in 0..PEOPLE {
            let seen = self.people[who].state.as_ref().unwrap();
            for field in [
                "game_id",
                "status",
                "position",
                "moves",
                "to_move",
                "legal_moves",
                "last_move",
                "result",
                "draw_offer",
            ] {
                assert_eq!(
                    seen[field], fresh[field],
                    "person {who} ends with the game a newcomer sees ({field})"
                );
            }
        }
        self.server.take().unwrap().stop().await;
    }
}

/// The case's server settings: nobody is timed out of a game while a script runs.
fn config(dir: &tempfile::TempDir) -> parlor::config::Config {
    let mut config = test_config(dir.path());
    config.rooms.reconnect_grace_secs = 600;
    config.rooms.first_move_secs = 600;
    config.bots.fill_after_secs = 600;
    config
}

#[test]
fn a_live_server_keeps_its_promises_under_random_scripts() {
    let cases = std::env::var("PARLOR_LIVE_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(12);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let mut runner = TestRunner::new(ProptestConfig {
        cases,
        // Each case runs a server; shrinking a failure is worth a few more.
        max_shrink_iters: 64,
        ..ProptestConfig::default()
    });
    let script = (
        0..GAMES.len(),
        any::<bool>(),
        proptest::collection::vec(step(), 4..40),
    );
    let ran = Cell::new(0);
    let restarts = Cell::new(0);
    let result = runner.run(&script, |(game, clock, steps)| {
        ran.set(ran.get() + 1);
        restarts.set(restarts.get() + steps.iter().filter(|s| matches!(s, Step::Restart)).count());
        runtime.block_on(async {
            let mut case = Case::start(GAMES[game], clock).await;
            for step in &steps {
                case.run(step).await;
            }
            case.finish().await;
        });
        Ok(())
    });
    eprintln!(
        "live server properties: {} scripts run, {} restarts",
        ran.get(),
        restarts.get()
    );
    if let Err(failure) = result {
        panic!("{failure}");
    }
}
