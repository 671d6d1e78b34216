//! What the database holds that this server cannot read is a decoding error, not a
//! panic; options that are not JSON are read back as their text.

use super::*;

#[tokio::test]
async fn an_unknown_status_in_the_database_is_a_decoding_error_not_a_panic() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    sqlx::query("UPDATE games SET status = 'paused' WHERE game_id = 'g1'")
        .execute(&store.pool)
        .await
        .expect("corrupt the status");

    let is_status_error = |error: &StoreError| {
        matches!(
            error,
            StoreError::Database(sqlx::Error::ColumnDecode { index, source })
                if index == "status" && source.to_string().contains("paused")
        )
    };
    let game = store.game(&"g1".into()).await;
    assert!(game.as_ref().is_err_and(is_status_error), "{game:?}");
    let games = store.player_games(&"p1".into(), 10).await;
    assert!(games.as_ref().is_err_and(is_status_error), "{games:?}");
    store.close().await;
}

#[tokio::test]
async fn an_unknown_game_seat_kind_or_reason_in_the_database_is_a_decoding_error() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    for (column, corrupt) in [
        ("game", "UPDATE games SET game = 'go'"),
        ("reason", "UPDATE games SET reason = 'fell_asleep'"),
        ("kind", "UPDATE game_seats SET kind = 'ghost'"),
    ] {
        let id = format!("g_{column}");
        store
            .create_game(&new_game(&id, "p1", "Alice", 1_000), Fence::SINGLE)
            .await
            .expect("create game");
        sqlx::query(&format!("{corrupt} WHERE game_id = '{id}'"))
            .execute(&store.pool)
            .await
            .expect("corrupt the column");
        let game = store.game(&id.as_str().into()).await;
        assert!(
            matches!(
                &game,
                Err(StoreError::Database(sqlx::Error::ColumnDecode { index, .. })) if index == column
            ),
            "{column}: {game:?}"
        );
    }
    store.close().await;
}

#[tokio::test]
async fn options_that_are_not_json_are_read_back_as_their_text() {
    let Some(db) = test_db().await else { return };
    let (store, _) = open_with_alice(&db).await;
    store
        .create_game(&new_game("g1", "p1", "Alice", 1_000), Fence::SINGLE)
        .await
        .expect("create game");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(read.options, serde_json::json!({"bot": "easy"}));

    sqlx::query("UPDATE games SET options = '{bot: easy' WHERE game_id = 'g1'")
        .execute(&store.pool)
        .await
        .expect("write text that is not JSON");
    let read = store
        .game(&"g1".into())
        .await
        .expect("read")
        .expect("stored");
    assert_eq!(read.options, serde_json::json!("{bot: easy"));
    store.close().await;
}
