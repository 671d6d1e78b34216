//! A bot's thinking never runs on a room's task: many draw offers to bots, each needing
//! a search, are all answered, judged on the bot threads, while another room's moves
//! go on being played.
//!
//! How long those moves take beside the bots is a figure, not a check: `parlor-bench`
//! measures the human rooms' latency with bot rooms busy alongside (BENCHMARKS.md).

use crate::common::{Client, PATIENCE, TestServer, temp_dir, test_config};
use crate::waiting::eventually;
use parlor::config::LimitsConfig;
use serde_json::json;
use tokio::sync::watch;

/// Black (the bot) has a queen more, so it declines every offer after a real search
/// (about 160 ms per judgement in a debug build), and the game goes on.
const BOT_AHEAD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1";

/// Rooms whose player keeps offering draws to a bot, and offers in each. The first
/// offers of every room queue for the one bot thread together, so the last room's
/// answer waits for all the others' judgements: at 60 rooms that wait (about 10 s in a
/// debug build) reached [`PATIENCE`] itself; at 30 it stays well within it.
const OFFERING_ROOMS: usize = 30;
const OFFERS: usize = 6;

/// Offers a draw `OFFERS` times, each time waiting for the bot's answer (the offer
/// closing with the game still on) and counting it in `answered`; returns how many
/// answers came.
async fn keep_offering(mut player: Client, room: String, answered: watch::Sender<usize>) -> usize {
    let mut answers = 0;
    for _ in 0..OFFERS {
        player
            .send(json!({"type": "offer_draw", "room": room}))
            .await;
        let offered = player.until_state(|s| s["draw_offer"] == 0).await;
        let seq = offered["seq"].as_u64().unwrap();
        let declined = player
            .until_state(|s| s["seq"].as_u64().unwrap() > seq && s["draw_offer"].is_null())
            .await;
        assert_eq!(declined["status"], "playing", "{declined}");
        answers += 1;
        answered.send_modify(|count| *count += 1);
    }
    answers
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn draw_offers_to_bots_never_stall_other_rooms() {
    let dir = temp_dir();
    let mut config = test_config(dir.path());
    config.limits = LimitsConfig::unlimited();
    config.bots.threads = 1;
    config.rooms.first_move_secs = 600;
    let server = TestServer::start(config).await;

    let mut offering = Vec::new();
    for index in 0..OFFERING_ROOMS {
        let mut player = server.player(&format!("Offerer{index}")).await;
        let (room, _) = player
            .create_game("chess", ["me", "bot:medium"], json!({"start": BOT_AHEAD}))
            .await;
        offering.push((player, room));
    }
    let (mut players, room) = server.pair_in_room().await;
    players[0].until_state(|s| s["status"] == "playing").await;

    let (answered, mut answers) = watch::channel(0);
    let offers: Vec<_> = offering
        .into_iter()
        .map(|(player, room)| tokio::spawn(keep_offering(player, room, answered.clone())))
        .collect();

    // Alice and Bob play tic-tac-toe meanwhile: each move is sent once a bot has
    // answered another offer since the last one (or every offer is answered), so the
    // moves are spread over the judging, and each is seen played.
    for (ply, cell) in ["0", "3", "1", "4"].into_iter().enumerate() {
        let before = *answers.borrow_and_update();
        let next = |count: &usize| *count > before || *count == OFFERING_ROOMS * OFFERS;
        tokio::time::timeout(PATIENCE, answers.wait_for(next))
            .await
            .expect("the bots go on answering")
            .expect("the offering players are still there");
        let mover = &mut players[ply % 2];
        mover.play(&room, cell).await;
        mover.until_state(|s| s["moves"] == json!(ply + 1)).await;
    }

    for offer in offers {
        assert_eq!(offer.await.unwrap(), OFFERS, "every offer gets its answer");
    }
    // The judgements were made on the bot threads, which time each: at least one per
    // offering room (a bot that judged a position answers the next offer in it at once).
    let judged = "parlor_bot_think_seconds_count{game=\"chess\",level=\"draw\"}";
    let count = eventually(
        "every room's judgement timed on the bot threads",
        PATIENCE,
        async || {
            let text = reqwest::get(server.url("/metrics"))
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            let count: f64 = text
                .lines()
                .find_map(|line| line.strip_prefix(judged)?.trim().parse().ok())
                .unwrap_or(0.0);
            if count >= OFFERING_ROOMS as f64 {
                Ok(count)
            } else {
                Err(format!("{count} judgements"))
            }
        },
    )
    .await;
    eprintln!("{count} draw judgements on the bot threads for {OFFERING_ROOMS} rooms");
    server.stop().await;
}
