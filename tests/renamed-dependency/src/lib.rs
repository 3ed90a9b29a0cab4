//! A crate that depends on the facade under another name (`sw`) and has
//! neither serde nor schemars of its own: the tool macro must reach
//! everything it needs through the facade's real path.

/// Greet someone by name.
#[sw::tool(tags("greeting"), return_schema)]
pub async fn renamed_greet(
    ctx: sw::ToolContext,
    /// Who to greet.
    name: String,
    /// How many exclamation marks.
    #[arg(default = 1)]
    excitement: usize,
) -> Result<String, sw::ToolError> {
    let _ = ctx;
    Ok(format!("Hello, {name}{}", "!".repeat(excitement.min(5))))
}
