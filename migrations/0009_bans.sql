-- Players an operator has banned (POST /api/admin/players/{id}/ban): refused at hello,
-- over HTTP and, when banned, on every live connection of every node. One row per
-- player; lifting a ban deletes it; a ban whose expires_at (ms since the epoch) has
-- passed no longer counts.
CREATE TABLE player_bans (
    player_id  TEXT   NOT NULL PRIMARY KEY REFERENCES players (player_id),
    reason     TEXT   NOT NULL,
    banned_by  TEXT   NOT NULL,
    banned_at  BIGINT NOT NULL,
    expires_at BIGINT
);
