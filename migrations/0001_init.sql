-- Parlor's initial schema.
--
-- This file must run unchanged on both SQLite and PostgreSQL (the store talks to either
-- through sqlx's Any driver), so it sticks to the common subset: text ids chosen by the
-- server (no AUTOINCREMENT/SERIAL), BIGINT for every integer and for Unix-millisecond
-- timestamps, TEXT for strings, and ON CONFLICT upserts in the application code.

-- Registered players. The token itself is never stored, only its hash.
CREATE TABLE players (
    player_id  TEXT   PRIMARY KEY,
    token_hash TEXT   NOT NULL UNIQUE,
    name       TEXT   NOT NULL,
    created_at BIGINT NOT NULL
);

-- Name ownership: a name belongs forever to the first player that used it.
-- name_key is the name lowercased in Rust (str::to_lowercase), so names compare
-- case-insensitively the same way on every engine.
CREATE TABLE player_names (
    name_key  TEXT PRIMARY KEY,
    player_id TEXT NOT NULL REFERENCES players (player_id)
);

-- One row per game played.
CREATE TABLE games (
    game_id     TEXT   PRIMARY KEY,
    game        TEXT   NOT NULL,
    room_id     TEXT   NOT NULL,
    status      TEXT   NOT NULL, -- playing | finished | interrupted
    options     TEXT   NOT NULL, -- the room's options, JSON, kept verbatim
    started_at  BIGINT NOT NULL,
    finished_at BIGINT,
    winner      BIGINT,          -- winning seat; NULL for a draw or an unfinished game
    reason      TEXT,
    duration_ms BIGINT,
    moves       BIGINT NOT NULL DEFAULT 0
);

-- Start-up marks every game still `playing` as `interrupted`.
CREATE INDEX games_status ON games (status);

-- The two seats of each game.
CREATE TABLE game_seats (
    game_id     TEXT   NOT NULL REFERENCES games (game_id),
    seat        BIGINT NOT NULL,
    kind        TEXT   NOT NULL, -- human | bot:<level>
    player_id   TEXT,            -- NULL for a bot
    name        TEXT   NOT NULL,
    thinking_ms BIGINT,          -- set when the game finishes
    score       BIGINT,          -- set when the game finishes, for scored human seats
    PRIMARY KEY (game_id, seat)
);

-- Every move of every game, in order.
CREATE TABLE moves (
    game_id   TEXT   NOT NULL REFERENCES games (game_id),
    ply       BIGINT NOT NULL,
    seat      BIGINT NOT NULL,
    notation  TEXT   NOT NULL,
    played_at BIGINT NOT NULL,
    think_ms  BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);

-- Each player's best score per game. A row is replaced only by a strictly higher score,
-- so on ties the earliest achievement keeps its place. Names are not copied here: they
-- come from a join with players, so a rename shows up at once.
CREATE TABLE leaderboard (
    game        TEXT   NOT NULL,
    player_id   TEXT   NOT NULL,
    score       BIGINT NOT NULL,
    game_id     TEXT   NOT NULL REFERENCES games (game_id),
    achieved_at BIGINT NOT NULL,
    PRIMARY KEY (game, player_id)
);

CREATE INDEX leaderboard_rank ON leaderboard (game, score DESC, achieved_at ASC);
