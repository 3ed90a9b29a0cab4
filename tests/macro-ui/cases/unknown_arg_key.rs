/// Look a term up.
#[starweaver::tool]
async fn lookup(#[arg(defualt = 10)] limit: usize) -> usize {
    limit
}

fn main() {}
