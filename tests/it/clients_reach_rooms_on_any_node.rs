//! A fleet of three real `parlor` nodes on the machine's PostgreSQL and Redis: the room
//! is held by the node its creator is connected to, the other player and a spectator are
//! connected to the other two, and everyone plays and watches through their own node.
//! Every node's clients see the room's states in `seq` order. Then the room's node is
//! killed: the others close their clients' connections as a restarting server would
//! (`shutdown`, 1012), another node adopts the game, and the clients come back through
//! their own nodes and finish it. Every game is played to its end this way,
//! `quick_join` pairs players who arrived at different nodes, and a spectator who asked
//! for moves as events (`hello.updates`) hears them as events from another node. A
//! room's frames for the clients of another node cross in batches, each frame once for
//! all of them there.

use std::collections::BTreeSet;
use std::time::Duration;

use futures_util::StreamExt;
use serde_json::{Value, json};

use crate::common::{Client, client_at, temp_dir};
use crate::fleet::{TestFleet, join_when_taken_over};
use crate::health_and_readiness_tell_the_truth::metric;
use serial_test::serial;

/// Reads `client`'s states until one satisfies `done`, checking that their `seq` only
/// rises; returns it.
async fn until_state_in_order(
    client: &mut Client,
    last_seq: &mut u64,
    done: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        let state = client.until("state").await;
        let seq = state["seq"].as_u64().unwrap();
        assert!(seq > *last_seq, "seq {seq} after {last_seq}");
        *last_seq = seq;
        if done(&state) {
            return state;
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn players_and_a_spectator_on_three_nodes_play_through_the_owners_death() {
    let test = "players_and_a_spectator_on_three_nodes_play_through_the_owners_death";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let [owner, second, third]: [_; 3] = fleet
        .start_nodes(&dirs)
        .try_into()
        .unwrap_or_else(|_| panic!("three nodes"));

    let (mut alice, alice_hi) = client_at(&owner.address, "Alice", None).await;
    let (mut bob, _) = client_at(&second.address, "Bob", None).await;
    let (mut carol, _) = client_at(&third.address, "Carol", None).await;
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    bob.join(&room, 1).await;
    carol.send(json!({"type": "watch", "room": room})).await;
    carol.until("joined").await;
    let mut carol_seq = carol.expect("state").await["seq"].as_u64().unwrap();
    let mut bob_seq = 0;

    // Two moves, each sent through its player's own node.
    alice.until_state(|s| s["status"] == "playing").await;
    alice.play(&room, "0").await;
    until_state_in_order(&mut bob, &mut bob_seq, |s| s["moves"] == 1).await;
    bob.play(&room, "3").await;
    let seen = until_state_in_order(&mut carol, &mut carol_seq, |s| s["moves"] == 2).await;
    assert_eq!(seen["position"], "X..O.....");
    let refused = json!({"type": "move", "room": room, "move": "4"});
    bob.expect_error(refused, "not_your_turn").await;
    // Bob's node timed each of his requests it relayed to the room's node.
    let relayed = metric(&second.address, "parlor_fleet_relay_seconds_count").await;
    assert!(relayed.is_some_and(|count| count >= 2.0), "{relayed:?}");

    // Chat crosses nodes too, each line to its own side only: Bob's, through his node,
    // reaches Alice on the owner's; Carol's stays among the spectators.
    let said = json!({"type": "chat", "room": room, "text": "Well played so far"});
    bob.send(said).await;
    let heard = alice.until("chat").await;
    assert_eq!(
        (
            heard["channel"].as_str(),
            heard["lines"][0]["text"].as_str()
        ),
        (Some("players"), Some("Well played so far"))
    );
    let said = json!({"type": "chat", "room": room, "text": "Bob is in trouble"});
    carol.send(said).await;
    let own = carol.until("chat").await;
    assert_eq!(own["channel"], "spectators", "{own}");
    // A request for a room is answered after the client's earlier ones for it
    // (PROTOCOL.md §2.5): once these are refused, both chats have been answered, so
    // none is left waiting on the node about to die.
    let not_seated = json!({"type": "move", "room": room, "move": "4"});
    carol.expect_error(not_seated, "not_a_player").await;
    let not_bobs_turn = json!({"type": "move", "room": room, "move": "4"});
    bob.expect_error(not_bobs_turn, "not_your_turn").await;

    // The room's node dies and another node adopts the game. Bob and Carol, on nodes
    // that live, are told the room is moving and put back into it on the same
    // connections; Alice, whose node died, reconnects and rejoins.
    owner.kill();
    for client in [&mut bob, &mut carol] {
        let moving = client.until("room_moving").await;
        assert_eq!(moving["room"], json!(room));
    }
    let token = |hello: &Value| hello["token"].as_str().unwrap().to_owned();
    let (mut alice, _) = client_at(&second.address, "Alice", Some(&token(&alice_hi))).await;
    // Rejoining may come before the adoption: until then the room is unknown.
    let rejoined = join_when_taken_over(&mut alice, &room, 0).await;
    assert_eq!(rejoined["position"], "X..O.....");
    let mut seqs = Vec::new();
    for (client, seat) in [(&mut bob, json!(1)), (&mut carol, json!(null))] {
        let back = client.until("joined").await;
        assert_eq!(
            (&back["room"], &back["seat"]),
            (&json!(room), &seat),
            "{back}"
        );
        let state = client.until("state").await;
        assert_eq!(state["position"], "X..O.....");
        seqs.push(state["seq"].as_u64().unwrap());
    }
    // The adopted room numbers its frames on from its snapshot.
    let (mut bob_seq, mut carol_seq) = (seqs[0], seqs[1]);

    alice.play(&room, "4").await;
    until_state_in_order(&mut bob, &mut bob_seq, |s| s["moves"] == 3).await;
    bob.play(&room, "5").await;
    alice.until_state(|s| s["moves"] == 4).await;
    alice.play(&room, "8").await;
    let last =
        until_state_in_order(&mut carol, &mut carol_seq, |s| s["status"] == "finished").await;
    assert_eq!(last["position"], "X..OXO..X");
    let over = bob.until("game_over").await;
    assert_eq!(over["winner"], 0, "{over}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn quick_join_pairs_players_who_arrived_at_different_nodes_once() {
    let test = "quick_join_pairs_players_who_arrived_at_different_nodes_once";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let nodes = fleet.start_nodes(&dirs);

    // Alice waits on the first node.
    let (mut alice, _) = client_at(&nodes[0].address, "Alice", None).await;
    alice
        .send(json!({"type": "quick_join", "game": "tictactoe"}))
        .await;
    let room = alice.until("room_created").await["room"]
        .as_str()
        .unwrap()
        .to_owned();

    // Bob and Dave ask at once, on the two other nodes: one of them gets Alice's seat,
    // the other opens a room of his own.
    let (mut bob, _) = client_at(&nodes[1].address, "Bob", None).await;
    let (mut dave, _) = client_at(&nodes[2].address, "Dave", None).await;
    let ask = json!({"type": "quick_join", "game": "tictactoe"});
    tokio::join!(bob.send(ask.clone()), dave.send(ask));
    let mut rooms = Vec::new();
    for client in [&mut bob, &mut dave] {
        let first = loop {
            let message = client.recv().await;
            if matches!(message["type"].as_str(), Some("joined" | "room_created")) {
                break message;
            }
        };
        rooms.push((first["type"].clone(), first["room"].clone()));
    }
    let paired: Vec<_> = rooms.iter().filter(|(kind, _)| kind == "joined").collect();
    assert_eq!(paired.len(), 1, "{rooms:?}");
    assert_eq!(paired[0].1, json!(room), "{rooms:?}");
    assert_eq!(
        rooms
            .iter()
            .filter(|(kind, _)| kind == "room_created")
            .count(),
        1,
        "{rooms:?}"
    );

    // The pair plays across the nodes.
    let state = alice.until_state(|s| s["status"] == "playing").await;
    assert_eq!(state["seats"][0]["name"], "Alice");
    alice.play(&room, "4").await;
    let opponent = if rooms[0].0 == "joined" {
        &mut bob
    } else {
        &mut dave
    };
    let seen = opponent.until_state(|s| s["moves"] == 1).await;
    assert_eq!(seen["position"], "....X....");
}

/// Plays `seat` of `room` for `client`, always the first legal move, until `game_over`,
/// which it returns.
async fn play_seat(client: &mut Client, room: &str, seat: u64) -> Value {
    loop {
        let message = client.recv().await;
        if message["type"] != "error" && message["room"] != room {
            continue;
        }
        match message["type"].as_str() {
            Some("state") if message["status"] == "playing" && message["to_move"] == seat => {
                let mv = message["legal_moves"][0].as_str().unwrap().to_owned();
                client.play(room, &mv).await;
            }
            Some("game_over") => return message,
            Some("error") => panic!("seat {seat} was refused: {message}"),
            _ => {}
        }
    }
}

/// Watches `room` for `client` until `game_over`, checking that the states come one `seq`
/// after another from `seq`; returns the last state and the `game_over`.
async fn watch_every_state(client: &mut Client, room: &str, mut seq: u64) -> (Value, Value) {
    let mut last = Value::Null;
    loop {
        let message = client.recv().await;
        if message["room"] != room {
            continue;
        }
        match message["type"].as_str() {
            Some("state") => {
                assert_eq!(message["seq"], seq + 1, "every state, in order: {message}");
                seq += 1;
                last = message;
            }
            Some("game_over") => return (last, message),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn every_game_is_played_to_its_end_by_players_on_two_nodes_and_watched_from_a_third() {
    let test = "every_game_is_played_to_its_end_by_players_on_two_nodes_and_watched_from_a_third";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir(), temp_dir()];
    let nodes = fleet.start_nodes(&dirs);
    let (mut alice, _) = client_at(&nodes[0].address, "Alice", None).await;
    let (mut bob, _) = client_at(&nodes[1].address, "Bob", None).await;
    let (mut carol, _) = client_at(&nodes[2].address, "Carol", None).await;
    for game in ["tictactoe", "checkers", "chess", "fox_geese"] {
        let (room, _) = alice.create_game(game, ["me", "open"], json!({})).await;
        carol.send(json!({"type": "watch", "room": room})).await;
        carol.until("joined").await;
        let seq = carol.expect("state").await["seq"].as_u64().unwrap();
        bob.join(&room, 1).await;
        let (alice_over, bob_over, (last, carol_over)) = tokio::join!(
            play_seat(&mut alice, &room, 0),
            play_seat(&mut bob, &room, 1),
            watch_every_state(&mut carol, &room, seq),
        );
        assert_eq!(alice_over, carol_over, "{game}");
        assert_eq!(bob_over, carol_over, "{game}");
        assert_eq!(last["status"], "finished", "{game}: {last}");
        eprintln!(
            "{game} across nodes: {} moves, {}",
            last["moves"], carol_over["reason"]
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_spectator_of_events_on_another_node_hears_each_move_as_an_event() {
    let test = "a_spectator_of_events_on_another_node_hears_each_move_as_an_event";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let nodes = fleet.start_nodes(&dirs);
    let (mut alice, _) = client_at(&nodes[0].address, "Alice", None).await;
    let (mut bob, _) = client_at(&nodes[0].address, "Bob", None).await;
    // Dave, on the node that does not hold the room, asks for moves as events.
    let (ws, _) = tokio_tungstenite::connect_async(format!("ws://{}/ws", nodes[1].address))
        .await
        .unwrap();
    let mut dave = Client { ws };
    dave.send(json!({"type": "hello", "name": "Dave", "updates": "moves"}))
        .await;
    dave.expect("welcome").await;
    let (room, _) = alice.create_game("chess", ["me", "open"], json!({})).await;
    dave.send(json!({"type": "watch", "room": room})).await;
    dave.until("joined").await;
    let mut seq = dave.expect("state").await["seq"].as_u64().unwrap();
    bob.join(&room, 1).await;
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6"];
    let mut events = 0;
    for (ply, text) in moves.iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut alice } else { &mut bob };
        mover.play(&room, text).await;
        loop {
            let frame = dave.recv().await;
            if frame["room"] != room {
                continue;
            }
            assert_eq!(frame["seq"], seq + 1, "every frame, in order: {frame}");
            seq += 1;
            if frame["type"] == "moved" {
                events += 1;
            }
            if frame["moves"] == ply + 1 {
                assert_eq!(frame["last_move"]["move"], *text, "{frame}");
                break;
            }
        }
    }
    assert!(
        events >= moves.len() - 1,
        "{events} of the moves came as events"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn a_rooms_state_crosses_to_another_node_in_a_batch_once_for_all_its_clients_there() {
    let test = "a_rooms_state_crosses_to_another_node_in_a_batch_once_for_all_its_clients_there";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let dirs = [temp_dir(), temp_dir()];
    let nodes = fleet.start_nodes(&dirs);
    let (mut alice, _) = client_at(&nodes[0].address, "Alice", None).await;
    let (mut bob, _) = client_at(&nodes[1].address, "Bob", None).await;
    let (mut carol, _) = client_at(&nodes[1].address, "Carol", None).await;
    let (mut dave, _) = client_at(&nodes[1].address, "Dave", None).await;
    let (room, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    bob.join(&room, 1).await;
    for spectator in [&mut carol, &mut dave] {
        spectator.send(json!({"type": "watch", "room": room})).await;
        spectator.until("joined").await;
    }
    let mut overheard = fleet.overhear_inboxes().await;
    alice.play(&room, "4").await;
    let mut seq = None;
    for client in [&mut bob, &mut carol, &mut dave] {
        let state = client.until_state(|state| state["moves"] == 1).await;
        assert!(
            seq.is_none() || seq.as_ref() == Some(&state["seq"]),
            "{state}"
        );
        seq = Some(state["seq"].clone());
    }
    // The move's state reaches the second node's three connections in `frames`
    // messages, each connection once; no frame crosses alone.
    let mut reached = BTreeSet::new();
    while reached.len() < 3 {
        let message = tokio::time::timeout(Duration::from_secs(30), overheard.next())
            .await
            .expect("the move's state crossed within 30 s")
            .expect("Redis kept passing messages on");
        assert_ne!(message["kind"], "frame", "a frame crossed alone: {message}");
        if message["kind"] != "frames" {
            continue;
        }
        for shared in message["frames"].as_array().unwrap() {
            let frame: Value = serde_json::from_str(shared["text"].as_str().unwrap()).unwrap();
            if frame["room"] == room && Some(&frame["seq"]) == seq.as_ref() {
                for conn in shared["conns"].as_array().unwrap() {
                    assert!(reached.insert(conn.as_u64().unwrap()), "{message}");
                }
            }
        }
    }
}
