-- Runs, in creation order (`seq`), with the lease of the worker that holds a running one.
CREATE TABLE runs (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    id TEXT NOT NULL UNIQUE,
    agent TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    status TEXT NOT NULL,
    prompt TEXT NOT NULL,
    vars TEXT NOT NULL,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL,
    waiting TEXT,
    output TEXT,
    usage TEXT,
    error TEXT,
    lease_token TEXT,
    lease_worker TEXT,
    lease_expires_at INTEGER
);

CREATE INDEX runs_claimable ON runs (status, seq);

-- What each run did, one row per `(run, step, call id)`; the first write of a key stays.
CREATE TABLE journal (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, step, call_id)
);
