//! The shape of the code base: crates and the core's layers depend only
//! downwards, the HTTP clients stay out of the core, no two sibling
//! modules import each other, and the facade's public surface is the
//! committed list.

mod circles;
mod layers;
mod providers;
mod public_api;
