//! Definitions: schema, description, metadata and limits.
