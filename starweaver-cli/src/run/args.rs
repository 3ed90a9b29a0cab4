//! The arguments of `starweaver run`, and the `NAME=VALUE` pairs its repeatable flags take.

use std::path::PathBuf;

/// The arguments of `starweaver run`.
#[derive(Clone, Debug, Default, clap::Args)]
#[command(
    after_help = "Examples:\n  starweaver run agents/repo-helper.yaml --prompt \"Where is the manifest loader?\"\n  echo \"Summarise the README\" | starweaver run agents/docs-assistant.yaml\n  starweaver run agents/docs-assistant.yaml --prompt \"Review the manifests\" --save run.json\n  starweaver run --resume run.json --yes\n  starweaver run --resume run.json --yes --answer test-call-1=\"ship on Friday\"\n  starweaver run --resume run.json --result test-call-2='{\"done\":true}'\n\nExit status: 0 done, 1 the run failed or was cancelled, 2 bad usage or a manifest that does\nnot check, 3 the run is waiting (approvals, questions or deferred calls; saved with --save)."
)]
pub struct RunArgs {
    /// The agent manifest to run (not given with --resume, which names its own).
    #[arg(value_name = "MANIFEST", required_unless_present = "resume")]
    pub manifest: Option<PathBuf>,
    /// The prompt; read from standard input (up to 1 MiB) when absent.
    #[arg(long, short = 'p', value_name = "TEXT")]
    pub prompt: Option<String>,
    /// Overrides a variable the manifest declares under `vars` (repeatable).
    #[arg(long = "var", value_name = "NAME=VALUE", value_parser = name_value)]
    pub vars: Vec<(String, String)>,
    /// Approves every tool approval without asking (clarifying questions are not answered:
    /// give --answer, or answer them at a terminal).
    #[arg(long, short = 'y')]
    pub yes: bool,
    /// Prints one JSON object per line (the run's records, then a `run_finished` record).
    #[arg(long)]
    pub json: bool,
    /// The most model requests the run may make (overrides `runtime.max_steps`).
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: Option<u32>,
    /// How large the manifest file may be.
    #[command(flatten)]
    pub limit: crate::check::ManifestLimitArgs,
    /// Saves the run to FILE when it ends (waiting, cancelled, completed or failed), to continue
    /// with --resume.
    #[arg(long, value_name = "FILE")]
    pub save: Option<PathBuf>,
    /// Continues a run saved with --save: what --yes, --answer and --result do not answer is
    /// asked at a terminal, and otherwise stays pending (exit 3).
    #[arg(long, value_name = "FILE", conflicts_with = "manifest")]
    pub resume: Option<PathBuf>,
    /// The result of a pending deferred call, as JSON, when resuming (repeatable).
    #[arg(long = "result", value_name = "CALL_ID=JSON", value_parser = name_value, requires = "resume")]
    pub results: Vec<(String, String)>,
    /// The answer to a pending clarifying question, as text, when resuming (repeatable).
    #[arg(long = "answer", value_name = "CALL_ID=TEXT", value_parser = name_value, requires = "resume")]
    pub answers: Vec<(String, String)>,
    /// Sends the run's spans (the run, each model request, each tool call) to `otlp`, an
    /// OTLP/HTTP collector at OTEL_EXPORTER_OTLP_ENDPOINT (headers from
    /// OTEL_EXPORTER_OTLP_HEADERS), or to FILE as JSON lines. Secrets are masked.
    #[cfg(feature = "trace")]
    #[arg(long, value_name = "otlp|FILE")]
    pub trace: Option<String>,
    /// Records content in the spans: prompts, messages, tool arguments and results, shell
    /// programs (bounded, secrets masked). Off unless given, or
    /// OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true.
    #[cfg(feature = "trace")]
    #[arg(long, requires = "trace")]
    pub trace_content: bool,
    /// Keeps the run in a run store (`sqlite:PATH` or `postgres://...`, or `STARWEAVER_STORE`):
    /// journaled as it works; a run that waits stays there for `starweaver runs` to answer.
    #[cfg(feature = "store")]
    #[command(flatten)]
    pub store: crate::durable::StoreArgs,
}

/// Splits `NAME=VALUE` at the first `=`; the name must not be empty.
pub(crate) fn name_value(text: &str) -> Result<(String, String), String> {
    match text.split_once('=') {
        Some((name, value)) if !name.trim().is_empty() => {
            Ok((name.trim().to_string(), value.to_string()))
        }
        _ => Err(format!(
            "`{text}` is not NAME=VALUE; write it as name=value"
        )),
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::name_value;

    #[test]
    fn pairs_split_at_the_first_equals_sign() {
        assert_eq!(
            name_value("k=a=b"),
            Ok(("k".to_string(), "a=b".to_string()))
        );
        assert_eq!(name_value("k="), Ok(("k".to_string(), String::new())));
        assert!(name_value("=v").is_err());
        assert!(name_value("novalue").is_err());
    }
}
