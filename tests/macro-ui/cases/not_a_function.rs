/// A struct is not a tool.
#[starweaver::tool]
struct Lookup {
    term: String,
}

fn main() {}
