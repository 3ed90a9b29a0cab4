/// Read raw memory.
#[starweaver::tool]
unsafe fn peek(address: usize) -> usize {
    address
}

fn main() {}
