use starweaver::__private::schemars::JsonSchema;
use starweaver::__private::serde::Deserialize;

#[derive(Deserialize, JsonSchema)]
#[serde(crate = "starweaver::__private::serde")]
#[schemars(crate = "starweaver::__private::schemars")]
struct Args {
    a: u8,
}

/// `#[arg]` on the whole argument struct would be silently ignored.
#[starweaver::tool]
fn whole(#[arg(rename = "b")] #[args] args: Args) -> u8 {
    args.a
}

/// `#[arg]` on the context.
#[starweaver::tool]
fn context(#[arg(description = "the context")] ctx: starweaver::ToolContext) {
    let _ = ctx;
}

fn main() {}
