//! Clients that play or watch a game to its end through whatever happens to the
//! servers (kills, restarts, rooms moving between the nodes of a fleet), reconnecting
//! and rejoining with `since` each time, and the checks of what they saw against the
//! store: shared by the chaos and fleet tests. (The history checker over all of it is
//! `history`.)

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio::sync::watch;
use tokio_tungstenite::tungstenite::{self, Message};
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream, connect_async};

use crate::common::comparable;
use crate::conformance::{check_sent, received};
use crate::waiting::eventually;

/// How long a client waits for any message before the test fails.
const STUCK: Duration = Duration::from_secs(60);

/// What every client saw, checked as it arrives and against the store at the end.
#[derive(Default)]
pub(crate) struct Seen {
    /// Each game's moves by number, as states (their `last_move`, and the `history` of
    /// snapshots) showed them.
    pub(crate) moves: HashMap<String, BTreeMap<u64, String>>,
    /// Each game's acknowledged moves by number: moves a player sent and then saw
    /// applied for its seat (the protocol's only answer to a move that was played).
    pub(crate) acknowledged: HashMap<String, BTreeMap<u64, String>>,
    /// When any client first saw each game's moves, by number: how the game went on
    /// through the servers' trouble.
    pub(crate) first_seen: HashMap<String, BTreeMap<u64, Instant>>,
    /// Each room's states by `seq`, as [`comparable`] sees them.
    pub(crate) states: HashMap<(String, u64), Value>,
    /// The clients (by name) that have seen their game begin.
    started: HashSet<String>,
    /// Every WebSocket upgrade the clients asked for, and its answer, in the order
    /// the answers came.
    pub(crate) upgrades: Vec<Upgrade>,
}

/// One WebSocket upgrade a client asked for, and what came of it.
#[derive(Clone, Debug)]
pub(crate) struct Upgrade {
    /// When the answer came.
    pub(crate) at: std::time::Instant,
    /// The answer.
    pub(crate) answer: Answer,
}

/// What a WebSocket upgrade was answered with.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Answer {
    /// 101: the socket is open.
    Switched,
    /// An HTTP status other than 101 (a proxy's 502…).
    Status(u16),
    /// No HTTP answer at all: the connection was refused or cut, or the handshake
    /// failed otherwise (what happened).
    Failed(String),
}

/// Asks for a WebSocket at `url`, and notes the answer in `seen`.
pub(crate) async fn upgrade(
    url: &str,
    seen: &Mutex<Seen>,
) -> Option<WebSocketStream<MaybeTlsStream<TcpStream>>> {
    let result = connect_async(url).await;
    let answer = match &result {
        Ok(_) => Answer::Switched,
        Err(tungstenite::Error::Http(response)) => Answer::Status(response.status().as_u16()),
        Err(other) => Answer::Failed(other.to_string()),
    };
    seen.lock().unwrap().upgrades.push(Upgrade {
        at: std::time::Instant::now(),
        answer,
    });
    result.ok().map(|(ws, _)| ws)
}

impl Seen {
    /// Notes a `state`; panics if it contradicts anything seen before.
    fn note(&mut self, state: &Value) {
        let (Some(room), Some(seq)) = (state["room"].as_str(), state["seq"].as_u64()) else {
            panic!("a state without room or seq: {state}");
        };
        let game_id = state["game_id"].as_str().unwrap_or("").to_owned();
        let moves = state["moves"].as_u64().unwrap_or(0);
        let shown = comparable(state);
        let before = self
            .states
            .entry((room.to_owned(), seq))
            .or_insert_with(|| shown.clone());
        assert_eq!(
            *before, shown,
            "room {room} sent seq {seq} for two different states"
        );
        if let Some(text) = state["last_move"]["move"].as_str() {
            self.note_move(&game_id, moves, text);
        }
        for (ply, text) in (1..).zip(state["history"].as_array().into_iter().flatten()) {
            self.note_move(&game_id, ply, text.as_str().unwrap_or_default());
        }
    }

    /// Notes that move `ply` of `game_id` was shown as `text`; panics if it was shown
    /// as another move before.
    fn note_move(&mut self, game_id: &str, ply: u64, text: &str) {
        let game = self.moves.entry(game_id.to_owned()).or_default();
        let earlier = game.entry(ply).or_insert_with(|| text.to_owned());
        assert_eq!(
            earlier, text,
            "move {ply} of {game_id} was shown as two different moves"
        );
        let times = self.first_seen.entry(game_id.to_owned()).or_default();
        times.entry(ply).or_insert_with(Instant::now);
    }

