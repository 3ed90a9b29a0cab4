//! Secrets never leave the process in a span: every string an exporter is handed (span
//! names, attribute values, event names and attributes, status messages, resource
//! attributes) goes through the host's mask first.

use std::sync::Arc;

use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use opentelemetry_sdk::Resource;

/// Replaces secret values in a text (the command line masks its secret variables and API
/// keys with it).
pub type Mask = Arc<dyn Fn(&str) -> String + Send + Sync>;

/// An exporter that masks each span before `inner` sees it.
pub struct MaskedExporter<E> {
    inner: E,
    mask: Mask,
}

impl<E: std::fmt::Debug> std::fmt::Debug for MaskedExporter<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MaskedExporter")
            .field("inner", &self.inner)
            .finish_non_exhaustive()
    }
}

impl<E> MaskedExporter<E> {
    /// `inner`, handed spans masked with `mask`.
    pub fn new(inner: E, mask: Mask) -> Self {
        Self { inner, mask }
    }
}

impl<E: SpanExporter> SpanExporter for MaskedExporter<E> {
    async fn export(&self, mut batch: Vec<SpanData>) -> OTelSdkResult {
        for span in &mut batch {
            mask_span(span, &self.mask);
        }
        self.inner.export(batch).await
    }

    fn shutdown_with_timeout(&self, timeout: std::time::Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        let masked = Resource::builder_empty()
            .with_attributes(resource.iter().map(|(key, value)| {
                KeyValue::new(key.clone(), mask_value(value.clone(), &self.mask))
            }))
            .build();
        self.inner.set_resource(&masked);
    }
}

/// Masks every string of one span.
fn mask_span(span: &mut SpanData, mask: &Mask) {
    span.name = mask(&span.name).into();
    mask_attributes(&mut span.attributes, mask);
    for event in &mut span.events.events {
        event.name = mask(&event.name).into();
        mask_attributes(&mut event.attributes, mask);
    }
    if let opentelemetry::trace::Status::Error { description } = &mut span.status {
        *description = mask(description).into();
    }
}

fn mask_attributes(attributes: &mut [KeyValue], mask: &Mask) {
    for attribute in attributes {
        attribute.value = mask_value(attribute.value.clone(), mask);
    }
}

fn mask_value(value: Value, mask: &Mask) -> Value {
    match value {
        Value::String(text) => Value::String(mask(text.as_str()).into()),
        Value::Array(opentelemetry::Array::String(texts)) => {
            Value::Array(opentelemetry::Array::String(
                texts
                    .iter()
                    .map(|text| mask(text.as_str()).into())
                    .collect(),
            ))
        }
        other => other,
    }
}
