//! Every game Parlor has, played through the Bot API alone by two bot accounts with the
//! test's berserk-style client: a challenge in the game (`variant` is the game's id),
//! accepted, then each bot reads its game stream, works out from the moves whose turn it
//! is and a legal move (with the rules crate, as a bot's engine would), and posts it in
//! the game's notation, until the final state.

use serde_json::{Value, json};

use crate::bot_api_client::{BotClient, LineReader};
use crate::bots_take_challenges::bot_account;
use crate::common::{TestServer, temp_dir, test_config};
use parlor_rules::GameKind;
use parlor_rules::catalog::{GameSettings, new_game};
use parlor_rules::games::Seat;

/// The next `gameState` of `stream` (the `state` of a `gameFull`), skipping other lines.
async fn next_state(stream: &mut LineReader) -> Value {
    loop {
        let line = stream
            .next()
            .await
            .expect("the game stream goes on to the end");
        match line["type"].as_str() {
            Some("gameFull") => return line["state"].clone(),
            Some("gameState") => return line,
            _ => {}
        }
    }
}

async fn play_out(server: &TestServer, game: GameKind) -> Value {
    let names = [format!("White{game}"), format!("Black{game}")];
    let white = bot_account(server, &names[0]).await;
    let black = bot_account(server, &names[1]).await;
    let every_game = json!({"games": ["chess", "tictactoe", "checkers", "fox_geese"]});
    let (status, set) = black
        .post("/api/bot/account/games", Some(&every_game.to_string()))
        .await;
    assert_eq!(status, 200, "{set}");
    let variant = if game == GameKind::Chess {
        "standard"
    } else {
        game.as_str()
    };
    let asked = json!({"variant": variant, "color": "white"}).to_string();
    let (status, challenge) = white
        .post(&format!("/api/challenge/{}", names[1]), Some(&asked))
        .await;
    assert_eq!(status, 200, "{challenge}");
    let id = challenge["id"].as_str().unwrap().to_owned();
    let (status, accepted) = black
        .post(&format!("/api/challenge/{id}/accept"), None)
        .await;
    assert_eq!(status, 200, "{accepted}");
    let (_, mut white_stream) = white.stream(&format!("/api/bot/game/stream/{id}")).await;
    let (_, mut black_stream) = black.stream(&format!("/api/bot/game/stream/{id}")).await;
    let bots: [&BotClient; 2] = [&white, &black];
    let mut state = next_state(&mut white_stream).await;
    next_state(&mut black_stream).await;
    let mut plies = 0;
    while state["status"] == "started" {
        let mut position = new_game(game, &GameSettings::default(), None).unwrap();
        let moves = state["moves"].as_str().unwrap();
        for played in moves.split_whitespace() {
            position.play(played).unwrap();
        }
        let turn = position.turn().expect("a game going on has a side to move");
        let choice = position.legal_moves()[0].clone();
        let mover = bots[usize::from(turn == Seat::Second)];
        let (status, played) = mover
            .post(&format!("/api/bot/game/{id}/move/{choice}"), None)
            .await;
        assert_eq!(status, 200, "{game} ply {plies}, {choice}: {played}");
        state = next_state(&mut white_stream).await;
        next_state(&mut black_stream).await;
        plies += 1;
    }
    assert!(
        white_stream.next().await.is_none(),
        "the stream ends after the final state"
    );
    eprintln!(
        "{game}: {plies} plies, ended {} {}",
        state["status"], state["winner"]
    );
    state
}

#[tokio::test]
async fn two_bots_play_every_game_to_its_end_through_the_bot_api() {
    let dir = temp_dir();
    let server = TestServer::start(test_config(dir.path())).await;
    for game in [
        GameKind::TicTacToe,
        GameKind::Checkers,
        GameKind::FoxGeese,
        GameKind::Chess,
    ] {
        let last = play_out(&server, game).await;
        let ended = last["status"].as_str().unwrap();
        assert!(
            ["mate", "variantEnd", "draw", "stalemate"].contains(&ended),
            "{game}: {last}"
        );
    }
    server.stop().await;
}
