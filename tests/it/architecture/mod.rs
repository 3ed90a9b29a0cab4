//! The shape of the code base: layers import only downwards, no two
//! sibling modules import each other, each crate carries only its own
//! dependencies, examples use public APIs, and the facade's public
//! surface is the committed list.

mod circles;
mod crates;
mod examples;
mod layers;
mod public_api;
