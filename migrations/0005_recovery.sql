-- An open draw offer, kept so that a game resumed after a restart still has it: the seat
-- that offered and how many moves had been played when it did (the offer lapses once the
-- other seat moves after it). Both NULL when no offer is open.
ALTER TABLE games ADD COLUMN draw_offer_seat BIGINT;
ALTER TABLE games ADD COLUMN draw_offer_ply BIGINT;
