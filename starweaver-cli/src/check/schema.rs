//! `starweaver schema`: the manifest's JSON Schema ([`manifest_schema`]), printed for editors
//! (`# yaml-language-server: $schema=...`) and other tools.

use std::path::PathBuf;

use starweaver_config::check::{manifest_schema, CatalogNames};

use super::status::CheckStatus;

/// The arguments of `starweaver schema`.
#[derive(Clone, Debug, Default, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver schema > schema/agent.schema.json\n  starweaver schema --catalog catalog.json"
)]
pub struct SchemaArgs {
    /// A tool catalog (JSON); its tool names become the allowed values of `tools` entries in
    /// `tools` and `deferred` toolsets, so editors complete and check them.
    #[arg(long, value_name = "FILE")]
    pub catalog: Option<PathBuf>,
}

/// Runs `starweaver schema`: the schema text (pretty JSON and a newline) or, for an unusable
/// catalog, the message and [`CheckStatus::Usage`].
///
/// # Errors
/// When the catalog cannot be read or parsed; the message names the file.
pub fn run_schema(args: &SchemaArgs) -> Result<String, (String, CheckStatus)> {
    let catalog = args
        .catalog
        .as_deref()
        .map(CatalogNames::read)
        .transpose()
        .map_err(|error| (format!("error: {error}\n"), CheckStatus::Usage))?;
    let mut text = serde_json::to_string_pretty(&manifest_schema(catalog.as_ref()))
        .map_err(|error| (format!("error: {error}\n"), CheckStatus::Usage))?;
    text.push('\n');
    Ok(text)
}
