/// Look a term up.
#[starweaver::tool(tags("a"), max_retries = 1, tags("b"))]
async fn lookup(term: String) -> String {
    term
}

fn main() {}
