//! The one-time recompute of people's ratings from their games against each other only
//! (PROTOCOL.md §13.4), for a database whose ratings an earlier version wrote: that
//! version rated games against the house bots too, so a win over `bot:easy` still lifted
//! a person's rating after migration 0010 removed the bots' own ratings.
//!
//! A stored game counts as rated between two people when it is finished, was rated when
//! it was played (both seats have a `rating_before`), and passes today's rules with what
//! the store keeps: both seats `human` with a player, no bot stood in (`stood_in`), not
//! `aborted`, not started from a given position (no `start` in its options), and each
//! side made at least [`MIN_MOVES_EACH_TO_RATE`] moves (its rows in `moves`). Games that
//! were not rated when played (before ratings existed) stay unrated. These games are
//! rated again from fresh ratings, in the order they finished (then by game id), with
//! [`ratings::rate`], the server's own function; every person's rating, count of rated
//! games and time of the last change are replaced by the result, and each seat's
//! `rating_before` and `rating_after` become the recomputed values (`NULL` in every game
//! no longer rated). `store_meta`'s `ratings` records that it was done.

use std::collections::HashMap;

use sqlx::Pool;

use super::{Db, DbConnection, PLACEHOLDERS, RERATING_LOCK};
use crate::store::StoreError;
use crate::store::sql::log_connection::{LogConnection, Param};
use crate::store::sql::rows::column_error;
use parlor_room::ratings::{self, Rating};
use parlor_room::views::MIN_MOVES_EACH_TO_RATE;
use parlor_rules::games::{NoSuchSeat, Seat};

/// The rule the stored ratings follow, as recorded in `store_meta` under `ratings`.
const RATING_RULE: &str = "people-only-v1";

/// Games read, rated and written back at a time (each page's seats are written in one
/// statement of 4 parameters per seat, well under both engines' limits).
const PAGE: i64 = 500;

/// Progress is logged each time this many more games have been read.
const PROGRESS_EVERY: u64 = 10_000;

/// The games that may have been rated between two people, as SQL over `games g` and its
/// seats `s0` and `s1`; the rules the store cannot test in SQL (options, moves per side)
/// are applied to each row.
const CANDIDATES: &str = "FROM games g \
     JOIN game_seats s0 ON s0.game_id = g.game_id AND s0.seat = 0 \
     JOIN game_seats s1 ON s1.game_id = g.game_id AND s1.seat = 1 \
     WHERE g.status = 'finished' AND g.finished_at IS NOT NULL AND g.reason <> 'aborted' \
     AND s0.kind = 'human' AND s1.kind = 'human' \
     AND s0.player_id IS NOT NULL AND s1.player_id IS NOT NULL \
     AND s0.stood_in = 0 AND s1.stood_in = 0 \
     AND s0.rating_before IS NOT NULL AND s1.rating_before IS NOT NULL";

/// A game that may have been rated between two people, with each side's moves.
#[derive(sqlx::FromRow)]
struct CandidateRow {
    game_id: String,
    game: String,
    finished_at: i64,
    winner: Option<i64>,
    options: String,
    player0: String,
    player1: String,
    moves0: i64,
    moves1: i64,
}

impl CandidateRow {
    /// Whether §13.4 rates this game: not from a given position, and each side made
    /// enough moves.
    fn rated(&self) -> bool {
        let from_position = serde_json::from_str::<serde_json::Value>(&self.options)
            .is_ok_and(|options| options.get("start").is_some());
        let enough = |moves: i64| moves >= i64::from(MIN_MOVES_EACH_TO_RATE);
        !from_position && enough(self.moves0) && enough(self.moves1)
    }

    /// The winning seat, `None` for a draw.
    fn winner(&self) -> Result<Option<Seat>, StoreError> {
        self.winner
            .map(|winner| {
                let index = u64::try_from(winner).unwrap_or(u64::MAX);
                Seat::from_index(index).ok_or_else(|| column_error("winner", NoSuchSeat(index)))
            })
            .transpose()
    }
}

