/// Count the words.
#[starweaver::tool]
fn count(words: Vec<&str>, label: Option<std::borrow::Cow<'_, str>>) -> usize {
    let _ = label;
    words.len()
}

fn main() {}
