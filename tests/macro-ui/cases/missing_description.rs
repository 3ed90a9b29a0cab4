#[starweaver::tool]
async fn lookup(term: String) -> String {
    term
}

fn main() {}