    /// Notes that a player saw its own move `ply` of `game_id`, `text`, applied.
    fn acknowledge(&mut self, game_id: &str, ply: u64, text: &str) {
        let game = self.acknowledged.entry(game_id.to_owned()).or_default();
        game.insert(ply, text.to_owned());
    }
}

/// The seed of the clients' choices and the kills' timing: `PARLOR_TEST_CHAOS_SEED` if set,
/// to replay a failed run's choices, else a fresh one.
pub(crate) fn chaos_seed() -> u64 {
    std::env::var("PARLOR_TEST_CHAOS_SEED")
        .ok()
        .and_then(|seed| seed.parse().ok())
        .unwrap_or_else(|| rand::rng().random())
}

/// One client's part in a room: a seat to play, or (`seat: None`) watching.
pub(crate) struct Part {
    /// The room.
    pub(crate) room: String,
    /// The seat to play, or `None` to watch.
    pub(crate) seat: Option<u8>,
    /// The player's name.
    pub(crate) name: String,
    /// How long the player thinks over a move, ms, from and to.
    pub(crate) think_ms: (u64, u64),
    /// Whether the servers are a fleet, whose rooms move between nodes.
    pub(crate) fleet: bool,
}

/// Plays (or watches) `part` to the end of its game, reconnecting to one of the servers
/// `addresses` lists (any node of a fleet) whenever the connection is lost; returns the
/// game's id.
pub(crate) async fn take_part(
    part: Part,
    mut addresses: watch::Receiver<Vec<String>>,
    seen: Arc<Mutex<Seen>>,
    seed: u64,
) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut token: Option<String> = None;
    let mut last_seq: Option<u64> = None;
    let mut game_id: Option<String> = None;
    // The moves this player sent, by the position (moves played) each was sent in, over
    // every connection: what a move of its seat that it sees applied must be one of.
    let mut sent_moves: BTreeMap<u64, Vec<String>> = BTreeMap::new();
    loop {
        let at = {
            let live = addresses.borrow_and_update();
            live[rng.random_range(0..live.len())].clone()
        };
        let Some(mut ws) = upgrade(&format!("ws://{at}/ws"), &seen).await else {
            // Down: wait for the next server, or retry a refused connection shortly.
            let _ = tokio::time::timeout(Duration::from_millis(100), addresses.changed()).await;
            continue;
        };
        let mut hello = json!({"type": "hello", "name": part.name});
        if let Some(token) = &token {
            hello["token"] = json!(token);
        }
        let mut enter = match part.seat {
            Some(seat) => json!({"type": "join", "room": part.room, "seat": seat}),
            None => json!({"type": "watch", "room": part.room}),
        };
        if let Some(since) = last_seq {
            enter["since"] = json!(since);
        }
        check_sent(&hello);
        check_sent(&enter);
        let sent = async {
            ws.send(Message::text(hello.to_string())).await?;
            ws.send(Message::text(enter.to_string())).await
        };
        if sent.await.is_err() {
            continue;
        }
        // The position (moves played) this connection last sent a move in.
        let mut moved_at: Option<u64> = None;
        loop {
            let frame = tokio::time::timeout(STUCK, ws.next())
                .await
                .unwrap_or_else(|_| panic!("{} heard nothing for {STUCK:?}", part.name));
            let Some(Ok(Message::Text(text))) = frame else {
                match frame {
                    Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                    _ => break,
                }
            };
            let message = received(&text);
            match message["type"].as_str().unwrap_or("") {
                "welcome" => {
                    token = message["token"].as_str().map(str::to_owned);
                }
                "state" => {
                    {
                        let mut seen = seen.lock().unwrap();
                        seen.note(&message);
                        if message["status"] != "waiting" {
                            seen.started.insert(part.name.clone());
                        }
                        if let Some((ply, text)) = own_move(&message, part.seat) {
                            // Every move says the position it was chosen in (`after`):
                            // one that arrives later is refused, never played there.
                            let sent_then = sent_moves.get(&(ply - 1));
                            assert!(
                                sent_then.is_some_and(|sent| sent.contains(&text)),
                                "{}'s move {ply} was applied as {text}, which it did not send \
                                 in that position (all it sent, by position: {sent_moves:?})",
                                part.name
                            );
                            let game = message["game_id"].as_str().unwrap_or_default();
                            seen.acknowledge(game, ply, &text);
                        }
                    }
                    let seq = message["seq"].as_u64().unwrap();
                    assert!(
                        last_seq.is_none_or(|last| seq >= last),
                        "{} saw seq go back from {last_seq:?} to {seq}",
                        part.name
                    );
                    last_seq = Some(seq);
                    game_id = message["game_id"].as_str().map(str::to_owned);
                    if message["status"] == "finished" {
                        return message["game_id"].as_str().unwrap().to_owned();
                    }
                    let moves = message["moves"].as_u64().unwrap();
                    let my_turn = part.seat.is_some()
                        && message["status"] == "playing"
                        && message["to_move"].as_u64() == part.seat.map(u64::from);
                    if my_turn && moved_at != Some(moves) {
                        let legal = message["legal_moves"].as_array().unwrap();
                        let choice = legal[rng.random_range(0..legal.len())].clone();
                        // Not a wait for anything: a player's thinking, part of the
                        // scenario (the servers' trouble falls between moves).
                        let pause = rng.random_range(part.think_ms.0..=part.think_ms.1);
                        tokio::time::sleep(Duration::from_millis(pause)).await;
                        let play = json!({
                            "type": "move",
                            "room": part.room,
                            "move": choice,
                            "after": moves,
                        });
                        check_sent(&play);
                        let text = choice.as_str().unwrap_or_default().to_owned();
                        sent_moves.entry(moves).or_default().push(text);
                        if ws.send(Message::text(play.to_string())).await.is_err() {
                            break;
                        }
                        moved_at = Some(moves);
                    }
                }
                "game_over" => {
                    return message["game_id"].as_str().unwrap().to_owned();
                }
                "error" => match message["code"].as_str().unwrap_or("") {
                    // A move sent into a position that has just changed, or again
                    // after a restart that had already stored it, is refused harmlessly.
                    "not_your_turn" | "illegal_move" | "stale_move" => {}
                    // A room whose game ended just before its server died does not
                    // come back (PROTOCOL.md §9.9): the store has the end.
                    "unknown_room" if finished_in_store(&at, game_id.as_deref()).await => {
                        eprintln!(
                            "{}: the room is gone, its game ended in the store",
                            part.name
                        );
                        return game_id.unwrap_or_default();
                    }
                    // In a fleet, a room moving to another node is briefly unknown
                    // (not yet taken over) or unreachable: come back a moment later.
                    "unknown_room" | "room_unreachable" if part.fleet => {
                        // A pause before asking again, as a client backs off: whenever
                        // it asks, it is told again or let in.
                        tokio::time::sleep(Duration::from_millis(200)).await;
                        break;
                    }
                    // The database is out of reach (PROTOCOL.md §6.5): whether a move
                    // was played is not known yet. Sending it again could play it in a
                    // later position, so the client comes back instead: its join is
                    // answered with the room's state, stored move or not.
                    "storage_unavailable" if part.fleet => {
                        // A pause before asking again, as a client backs off.
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        break;
                    }
                    _ => panic!("{} was refused: {message}", part.name),
                },
                _ => {}
            }
        }
    }
}

