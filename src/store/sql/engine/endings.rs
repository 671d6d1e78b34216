//! Writing finished games: their rows, their seats' totals, the leaderboard and the
//! ratings, for any number of games in a fixed handful of statements.
//!
//! A batch of moves from many rooms often ends several games (a tic-tac-toe game ends
//! every seven or eight moves). Each of five steps covers all of a batch's endings: the
//! games, a read of the ratings involved, an upsert of the new ratings, the seats and
//! the leaderboard. The read is one query joined to a `VALUES` list. Each write is one
//! statement over all the rows where a statement is a round trip (PostgreSQL: `UPDATE …
//! FROM (VALUES …)`, multi-row upserts), or one small prepared statement per row where
//! it is not (SQLite's writer thread), which SQLite runs for fewer instructions than the
//! `VALUES` forms (see [`RowStatement`]; a game's ending at saturation took 151,000
//! instructions instead of 200,000, the read included). The result is the same
//! as writing the endings one after another in the order given: a player rated in two
//! of the games is rated by the first and then by the second, and a leaderboard row
//! keeps the first of its best scores.
//!
//! `VALUES` columns are named `column1`, `column2`, … by both SQLite and PostgreSQL; the
//! values are cast to their columns' types so PostgreSQL need not guess them.
//!
//! Rating reads before it writes, so on an engine several processes share (PostgreSQL,
//! a fleet) the batch first takes the engine's `RATINGS_LOCK`, held until its commit.

use std::collections::{HashMap, HashSet};

use super::{PLACEHOLDERS, RATINGS_LOCK};
use crate::store::sql::log_connection::{LogConnection, Param, RowStatement, execute_rows};
use crate::store::{Fence, GameFinish, GameStatus, RatingChange, StoreError};
use parlor_room::ratings::{self, Rating};
use parlor_room::records::LeaderboardCandidate;

/// Writes `finishes` (each a different game, under its room's token) inside the
/// caller's transaction, and returns each one's rating changes (`None` for an unrated
/// game), in the same order. Fails with [`sqlx::Error::RowNotFound`] if any game is
/// unknown, already over, or owned under another token, so no leaderboard row can point
/// at a missing game and no ending is rated twice.
pub(super) async fn write_finishes(
    conn: &mut impl LogConnection,
    finishes: &[(&GameFinish, Fence)],
) -> Result<Vec<Option<[RatingChange; 2]>>, StoreError> {
    if finishes.is_empty() {
        return Ok(Vec::new());
    }
    update_games(conn, finishes).await?;
    let finishes: Vec<&GameFinish> = finishes.iter().map(|(finish, _)| *finish).collect();
    let finishes = finishes.as_slice();
    let changes = rate(conn, finishes).await?;
    update_seats(conn, finishes, &changes).await?;
    upsert_leaderboard(conn, finishes).await?;
    Ok(changes)
}

/// Marks the games finished, with their result, duration and move count: each only if
/// it is still playing and owned under the token its ending came with, else none is.
async fn update_games(
    conn: &mut impl LogConnection,
    finishes: &[(&GameFinish, Fence)],
) -> Result<(), StoreError> {
    let params: Vec<Param<'_>> = finishes
        .iter()
        .flat_map(|(finish, fence)| {
            [
                Param::text(&finish.game_id),
                Param::int(finish.finished_at_ms),
                Param::Int(finish.winner.map(i64::from)),
                Param::text(finish.reason.as_str()),
                Param::int(finish.duration_ms),
                Param::int(finish.moves),
                Param::int(fence.0),
                Param::text(GameStatus::Finished.as_str()),
                Param::text(GameStatus::Playing.as_str()),
            ]
        })
        .collect();
    let statement = RowStatement {
        one_row: "UPDATE games SET status = ?8, finished_at = ?2, winner = ?3, reason = ?4, \
                  duration_ms = ?5, moves = ?6 \
                  WHERE game_id = ?1 AND fence = ?7 AND status = ?9",
        all_rows: |rows| {
            with_values(
                "UPDATE games SET status = v.column8, finished_at = v.column2, \
                 winner = v.column3, reason = v.column4, duration_ms = v.column5, \
                 moves = v.column6 FROM (VALUES ",
                rows,
                &[
                    "TEXT", "BIGINT", "BIGINT", "TEXT", "BIGINT", "BIGINT", "BIGINT", "TEXT",
                    "TEXT",
                ],
                ") AS v WHERE games.game_id = v.column1 AND games.fence = v.column7 \
                 AND games.status = v.column9",
            )
        },
        width: 9,
    };
    let updated = execute_rows(conn, statement, &params).await?;
    if updated != finishes.len() as u64 {
        return Err(StoreError::Database(sqlx::Error::RowNotFound));
    }
    Ok(())
}

/// One player's rating in one game as the endings so far leave it.
struct Rated {
    rating: Rating,
    /// Rated games added by these endings.
    games: i64,
    /// When the last of them finished.
    updated_at_ms: i64,
}

