// Regression: an argument type without serde's and schemars' derives gave four E0277 errors
// (about 90 lines) pointing into `serde_core` and `starweaver::__private`; it is now one error
// per missing derive, on the type, naming the derive to add.
struct Level {
    depth: u8,
}

/// Take something the model's JSON cannot become.
#[starweaver::tool]
fn dive(level: Level) -> String {
    level.depth.to_string()
}

/// With one of the two derives, the error names only the other.
#[starweaver::tool]
fn climb(height: Height) -> String {
    height.0.to_string()
}

#[derive(serde::Deserialize)]
struct Height(u8);

fn main() {}
