-- The ownership token a game's room writes under (see the store's Fence): a node of a
-- fleet that takes a room over raises it, and the store refuses writes under a lower
-- one. 0 on a single server.
ALTER TABLE games ADD COLUMN fence BIGINT NOT NULL DEFAULT 0;
