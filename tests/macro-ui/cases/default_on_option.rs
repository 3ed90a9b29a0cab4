/// Look a term up.
#[starweaver::tool]
async fn lookup(
    term: String,
    /// The section.
    #[arg(default = Some("general".to_string()))]
    section: Option<String>,
) -> String {
    format!("{term}{section:?}")
}

fn main() {}
