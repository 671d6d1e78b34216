//! A connection that says `"updates": "moves"` in `hello` hears of moves as `moved`
//! events; applied as PROTOCOL.md §7.14 says, they give exactly the states that a
//! connection of full states receives in the same room, `seq` by `seq`.

use std::collections::BTreeMap;

use serde_json::{Value, json};

use crate::common::{Client, TestServer, temp_dir};

/// What one client knows of the room: its last state, rebuilt from events when they
/// come, and every state it held, by `seq`.
struct View {
    client: Client,
    current: Value,
    by_seq: BTreeMap<u64, Value>,
    events: usize,
}

impl View {
    async fn new(server: &TestServer, name: &str, updates: Option<&str>) -> View {
        let mut client = server.connect().await;
        let mut hello = json!({"type": "hello", "name": name});
        if let Some(updates) = updates {
            hello["updates"] = json!(updates);
        }
        client.send(hello).await;
        client.expect("welcome").await;
        View {
            client,
            current: Value::Null,
            by_seq: BTreeMap::new(),
            events: 0,
        }
    }

    /// Reads frames until the room's state shows `moves` moves; panics on a gap.
    async fn until_moves(&mut self, moves: u64) {
        self.until(|state| state["moves"] == json!(moves)).await;
    }

    /// Reads frames until the room's state satisfies `done`; panics on a gap.
    async fn until(&mut self, done: impl Fn(&Value) -> bool) {
        while !done(&self.current) {
            let frame = self.client.recv().await;
            match frame["type"].as_str() {
                Some("state") => {
                    let mut state = frame;
                    if let Some(fields) = state.as_object_mut() {
                        fields.remove("history");
                        fields.remove("history_display");
                    }
                    self.current = state;
                }
                Some("moved") => {
                    assert_eq!(
                        frame["seq"].as_u64(),
                        self.current["seq"].as_u64().map(|seq| seq + 1),
                        "an event follows the last state: {frame}"
                    );
                    apply(&mut self.current, &frame);
                    self.events += 1;
                }
                _ => continue,
            }
            let seq = self.current["seq"].as_u64().unwrap();
            self.by_seq.insert(seq, self.current.clone());
        }
    }
}

