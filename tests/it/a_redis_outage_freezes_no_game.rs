//! A fleet rides out its Redis going away: two real nodes on the machine's PostgreSQL
//! and a Redis of the test's own, which the test kills and starts again empty. While it
//! is gone, a room keeps playing for the clients connected to its own node (its node
//! still holds the game's fence in the store); a client on the other node is told that
//! its room is moving and, once Redis is back, is put back into it on the same
//! connection, seeing every move made meanwhile. Nothing is lost or doubled, and the
//! room stays with its node.

use std::time::Instant;

use serde_json::{Value, json};

use crate::common::{Client, client_at, get_json_at, temp_dir};
use crate::fleet::TestFleet;
use parlor_testkit::redis_server::RedisServer;
use serial_test::serial;

/// The moves stored for the game `state` belongs to, as `node` serves them.
async fn stored_moves(node: &str, state: &Value) -> Vec<String> {
    let game_id = state["game_id"].as_str().unwrap();
    let (_, game) = get_json_at(node, &format!("/api/games/{game_id}")).await;
    game["moves"]
        .as_array()
        .unwrap()
        .iter()
        .map(|mv| mv["notation"].as_str().unwrap().to_owned())
        .collect()
}

/// `client` plays `cell` in `room` once the room shows `moves` moves, and waits for
/// the state that shows its move: the move is acknowledged.
async fn play_acknowledged(client: &mut Client, room: &str, moves: u64, cell: &str) {
    client.until_state(|s| s["moves"] == json!(moves)).await;
    client.play(room, cell).await;
    client.until_state(|s| s["moves"] == json!(moves + 1)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[serial(whole_machine)]
async fn local_games_play_on_and_remote_clients_come_back_on_the_same_connection() {
    let test = "local_games_play_on_and_remote_clients_come_back_on_the_same_connection";
    let Some(fleet) = TestFleet::new(test).await else {
        return;
    };
    let mut redis = RedisServer::start().expect("a Redis of the test's own");
    let url = redis.url();
    let own_redis = [("PARLOR_CLUSTER__REDIS_URL", url.as_str())];
    let (dir_a, dir_b) = (temp_dir(), temp_dir());
    let node_a = fleet.start_node_with(dir_a.path(), &own_redis);
    let node_b = fleet.start_node_with(dir_b.path(), &own_redis);

    // One game whose players are both on its node, A.
    let (mut alice, _) = client_at(&node_a.address, "Alice", None).await;
    let (mut bob, _) = client_at(&node_a.address, "Bob", None).await;
    let (local, _) = alice
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    bob.join(&local, 1).await;
    // One game on A whose second player and a spectator are on B.
    let (mut dave, _) = client_at(&node_a.address, "Dave", None).await;
    let (mut erin, _) = client_at(&node_b.address, "Erin", None).await;
    let (mut frank, _) = client_at(&node_b.address, "Frank", None).await;
    let (remote, _) = dave
        .create_game("tictactoe", ["me", "open"], json!({}))
        .await;
    erin.join(&remote, 1).await;
    frank
        .send(json!({"type": "watch", "room": remote, "ref": 1}))
        .await;
    frank.until("joined").await;
    play_acknowledged(&mut alice, &local, 0, "0").await;
    play_acknowledged(&mut dave, &remote, 0, "0").await;
    erin.until_state(|s| s["moves"] == 1).await;

    redis.kill();
    // B has lost the messages of A's rooms: its clients there are told the room moves.
    for client in [&mut erin, &mut frank] {
        let moving = client.until("room_moving").await;
        assert_eq!(moving["room"], json!(remote), "{moving}");
    }
    // Meanwhile both of A's games take moves from the clients on A.
    play_acknowledged(&mut bob, &local, 1, "4").await;
    play_acknowledged(&mut alice, &local, 2, "8").await;
    erin.expect_error(
        json!({"type": "move", "room": remote, "move": "4"}),
        "room_unreachable",
    )
    .await;
    let back_at = {
        redis.restart().expect("Redis starts again");
        Instant::now()
    };

    // Erin and Frank are put back in on the same connections, and see where it stands.
    for (client, seat) in [(&mut erin, json!(1)), (&mut frank, json!(null))] {
        let back = client.until("joined").await;
        assert_eq!(
            (&back["room"], &back["seat"]),
            (&json!(remote), &seat),
            "{back}"
        );
        assert!(back.get("ref").is_none(), "{back}");
        let state = client.until("state").await;
        assert_eq!(state["position"], "X........", "{state}");
    }
    eprintln!(
        "Redis back: the clients on the other node were back in their room {:?} later (not asserted)",
        back_at.elapsed()
    );
    erin.play(&remote, "4").await;
    erin.until_state(|s| s["moves"] == 2).await;
    let seen = frank.until_state(|s| s["moves"] == 2).await;
    assert_eq!(seen["position"], "X...O....");
    play_acknowledged(&mut bob, &local, 3, "2").await;

    // Every acknowledged move is stored, once, in order.
    let local_state = alice.until_state(|s| s["moves"] == 4).await;
    let stored = stored_moves(&node_a.address, &local_state).await;
    assert_eq!(stored, ["0", "4", "8", "2"]);
    let remote_state = dave.until_state(|s| s["moves"] == 2).await;
    assert_eq!(
        stored_moves(&node_a.address, &remote_state).await,
        ["0", "4"]
    );
    // Neither room left node A: it took its leases back when Redis returned.
    let (_, ready) = get_json_at(&node_a.address, "/readyz").await;
    let mut conn = redis::Client::open(url.as_str())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    for room in [&local, &remote] {
        let owner: Option<String> = redis::cmd("GET")
            .arg(fleet.lease_key(room))
            .query_async(&mut conn)
            .await
            .unwrap();
        assert_eq!(owner.as_deref(), ready["node"].as_str(), "room {room}");
    }
    drop((node_a, node_b));
}
