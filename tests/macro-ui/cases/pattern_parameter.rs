/// Add a pair.
#[starweaver::tool]
fn add((a, b): (u8, u8)) -> u8 {
    a + b
}

fn main() {}