/// Applies a `moved` event to the last state, as PROTOCOL.md §7.14 says.
fn apply(state: &mut Value, moved: &Value) {
    for field in [
        "seq",
        "last_move",
        "moves",
        "to_move",
        "position",
        "legal_moves",
        "clocks",
        "draw_offer",
    ] {
        state[field] = moved[field].clone();
    }
    for change in moved["cells"].as_array().unwrap() {
        let index = change[0].as_u64().unwrap() as usize;
        state["board"]["cells"][index] = change[1].clone();
    }
    if let Some(fields) = state.as_object_mut() {
        fields.remove("resumed");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn events_rebuild_the_states_a_client_of_full_states_gets() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = View::new(&server, "Alice", Some("moves")).await;
    let mut bob = View::new(&server, "Bob", None).await;
    let mut carol = View::new(&server, "Carol", Some("moves")).await;
    let options =
        json!({"time_control": {"kind": "fischer", "base_ms": 300_000, "increment_ms": 2_000}});
    let (room, _) = alice
        .client
        .create_game("chess", ["me", "open"], options)
        .await;
    carol
        .client
        .send(json!({"type": "watch", "room": room}))
        .await;
    carol.client.until("joined").await;
    bob.client
        .send(json!({"type": "join", "room": room, "seat": 1}))
        .await;
    bob.client.until("joined").await;
    for view in [&mut alice, &mut bob, &mut carol] {
        view.until_moves(0).await;
    }

    // Both castle, White takes en passant, Black takes back: moves that change two,
    // three and four cells.
    let moves = [
        "e2e4", "g8f6", "g1f3", "e7e6", "f1c4", "f8c5", "e1g1", "e8g8", "e4e5", "d7d5", "e5d6",
        "c7d6",
    ];
    for (ply, text) in moves.iter().enumerate() {
        let mover = if ply % 2 == 0 { &mut alice } else { &mut bob };
        mover
            .client
            .send(json!({"type": "move", "room": room, "move": text}))
            .await;
        for view in [&mut alice, &mut bob, &mut carol] {
            view.until_moves(ply as u64 + 1).await;
        }
    }

    assert_eq!(bob.events, 0, "a client that did not ask gets no events");
    assert!(alice.events >= moves.len() - 1, "{} events", alice.events);
    assert!(carol.events >= moves.len() - 1, "{} events", carol.events);
    // Bob's first state is his snapshot, rendered apart from the broadcast of the same
    // `seq` (its clock read a moment later); every later one was broadcast.
    for (seq, state) in bob.by_seq.iter().skip(1) {
        for view in [&alice, &carol] {
            assert_eq!(view.by_seq.get(seq), Some(state), "seq {seq}");
        }
    }
    for view in [&alice, &carol] {
        assert_eq!(view.current, bob.current);
        assert_eq!(view.current["moves"], json!(moves.len()));
    }
    let cells = &bob.current["board"]["cells"];
    assert_eq!(
        [&cells[19], &cells[27], &cells[28]],
        [&json!("p"), &Value::Null, &Value::Null],
        "d6 holds Black's pawn; d5 and e5 are empty"
    );
    server.stop().await;
}

/// Alice and Bob, both taking moves as events, in a new tic-tac-toe room whose game has
/// started; returns them and the room's id.
async fn event_players_in_a_room(server: &TestServer) -> (View, View, String) {
    let mut alice = View::new(server, "Alice", Some("moves")).await;
    let mut bob = View::new(server, "Bob", Some("moves")).await;
    let (room, _) = alice.client.create(["me", "open"]).await;
    bob.client.join(&room, 1).await;
    (alice, bob, room)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_room_of_event_clients_still_shows_its_current_state_over_http() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut alice, _bob, room) = event_players_in_a_room(&server).await;
    alice.until_moves(0).await;
    alice.client.play(&room, "4").await;
    alice.until_moves(1).await;
    assert_eq!(alice.events, 1);
    let (status, state) = server.get_json(&format!("/api/rooms/{room}")).await;
    assert_eq!(status, 200);
    assert_eq!(state["moves"], 1);
    assert_eq!(state["last_move"]["move"], "4");
    assert_eq!(state["position"], "....X....");
    assert_eq!(state["seq"], alice.current["seq"]);
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_choice_of_updates_is_refused_and_the_connection_stays() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut client = server.connect().await;
    client
        .expect_error_unchecked(
            json!({"type": "hello", "name": "Dora", "updates": "diffs"}),
            "bad_message",
        )
        .await;
    client
        .send(json!({"type": "hello", "name": "Dora", "updates": "states"}))
        .await;
    client.expect("welcome").await;
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_comes_back_gets_what_it_missed_in_its_form_or_a_snapshot() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let (mut alice, mut bob, room) = event_players_in_a_room(&server).await;
    // Carol takes full states, Dave events; both watch, then leave.
    let mut last_seen = Vec::new();
    for (name, updates) in [("Carol", None), ("Dave", Some("moves"))] {
        let mut view = View::new(&server, name, updates).await;
        view.client
            .send(json!({"type": "watch", "room": room}))
            .await;
        view.client.until("joined").await;
        let snapshot = view.client.expect("state").await;
        view.client
            .send(json!({"type": "leave", "room": room}))
            .await;
        view.client.until("left").await;
        last_seen.push((view, snapshot["seq"].as_u64().unwrap()));
    }
    // The audience's paced announcement goes out first: a state after Dave's snapshot
    // that no longer counts him shows his leaving, the last change of the audience, and
    // then no announcement is owed. So the two moves that follow reach only clients of
    // events, and are sent only as events.
    let dave_seq = last_seen[1].1;
    alice
        .until(|s| s["seq"].as_u64() > Some(dave_seq) && s["spectators"] == 0)
        .await;
    alice.until_moves(0).await;
    alice.client.play(&room, "4").await;
    bob.until_moves(1).await;
    bob.client.play(&room, "0").await;
    alice.until_moves(2).await;
    assert!(alice.events >= 2, "{} events", alice.events);

    let (mut dave, dave_seq) = last_seen.pop().unwrap();
    dave.client
        .send(json!({"type": "watch", "room": room, "since": dave_seq}))
        .await;
    dave.client.until("joined").await;
    let mut missed = Vec::new();
    while missed
        .last()
        .is_none_or(|frame: &Value| frame["moves"] != json!(2))
    {
        missed.push(dave.client.recv().await);
    }
    assert!(
        missed.iter().all(|frame| frame.get("history").is_none()),
        "what Dave missed, not a snapshot: {missed:?}"
    );
    assert_eq!(
        missed
            .iter()
            .filter(|frame| frame["type"] == "moved")
            .count(),
        2,
        "{missed:?}"
    );

    let (mut carol, carol_seq) = last_seen.pop().unwrap();
    carol
        .client
        .send(json!({"type": "watch", "room": room, "since": carol_seq}))
        .await;
    carol.client.until("joined").await;
    let snapshot = carol.client.expect("state").await;
    assert_eq!(snapshot["moves"], 2);
    assert_eq!(
        snapshot["history"],
        json!(["4", "0"]),
        "the moves went out only as events: a client of states gets a snapshot"
    );
    server.stop().await;
}
