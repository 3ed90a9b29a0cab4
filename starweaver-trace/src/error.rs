//! What can go wrong setting traces up or flushing them.

/// A trace exporter that could not start or finish.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TraceError {
    /// The JSON lines file could not be created.
    #[error(
        "cannot write traces to `{path}`: {message}; give a path in a folder you can write to"
    )]
    File {
        /// The path given.
        path: String,
        /// Why.
        message: String,
    },
    /// The OTLP exporter could not be built (a bad endpoint or header variable).
    #[error("cannot send traces over OTLP: {message}; check OTEL_EXPORTER_OTLP_ENDPOINT and OTEL_EXPORTER_OTLP_HEADERS")]
    Otlp {
        /// Why.
        message: String,
    },
    /// Another subscriber is already installed in this process.
    #[error("a tracing subscriber is already installed in this process: {message}")]
    Subscriber {
        /// Why.
        message: String,
    },
    /// Spans could not be flushed at shutdown (the collector did not answer, the file
    /// could not be written).
    #[error("traces were not all delivered: {message}")]
    Flush {
        /// Why.
        message: String,
    },
}
