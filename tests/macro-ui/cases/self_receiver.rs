struct Glossary;

impl Glossary {
    /// Look a term up.
    #[starweaver::tool]
    fn lookup(&self, term: String) -> String {
        term
    }
}

fn main() {}
