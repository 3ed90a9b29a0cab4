//! The docs in docs/*.md as documents: checks that catch what a reader would trip over.

mod paths;
mod tables;
