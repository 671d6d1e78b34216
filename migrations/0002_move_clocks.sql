-- Both clocks, in milliseconds, just after each move (NULL for games without a clock).
ALTER TABLE moves ADD COLUMN clock0_ms BIGINT;
ALTER TABLE moves ADD COLUMN clock1_ms BIGINT;
