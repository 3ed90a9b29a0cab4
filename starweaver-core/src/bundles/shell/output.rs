//! What the shell tools return: status, exit code, signal, output and
//! duration as content; the stream accounting as metadata; a plain
//! `note` when output was cut or the command did not end on its own.

use serde_json::{json, Value};

use crate::bounds::head;
use crate::environment::{ProcessOutput, ProcessSnapshot, ProcessStatus, StreamCapture};
use crate::tools::ToolResult;
use crate::JsonMap;

/// Serialized bytes of output (both streams together) one return
/// carries: what fits the registry's default return bound
/// ([`crate::tools::DEFAULT_MAX_RETURN_BYTES`], 256 KiB) with room for
/// the other fields and the notes. Past it each stream is cut here, on
/// a character boundary and with a note, instead of the registry cutting
/// the whole return into a string.
const MAX_RETURNED_OUTPUT_BYTES: usize = 160 * 1024;

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
    pub(super) fn of_output(output: ProcessOutput, max_output_bytes: Option<u64>) -> Self {
        Self::build(output, max_output_bytes, false)
    }

    /// [`Self::of_output`] for a foreground command, or for a background
    /// process (whose advice on time limits differs).
    fn build(mut output: ProcessOutput, max_output_bytes: Option<u64>, background: bool) -> Self {
        if let Some(bound) = max_output_bytes {
            narrow(&mut output.stdout, bound);
            narrow(&mut output.stderr, bound);
        }
        fit(
            &mut output.stdout,
            &mut output.stderr,
            MAX_RETURNED_OUTPUT_BYTES,
        );
        let mut notes = Vec::new();
        for (name, stream) in [("stdout", &output.stdout), ("stderr", &output.stderr)] {
            notes.extend(stream_notes(name, stream));
        }
        if output.status == ProcessStatus::TimedOut {
            let advice = if background {
                "start it again with a larger `timeout_ms`, or without one to let it run until \
                 it ends or is stopped"
            } else {
                "give it a larger `timeout_ms`, or run it with `background: true`"
            };
            notes.push(format!(
                "the command ran past its time limit (stopped after {} ms); {advice}",
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
        let mut report = Self::build(snapshot.output, max_output_bytes, true);
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
        result.metadata = self.metadata.into();
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
    cut(stream, kept);
}

/// Keeps the first `kept` bytes of the text (a character boundary) and
/// makes the accounting say so.
fn cut(stream: &mut StreamCapture, kept: usize) {
    stream.text.truncate(kept);
    stream.captured_bytes = stream.captured_bytes.min(kept as u64);
    stream.truncated = stream.bytes > stream.captured_bytes;
}

/// Cuts both streams so their text, as JSON strings, takes at most
/// `budget` bytes: a stream within half of it keeps everything and the
/// other gets the rest, else each gets half.
fn fit(stdout: &mut StreamCapture, stderr: &mut StreamCapture, budget: usize) {
    let out = escaped_len(&stdout.text);
    let err = escaped_len(&stderr.text);
    if out.saturating_add(err) <= budget {
        return;
    }
    let half = budget / 2;
    let (out_share, err_share) = if out <= half {
        (out, budget - out)
    } else if err <= half {
        (budget - err, err)
    } else {
        (half, budget - half)
    };
    for (stream, share) in [(stdout, out_share), (stderr, err_share)] {
        let kept = escaped_prefix(&stream.text, share);
        if kept < stream.text.len() {
            cut(stream, kept);
        }
    }
}

/// Bytes `text` takes inside a JSON string.
fn escaped_len(text: &str) -> usize {
    text.chars()
        .fold(0usize, |total, c| total.saturating_add(escaped_char_len(c)))
}

/// The longest prefix of `text` (in bytes, on a character boundary)
/// taking at most `budget` bytes inside a JSON string.
fn escaped_prefix(text: &str, budget: usize) -> usize {
    let mut total = 0usize;
    for (at, c) in text.char_indices() {
        total = total.saturating_add(escaped_char_len(c));
        if total > budget {
            return at;
        }
    }
    text.len()
}

/// Bytes one character takes inside a JSON string, as `serde_json`
/// writes it.
fn escaped_char_len(c: char) -> usize {
    match c {
        '"' | '\\' | '\n' | '\r' | '\t' | '\u{8}' | '\u{c}' => 2,
        c if u32::from(c) < 0x20 => 6,
        c => c.len_utf8(),
    }
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
            sandbox: None,
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
    fn escaped_sizes_match_what_serde_json_writes() {
        let text = "a\"\\\n\r\t\u{8}\u{c}\u{1}\u{1f}\u{7f}é😀";
        let written = serde_json::to_string(text).unwrap_or_default();
        assert_eq!(escaped_len(text), written.len() - 2);
        for budget in 0..written.len() {
            let kept = escaped_prefix(text, budget);
            assert!(text.is_char_boundary(kept));
            assert!(escaped_len(&text[..kept]) <= budget);
        }
    }

    #[test]
    fn both_streams_fit_one_budget_and_a_small_one_is_kept_whole() {
        let mut small = output("ok\n", 3);
        small.stderr = output(&"e".repeat(1_000), 1_000).stdout;
        let result = Report::of_output(small.clone(), None).into_result();
        assert_eq!(result.content["stderr"].as_str().map(str::len), Some(1_000));
        let (mut out, mut err) = (small.stdout.clone(), small.stderr.clone());
        fit(&mut out, &mut err, 100);
        assert_eq!((out.text.as_str(), err.text.len()), ("ok\n", 96));
        assert!(err.truncated && !out.truncated);
        let (mut out, mut err) = (output(&"\u{1}".repeat(50), 50).stdout, small.stderr);
        fit(&mut out, &mut err, 100);
        assert_eq!((out.text.len(), err.text.len()), (8, 50));
        assert_eq!(out.captured_bytes, 8);
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
