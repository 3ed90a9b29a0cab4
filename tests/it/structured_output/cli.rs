//! `starweaver run` with an output schema.
