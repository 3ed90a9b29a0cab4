-- Runs, in creation order (`seq`), with the lease of the worker that holds a running one. The
-- same columns as the SQLite store's, with the same meaning: JSON as text, times as
-- milliseconds since the Unix epoch.
CREATE TABLE runs (
    seq BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    agent TEXT NOT NULL,
    manifest_digest TEXT NOT NULL,
    status TEXT NOT NULL,
    prompt TEXT NOT NULL,
    vars TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL,
    waiting TEXT,
    -- Answers given so far for the calls a waiting run waits for, until a worker takes them.
    answers TEXT,
    output TEXT,
    usage TEXT,
    error TEXT,
    lease_token TEXT,
    lease_worker TEXT,
    lease_expires_at BIGINT
);

CREATE INDEX runs_claimable ON runs (status, seq);

-- What each run did, one row per `(run, step, call id)`; the first write of a key stays.
CREATE TABLE journal (
    run_id TEXT NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
    step BIGINT NOT NULL,
    call_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    payload TEXT NOT NULL,
    PRIMARY KEY (run_id, step, call_id)
);
