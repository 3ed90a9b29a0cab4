//! What the shell tools return: status, exit code, signal, output and
//! duration as content; the stream accounting as metadata; a plain
//! `note` when output was cut or the command did not end on its own.

use serde_json::{json, Value};

use crate::bounds::head;
use crate::environment::{ProcessOutput, ProcessSnapshot, ProcessStatus, StreamCapture};
use crate::tools::ToolResult;
use crate::JsonMap;

/// A tool return being put together.
#[derive(Debug)]
pub(super) struct Report {
    content: JsonMap,
    metadata: JsonMap,
    notes: Vec<String>,
}

impl Report {
    /// A command's result, each stream cut further to `max_output_bytes`
    /// when the host set that bound.
    pub(super) fn of_output(mut output: ProcessOutput, max_output_bytes: Option<u64>) -> Self {
        if let Some(bound) = max_output_bytes {
            narrow(&mut output.stdout, bound);
            narrow(&mut output.stderr, bound);
        }
        let mut notes = Vec::new();
        for (name, stream) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            notes.extend(stream_notes(name, stream));
        }
        if output.status == ProcessStatus::TimedOut {
            notes.push(format!(
                "the command ran past its time limit ({} ms) and was stopped; give it a larger \
                 `timeout_ms`, or run it with `background: true`",
                output.duration_ms
            ));
        }
        let metadata = output.metadata();
        let mut content = JsonMap::new();
        content.insert("status".into(), json!(output.status));
        content.insert("exit_code".into(), json!(output.exit_code));
        content.insert("signal".into(), json!(output.signal));
        content.insert("stdout".into(), Value::String(output.stdout.text));
        content.insert("stderr".into(), Value::String(output.stderr.text));
        content.insert("duration_ms".into(), json!(output.duration_ms));
        Self {
            content,
            metadata,
            notes,
        }
    }

    /// A background process's state, as [`Self::of_output`] plus its
    /// `id` and `command` (and `process_id` metadata).
    pub(super) fn of_snapshot(snapshot: ProcessSnapshot, max_output_bytes: Option<u64>) -> Self {
        let mut report = Self::of_output(snapshot.output, max_output_bytes);
        report
            .content
            .insert("id".into(), Value::String(snapshot.id.clone()));
        report
            .content
            .insert("command".into(), Value::String(snapshot.command));
        report
            .metadata
            .insert("process_id".into(), Value::String(snapshot.id));
        report
    }

    /// True while the process runs.
    pub(super) fn is_running(&self) -> bool {
        self.content.get("status") == Some(&json!(ProcessStatus::Running))
    }

    /// Adds a sentence to `note`.
    #[must_use]
    pub(super) fn with_note(mut self, note: impl Into<String>) -> Self {
        self.notes.push(note.into());
        self
    }

    /// The tool result: content (with `note` when there is one) and the
    /// stream metadata.
    pub(super) fn into_result(mut self) -> ToolResult {
        if !self.notes.is_empty() {
            self.content
                .insert("note".into(), Value::String(self.notes.join("; ")));
        }
        let mut result = ToolResult::new(Value::Object(self.content));
        result.metadata = self.metadata;
        result
    }
}

/// Cuts a stream's kept text to `bound` bytes (on a character boundary).
fn narrow(stream: &mut StreamCapture, bound: u64) {
    let limit = usize::try_from(bound).unwrap_or(usize::MAX);
    if stream.text.len() <= limit {
        return;
    }
    let kept = head(&stream.text, limit).len();
    stream.text.truncate(kept);
    stream.captured_bytes = stream.captured_bytes.min(kept as u64);
    stream.truncated = stream.bytes > stream.captured_bytes;
}

/// What the model should know about one stream: that it was cut, or
/// may be incomplete.
fn stream_notes(name: &str, stream: &StreamCapture) -> Vec<String> {
    let mut notes = Vec::new();
    if stream.truncated {
        notes.push(format!(
            "{name} was cut to {} of {} bytes: filter the output (grep, tail) or write it to a \
             file and read parts of it",
            stream.captured_bytes, stream.bytes
        ));
    }
    if stream.drain_timed_out {
        notes.push(format!(
            "{name} may be incomplete: something the command started kept it open after the \
             command ended"
        ));
    }
    if stream.capture_failed {
        notes.push(format!("{name} may be incomplete: reading it failed"));
    }
    notes
}

#[cfg(test)]
mod tests {
    use super::*;

    fn output(stdout: &str, bytes: u64) -> ProcessOutput {
        ProcessOutput {
            status: ProcessStatus::Exited,
            exit_code: Some(0),
            signal: None,
            stdout: StreamCapture {
                text: stdout.to_string(),
                bytes,
                captured_bytes: stdout.len() as u64,
                truncated: bytes > stdout.len() as u64,
                ..StreamCapture::default()
            },
            stderr: StreamCapture::default(),
            duration_ms: 3,
        }
    }

    #[test]
    fn cut_output_is_noted_and_counted() {
        let result = Report::of_output(output("abcdef", 10), None).into_result();
        assert_eq!(result.content["stdout"], "abcdef");
        let note = result.content["note"].as_str().unwrap_or_default();
        assert!(note.contains("stdout was cut to 6 of 10 bytes"), "{note}");
        assert_eq!(result.metadata["stdout_truncated"], true);
        let clean = Report::of_output(output("ok", 2), None).into_result();
        assert!(clean.content.get("note").is_none());
        assert_eq!(clean.content["status"], "exited");
    }

    #[test]
    fn the_host_bound_narrows_on_character_boundaries() {
        let result = Report::of_output(output("héllo", 6), Some(2)).into_result();
        assert_eq!(result.content["stdout"], "h");
        assert_eq!(result.metadata["stdout_captured_bytes"], 1);
        assert_eq!(result.metadata["stdout_bytes"], 6);
        let note = result.content["note"].as_str().unwrap_or_default();
        assert!(note.contains("cut to 1 of 6 bytes"), "{note}");
    }
}
