//! A bot's thinking never runs on a room's task: many draw offers to bots, each needing
//! a search, are all answered, while another room's moves are answered promptly.

use std::time::{Duration, Instant};

use crate::common::{Client, TestServer, temp_dir, test_config};
use parlor::config::LimitsConfig;
use serde_json::json;

/// Black (the bot) has a queen more, so it declines every offer after a real search
/// (about 50 ms per judgement in a debug build), and the game goes on.
const BOT_AHEAD: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNB1KBNR w KQkq - 0 1";

/// Rooms whose player keeps offering draws to a bot, and offers in each.
const OFFERING_ROOMS: usize = 60;
const OFFERS: usize = 6;

/// How long another room's move may take to come back while the bots judge. Far above
/// a move's round trip on a loaded machine; before bots left the rooms' tasks the
/// judgements queued up on the rooms' two worker threads and a move waited seconds.
const PROMPT: Duration = Duration::from_secs(2);

/// Offers a draw `OFFERS` times, each time waiting for the bot's answer (the offer
/// closing with the game still on); returns how many answers came.
async fn keep_offering(mut player: Client, room: String) -> usize {
    let mut answered = 0;
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
        answered += 1;
    }
    answered
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

    let offers: Vec<_> = offering
        .into_iter()
        .map(|(player, room)| tokio::spawn(keep_offering(player, room)))
        .collect();

    // Alice and Bob play tic-tac-toe moves meanwhile, each timed from sending to seeing
    // it played.
    let mut slowest = Duration::ZERO;
    for (ply, cell) in ["0", "3", "1", "4"].into_iter().enumerate() {
        let mover = &mut players[ply % 2];
        let sent = Instant::now();
        mover.play(&room, cell).await;
        mover.until_state(|s| s["moves"] == json!(ply + 1)).await;
        slowest = slowest.max(sent.elapsed());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }

    for offer in offers {
        assert_eq!(offer.await.unwrap(), OFFERS, "every offer gets its answer");
    }
    eprintln!("slowest move of another room while bots judged: {slowest:?}");
    assert!(
        slowest < PROMPT,
        "another room's move took {slowest:?} while bots judged draw offers"
    );
    server.stop().await;
}
