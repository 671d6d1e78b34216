//! A PostgreSQL that stops answering (a black hole: connections stay open and nothing
//! comes back, as in a partition or a stalled primary) or resets every connection, seen
//! through a fault proxy: a move waiting on it is refused with `storage_unavailable` in
//! bounded time, its socket keeps answering pings meanwhile, a client of another room
//! and a returning player's `hello` get their answers too; once the database is back,
//! play goes on, and the stored game holds each move that was shown once and no move
//! that was refused. On a fleet, a client on another node gets the holder's own
//! `storage_unavailable`, not `room_unreachable`.

use std::time::{Duration, Instant};

use futures_util::{SinkExt, StreamExt};
use parlor_testkit::fault_proxy::{Fault, FaultProxy};
use serde_json::{Value, json};
use tokio_tungstenite::tungstenite::Message;

use crate::a_node_may_serve_clients_only::open_room;
use crate::common::{Client, TestServer, client_at, play_alternately, temp_dir, test_config};
use crate::fleet::TestFleet;
use crate::services::PostgresSchema;
use crate::waiting::{ASK_AGAIN_EVERY, eventually_every};
use serial_test::serial;

/// How long the test waits for what must come: only a deadline for a test that would
/// otherwise hang, far beyond what it takes.
const PATIENCE: Duration = Duration::from_secs(60);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_on_a_black_holed_database_is_refused_in_time_and_play_resumes() {
    stall_then_heal("a_move_on_a_black_holed_database", Fault::BlackHole).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_move_on_a_database_that_resets_is_refused_and_play_resumes() {
    stall_then_heal("a_move_on_a_database_that_resets", Fault::Reset).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_relayed_move_gets_the_owners_own_answer_when_its_database_stalls() {
    let test = "a_relayed_move_gets_the_owners_own_answer";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    // The holder reaches the database through the proxy; the serving node, where the
    // clients are, directly.
    let proxy = FaultProxy::start(&fleet.store_server()).await.unwrap();
    let proxied = fleet.store_url_via(proxy.address());
    let dirs = [temp_dir(), temp_dir()];
    let _holder = fleet.start_node_with(dirs[0].path(), &[("PARLOR_STORE__URL", &proxied)]);
    let serving = fleet.start_serving_node(dirs[1].path());
    let (mut alice, _) = client_at(&serving.address, "Alice", None).await;
    let (room, _) = open_room(&mut alice, "tictactoe", ["me", "open"]).await;
    let (mut bob, _) = client_at(&serving.address, "Bob", None).await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "3"]).await;
    let [alice, bob] = &mut players;
    alice.until_state(|s| s["moves"] == 2).await;

    proxy.black_hole();
    let waited = move_pinging(alice, &room, "4", &[]).await;
    eprintln!(
        "a relayed move was answered {:?} after the holder's database stalled: {}",
        waited.after, waited.answer
    );
    assert_eq!(
        waited.answer["code"], "storage_unavailable",
        "{}",
        waited.answer
    );

    proxy.heal();
    third_move_once_back(alice, &room).await;
    let state = bob.until_state(|s| s["moves"] == 3).await;
    assert_eq!(state["position"], "X..OX....", "{state}");
}

/// What the mover saw while its move waited: the answer, how long it took, how many
/// pongs came back before it, and the messages that came before it.
struct Waited {
    answer: Value,
    after: Duration,
    pongs_before: usize,
    before: Vec<Value>,
}

impl Waited {
    /// The reply that came before the move's answer with this `ref`, if one did.
    fn reply_before(&self, reference: &str) -> Option<&Value> {
        self.before
            .iter()
            .find(|message| message["ref"] == reference)
    }
}

