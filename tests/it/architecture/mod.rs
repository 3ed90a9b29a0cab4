//! The shape of the code base: layers import only downwards, and the
//! facade's public surface is the committed list.

mod layers;
mod public_api;
