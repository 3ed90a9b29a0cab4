/// Look a term up.
#[starweaver::tool]
async fn lookup(term: &str) -> usize {
    term.len()
}

fn main() {}
