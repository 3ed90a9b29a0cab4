//! The shape of the code base: layers import only downwards, no two
//! sibling modules import each other, and the facade's public surface is
//! the committed list.

mod circles;
mod layers;
mod public_api;
