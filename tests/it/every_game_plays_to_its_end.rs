//! Checkers, chess and Fox & Geese through the real server: full games between scripted
//! clients, games against a bot that filled a seat, and games from `options.start` that
//! reach the rules people check first (multi-jump with crowning, promotion, en passant,
//! castling, repetition).

use std::sync::atomic::{AtomicUsize, Ordering};

use crate::common::{Client, TestServer, play_alternately, temp_dir, test_config};
use serde_json::{Value, json};

/// Reasons each game may end with when both sides just play on.
fn endings(game: &str) -> &'static [&'static str] {
    match game {
        "checkers" => &["no_moves", "forty_moves", "threefold_repetition"],
        "chess" => &[
            "checkmate",
            "stalemate",
            "insufficient_material",
            "threefold_repetition",
            "fifty_moves",
        ],
        "fox_geese" => &[
            "fox_trapped",
            "geese_stuck",
            "geese_below_threshold",
            "quiet_moves",
            "threefold_repetition",
        ],
        _ => &[],
    }
}

/// Plays whichever seats `players` hold (index = seat), always the first legal move,
/// until `game_over`; returns the last state and the `game_over`.
async fn play_first_moves(players: &mut [Option<&mut Client>; 2], room: &str) -> (Value, Value) {
    let watcher = players.iter().position(Option::is_some).unwrap();
    let mut last = Value::Null;
    for _ in 0..5_000 {
        let message = players[watcher].as_mut().unwrap().recv().await;
        match message["type"].as_str() {
            Some("state") if message["status"] == "playing" => {
                let seat = message["to_move"].as_u64().unwrap() as usize;
                if let Some(player) = players[seat].as_mut() {
                    let mv = message["legal_moves"][0].as_str().unwrap().to_owned();
                    player.play(room, &mv).await;
                }
                last = message;
            }
            Some("state") => last = message,
            Some("game_over") => return (last, message),
            Some("error") => panic!("a listed legal move was refused: {message}"),
            _ => {}
        }
    }
    panic!("the game did not end");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_people_play_every_game_to_its_end() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;
    for game in ["checkers", "chess", "fox_geese"] {
        let (room, snapshot) = alice.create_game(game, ["me", "open"], json!({})).await;
        assert_eq!(snapshot.unwrap()["game"], game);
        bob.join(&room, 1).await;
        // Bob reads Alice's moves from his own queue; Alice acts on the states she sees.
        let (last, over) = {
            let mut seats = [Some(&mut alice), None];
            let bob_task = async {
                loop {
                    let message = bob.recv().await;
                    match message["type"].as_str() {
                        Some("state")
                            if message["to_move"] == 1 && message["status"] == "playing" =>
                        {
                            let mv = message["legal_moves"][0].as_str().unwrap().to_owned();
                            bob.play(&room, &mv).await;
                        }
                        Some("game_over") => break,
                        Some("error") => panic!("{message}"),
                        _ => {}
                    }
                }
            };
            let (result, ()) = tokio::join!(play_first_moves(&mut seats, &room), bob_task);
            result
        };
        assert_eq!(last["status"], "finished", "{game}");
        assert_eq!(last["legal_moves"], json!([]));
        let reason = over["reason"].as_str().unwrap();
        assert!(endings(game).contains(&reason), "{game} ended by {reason}");
        assert_eq!(last["result"]["reason"], reason);
        if game == "checkers" {
            let id = over["game_id"].as_str().unwrap();
            let response = reqwest::get(server.url(&format!("/api/games/{id}.pdn")))
                .await
                .unwrap();
            assert_eq!(response.status(), 200);
            let pdn = response.text().await.unwrap();
            assert!(pdn.contains("[Black \"Alice\"]\n[White \"Bob\"]"), "{pdn}");
            assert!(pdn.contains("[GameType \"21\"]"), "{pdn}");
            assert!(pdn.contains("\n\n1. "), "{pdn}");
            assert_eq!(
                server.get_json(&format!("/api/games/{id}.pgn")).await.0,
                404,
                "not chess"
            );
        }
    }
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_bot_fills_the_open_seat_in_every_game() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.bots.fill_level = parlor_rules::bots::BotLevel::Random;
    let server = TestServer::start(config).await;
    let mut alice = server.player("Alice").await;
    for game in ["checkers", "chess", "fox_geese"] {
        let (room, _) = alice.create_game(game, ["me", "open"], json!({})).await;
        let filled = alice.until_state(|s| s["seats"][1]["kind"] != "open").await;
        assert_eq!(filled["seats"][1]["kind"], "bot:random");
        assert_eq!(filled["status"], "playing");
        // Alice moves first in every game.
        let mv = filled["legal_moves"][0].as_str().unwrap().to_owned();
        alice.play(&room, &mv).await;
        let (last, over) = play_first_moves(&mut [Some(&mut alice), None], &room).await;
        assert_eq!(last["status"], "finished");
        let reason = over["reason"].as_str().unwrap();
        assert!(endings(game).contains(&reason), "{game} ended by {reason}");
    }
    server.stop().await;
}

