//! A stored run as `starweaver runs` shows it, in JSON and in text. Nothing clock-relative
//! (no ages), so the same store always shows the same.

use serde_json::{json, Value};
use starweaver_core::runs::StoredRun;

/// A time the store read (milliseconds since the Unix epoch) as RFC 3339 in UTC, to the
/// millisecond.
#[must_use]
pub(crate) fn time(ms: u64) -> String {
    i64::try_from(ms)
        .ok()
        .and_then(chrono::DateTime::from_timestamp_millis)
        .map_or_else(
            || ms.to_string(),
            |at| at.to_rfc3339_opts(chrono::SecondsFormat::Millis, true),
        )
}

/// What `runs list --json` shows of a run.
#[must_use]
pub(crate) fn summary(run: &StoredRun) -> Value {
    json!({
        "id": run.id.as_str(),
        "agent": run.agent,
        "status": run.status.as_str(),
        "created_at": time(run.created_at),
        "updated_at": time(run.updated_at),
    })
}

/// What `runs show --json` shows: the summary, the prompt, the (masked) variables, the calls
/// it waits for and the answers given, the output, usage and error. A run whose agent has an
/// output schema has the validated object as `output` and the model's text as `text`, as
/// `run --json`'s `run_finished` record does.
#[must_use]
pub(crate) fn detail(run: &StoredRun) -> Value {
    let mut value = summary(run);
    let pending: Vec<Value> = run
        .waiting
        .as_ref()
        .map(|state| {
            state
                .pending()
                .iter()
                .map(crate::json::pending_call)
                .collect()
        })
        .unwrap_or_default();
    if let Value::Object(map) = &mut value {
        map.insert("manifest_digest".into(), json!(run.manifest_digest));
        map.insert("prompt".into(), json!(run.prompt));
        map.insert("vars".into(), json!(run.vars));
        map.insert("pending".into(), Value::Array(pending));
        map.insert("answers".into(), json!(run.answers));
        match &run.structured_output {
            Some(structured) => {
                map.insert("output".into(), structured.clone());
                map.insert("text".into(), json!(run.output));
            }
            None => {
                map.insert("output".into(), json!(run.output));
            }
        }
        map.insert("usage".into(), json!(run.usage));
        map.insert("error".into(), json!(run.error));
    }
    value
}

/// `runs list` as text: an aligned table, oldest first.
#[must_use]
pub(crate) fn table(runs: &[StoredRun]) -> String {
    if runs.is_empty() {
        return "no runs in the store\n".to_string();
    }
    let rows: Vec<[String; 4]> = runs
        .iter()
        .map(|run| {
            [
                run.id.as_str().to_string(),
                run.status.as_str().to_string(),
                run.agent.clone(),
                time(run.updated_at),
            ]
        })
        .collect();
    let header = ["ID", "STATUS", "AGENT", "UPDATED"];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut text = String::new();
    let mut line = |cells: [&str; 4]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(cell, width)| format!("{cell:<width$}"))
            .collect();
        text.push_str(padded.join("  ").trim_end());
        text.push('\n');
    };
    line(header);
    for row in &rows {
        line([&row[0], &row[1], &row[2], &row[3]]);
    }
    text
}

/// `runs show` as text.
#[must_use]
pub(crate) fn text(run: &StoredRun) -> String {
    let mut text = format!(
        "run {}\n  agent: {}\n  status: {}\n  created: {}\n  updated: {}\n  prompt: {}\n",
        run.id.as_str(),
        run.agent,
        run.status,
        time(run.created_at),
        time(run.updated_at),
        run.prompt
    );
    if let Some(state) = &run.waiting {
        for request in state.pending() {
            let answered = run.answers.interactions.contains_key(&request.tool_call_id)
                || run
                    .answers
                    .deferred_results
                    .contains_key(&request.tool_call_id);
            text.push_str(&format!(
                "  waits for: {} ({}, {}){}\n",
                request.tool_call_id,
                request.tool_name,
                request.request_kind(),
                if answered { ", answered" } else { "" }
            ));
        }
    }
    // The validated object of an agent with an output schema, on one line; else the text.
    let output = match &run.structured_output {
        Some(structured) => Some(structured.to_string()),
        None => run.output.clone(),
    };
    if let Some(output) = output {
        text.push_str(&format!("  output: {output}\n"));
    }
    if let Some(error) = &run.error {
        text.push_str(&format!("  error: {error}\n"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::time;

    #[test]
    fn times_are_rfc_3339_in_utc() {
        assert_eq!(time(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(time(1_764_720_000_123), "2025-12-03T00:00:00.123Z");
    }
}
