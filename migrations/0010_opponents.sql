-- Whom each score was earned against, and a leaderboard per opponent; bots no longer
-- rated (PROTOCOL.md §13). Runs unchanged on SQLite and PostgreSQL, like 0001.

-- Whom the seat played, once its game has finished: 'person' or 'bot:<level>' (the
-- other seat at the end; a bot that stood in for a person counts as a bot).
ALTER TABLE game_seats ADD COLUMN opponent TEXT;

-- Finished games so far: the other seat's kind as stored. The level of a bot that stood
-- in for an absent person was not kept, so such an opponent is taken for the weakest,
-- 'bot:random': no old score is credited as earned against a stronger bot than it was.
UPDATE game_seats SET opponent = (
    SELECT CASE
        WHEN other.stood_in <> 0 AND other.kind = 'human' THEN 'bot:random'
        WHEN other.kind = 'human' THEN 'person'
        ELSE other.kind
    END
    FROM game_seats other
    WHERE other.game_id = game_seats.game_id AND other.seat <> game_seats.seat
)
WHERE game_id IN (SELECT game_id FROM games WHERE status = 'finished');

-- Each player's best score per game and opponent, rebuilt from the finished games' seats
-- (the old board kept one best per player across all opponents, so a best reached against
-- a bot hid every win over a person). The candidates are exactly the scores §13.3 offers
-- to a board: a non-null score of the winning seat, or of either seat in a draw. Per
-- (game, player, opponent) the highest stays, on equal scores the earliest achievement
-- (then the smaller game id), as the board's own upsert keeps it.
CREATE TABLE leaderboard_by_opponent (
    game        TEXT   NOT NULL,
    player_id   TEXT   NOT NULL,
    opponent    TEXT   NOT NULL,
    score       BIGINT NOT NULL,
    game_id     TEXT   NOT NULL REFERENCES games (game_id),
    achieved_at BIGINT NOT NULL,
    PRIMARY KEY (game, player_id, opponent)
);

INSERT INTO leaderboard_by_opponent (game, player_id, opponent, score, game_id, achieved_at)
SELECT game, player_id, opponent, score, game_id, achieved_at
FROM (
    SELECT g.game, s.player_id, s.opponent, s.score, g.game_id, g.finished_at AS achieved_at,
           ROW_NUMBER() OVER (
               PARTITION BY g.game, s.player_id, s.opponent
               ORDER BY s.score DESC, g.finished_at ASC, g.game_id ASC
           ) AS place
    FROM game_seats s
    JOIN games g ON g.game_id = s.game_id
    WHERE g.status = 'finished' AND g.finished_at IS NOT NULL
      AND s.score IS NOT NULL AND s.player_id IS NOT NULL AND s.opponent IS NOT NULL
      AND (g.winner IS NULL OR g.winner = s.seat)
) candidates
WHERE place = 1;

DROP TABLE leaderboard;
ALTER TABLE leaderboard_by_opponent RENAME TO leaderboard;
CREATE INDEX leaderboard_rank ON leaderboard (game, opponent, score DESC, achieved_at ASC);
CREATE INDEX leaderboard_all_rank ON leaderboard (game, score DESC, achieved_at ASC);

-- Bot levels were rated players until now; they are not any more, and nothing reads
-- their ratings. People's ratings, which their games against bots moved, are computed
-- again from their games against each other by the store when it opens this database
-- (engine/rerating.rs, once: store_meta's `ratings`).
DELETE FROM ratings WHERE player_key LIKE 'bot:%';
