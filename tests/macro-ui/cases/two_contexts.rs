use starweaver::ToolContext;

/// Look a term up.
#[starweaver::tool]
async fn lookup(first: ToolContext, second: ToolContext, term: String) -> String {
    let _ = (first, second);
    term
}

fn main() {}
