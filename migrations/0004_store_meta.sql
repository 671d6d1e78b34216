-- Facts about the database itself that the server checks at start-up, such as which
-- rule the keys in player_names were written under (names.rs upgrades older keys once).
CREATE TABLE store_meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);