/// Creates a two-person room from `start`; returns the players and the room.
async fn from_position(server: &TestServer, game: &str, start: &str) -> ([Client; 2], String) {
    static ROOMS: AtomicUsize = AtomicUsize::new(0);
    let n = ROOMS.fetch_add(1, Ordering::Relaxed);
    let mut alice = server.player(&format!("A{n}-{game}")).await;
    let mut bob = server.player(&format!("B{n}-{game}")).await;
    let (room, snapshot) = alice
        .create_game(game, ["me", "open"], json!({"start": start}))
        .await;
    assert_eq!(snapshot.unwrap()["position"], start);
    bob.join(&room, 1).await;
    ([alice, bob], room)
}

/// The piece on the cell labelled `label`.
fn piece_at<'a>(state: &'a Value, label: &str) -> &'a Value {
    let labels = state["board"]["labels"].as_array().unwrap();
    let index = labels.iter().position(|l| l == label).unwrap();
    &state["board"]["cells"][index]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_checkers_multi_jump_crowns_and_ends_the_move() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let ([mut black, _white], room) = from_position(&server, "checkers", "B:W18,25,32:B15").await;
    let state = black.until_state(|s| s["status"] == "playing").await;
    assert_eq!(
        state["legal_moves"],
        json!(["15x22x29"]),
        "the capture is forced"
    );
    // The short form names the start and the final landing square.
    black.play(&room, "15x29").await;
    let state = black.until_state(|s| s["moves"] == 1).await;
    assert_eq!(
        state["last_move"],
        json!({"seat": 0, "move": "15x22x29", "display": "15x22x29"})
    );
    assert_eq!(state["position"], "W:W32:BK29");
    assert_eq!(piece_at(&state, "29"), "B", "crowned");
    assert_eq!(piece_at(&state, "18"), &Value::Null);
    assert_eq!(piece_at(&state, "25"), &Value::Null);
    assert_eq!(state["to_move"], 1, "crowning ended the move");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn chess_promotion_en_passant_and_castling_on_both_sides() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;

    let ([mut white, _black], room) =
        from_position(&server, "chess", "k7/4P3/8/8/8/8/8/7K w - - 0 1").await;
    white.play(&room, "e7e8n").await;
    let state = white.until_state(|s| s["moves"] == 1).await;
    assert_eq!(piece_at(&state, "e8"), "N");
    assert_eq!(state["last_move"]["move"], "e7e8n");
    assert_eq!(state["last_move"]["display"], "e8=N", "shown in SAN");

    let ([mut white, _black], room) =
        from_position(&server, "chess", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1").await;
    white.play(&room, "exd6").await;
    let state = white.until_state(|s| s["moves"] == 1).await;
    assert_eq!(state["last_move"]["move"], "e5d6", "SAN in, UCI out");
    assert_eq!(state["last_move"]["display"], "exd6");
    assert_eq!(piece_at(&state, "d6"), "P");
    assert_eq!(
        piece_at(&state, "d5"),
        &Value::Null,
        "the pawn was taken en passant"
    );

    let (mut players, room) =
        from_position(&server, "chess", "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1").await;
    play_alternately(&mut players, &room, &["O-O", "e8c8"]).await;
    let state = players[0].until_state(|s| s["moves"] == 2).await;
    assert_eq!(state["position"], "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2");
    assert_eq!(state["last_move"]["display"], "O-O-O");
    let mut carol = server.player("Carol").await;
    carol.send(json!({"type": "watch", "room": room})).await;
    carol.expect("joined").await;
    let snapshot = carol.expect("state").await;
    assert_eq!(snapshot["history"], json!(["e1g1", "e8c8"]));
    assert_eq!(snapshot["history_display"], json!(["O-O", "O-O-O"]));
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_repeated_chess_position_draws_and_a_mate_exports_as_pgn() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let mut alice = server.player("Alice").await;
    let mut bob = server.player("Bob").await;

    let (room, _) = alice.create_game("chess", ["me", "open"], json!({})).await;
    bob.join(&room, 1).await;
    let mut players = [alice, bob];
    let shuffle = [
        "g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8",
    ];
    play_alternately(&mut players, &room, &shuffle).await;
    let over = players[0].until("game_over").await;
    assert_eq!(over["reason"], "threefold_repetition");
    assert_eq!(over["winner"], Value::Null);

    let (room, _) = players[0]
        .create_game("chess", ["me", "open"], json!({}))
        .await;
    players[1].join(&room, 1).await;
    play_alternately(&mut players, &room, &["f2f3", "e7e5", "g2g4", "Qh4#"]).await;
    let over = players[0].until("game_over").await;
    assert_eq!(over["reason"], "checkmate");
    assert_eq!(over["winner"], 1);
    let game_id = over["game_id"].as_str().unwrap();

    let response = reqwest::get(server.url(&format!("/api/games/{game_id}.pgn")))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let pgn = response.text().await.unwrap();
    for tag in [
        "[Event ",
        "[Site ",
        "[Date ",
        "[Round ",
        "[White \"Alice\"]",
        "[Black \"Bob\"]",
        "[Result \"0-1\"]",
    ] {
        assert!(pgn.contains(tag), "{tag} missing from\n{pgn}");
    }
    assert!(pgn.contains("1. f3 e5 2. g4 Qh4# 0-1"), "{pgn}");

    // The stored game carries what a replay needs: SAN and every position.
    let (status, record) = server.get_json(&format!("/api/games/{game_id}")).await;
    assert_eq!(status, 200);
    let moves = record["moves"].as_array().unwrap();
    let shown: Vec<&str> = moves
        .iter()
        .map(|m| m["display"].as_str().unwrap())
        .collect();
    assert_eq!(shown, ["f3", "e5", "g4", "Qh4#"]);
    assert_eq!(moves[3]["notation"], "d8h4");
    let positions = record["positions"].as_array().unwrap();
    assert_eq!(positions.len(), 5, "the start and one after each move");
    assert_eq!(positions[0]["ply"], 0);
    assert_eq!(
        positions[0]["position"],
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"
    );
    assert_eq!(positions[4]["ply"], 4);
    assert_eq!(
        positions[4]["position"],
        "rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3"
    );
    assert_eq!(positions[4]["board"]["cells"].as_array().unwrap().len(), 64);

    // Not a chess game, or not finished: no PGN.
    let (status, _) = server.get_json("/api/games/g_missing.pgn").await;
    assert_eq!(status, 404);
    let (room, _) = players[0]
        .create_game("chess", ["me", "open"], json!({}))
        .await;
    players[1].join(&room, 1).await;
    let state = players[0].until_state(|s| s["status"] == "playing").await;
    let playing = state["game_id"].as_str().unwrap();
    let (status, body) = server.get_json(&format!("/api/games/{playing}.pgn")).await;
    assert_eq!(status, 409);
    assert_eq!(body["error"]["code"], "not_finished");
    server.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn games_from_a_given_position_are_not_scored_and_bad_positions_are_refused() {
    let dir = temp_dir();
    let server = TestServer::in_dir(dir.path()).await;
    let ([mut white, _black], room) =
        from_position(&server, "chess", "7k/8/6K1/8/8/8/8/1Q6 w - - 0 1").await;
    white.play(&room, "b1b8").await;
    let over = white.until("game_over").await;
    assert_eq!(over["reason"], "checkmate");
    assert_eq!(over["scores"][0]["score"], Value::Null, "never scored");

    let mut carol = server.player("Carol").await;
    for (game, start) in [
        ("chess", "not a fen"),
        ("checkers", "B:W99:B1"),
        ("chess", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1"),
        ("fox_geese", "G:F17:G21"),
        ("tictactoe", "........."),
    ] {
        let options = json!({"start": start});
        carol
            .expect_error(json!({"type": "create_room", "game": game, "seats": ["me", "open"], "options": options}), "bad_option")
            .await;
    }
    server.stop().await;
}
