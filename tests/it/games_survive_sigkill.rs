//! Chaos: a real `parlor` process playing two dozen games of every kind (humans against
//! humans and bots, bots against bots, with and without clocks) is killed with SIGKILL
//! at random moments, several times in a row, and started again on the same database
//! after an outage. The clients reconnect, `hello` with their tokens and `join` again.
//! Every game resumes and finishes; every move any client saw is stored as it saw it;
//! no `seq` ever names two different states; and the stored clocks show that no one
//! was charged for an outage. It runs on SQLite and, in a schema of its own, on the
//! machine's PostgreSQL.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};
use serde_json::{Value, json};
use tokio::sync::watch;
use tokio_tungstenite::connect_async;
use tokio_tungstenite::tungstenite::Message;

use crate::common::{ParlorProcess, client_at, comparable, temp_dir};
use crate::services::PostgresSchema;

/// How many times the server is killed.
const KILLS: usize = 3;

/// How long the server stays down after each kill: longer than any move is allowed
/// to take, so a clock charged for the outage would show.
const OUTAGE: Duration = Duration::from_secs(4);

/// How long a client waits for any message before the test fails.
const STUCK: Duration = Duration::from_secs(60);

/// How long the whole scenario may take once the last restart is done.
const FINISH_WITHIN: Duration = Duration::from_secs(240);

/// The server's settings: a grace longer than any outage, slow enough bots that their
/// games are still on when the server dies, and limits that let one address run it all.
const ENV: &[(&str, &str)] = &[
    ("PARLOR_ROOMS__RECONNECT_GRACE_SECS", "120"),
    ("PARLOR_ROOMS__FIRST_MOVE_SECS", "120"),
    ("PARLOR_BOTS__MIN_DELAY_MS", "150"),
    ("PARLOR_BOTS__PRIORITY", "nice"),
    ("PARLOR_BOTS__NICE", "0"),
    ("PARLOR_LIMITS__CONNECTIONS_PER_IP", "1000"),
    ("PARLOR_LIMITS__PLAYERS_PER_MINUTE_PER_IP", "1000"),
    ("PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_IP", "1000"),
    ("PARLOR_LIMITS__ROOMS_PER_MINUTE_PER_CONNECTION", "1000"),
];

/// The games, and how long a person takes over a move in each (ms): slow enough that
/// short games are still in progress when the server dies.
const GAMES: &[(&str, (u64, u64))] = &[
    ("tictactoe", (500, 1_000)),
    ("fox_geese", (60, 160)),
    ("checkers", (40, 120)),
    ("chess", (10, 50)),
];

fn fischer() -> Value {
    json!({"kind": "fischer", "base_ms": 600_000, "increment_ms": 1_000})
}

fn per_move() -> Value {
    json!({"kind": "per_move", "per_move_ms": 60_000})
}

fn no_clock() -> Value {
    json!({"kind": "none"})
}

/// What every client saw, checked as it arrives and against the store at the end.
#[derive(Default)]
struct Seen {
    /// Each game's moves by number, as states showed them.
    moves: HashMap<String, BTreeMap<u64, String>>,
    /// Each room's states by `seq`, as [`comparable`] sees them.
    states: HashMap<(String, u64), Value>,
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
            let game = self.moves.entry(game_id).or_default();
            let earlier = game.entry(moves).or_insert_with(|| text.to_owned());
            assert_eq!(
                earlier, text,
                "move {moves} was shown as two different moves"
            );
        }
    }
}

/// One client's part in a room: a seat to play, or (`seat: None`) watching.
struct Part {
    room: String,
    seat: Option<u8>,
    name: String,
    think_ms: (u64, u64),
}

/// Plays (or watches) `part` to the end of its game, reconnecting to wherever `address`
/// says the server is whenever the connection is lost; returns the game's id.
async fn take_part(
    part: Part,
    mut address: watch::Receiver<String>,
    seen: Arc<Mutex<Seen>>,
    seed: u64,
) -> String {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut token: Option<String> = None;
    let mut last_seq: Option<u64> = None;
    loop {
        let at = address.borrow_and_update().clone();
        let Ok((mut ws, _)) = connect_async(format!("ws://{at}/ws")).await else {
            // Down: wait for the next server, or retry a refused connection shortly.
            let _ = tokio::time::timeout(Duration::from_millis(100), address.changed()).await;
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
            let message: Value = serde_json::from_str(&text).unwrap();
            match message["type"].as_str().unwrap_or("") {
                "welcome" => {
                    token = message["token"].as_str().map(str::to_owned);
                }
                "state" => {
                    seen.lock().unwrap().note(&message);
                    let seq = message["seq"].as_u64().unwrap();
                    assert!(
                        last_seq.is_none_or(|last| seq >= last),
                        "{} saw seq go back from {last_seq:?} to {seq}",
                        part.name
                    );
                    last_seq = Some(seq);
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
                        let pause = rng.random_range(part.think_ms.0..=part.think_ms.1);
                        tokio::time::sleep(Duration::from_millis(pause)).await;
                        let play = json!({"type": "move", "room": part.room, "move": choice});
                        if ws.send(Message::text(play.to_string())).await.is_err() {
                            break;
                        }
                        moved_at = Some(moves);
                    }
                }
                "game_over" => {
                    return message["game_id"].as_str().unwrap().to_owned();
                }
                "error" => {
                    let code = message["code"].as_str().unwrap_or("");
                    // A move sent into a position that has just changed, or again
                    // after a restart that had already stored it, is refused harmlessly.
                    assert!(
                        matches!(code, "not_your_turn" | "illegal_move"),
                        "{} was refused: {message}",
                        part.name
                    );
                }
                _ => {}
            }
        }
    }
}

