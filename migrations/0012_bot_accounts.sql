-- Bot accounts (docs/BOT_API.md): a player who became a bot account, for good, at
-- bot_since (ms since the Unix epoch); NULL for a person. Only a player without games
-- may become one, so no person's games or ratings ever become a bot's.
ALTER TABLE players ADD COLUMN bot_since BIGINT;
-- The games a bot account takes challenges in, comma-separated game ids; NULL for
-- chess alone (what lichess-bot plays). A challenge in another game is declined for it.
ALTER TABLE players ADD COLUMN bot_games TEXT;
-- A Bot API game's id is its room's: its record is found by room (/game/export/{id}).
CREATE INDEX games_by_room ON games (room_id, started_at);