/// The move of `seat` that `state` shows as just played, as `(ply, move)`; `None` when
/// the last move was the other seat's, or there was none, or `seat` is a spectator's.
fn own_move(state: &Value, seat: Option<u8>) -> Option<(u64, String)> {
    let last = &state["last_move"];
    let mine = seat.is_some_and(|seat| last["seat"].as_u64() == Some(u64::from(seat)));
    let ply = state["moves"].as_u64()?;
    mine.then(|| (ply, last["move"].as_str().unwrap_or_default().to_owned()))
}

/// Waits (at most `within`) until `clients` clients have seen their games begin: a
/// room still waiting for its players ends with its server (PROTOCOL.md §9.9), so the
/// trouble may start only once every game is on.
pub(crate) async fn all_started(seen: &Mutex<Seen>, clients: usize, within: Duration) {
    let what = format!("{clients} clients saw their game begin");
    eventually(&what, within, async || {
        let count = seen.lock().unwrap().started.len();
        if count == clients {
            Ok(())
        } else {
            Err(format!("{count} did"))
        }
    })
    .await;
}

/// Waits (at most `within`) until the clients have seen a move in each of `games`
/// games: every game is under way.
pub(crate) async fn all_under_way(seen: &Mutex<Seen>, games: usize, within: Duration) {
    let what = format!("a move seen in each of {games} games");
    eventually(&what, within, async || {
        let count = seen
            .lock()
            .unwrap()
            .moves
            .values()
            .filter(|moves| !moves.is_empty())
            .count();
        if count >= games {
            Ok(())
        } else {
            Err(format!("in {count}"))
        }
    })
    .await;
}

