struct Opaque;

/// Make something that cannot be serialized.
#[starweaver::tool]
fn make() -> Opaque {
    Opaque
}

fn main() {}