/// Rates the rated games in order and writes the players' new ratings; returns each
/// game's changes.
async fn rate(
    conn: &mut impl LogConnection,
    finishes: &[&GameFinish],
) -> Result<Vec<Option<[RatingChange; 2]>>, StoreError> {
    let wanted: HashSet<(&str, &str)> = finishes
        .iter()
        .flat_map(|finish| {
            let keys = finish.rated.iter().flatten();
            keys.map(|key| (finish.game.as_str(), key.as_str()))
        })
        .collect();
    if wanted.is_empty() {
        return Ok(vec![None; finishes.len()]);
    }
    for statement in RATINGS_LOCK {
        conn.execute(statement, &[]).await?;
    }
    let stored = read_ratings(conn, &wanted).await?;

    let mut current: HashMap<(&str, &str), Rated> = HashMap::new();
    let mut changes = Vec::with_capacity(finishes.len());
    for finish in finishes {
        let Some(keys) = &finish.rated else {
            changes.push(None);
            continue;
        };
        let game = finish.game.as_str();
        let before = [0, 1].map(|seat| {
            let pair = (game, keys[seat].as_str());
            current.get(&pair).map_or_else(
                || {
                    let stored = stored.get(pair.0).and_then(|keys| keys.get(pair.1));
                    stored.copied().unwrap_or_default()
                },
                |rated| rated.rating,
            )
        });
        let after = ratings::rate(before, finish.winner);
        for seat in [0, 1] {
            let rated = current.entry((game, keys[seat].as_str())).or_insert(Rated {
                rating: after[seat],
                games: 0,
                updated_at_ms: finish.finished_at_ms,
            });
            rated.rating = after[seat];
            rated.games += 1;
            rated.updated_at_ms = finish.finished_at_ms;
        }
        changes.push(Some([0, 1].map(|seat| RatingChange {
            before: before[seat],
            after: after[seat],
        })));
    }
    write_ratings(conn, &current).await?;
    Ok(changes)
}

/// The stored ratings of `wanted` (game, player key) pairs, by game and then by key;
/// players with none are absent. One query however many pairs (none for none); also what
/// a room's display of its seats' ratings reads.
pub(super) async fn read_ratings(
    conn: &mut impl LogConnection,
    wanted: &HashSet<(&str, &str)>,
) -> Result<HashMap<String, HashMap<String, Rating>>, StoreError> {
    if wanted.is_empty() {
        return Ok(HashMap::new());
    }
    let sql = with_values(
        "SELECT r.game, r.player_key, r.rating, r.deviation, r.volatility \
         FROM ratings r JOIN (VALUES ",
        wanted.len(),
        &["TEXT", "TEXT"],
        ") AS v ON r.game = v.column1 AND r.player_key = v.column2",
    );
    let params: Vec<Param<'_>> = wanted
        .iter()
        .flat_map(|(game, key)| [Param::text(game), Param::text(key)])
        .collect();
    let rows = conn.rating_rows(&sql, &params).await?;
    let mut stored: HashMap<String, HashMap<String, Rating>> = HashMap::new();
    for row in rows {
        let rating = row.rating();
        stored
            .entry(row.game)
            .or_default()
            .insert(row.player_key, rating);
    }
    Ok(stored)
}

/// Upserts every player's rating as the endings leave it, counting the games added.
async fn write_ratings(
    conn: &mut impl LogConnection,
    current: &HashMap<(&str, &str), Rated>,
) -> Result<(), StoreError> {
    /// What a player's rating becomes when it is already stored.
    const RATED_AGAIN: &str = " ON CONFLICT (game, player_key) DO UPDATE SET \
        rating = excluded.rating, deviation = excluded.deviation, \
        volatility = excluded.volatility, games = ratings.games + excluded.games, \
        updated_at = excluded.updated_at";
    const INSERT: &str = "INSERT INTO ratings (game, player_key, rating, deviation, \
                          volatility, games, updated_at) VALUES ";
    let params: Vec<Param<'_>> = current
        .iter()
        .flat_map(|((game, key), rated)| {
            [
                Param::text(game),
                Param::text(key),
                Param::Real(Some(rated.rating.rating)),
                Param::Real(Some(rated.rating.deviation)),
                Param::Real(Some(rated.rating.volatility)),
                Param::int(rated.games),
                Param::int(rated.updated_at_ms),
            ]
        })
        .collect();
    upsert(conn, INSERT, 7, RATED_AGAIN, &params).await?;
    Ok(())
}

