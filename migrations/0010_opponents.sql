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

-- Each player's best score per game and opponent. The old board's rows keep their place
-- under the opponent of the game they were reached in.
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
SELECT l.game, l.player_id,
       COALESCE(
           (SELECT MIN(s.opponent) FROM game_seats s
            WHERE s.game_id = l.game_id AND s.player_id = l.player_id),
           'person'),
       l.score, l.game_id, l.achieved_at
FROM leaderboard l;

DROP TABLE leaderboard;
ALTER TABLE leaderboard_by_opponent RENAME TO leaderboard;
CREATE INDEX leaderboard_rank ON leaderboard (game, opponent, score DESC, achieved_at ASC);
CREATE INDEX leaderboard_all_rank ON leaderboard (game, score DESC, achieved_at ASC);

-- Bot levels were rated players until now; they are not any more, and nothing reads
-- their ratings.
DELETE FROM ratings WHERE player_key LIKE 'bot:%';
