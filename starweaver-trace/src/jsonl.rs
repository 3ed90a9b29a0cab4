//! Spans as JSON lines, for people without a collector: one span per line, with `name`,
//! `trace_id`, `span_id`, `parent_span_id`, `kind`, `start_time_unix_nano`,
//! `end_time_unix_nano`, `status`, flat `attributes` and `events`.

use std::io::Write;
use std::path::Path;
use std::sync::Mutex;
use std::time::SystemTime;

use opentelemetry::trace::{SpanId, SpanKind, Status};
use opentelemetry::{KeyValue, Value};
use opentelemetry_sdk::error::{OTelSdkError, OTelSdkResult};
use opentelemetry_sdk::trace::{SpanData, SpanExporter};
use serde_json::{json, Map};

use crate::TraceError;

/// Writes each exported span as one JSON line to a file.
#[derive(Debug)]
pub struct JsonlExporter {
    out: Mutex<std::io::BufWriter<std::fs::File>>,
}

impl JsonlExporter {
    /// Creates (or truncates) `path`.
    ///
    /// # Errors
    /// [`TraceError::File`] when the file cannot be created.
    pub fn create(path: &Path) -> Result<Self, TraceError> {
        let file = std::fs::File::create(path).map_err(|error| TraceError::File {
            path: path.display().to_string(),
            message: error.to_string(),
        })?;
        Ok(Self {
            out: Mutex::new(std::io::BufWriter::new(file)),
        })
    }
}

impl SpanExporter for JsonlExporter {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let mut out = self.out.lock().map_err(|_| {
            OTelSdkError::InternalFailure("the trace file's lock is poisoned".into())
        })?;
        for span in &batch {
            let line = span_line(span);
            writeln!(out, "{line}")
                .map_err(|error| OTelSdkError::InternalFailure(error.to_string()))?;
        }
        // Each batch reaches the file: a run that crashes later keeps what it traced.
        out.flush()
            .map_err(|error| OTelSdkError::InternalFailure(error.to_string()))
    }

    fn force_flush(&self) -> OTelSdkResult {
        match self.out.lock() {
            Ok(mut out) => out
                .flush()
                .map_err(|error| OTelSdkError::InternalFailure(error.to_string())),
            Err(_) => Err(OTelSdkError::InternalFailure(
                "the trace file's lock is poisoned".into(),
            )),
        }
    }
}

/// One span as its JSON line.
pub(crate) fn span_line(span: &SpanData) -> serde_json::Value {
    let parent = (span.parent_span_id != SpanId::INVALID).then(|| span.parent_span_id.to_string());
    let events: Vec<serde_json::Value> = span
        .events
        .iter()
        .map(|event| {
            json!({
                "name": event.name,
                "time_unix_nano": unix_nanos(event.timestamp),
                "attributes": attributes(&event.attributes),
            })
        })
        .collect();
    let status = match &span.status {
        Status::Unset => json!({"code": "unset"}),
        Status::Ok => json!({"code": "ok"}),
        Status::Error { description } => json!({"code": "error", "message": description}),
    };
    json!({
        "name": span.name,
        "trace_id": span.span_context.trace_id().to_string(),
        "span_id": span.span_context.span_id().to_string(),
        "parent_span_id": parent,
        "kind": kind(&span.span_kind),
        "start_time_unix_nano": unix_nanos(span.start_time),
        "end_time_unix_nano": unix_nanos(span.end_time),
        "status": status,
        "attributes": attributes(&span.attributes),
        "events": events,
    })
}

fn kind(kind: &SpanKind) -> &'static str {
    match kind {
        SpanKind::Client => "client",
        SpanKind::Server => "server",
        SpanKind::Producer => "producer",
        SpanKind::Consumer => "consumer",
        SpanKind::Internal => "internal",
    }
}

fn unix_nanos(time: SystemTime) -> u64 {
    time.duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_nanos()).unwrap_or(u64::MAX)
        })
}

/// Attributes as one flat object: `{"gen_ai.tool.name": "grep", ...}`.
fn attributes(attributes: &[KeyValue]) -> serde_json::Value {
    let mut flat = Map::new();
    for attribute in attributes {
        flat.insert(attribute.key.to_string(), value(&attribute.value));
    }
    serde_json::Value::Object(flat)
}

fn value(value: &Value) -> serde_json::Value {
    match value {
        Value::Bool(value) => json!(value),
        Value::I64(value) => json!(value),
        Value::F64(value) => json!(value),
        Value::String(value) => json!(value.as_str()),
        Value::Array(array) => match array {
            opentelemetry::Array::Bool(values) => json!(values),
            opentelemetry::Array::I64(values) => json!(values),
            opentelemetry::Array::F64(values) => json!(values),
            opentelemetry::Array::String(values) => {
                json!(values
                    .iter()
                    .map(|value| value.as_str())
                    .collect::<Vec<_>>())
            }
            _ => serde_json::Value::Null,
        },
        _ => json!(value.to_string()),
    }
}