/// A person's rating in one game as the recompute leaves it.
struct Recomputed {
    rating: Rating,
    games: i64,
    updated_at_ms: i64,
}

/// Recomputes every person's ratings from their games against each other, unless
/// `store_meta` says it was done. One transaction: should it fail, the server does not
/// start and the next start does it all again.
pub(super) async fn recompute_ratings(pool: &Pool<Db>) -> Result<(), StoreError> {
    if rule(&mut *pool.acquire().await?).await?.as_deref() == Some(RATING_RULE) {
        return Ok(());
    }
    let mut tx = pool.begin().await?;
    // Another node of a fleet may be doing it: wait for it, then find it done.
    for statement in RERATING_LOCK {
        sqlx::query(statement).execute(&mut *tx).await?;
    }
    if rule(&mut tx).await?.as_deref() == Some(RATING_RULE) {
        return Ok(());
    }
    let total: i64 = sqlx::query_scalar(&format!("SELECT COUNT(*) {CANDIDATES}"))
        .fetch_one(&mut *tx)
        .await?;
    if total > 0 {
        tracing::info!(
            games = total,
            "recomputing ratings from games between people only; this runs once"
        );
    }
    sqlx::query(&format!(
        "UPDATE game_seats SET rating_before = NULL, rating_after = NULL \
         WHERE (rating_before IS NOT NULL OR rating_after IS NOT NULL) \
         AND game_id NOT IN (SELECT g.game_id {CANDIDATES})"
    ))
    .execute(&mut *tx)
    .await?;

    // The pages are read in the order the games finished: without an index on it, each
    // page would sort every remaining game (hours for a million games). Dropped at the end.
    sqlx::query("CREATE INDEX rerating_order ON games (status, finished_at, game_id)")
        .execute(&mut *tx)
        .await?;
    let mut current: HashMap<(String, String), Recomputed> = HashMap::new();
    let mut after: (i64, String) = (i64::MIN, String::new());
    let (mut read, mut rated) = (0_u64, 0_u64);
    loop {
        let page = candidates(&mut tx, &after).await?;
        let Some(last) = page.last() else { break };
        after = (last.finished_at, last.game_id.clone());
        rated += rate_page(&mut tx, &page, &mut current).await?;
        let before = read;
        read += page.len() as u64;
        if read / PROGRESS_EVERY > before / PROGRESS_EVERY {
            tracing::info!(read, total, rated, "recomputing ratings");
        }
    }
    sqlx::query("DROP INDEX rerating_order")
        .execute(&mut *tx)
        .await?;
    sqlx::query("DELETE FROM ratings").execute(&mut *tx).await?;
    let entries: Vec<_> = current.iter().collect();
    for chunk in entries.chunks(PAGE as usize) {
        write_ratings(&mut tx, chunk).await?;
    }
    sqlx::query(
        "INSERT INTO store_meta (key, value) VALUES ('ratings', $1) \
         ON CONFLICT (key) DO UPDATE SET value = excluded.value",
    )
    .bind(RATING_RULE)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    if total > 0 {
        tracing::info!(
            rated,
            unrated = read - rated,
            ratings = current.len(),
            "ratings recomputed from games between people only"
        );
    }
    Ok(())
}

/// The rule `store_meta` says the ratings follow, if any.
async fn rule(conn: &mut DbConnection) -> Result<Option<String>, StoreError> {
    Ok(
        sqlx::query_scalar("SELECT value FROM store_meta WHERE key = 'ratings'")
            .fetch_optional(&mut *conn)
            .await?,
    )
}

