//! Loading a manifest into the runtime: [`read`] turns a file's bytes into a
//! [`crate::manifest::Manifest`] (refusing what the checker refuses), and [`load()`] assembles
//! the agent it declares.

mod json;
mod read;

pub use json::to_json;
pub use read::read;
