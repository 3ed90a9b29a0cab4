//! Installing the exporter as the process's subscriber, and flushing it at the end.

use std::path::PathBuf;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry::KeyValue;
use opentelemetry_otlp::{WithExportConfig as _, WithHttpConfig as _};
use opentelemetry_sdk::trace::SdkTracerProvider;
use opentelemetry_sdk::Resource;
use tracing_subscriber::layer::SubscriberExt as _;
use tracing_subscriber::Layer as _;

use crate::http_client::ReqwestHttpClient;
use crate::{JsonlExporter, Mask, MaskedExporter, TraceError};

/// The instrumentation scope of the runtime's spans.
pub const TRACER_NAME: &str = "starweaver";

/// Where spans go.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TraceTarget {
    /// To a collector over OTLP/HTTP with protobuf bodies: `OTEL_EXPORTER_OTLP_ENDPOINT`
    /// (default `http://localhost:4318`, `/v1/traces` appended) and the headers of
    /// `OTEL_EXPORTER_OTLP_HEADERS`.
    Otlp,
    /// To a file, one span per JSON line.
    File(PathBuf),
}

impl TraceTarget {
    /// `otlp` is [`TraceTarget::Otlp`]; any other value is a JSON lines file.
    #[must_use]
    pub fn parse(value: &str) -> Self {
        if value == "otlp" {
            Self::Otlp
        } else {
            Self::File(PathBuf::from(value))
        }
    }
}

/// The installed exporter: call [`Tracing::shutdown`] before the process exits, so buffered
/// spans are delivered.
#[derive(Debug)]
pub struct Tracing {
    provider: SdkTracerProvider,
}

impl Tracing {
    /// Delivers every span still buffered and stops the exporter.
    ///
    /// # Errors
    /// [`TraceError::Flush`] when spans could not be delivered (the collector did not
    /// answer, the file could not be written).
    pub fn shutdown(self) -> Result<(), TraceError> {
        let flushed = self.provider.force_flush();
        let stopped = self.provider.shutdown();
        flushed.and(stopped).map_err(|error| TraceError::Flush {
            message: error.to_string(),
        })
    }
}

/// Makes `target` the process's trace destination: [`provider`] for `target`, as the
/// process's subscriber ([`subscriber`]).
///
/// # Errors
/// As [`provider`]; [`TraceError::Subscriber`] when the process already has a subscriber.
pub fn install(
    target: &TraceTarget,
    mask: Mask,
    service_name: &str,
) -> Result<Tracing, TraceError> {
    let provider = provider(target, mask, service_name)?;
    tracing::subscriber::set_global_default(subscriber(&provider)).map_err(|error| {
        TraceError::Subscriber {
            message: error.to_string(),
        }
    })?;
    Ok(Tracing { provider })
}

/// The OpenTelemetry provider that sends spans to `target`, every string masked with `mask`,
/// under the resource `service.name = service_name`. Spans are batched and sent from a
/// thread of their own; flush them with the provider's `force_flush` and `shutdown` (or
/// [`Tracing::shutdown`] after [`install`]).
///
/// # Errors
/// [`TraceError::File`] for a file that cannot be created, [`TraceError::Otlp`] for an
/// exporter that cannot be built.
pub fn provider(
    target: &TraceTarget,
    mask: Mask,
    service_name: &str,
) -> Result<SdkTracerProvider, TraceError> {
    let resource = Resource::builder_empty()
        .with_attributes([KeyValue::new("service.name", service_name.to_string())])
        .build();
    let builder = SdkTracerProvider::builder().with_resource(resource);
    Ok(match target {
        TraceTarget::File(path) => builder
            .with_batch_exporter(MaskedExporter::new(JsonlExporter::create(path)?, mask))
            .build(),
        TraceTarget::Otlp => {
            let client =
                ReqwestHttpClient::new().map_err(|message| TraceError::Otlp { message })?;
            let exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(opentelemetry_otlp::Protocol::HttpBinary)
                .with_http_client(client)
                .build()
                .map_err(|error| TraceError::Otlp {
                    message: error.to_string(),
                })?;
            builder
                .with_batch_exporter(MaskedExporter::new(exporter, mask))
                .build()
        }
    })
}

/// A subscriber that hands the runtime's spans (target `starweaver`, nothing else) to
/// `provider`, with only the runtime's own attributes: no source locations, threads,
/// busy/idle times or targets, which describe this process rather than the run. For a host
/// that sets a subscriber itself (globally, or scoped with `tracing::subscriber::with_default`).
pub fn subscriber(provider: &SdkTracerProvider) -> impl tracing::Subscriber + Send + Sync {
    let only_ours = tracing_subscriber::filter::Targets::new().with_target(
        starweaver_core::telemetry::TRACE_TARGET,
        tracing::Level::TRACE,
    );
    let layer = tracing_opentelemetry::layer()
        .with_tracer(provider.tracer(TRACER_NAME))
        .with_location(false)
        .with_threads(false)
        .with_tracked_inactivity(false)
        .with_target(false)
        .with_level(false)
        .with_filter(only_ours);
    tracing_subscriber::registry().with(layer)
}
