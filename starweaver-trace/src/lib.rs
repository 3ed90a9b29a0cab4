//! The trace exporter: the spans the Starweaver runtime emits (runs, model requests, tool
//! calls; see `starweaver_core::telemetry`) become OpenTelemetry spans, sent over OTLP/HTTP
//! with protobuf bodies to a collector or written as JSON lines to a file, with secrets
//! masked in names, attributes, events, status messages and resource attributes.
//!
//! [`install`] sets the process's `tracing` subscriber and returns a [`Tracing`] guard;
//! [`Tracing::shutdown`] flushes what is still buffered, and must be called before the
//! process exits. A host that has a subscriber of its own does not use this crate: the
//! runtime's spans reach any `tracing` subscriber.

mod error;
mod http_client;
mod install;
mod jsonl;
mod mask;
#[cfg(test)]
mod tests;

pub use error::TraceError;
pub use install::{install, provider, subscriber, TraceTarget, Tracing, TRACER_NAME};
pub use jsonl::JsonlExporter;
pub use mask::{Mask, MaskedExporter};
