-- Glicko-2 ratings per game and rated player: a human's player_id, or "bot:<level>".
CREATE TABLE ratings (
    game TEXT NOT NULL,
    player_key TEXT NOT NULL,
    rating DOUBLE PRECISION NOT NULL,
    deviation DOUBLE PRECISION NOT NULL,
    volatility DOUBLE PRECISION NOT NULL,
    games BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    PRIMARY KEY (game, player_key)
);
CREATE INDEX ratings_rank ON ratings (game, rating DESC);

-- Each seat's rating before and after a rated game (NULL when the game was not rated).
ALTER TABLE game_seats ADD COLUMN rating_before DOUBLE PRECISION;
ALTER TABLE game_seats ADD COLUMN rating_after DOUBLE PRECISION;