/// Whether the server at `address` has stored the game `game_id` as finished.
async fn finished_in_store(address: &str, game_id: Option<&str>) -> bool {
    let Some(game_id) = game_id else {
        return false;
    };
    let url = format!("http://{address}/api/games/{game_id}");
    let Ok(response) = reqwest::get(url).await else {
        return false;
    };
    let game: Value = response.json().await.unwrap_or_default();
    game["status"] == "finished"
}

/// Waits (at most `within` in all) for every client in `players` to see its game to
/// the end; the games' ids, each once, checked to be one per room of `rooms`.
pub(crate) async fn finished_games(
    players: Vec<tokio::task::JoinHandle<String>>,
    within: Duration,
    rooms: usize,
) -> Vec<String> {
    let started = std::time::Instant::now();
    let mut game_ids = Vec::new();
    for player in players {
        let left = within.saturating_sub(started.elapsed());
        let game_id = match tokio::time::timeout(left, player)
            .await
            .expect("every game finishes after the servers' trouble")
        {
            Ok(game_id) => game_id,
            Err(failed) => panic!("a client failed: {}", why(failed)),
        };
        game_ids.push(game_id);
    }
    game_ids.sort();
    game_ids.dedup();
    assert_eq!(
        game_ids.len(),
        rooms,
        "one game per room, each seen to its end"
    );
    game_ids
}

/// What stopped a client's task: its panic's message, so that the test's own failure
/// names the cause even where the client's output is cut off.
fn why(failed: tokio::task::JoinError) -> String {
    match failed.try_into_panic() {
        Ok(panic) => match panic.downcast::<String>() {
            Ok(message) => *message,
            Err(panic) => panic.downcast_ref::<&str>().map_or_else(
                || "a panic without a message".to_owned(),
                |m| (*m).to_owned(),
            ),
        },
        Err(failed) => failed.to_string(),
    }
}

/// A time the game's server was away, by the machine's clock in Unix milliseconds: from
/// a moment before it was killed until a moment before the server that took its games
/// up could have started their clocks again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Outage {
    /// Taken after the last state seen before the kill, and before the kill.
    pub(crate) down_ms: i64,
    /// Taken no later than anything of the next server could run.
    pub(crate) up_ms: i64,
}

/// Now, by the machine's clock, in Unix milliseconds (what the server stores a move's
/// `played_at_ms` in).
pub(crate) fn unix_ms() -> i64 {
    let since = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap();
    i64::try_from(since.as_millis()).unwrap()
}

