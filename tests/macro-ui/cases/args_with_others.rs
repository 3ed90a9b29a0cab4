#[derive(serde::Deserialize, schemars::JsonSchema)]
struct Query {
    term: String,
}

/// Look a term up.
#[starweaver::tool]
async fn lookup(#[args] query: Query, limit: usize) -> String {
    format!("{}{limit}", query.term)
}

fn main() {}