/// Sends the move `cell` in `room` from `client`, then the messages `meanwhile`, then a
/// WebSocket ping every [`ASK_AGAIN_EVERY`] until the move's answer comes; counts the
/// pongs that came first and keeps the messages.
async fn move_pinging(client: &mut Client, room: &str, cell: &str, meanwhile: &[Value]) -> Waited {
    let asked = Instant::now();
    client
        .send(json!({"type": "move", "room": room, "move": cell, "ref": "stalled"}))
        .await;
    for message in meanwhile {
        client.send(message.clone()).await;
    }
    let mut pongs_before = 0;
    let mut before = Vec::new();
    let mut ping = tokio::time::interval(ASK_AGAIN_EVERY);
    loop {
        let frame = tokio::select! {
            _ = ping.tick() => {
                client.ws.send(Message::Ping(b"still there?".to_vec().into())).await.unwrap();
                continue;
            }
            frame = tokio::time::timeout(PATIENCE, client.ws.next()) => frame,
        };
        let frame = frame
            .expect("the move is answered")
            .expect("the connection stays open")
            .expect("the connection works");
        match frame {
            Message::Pong(_) => pongs_before += 1,
            Message::Text(text) => {
                let message: Value = serde_json::from_str(&text).unwrap();
                if message["ref"] == "stalled" {
                    return Waited {
                        answer: message,
                        after: asked.elapsed(),
                        pongs_before,
                        before,
                    };
                }
                before.push(message);
            }
            _ => {}
        }
    }
}

async fn stall_then_heal(test: &str, fault: Fault) {
    let Some(schema) = PostgresSchema::new(test).await else {
        return;
    };
    let proxy = FaultProxy::start(&schema.server()).await.unwrap();
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.store.url = Some(schema.store_url_via(proxy.address()));
    let server = TestServer::start(config).await;

    let mut alice = server.connect().await;
    let welcome = alice.hello("Alice", None).await;
    let token = welcome["token"].as_str().unwrap().to_owned();
    let (room, _) = alice.create(["me", "open"]).await;
    let mut bob = server.player("Bob").await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    play_alternately(&mut players, &room, &["0", "3"]).await;
    let [alice, bob] = &mut players;
    alice.until_state(|s| s["moves"] == 2).await;
    // Another room on the same node, whose client must get its own answer meanwhile.
    let mut carol = server.player("Carol").await;
    let mut dave = server.player("Dave").await;
    let (other, _) = carol.create(["me", "open"]).await;
    dave.join(&other, 1).await;
    carol.until_state(|s| s["status"] == "playing").await;
    // A room Alice watches, whose game started before the fault and waits for a move
    // (so nothing in it needs storing; a room with an open seat would have a bot fill it
    // and start a game, which waits on the store).
    let mut erin = server.player("Erin").await;
    let mut frank = server.player("Frank").await;
    let (watched, _) = erin.create(["me", "open"]).await;
    frank.join(&watched, 1).await;
    erin.until_state(|s| s["status"] == "playing").await;
    alice
        .send(json!({"type": "watch", "room": watched, "ref": "watching"}))
        .await;
    alice.until("joined").await;
    alice.until_state(|s| s["room"] == json!(watched)).await;
    // What Alice asks while her move waits: a heartbeat, a move in the room she only
    // watches (refused without the store), and a claim in the room of the waiting move
    // (refused too, but only after that move's answer: one room answers in order).
    let meanwhile = [
        json!({"type": "ping", "ref": "beat"}),
        json!({"type": "move", "room": watched, "move": "0", "ref": "elsewhere"}),
        json!({"type": "claim_victory", "room": room, "ref": "queued"}),
    ];

    proxy.set(fault);
    let (waited, other_answer, hello_answer, ()) = tokio::join!(
        move_pinging(&mut *alice, &room, "4", &meanwhile),
        async {
            carol
                .send(json!({"type": "move", "room": other, "move": "0", "ref": "other"}))
                .await;
            loop {
                let reply = carol.recv().await;
                if reply["ref"] == "other" || reply["type"] == "state" {
                    return reply;
                }
            }
        },
        async {
            let mut returning = server.connect().await;
            returning
                .send(json!({"type": "hello", "name": "Alice", "token": token}))
                .await;
            returning.recv().await
        },
        async {
            // Dave, already known (a new player would wait on the store), comes to
            // watch: that changes the watched room's audience, and nothing is stored.
            if fault == Fault::BlackHole {
                dave.send(json!({"type": "watch", "room": watched, "ref": "dave"}))
                    .await;
                dave.until("joined").await;
            }
        },
    );
    eprintln!(
        "{fault:?}: the move was answered {:?} after the fault began ({} pongs came first): {}",
        waited.after, waited.pongs_before, waited.answer
    );
    assert_eq!(waited.answer["type"], "error", "{}", waited.answer);
    assert_eq!(
        waited.answer["code"], "storage_unavailable",
        "{}",
        waited.answer
    );
    // A reset is answered at once; a black hole only once the store's deadline ran
    // out, and the socket answers pings meanwhile.
    if fault == Fault::BlackHole {
        assert!(
            waited.pongs_before > 0,
            "the mover's socket answered no ping while its move waited"
        );
        // Her other requests were answered meanwhile, and the room she watches went
        // on for her.
        let beat = waited.reply_before("beat");
        assert_eq!(beat.map(|reply| &reply["type"]), Some(&json!("pong")));
        let elsewhere = waited
            .reply_before("elsewhere")
            .expect("the move in the watched room was answered while the other waited");
        eprintln!("the move in the watched room was answered meanwhile: {elsewhere}");
        assert_eq!(elsewhere["type"], "error", "{elsewhere}");
        assert!(
            !["storage_unavailable", "room_unreachable"]
                .contains(&elsewhere["code"].as_str().unwrap_or("")),
            "{elsewhere}"
        );
        let watched_went_on = waited.before.iter().any(|message| {
            message["type"] == "state"
                && message["room"] == json!(watched)
                && message["spectators"] == 2
        });
        assert!(
            watched_went_on,
            "no frame of the watched room came while the move waited: {:?}",
            waited.before
        );
    }
    assert!(
        waited.reply_before("queued").is_none(),
        "a request for the same room was answered before the one sent first: {:?}",
        waited.before
    );
    let queued = loop {
        let reply = alice.recv().await;
        if reply["ref"] == "queued" {
            break reply;
        }
    };
    assert_eq!(queued["type"], "error", "{queued}");
    eprintln!("{fault:?}: the other room's client was answered: {other_answer}");
    assert!(
        other_answer["code"] == "storage_unavailable" || other_answer["type"] == "state",
        "{other_answer}"
    );
    eprintln!("{fault:?}: the returning player's hello was answered: {hello_answer}");
    assert!(
        hello_answer["code"] == "storage_unavailable" || hello_answer["type"] == "welcome",
        "{hello_answer}"
    );

    proxy.heal();
    let healed = Instant::now();
    third_move_once_back(alice, &room).await;
    eprintln!(
        "{fault:?}: play resumed {:?} after healing",
        healed.elapsed()
    );
    let state = bob.until_state(|s| s["moves"] == 3).await;
    assert_eq!(state["position"], "X..OX....", "{state}");
    bob.play(&room, "5").await;
    alice.until_state(|s| s["moves"] == 4).await;
    alice.play(&room, "8").await;
    let over = bob.until("game_over").await;
    assert_eq!(over["winner"], 0, "{over}");

    let game_id = over["game_id"].as_str().unwrap();
    let (status, game) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200, "{game}");
    let moves: Vec<&str> = game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["notation"].as_str().unwrap())
        .collect();
    assert_eq!(moves, ["0", "3", "4", "5", "8"], "each move once, in order");
    server.stop().await;
}