/// Checks one stored game against what the clients saw and the no-charge rule: it is
/// finished, holds every move seen, charges each mover exactly their thinking time, and
/// charges no one an outage of `outages`. Returns how many of its moves were made across
/// one of them.
pub(crate) fn check_stored_game(
    game: &Value,
    seen: &BTreeMap<u64, String>,
    outages: &[Outage],
) -> usize {
    let id = &game["game_id"];
    assert_eq!(game["status"], "finished", "game {id} finished: {game}");
    let moves = game["moves"].as_array().unwrap();
    for (ply, text) in seen {
        let stored = &moves[usize::try_from(*ply).unwrap() - 1];
        assert_eq!(
            stored["notation"],
            text.as_str(),
            "move {ply} of {id} as seen"
        );
    }
    let control = &game["options"]["time_control"];
    let mut spanning_an_outage = 0;
    let mut previous: Option<&Value> = None;
    for stored in moves {
        let think = stored["think_ms"].as_u64().unwrap();
        if let Some(before) = previous
            && let Some(outage) = spanned(before, stored, outages)
        {
            // The mover's turn began before the outage and ended after it. The server
            // that played the move on started the turn again no sooner than `up_ms`, so
            // it charged at most `played - up_ms`; charged for the outage too, it would
            // be at least `played - down_ms`. Halfway between tells them apart, whatever
            // the timing.
            spanning_an_outage += 1;
            let played = stored["played_at_ms"].as_i64().unwrap();
            let halfway = played - (outage.down_ms + outage.up_ms) / 2;
            assert!(
                i64::try_from(think).unwrap() < halfway,
                "move {} of {id} was charged {think} ms, played {} ms after the outage \
                 began and {} ms after it ended: the outage was charged to its mover",
                stored["ply"],
                played - outage.down_ms,
                played - outage.up_ms
            );
        }
        let mover = stored["seat"].as_u64().unwrap() as usize;
        // A side's first move is free: its clock had not started.
        let first_of_mover = moves
            .iter()
            .find(|earlier| earlier["seat"] == stored["seat"])
            .is_some_and(|earliest| earliest["ply"] == stored["ply"]);
        let think = if first_of_mover { 0 } else { think };
        let clocks: Vec<u64> = match stored["clocks_ms"].as_array() {
            Some(clocks) => clocks.iter().map(|ms| ms.as_u64().unwrap()).collect(),
            None => {
                assert_eq!(control["kind"], "none", "a clock game stores clocks");
                previous = Some(stored);
                continue;
            }
        };
        let expected = match control["kind"].as_str() {
            Some("fischer") => {
                let base = control["base_ms"].as_u64().unwrap();
                let before: Vec<u64> = previous.map_or(vec![base, base], |before| {
                    before["clocks_ms"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|ms| ms.as_u64().unwrap())
                        .collect()
                });
                let increment = control["increment_ms"].as_u64().unwrap();
                let mut after = before;
                if !first_of_mover {
                    after[mover] = after[mover] - think + increment;
                }
                after
            }
            Some("per_move") => {
                let full = control["per_move_ms"].as_u64().unwrap();
                let mut after = vec![full, full];
                after[mover] = full - think;
                // After the last move no turn begins: the other side shows what it had
                // left after its own last move, as the final state does.
                if stored["ply"] == moves.len() && moves.len() > 1 {
                    let own = &moves[moves.len() - 2];
                    after[1 - mover] = own["clocks_ms"][1 - mover].as_u64().unwrap();
                }
                after
            }
            other => panic!("unexpected time control {other:?}"),
        };
        assert_eq!(
            clocks, expected,
            "move {} of {id}: the clocks charge exactly the mover's thinking time",
            stored["ply"]
        );
        previous = Some(stored);
    }
    spanning_an_outage
}

/// The last of `outages` that began after `before` was played and ended before `after`
/// was: `after`'s turn spanned it.
fn spanned(before: &Value, after: &Value, outages: &[Outage]) -> Option<Outage> {
    let (from, to) = (
        before["played_at_ms"].as_i64().unwrap(),
        after["played_at_ms"].as_i64().unwrap(),
    );
    outages
        .iter()
        .filter(|outage| from < outage.down_ms && outage.up_ms < to)
        .max_by_key(|outage| outage.up_ms)
        .copied()
}

/// The no-charge check itself, on made-up games: it can fail.
mod tests {
    use super::*;

    /// A finished Fischer game of three moves whose third (Alice's) was played at 10 s,
    /// after an outage from 3 s to 7 s, having been charged `think_ms`.
    fn game_with_third_move_charged(think_ms: u64) -> Value {
        let base = 600_000;
        json!({
            "game_id": "g_test",
            "status": "finished",
            "options": {"time_control": {"kind": "fischer", "base_ms": base, "increment_ms": 0}},
            "moves": [
                {"ply": 1, "seat": 0, "notation": "0", "played_at_ms": 1_000, "think_ms": 0,
                 "clocks_ms": [base, base]},
                {"ply": 2, "seat": 1, "notation": "3", "played_at_ms": 2_000, "think_ms": 0,
                 "clocks_ms": [base, base]},
                {"ply": 3, "seat": 0, "notation": "4", "played_at_ms": 10_000,
                 "think_ms": think_ms, "clocks_ms": [base - think_ms, base]},
            ],
        })
    }

    const OUTAGE: Outage = Outage {
        down_ms: 3_000,
        up_ms: 7_000,
    };

    #[test]
    fn a_move_charged_only_after_the_outage_passes() {
        let game = game_with_third_move_charged(2_500);
        assert_eq!(check_stored_game(&game, &BTreeMap::new(), &[OUTAGE]), 1);
    }

    #[test]
    #[should_panic(expected = "the outage was charged to its mover")]
    fn a_move_charged_for_the_outage_is_caught() {
        // Charged from its turn's start before the outage: 8 s.
        let game = game_with_third_move_charged(8_000);
        check_stored_game(&game, &BTreeMap::new(), &[OUTAGE]);
    }
}
