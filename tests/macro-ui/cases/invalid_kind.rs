/// Look a term up.
#[starweaver::tool(kind = "magic")]
async fn lookup(term: String) -> String {
    term
}

fn main() {}
