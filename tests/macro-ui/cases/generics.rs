/// Echo anything.
#[starweaver::tool]
async fn echo<T: Send>(value: T) -> T {
    value
}

fn main() {}