/// The next page of candidates finished after `after` (finish time, game id).
async fn candidates(
    conn: &mut DbConnection,
    after: &(i64, String),
) -> Result<Vec<CandidateRow>, StoreError> {
    let sql = format!(
        "SELECT g.game_id, g.game, g.finished_at, g.winner, g.options, \
         s0.player_id AS player0, s1.player_id AS player1, \
         (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.game_id AND m.seat = 0) AS moves0, \
         (SELECT COUNT(*) FROM moves m WHERE m.game_id = g.game_id AND m.seat = 1) AS moves1 \
         {CANDIDATES} AND (g.finished_at, g.game_id) > ($1, $2) \
         ORDER BY g.finished_at, g.game_id LIMIT $3"
    );
    Ok(sqlx::query_as(&sql)
        .bind(after.0)
        .bind(after.1.as_str())
        .bind(PAGE)
        .fetch_all(&mut *conn)
        .await?)
}

/// Rates the page's rated games in order, updating `current`, and writes every seat's
/// rating before and after (`NULL` in the games no longer rated); how many were rated.
async fn rate_page(
    conn: &mut DbConnection,
    page: &[CandidateRow],
    current: &mut HashMap<(String, String), Recomputed>,
) -> Result<u64, StoreError> {
    let mut seats: Vec<(&str, i64, Option<f64>, Option<f64>)> = Vec::with_capacity(page.len() * 2);
    let mut rated = 0;
    for row in page {
        let players = [&row.player0, &row.player1];
        if !row.rated() {
            seats.extend([
                (row.game_id.as_str(), 0, None, None),
                (row.game_id.as_str(), 1, None, None),
            ]);
            continue;
        }
        let key = |seat: usize| (row.game.clone(), players[seat].clone());
        let before = [0, 1].map(|seat| {
            current
                .get(&key(seat))
                .map_or_else(Rating::default, |r| r.rating)
        });
        let after = ratings::rate(before, row.winner()?);
        for seat in [0, 1] {
            let entry = current.entry(key(seat)).or_insert(Recomputed {
                rating: after[seat],
                games: 0,
                updated_at_ms: row.finished_at,
            });
            entry.rating = after[seat];
            entry.games += 1;
            entry.updated_at_ms = row.finished_at;
            seats.push((
                row.game_id.as_str(),
                seat as i64,
                Some(before[seat].rating),
                Some(after[seat].rating),
            ));
        }
        rated += 1;
    }
    let mut sql = String::from(
        "UPDATE game_seats SET rating_before = v.column3, rating_after = v.column4 FROM (VALUES ",
    );
    PLACEHOLDERS.push_typed_rows(
        &mut sql,
        seats.len(),
        &["TEXT", "BIGINT", "DOUBLE PRECISION", "DOUBLE PRECISION"],
    );
    sql.push_str(") AS v WHERE game_seats.game_id = v.column1 AND game_seats.seat = v.column2");
    let params: Vec<Param<'_>> = seats
        .iter()
        .flat_map(|(game_id, seat, before, after)| {
            [
                Param::text(*game_id),
                Param::int(*seat),
                Param::Real(*before),
                Param::Real(*after),
            ]
        })
        .collect();
    conn.execute(&sql, &params).await?;
    Ok(rated)
}

/// Inserts the recomputed ratings of `entries`.
async fn write_ratings(
    conn: &mut DbConnection,
    entries: &[(&(String, String), &Recomputed)],
) -> Result<(), StoreError> {
    let mut sql = String::from(
        "INSERT INTO ratings (game, player_key, rating, deviation, volatility, games, \
         updated_at) VALUES ",
    );
    PLACEHOLDERS.push_rows(&mut sql, entries.len(), 7);
    let params: Vec<Param<'_>> = entries
        .iter()
        .flat_map(|((game, player), recomputed)| {
            [
                Param::text(game),
                Param::text(player),
                Param::Real(Some(recomputed.rating.rating)),
                Param::Real(Some(recomputed.rating.deviation)),
                Param::Real(Some(recomputed.rating.volatility)),
                Param::int(recomputed.games),
                Param::int(recomputed.updated_at_ms),
            ]
        })
        .collect();
    conn.execute(&sql, &params).await?;
    Ok(())
}
