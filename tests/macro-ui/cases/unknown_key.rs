use starweaver::ToolContext;

/// Look a term up.
#[starweaver::tool(timeout = 1_000)]
async fn lookup(_ctx: ToolContext, term: String) -> String {
    term
}

fn main() {}
