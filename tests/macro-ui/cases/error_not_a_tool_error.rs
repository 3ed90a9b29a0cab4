/// Parse a number.
#[starweaver::tool]
fn parse(text: String) -> Result<u8, std::num::ParseIntError> {
    text.parse()
}

fn main() {}
