//! `run --trace`: the run's spans to an OTLP collector or a JSON lines file, secrets masked
//! with the run's own masker (its secret variables and API keys, as they become known), and
//! flushed before the command exits.

use super::{RunArgs, Stop};
use crate::mask::Redactor;

/// The installed exporter of a traced run (nothing when the run is not traced).
#[cfg(feature = "trace")]
pub(crate) type Traced = Option<starweaver_trace::Tracing>;
/// Never anything: this build has no trace exporter.
#[cfg(not(feature = "trace"))]
pub(crate) type Traced = Option<std::convert::Infallible>;

/// Installs the exporter `--trace` asks for and switches content capture on when
/// `--trace-content` (or the conventions' variable) asks for it.
///
/// # Errors
/// Status 2 when the exporter cannot start (a file that cannot be created, a bad endpoint).
#[cfg(feature = "trace")]
pub(crate) fn start(args: &RunArgs, redactor: &Redactor) -> Result<Traced, Stop> {
    let Some(target) = &args.trace else {
        return Ok(None);
    };
    let from_environment = std::env::var(starweaver_core::telemetry::CONTENT_CAPTURE_VARIABLE)
        .is_ok_and(|value| value.eq_ignore_ascii_case("true"));
    starweaver_core::telemetry::set_content_capture(args.trace_content || from_environment);
    let masker = redactor.clone();
    let mask: starweaver_trace::Mask = std::sync::Arc::new(move |text: &str| masker.text(text));
    starweaver_trace::install(
        &starweaver_trace::TraceTarget::parse(target),
        mask,
        "starweaver",
    )
    .map(Some)
    .map_err(|error| Stop::usage(format!("--trace {target}: {error}")))
}

/// Nothing to install in a build without the exporter.
#[cfg(not(feature = "trace"))]
pub(crate) fn start(args: &RunArgs, redactor: &Redactor) -> Result<Traced, Stop> {
    let _ = (args, redactor);
    Ok(None)
}

/// Delivers the spans still buffered; a failure is reported, and the run's status stays.
#[cfg(feature = "trace")]
pub(crate) fn finish(traced: Traced) {
    if let Some(tracing) = traced {
        if let Err(error) = tracing.shutdown() {
            eprintln!("warning: {error}");
        }
    }
}

/// Nothing to flush in a build without the exporter.
#[cfg(not(feature = "trace"))]
pub(crate) fn finish(traced: Traced) {
    if let Some(never) = traced {
        match never {}
    }
}
