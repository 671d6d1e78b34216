//! A game's chat lines: stored once each under their number, read back in order with the
//! game, and refused under another owner's token.

use super::*;
use crate::store::ChatRecord;
use parlor_room::chat::{ChatChannel, ChatLine};

fn said(number: u64, channel: ChatChannel, text: &str, fence_game: &str) -> ChatRecord {
    ChatRecord {
        game_id: fence_game.into(),
        number,
        channel,
        line: ChatLine {
            player_id: "p1".into(),
            name: "Alice".to_owned(),
            text: text.to_owned(),
            at_ms: 1_000 + number as i64,
            ply: number as usize,
        },
    }
}

#[tokio::test]
async fn chat_lines_come_back_with_their_game_in_the_order_they_were_said() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 0), Fence(2))
        .await
        .expect("game");
    let lines = [
        said(0, ChatChannel::Players, "good luck", "g1"),
        said(1, ChatChannel::Spectators, "nice opening", "g1"),
        said(2, ChatChannel::Players, "thanks, you too", "g1"),
    ];
    // Written as background tasks may finish: out of order, one of them twice.
    for index in [2, 0, 1, 0] {
        store
            .record_chat(&lines[index], Fence(2))
            .await
            .expect("line");
    }
    let stale = store
        .record_chat(
            &said(3, ChatChannel::Players, "from a node that lost it", "g1"),
            Fence(1),
        )
        .await;
    assert!(matches!(stale, Err(StoreError::Fenced { .. })), "{stale:?}");

    let game = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    let read: Vec<(ChatChannel, &str, i64, usize)> = game
        .chat
        .iter()
        .map(|l| (l.channel, l.line.text.as_str(), l.line.at_ms, l.line.ply))
        .collect();
    assert_eq!(
        read,
        vec![
            (ChatChannel::Players, "good luck", 1_000, 0),
            (ChatChannel::Spectators, "nice opening", 1_001, 1),
            (ChatChannel::Players, "thanks, you too", 1_002, 2),
        ]
    );
    assert_eq!(game.chat[0].line.name, "Alice");
    store.close().await;
}
