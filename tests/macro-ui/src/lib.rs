//! Compile-fail cases of `#[starweaver::tool]`, in a crate of their own.
//!
//! The cases live in `cases/`, each with its expected compiler output beside it
//! (`.stderr`); `tests/misuse.rs` runs them. They sit outside the facade's own tests so
//! that trybuild, which compiles every case against the dependencies of the crate that runs
//! it, builds only the lean facade instead of the root package's whole test graph.
