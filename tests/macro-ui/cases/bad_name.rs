/// Look a term up.
#[starweaver::tool(name = "look up")]
async fn lookup(term: String) -> String {
    term
}

fn main() {}
