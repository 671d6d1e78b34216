-- What a game needs to be resumed after a restart, beyond its seats and moves.

-- An open draw offer: the seat that offered and how many moves had been played when it
-- did (the offer lapses once the other seat moves after it). Both NULL when none is open.
ALTER TABLE games ADD COLUMN draw_offer_seat BIGINT;
ALTER TABLE games ADD COLUMN draw_offer_ply BIGINT;

-- The game's rule settings ([checkers], [fox_geese]) as it started, JSON, so that a
-- change of configuration never changes a game in progress. NULL for games stored
-- before this column existed (they resume under the current settings).
ALTER TABLE games ADD COLUMN rules TEXT;

-- 1 once a bot has played for the seat's absent person: the game is then neither
-- scored for that seat nor rated, even if it is resumed after a restart.
ALTER TABLE game_seats ADD COLUMN stood_in BIGINT NOT NULL DEFAULT 0;