/// Sends `alice`'s third move "4" in `room` until the game goes on with it: the first
/// one, refused while the database stalled, may have been stored after all (the black
/// hole held it, and let it through once healed), and the room waits until the store
/// says, then shows it, or takes it again. Either way "4" is the third move, once.
async fn third_move_once_back(alice: &mut Client, room: &str) {
    let what = "the game goes on with the third move once the database is back";
    let mut third_shown = false;
    eventually_every(what, PATIENCE, ASK_AGAIN_EVERY, async || {
        if !third_shown {
            alice
                .send(json!({"type": "move", "room": room, "move": "4", "ref": "again"}))
                .await;
        }
        // A `pong` after each attempt marks where its answers end.
        alice.send(json!({"type": "ping", "ref": "sync"})).await;
        loop {
            let reply = alice.recv().await;
            if reply["type"] == "state" && reply["moves"] == 3 {
                third_shown = true;
            }
            if reply["ref"] == "again" {
                match reply["code"].as_str() {
                    // The held move was stored and shown: it is Bob's turn now.
                    Some("not_your_turn") => third_shown = true,
                    Some("storage_unavailable") => {}
                    _ => panic!("unexpected answer {reply}"),
                }
            }
            if reply["type"] == "pong" {
                return if third_shown {
                    Ok(())
                } else {
                    Err("the third move is not shown yet".to_owned())
                };
            }
        }
    })
    .await;
}
