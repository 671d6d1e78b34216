-- Players who sign in through a site's own accounts: the issuer and subject of the
-- site's tokens, bound to one Parlor player for good (a guest's player when the guest
-- linked their account, else one made at the first sign-in). Such a player's
-- players.token_hash is the hash of a token never shown to anyone: they sign in with
-- the site's tokens only.
CREATE TABLE player_identities (
    issuer    TEXT   NOT NULL,
    subject   TEXT   NOT NULL,
    player_id TEXT   NOT NULL UNIQUE REFERENCES players (player_id),
    linked_at BIGINT NOT NULL,
    PRIMARY KEY (issuer, subject)
);