/// Writes each seat's thinking time, score and opponent and, in rated games, its rating
/// before and after.
async fn update_seats(
    conn: &mut impl LogConnection,
    finishes: &[&GameFinish],
    changes: &[Option<[RatingChange; 2]>],
) -> Result<(), StoreError> {
    let seats: usize = finishes.iter().map(|finish| finish.seats.len()).sum();
    if seats == 0 {
        return Ok(());
    }
    let statement = RowStatement {
        one_row: "UPDATE game_seats SET thinking_ms = ?3, score = ?4, rating_before = ?5, \
                  rating_after = ?6, opponent = ?7 WHERE game_id = ?1 AND seat = ?2",
        all_rows: |rows| {
            with_values(
                "UPDATE game_seats SET thinking_ms = v.column3, score = v.column4, \
                 rating_before = v.column5, rating_after = v.column6, opponent = v.column7 \
                 FROM (VALUES ",
                rows,
                &[
                    "TEXT",
                    "BIGINT",
                    "BIGINT",
                    "BIGINT",
                    "DOUBLE PRECISION",
                    "DOUBLE PRECISION",
                    "TEXT",
                ],
                ") AS v WHERE game_seats.game_id = v.column1 AND game_seats.seat = v.column2",
            )
        },
        width: 7,
    };
    let mut params = Vec::with_capacity(seats * 7);
    for (finish, change) in finishes.iter().zip(changes) {
        for seat in &finish.seats {
            let rating = change
                .as_ref()
                .and_then(|change| change.get(usize::from(seat.seat)));
            params.extend([
                Param::text(&finish.game_id),
                Param::int(seat.seat),
                Param::int(seat.thinking_ms),
                Param::Int(seat.score),
                Param::Real(rating.map(|change| change.before.rating)),
                Param::Real(rating.map(|change| change.after.rating)),
                Param::Text(Some(seat.opponent.to_string().into())),
            ]);
        }
    }
    execute_rows(conn, statement, &params).await?;
    Ok(())
}

/// Enters the games' leaderboard candidates, each under its game and opponent. A row is
/// replaced only by a strictly higher score, so on ties the earliest achievement keeps
/// its place; a player who is a candidate against one opponent in several of these games
/// enters with the first of their best scores.
async fn upsert_leaderboard(
    conn: &mut impl LogConnection,
    finishes: &[&GameFinish],
) -> Result<(), StoreError> {
    let mut best: Vec<(&GameFinish, &LeaderboardCandidate)> = Vec::new();
    for finish in finishes {
        for candidate in &finish.leaderboard {
            match best.iter_mut().find(|(kept, entry)| {
                kept.game == finish.game
                    && entry.player_id == candidate.player_id
                    && entry.opponent == candidate.opponent
            }) {
                Some(kept) if candidate.score > kept.1.score => *kept = (finish, candidate),
                Some(_) => {}
                None => best.push((finish, candidate)),
            }
        }
    }
    if best.is_empty() {
        return Ok(());
    }
    /// A candidate replaces a stored row only with a strictly higher score.
    const BETTERED: &str = " ON CONFLICT (game, player_id, opponent) DO UPDATE SET \
        score = excluded.score, game_id = excluded.game_id, \
        achieved_at = excluded.achieved_at WHERE excluded.score > leaderboard.score";
    const INSERT: &str = "INSERT INTO leaderboard (game, player_id, opponent, score, \
                          game_id, achieved_at) VALUES ";
    let params: Vec<Param<'_>> = best
        .iter()
        .flat_map(|(finish, candidate)| {
            [
                Param::text(finish.game.as_str()),
                Param::text(&candidate.player_id),
                Param::Text(Some(candidate.opponent.to_string().into())),
                Param::int(candidate.score),
                Param::text(&finish.game_id),
                Param::int(finish.finished_at_ms),
            ]
        })
        .collect();
    upsert(conn, INSERT, 6, BETTERED, &params).await?;
    Ok(())
}

/// Runs `insert` (an `INSERT … VALUES ` of rows of `width` values) and its `ON CONFLICT`
/// clause `conflict` over `params`, in the form that suits `conn` ([`RowStatement`]).
async fn upsert(
    conn: &mut impl LogConnection,
    insert: &str,
    width: usize,
    conflict: &str,
    params: &[Param<'_>],
) -> Result<u64, StoreError> {
    let numbered: Vec<String> = (1..=width).map(|n| format!("?{n}")).collect();
    let one_row = format!("{insert}({}){conflict}", numbered.join(", "));
    let statement = RowStatement {
        one_row: &one_row,
        all_rows: |rows| {
            let mut sql = String::from(insert);
            PLACEHOLDERS.push_rows(&mut sql, rows, width);
            sql.push_str(conflict);
            sql
        },
        width,
    };
    execute_rows(conn, statement, params).await
}

/// `head`, then a `VALUES` list of `rows` rows, each value cast to its column's type in
/// `types`, then `tail`: a statement joined to a batch's rows.
fn with_values(head: &str, rows: usize, types: &[&str], tail: &str) -> String {
    let mut sql = String::from(head);
    PLACEHOLDERS.push_typed_rows(&mut sql, rows, types);
    sql.push_str(tail);
    sql
}
