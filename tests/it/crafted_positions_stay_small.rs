//! A room created from a crafted Fox & Geese position either is refused with
//! `bad_option` or answered with a small `state`: the positions of issue 14 used to be
//! accepted with millions of fox moves and a state of tens of megabytes (which took the
//! server seconds to make; how long it takes now is `measure_crafted_positions`'s
//! figure, not a check).

use std::time::{Duration, Instant};

use crate::common::{TestServer, temp_dir, test_config};
use parlor_rules::bots::{BotLevel, Memory};
use serde_json::json;

/// The most a `state` for any of these rooms may take on the wire.
const STATE_BOUND: usize = 64 * 1024;

/// How long the test waits for an answer to a `create_room` before it fails: only an
/// answer that never comes takes it.
const PATIENCE: Duration = Duration::from_secs(60);

/// Positions from the red-team run, and others built the same way.
const CRAFTED: &[&str] = &[
    // 21 geese: 78,767 fox moves before the fix.
    "F:F9:G2,4,5,6,8,10,12,14,15,16,17,18,19,20,22,24,26,28,29,30,32",
    // 13 geese, reachable: 12,545 fox moves before the fix.
    "F:F23:G2,4,5,6,8,10,14,15,16,17,18,22,24",
    // Every point but the fox's taken: more geese than the game has.
    "F:F17:G1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33",
    // 14 geese, one more than the game has.
    "F:F23:G2,4,5,6,8,10,12,14,15,16,17,18,22,24",
    // The longest fox list the search found (docs/games/fox_geese.md): 1,576 moves.
    "F:F25:G10,12,16,17,18,19,20,24,26,28,29,30,32",
];

#[tokio::test]
async fn crafted_fox_and_geese_starts_are_refused_or_answered_small() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    // The bot waits, so the first state still carries the fox's list.
    config.bots.min_delay_ms = 30_000;
    let server = TestServer::start(config).await;
    let mut alice = server.player("Alice").await;
    for start in CRAFTED {
        let began = Instant::now();
        alice
            .send(
                json!({"type": "create_room", "game": "fox_geese", "seats": ["me", "bot:random"],
                         "options": {"start": start}}),
            )
            .await;
        // With a bot in the fox's seat the game starts at once, so the first state
        // carries the fox's legal moves.
        let reply = tokio::time::timeout(PATIENCE, async {
            loop {
                let message = alice.recv().await;
                match message["type"].as_str() {
                    Some("error") | Some("state") => return message,
                    _ => continue,
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("{start}: no answer within {PATIENCE:?}"));
        let elapsed = began.elapsed();
        if reply["type"] == "error" {
            assert_eq!(reply["code"], "bad_option", "{start}: {reply}");
            let message = reply["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("geese"),
                "{start}: unclear refusal {message}"
            );
        } else {
            let bytes = reply.to_string().len();
            assert!(
                bytes < STATE_BOUND,
                "{start}: a state of {bytes} bytes with {} moves",
                reply["legal_moves"].as_array().map_or(0, Vec::len)
            );
            assert_eq!(reply["position"], *start);
            assert!(
                reply["legal_moves"]
                    .as_array()
                    .is_some_and(|m| !m.is_empty()),
                "{start}: the state carries no moves"
            );
        }
        eprintln!("{start}: {} in {elapsed:?}", reply["type"]);
    }
    server.stop().await;
}

/// Prints, for each crafted position, how long reading it and listing its moves takes,
/// the number of moves and the bytes of the board and move list a `state` carries (run
/// with `--ignored --nocapture`; the figures are in docs/RELIABILITY.md).
#[test]
#[ignore = "a measurement, not a check"]
fn measure_crafted_positions() {
    let config = parlor::config::Config::default();
    // The geese to move in the longest list's position: the rule bot looks at every
    // fox reply to each goose move.
    let geese_to_move = ["G:F25:G10,12,16,17,18,19,20,24,26,28,29,30,32"];
    for start in CRAFTED.iter().chain(&geese_to_move) {
        let began = Instant::now();
        let game = parlor_rules::catalog::new_game(
            parlor_rules::GameKind::FoxGeese,
            &config.game_settings(),
            Some(start),
        );
        let Ok(game) = game else {
            eprintln!("{start}: refused in {:?}", began.elapsed());
            continue;
        };
        let moves = game.legal_moves();
        let elapsed = began.elapsed();
        let bytes = serde_json::to_string(&game.board()).unwrap().len()
            + serde_json::to_string(&moves).unwrap().len();
        eprintln!("{start}: {} moves, {bytes} bytes, {elapsed:?}", moves.len());
        for level in [BotLevel::Random, BotLevel::Easy, BotLevel::Medium] {
            let began = Instant::now();
            let limits = config.bots.limits(level);
            let mv = game.bot_move(level, &limits, &mut Memory::default(), &mut rand::rng());
            eprintln!("  bot:{level} answers {mv:?} in {:?}", began.elapsed());
        }
    }
}
