-- What was said in each game's two chats (the players' and the spectators'), in the
-- order the room received it: `line` numbers both chats together from 0.
CREATE TABLE chat_lines (
    game_id   TEXT   NOT NULL REFERENCES games (game_id),
    line      BIGINT NOT NULL,
    channel   TEXT   NOT NULL, -- players | spectators
    player_id TEXT   NOT NULL,
    name      TEXT   NOT NULL, -- the speaker's name when they said it
    text      TEXT   NOT NULL,
    said_at   BIGINT NOT NULL, -- Unix ms
    ply       BIGINT NOT NULL, -- moves played when it was said
    PRIMARY KEY (game_id, line)
);
