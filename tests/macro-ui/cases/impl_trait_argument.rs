/// Count the words.
#[starweaver::tool]
fn count(words: impl IntoIterator<Item = String>) -> usize {
    words.into_iter().count()
}

fn main() {}