/// Checks one stored game against what the clients saw and the no-charge rule: it is
/// finished, holds every move seen, charges each mover exactly their thinking time and
/// no one an outage. Returns how many of its moves were made across an outage.
fn check_stored_game(game: &Value, seen: &BTreeMap<u64, String>) -> usize {
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
        assert!(
            think < OUTAGE.as_millis() as u64,
            "move {} of {id} was charged {think} ms: an outage was charged to its mover",
            stored["ply"]
        );
        if let Some(before) = previous {
            let gap =
                stored["played_at_ms"].as_i64().unwrap() - before["played_at_ms"].as_i64().unwrap();
            if gap >= OUTAGE.as_millis() as i64 {
                spanning_an_outage += 1;
            }
        }
        let mover = stored["seat"].as_u64().unwrap() as usize;
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
                let mut after = before;
                after[mover] = after[mover] - think + control["increment_ms"].as_u64().unwrap();
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_survive_repeated_sigkills() {
    survive_sigkills(ENV).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_survive_repeated_sigkills_on_postgres() {
    let Some(schema) = PostgresSchema::new("games_survive_repeated_sigkills_on_postgres").await
    else {
        return;
    };
    let store_url = schema.store_url();
    let mut env = ENV.to_vec();
    env.push(("PARLOR_STORE__URL", &store_url));
    survive_sigkills(&env).await;
}

/// The scenario, with the server's environment `env`.
async fn survive_sigkills(env: &[(&str, &str)]) {
    let seed: u64 = rand::rng().random();
    eprintln!("chaos seed {seed}");
    let mut rng = StdRng::seed_from_u64(seed);
    let dir = temp_dir();
    let mut parlor = ParlorProcess::start(dir.path(), env);
    let (address_tx, address) = watch::channel(parlor.address.clone());
    let seen = Arc::new(Mutex::new(Seen::default()));

    let (mut organizer, _) = client_at(&parlor.address, "Organizer", None).await;
    let mut parts = Vec::new();
    let mut rooms = 0;
    for (game, think_ms) in GAMES {
        let mut tables: Vec<([&str; 2], Value)> = vec![
            (["open", "open"], fischer()),
            (["open", "open"], per_move()),
            (["open", "open"], no_clock()),
            (["open", "bot:random"], fischer()),
            (["bot:easy", "open"], no_clock()),
        ];
        if *game != "chess" {
            // Random bots would play a chess game for minutes.
            tables.push((["bot:random", "bot:random"], per_move()));
        }
        for (seats, clock) in tables {
            let (room, _) = organizer
                .create_game(game, seats, json!({"time_control": clock}))
                .await;
            rooms += 1;
            for (seat, spec) in seats.iter().enumerate() {
                if *spec == "open" {
                    parts.push(Part {
                        room: room.clone(),
                        seat: Some(seat as u8),
                        name: format!("P{rooms}s{seat}"),
                        think_ms: *think_ms,
                    });
                }
            }
            if seats.iter().all(|spec| spec.starts_with("bot:")) {
                parts.push(Part {
                    room: room.clone(),
                    seat: None,
                    name: format!("W{rooms}"),
                    think_ms: *think_ms,
                });
            }
        }
    }
    drop(organizer);
    let players: Vec<_> = parts
        .into_iter()
        .map(|part| {
            let seed = rng.random();
            tokio::spawn(take_part(part, address.clone(), seen.clone(), seed))
        })
        .collect();

    for kill in 0..KILLS {
        let alive = Duration::from_millis(rng.random_range(800..2_500));
        tokio::time::sleep(alive).await;
        eprintln!("chaos: SIGKILL {} after {alive:?}", kill + 1);
        parlor.kill();
        tokio::time::sleep(OUTAGE).await;
        parlor = ParlorProcess::start(dir.path(), env);
        address_tx.send_replace(parlor.address.clone());
    }

    let started = Instant::now();
    let mut game_ids = Vec::new();
    for player in players {
        let left = FINISH_WITHIN.saturating_sub(started.elapsed());
        let game_id = tokio::time::timeout(left, player)
            .await
            .expect("every game finishes after the last restart")
            .expect("no client panicked");
        game_ids.push(game_id);
    }
    game_ids.sort();
    game_ids.dedup();
    assert_eq!(
        game_ids.len(),
        rooms,
        "one game per room, each seen to its end"
    );

    let seen = std::mem::take(&mut *seen.lock().unwrap());
    let mut spanning = 0;
    for game_id in &game_ids {
        let url = format!("http://{}/api/games/{game_id}", parlor.address);
        let game: Value = reqwest::get(url).await.unwrap().json().await.unwrap();
        let moves = seen.moves.get(game_id).cloned().unwrap_or_default();
        spanning += check_stored_game(&game, &moves);
    }
    assert!(
        spanning >= 1,
        "some move was made across an outage, and its mover was not charged for it"
    );
    let moves_seen: usize = seen.moves.values().map(BTreeMap::len).sum();
    assert!(
        moves_seen >= 10 * game_ids.len(),
        "the clients saw {moves_seen} moves, too few for the check to mean anything"
    );
    eprintln!(
        "chaos: {} games, {} states and {moves_seen} moves seen, {spanning} moves across an outage",
        game_ids.len(),
        seen.states.len(),
    );
}
