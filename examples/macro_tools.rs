//! Three tools made with `#[starweaver::tool]`, run by an agent on the
//! embedded `test` model (which calls every tool once with arguments
//! generated from its schema, then answers), and their definitions as a
//! model sees them.
//!
//! `cargo run --example macro_tools`

use std::sync::Arc;

use starweaver::{catalog, AgentBuilder, StaticToolset, TestModel, ToolContext, ToolError};

/// Look up a term in the project glossary.
///
/// Answers with every entry whose term contains the text, best first.
#[starweaver::tool(timeout_ms = 1_000, tags("glossary"), max_retries = 2)]
async fn lookup(
    /// Text to look for in glossary terms.
    term: String,
    /// Maximum number of entries.
    #[arg(default = 3)]
    limit: usize,
) -> Result<Vec<String>, ToolError> {
    let glossary = ["agent", "manifest", "toolset", "tool proxy"];
    Ok(glossary
        .iter()
        .filter(|entry| entry.contains(term.as_str()) || term.is_empty())
        .take(limit)
        .map(|entry| (*entry).to_string())
        .collect())
}

/// Count the words of a text.
#[starweaver::tool]
fn word_count(
    /// The text.
    text: String,
) -> usize {
    text.split_whitespace().count()
}

/// Say which run and call this is.
#[starweaver::tool(name = "whoami", sequential)]
async fn call_info(ctx: ToolContext) -> Result<String, ToolError> {
    Ok(format!(
        "tool {} in run {}",
        ctx.tool_name(),
        ctx.run_id().as_str()
    ))
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let toolset = StaticToolset::new("demo").with_tools([
        Arc::new(lookup_tool()) as starweaver::tools::DynTool,
        Arc::new(word_count_tool()),
        Arc::new(call_info_tool()),
    ]);
    let agent = AgentBuilder::new(Arc::new(TestModel::auto()))
        .toolset(&(Arc::new(toolset) as starweaver::DynToolset))
        .build();
    let result = agent.run("Use every tool once.").await?;
    println!("answer: {}", result.output);

    println!("\ncatalog: {:?}", catalog::names());
    for definition in catalog::definitions() {
        println!(
            "\n{}: {}\n{}",
            definition.name,
            definition.description.unwrap_or_default(),
            serde_json::to_string_pretty(&definition.parameters)?
        );
    }
    Ok(())
}
