-- The servers that hold this database (PostgreSQL): each one registers as it starts,
-- beats every second while it runs (holding an advisory lock keyed by its node id, which
-- is what proves it alive), and deletes its row when it stops. A single server, or a
-- node of another fleet, refuses to start beside a live fleet; an operator may take the
-- database over on purpose (`parlor --take-over-database`), which deletes the holders'
-- rows: each holder finds its row gone at its next beat, gives up its games and stops.
CREATE TABLE servers (
    node_id       TEXT PRIMARY KEY,
    -- The fleet's identity (kept in its Redis under the key prefix); NULL for a single
    -- server.
    fleet         TEXT,
    -- Where the fleet coordinates ("redis host:port, key prefix p"), for the operator.
    coordinator   TEXT,
    -- The machine and process, for the operator.
    host          TEXT NOT NULL,
    pid           BIGINT NOT NULL,
    -- The PostgreSQL session holding the server's locks.
    backend_pid   BIGINT NOT NULL,
    started_at_ms BIGINT NOT NULL,
    heartbeat_ms  BIGINT NOT NULL
);
