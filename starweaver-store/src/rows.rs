//! Rows back into runs, for every backend: a row another program wrote, or one damaged, is
//! an error naming its run, never a panic, and never affects another run.
//!
//! Every backend keeps the same columns with the same meaning (text, JSON as text, times as
//! 64-bit milliseconds), so one set of rules reads them all, generic over the row type.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use sqlx::{ColumnIndex, Decode, Row, Type};
use starweaver_core::context::RunId;
use starweaver_core::runs::{
    JournalEntry, JournalKind, RunStatus, RunStore, StoreError, StoredRun,
};

/// The columns [`run`] reads, in a `SELECT` or `RETURNING` list.
pub(crate) const RUN_COLUMNS: &str = "id, agent, manifest_digest, status, prompt, vars, \
     created_at, updated_at, waiting, answers, output, structured_output, usage, error";

/// A store error for a failure of the database itself.
pub(crate) fn backend(error: &sqlx::Error) -> StoreError {
    StoreError::Backend {
        message: error.to_string(),
    }
}

/// Why `action` did not apply to run `id` in `store`: it does not exist, or its status
/// forbids it.
pub(crate) async fn refusal(
    store: &(impl RunStore + ?Sized),
    id: &RunId,
    action: &'static str,
) -> StoreError {
    match store.get(id).await {
        Err(error) => error,
        Ok(None) => StoreError::UnknownRun { run: id.clone() },
        Ok(Some(found)) => StoreError::WrongStatus {
            run: id.clone(),
            status: found.status,
            action,
        },
    }
}

/// When the lease in `row` (its `lease_expires_at`) lapses.
pub(crate) fn lease_expiry<R>(row: &R, id: &str) -> Result<u64, StoreError>
where
    R: Row,
    for<'n> &'n str: ColumnIndex<R>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    time(row, "lease_expires_at", id)
}

/// JSON text of a value this crate wrote itself.
pub(crate) fn json_text(value: &impl serde::Serialize) -> Option<String> {
    serde_json::to_string(value).ok()
}

/// The run in `row` (the [`RUN_COLUMNS`]).
pub(crate) fn run<R>(row: &R) -> Result<StoredRun, StoreError>
where
    R: Row,
    for<'n> &'n str: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let id: String = column(row, "id", "?")?;
    let corrupt = |detail: String| StoreError::Corrupt {
        run: RunId::new(id.clone()),
        detail,
    };
    let status: String = column(row, "status", &id)?;
    let status = RunStatus::parse(&status)
        .ok_or_else(|| corrupt(format!("its status `{status}` is not one a run has")))?;
    let vars: BTreeMap<String, String> = json(row, "vars", &id)?.unwrap_or_default();
    let mut stored = StoredRun::created(
        starweaver_core::runs::NewRun::new(
            column::<_, String>(row, "agent", &id)?,
            column::<_, String>(row, "prompt", &id)?,
        )
        .with_id(RunId::new(id.clone()))
        .with_manifest_digest(column::<_, String>(row, "manifest_digest", &id)?)
        .with_vars(vars),
        time(row, "created_at", &id)?,
    );
    stored.status = status;
    stored.updated_at = time(row, "updated_at", &id)?;
    stored.waiting = json(row, "waiting", &id)?;
    stored.answers = json(row, "answers", &id)?.unwrap_or_default();
    stored.output = column(row, "output", &id)?;
    stored.structured_output = json(row, "structured_output", &id)?;
    stored.usage = json(row, "usage", &id)?;
    stored.error = column(row, "error", &id)?;
    Ok(stored)
}

/// The journal entry in `row` of run `id`.
pub(crate) fn entry<R>(row: &R, id: &str) -> Result<JournalEntry, StoreError>
where
    R: Row,
    for<'n> &'n str: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let step: i64 = column(row, "step", id)?;
    let step = u32::try_from(step).map_err(|_| StoreError::Corrupt {
        run: RunId::new(id),
        detail: format!("a journal row has the step {step}"),
    })?;
    let call_id: String = column(row, "call_id", id)?;
    let kind: String = column(row, "kind", id)?;
    let kind = JournalKind::parse(&kind).ok_or_else(|| StoreError::Corrupt {
        run: RunId::new(id),
        detail: format!("a journal row has the kind `{kind}`"),
    })?;
    let payload: serde_json::Value = json(row, "payload", id)?.unwrap_or_default();
    Ok(match kind {
        JournalKind::ModelResponse => JournalEntry::model_response(step, payload),
        JournalKind::ToolReturn => JournalEntry::tool_return(step, call_id, payload),
    })
}

fn column<'r, R, T>(row: &'r R, name: &str, id: &str) -> Result<T, StoreError>
where
    R: Row,
    for<'n> &'n str: ColumnIndex<R>,
    T: Decode<'r, R::Database> + Type<R::Database>,
{
    row.try_get(name).map_err(|error| StoreError::Corrupt {
        run: RunId::new(id),
        detail: format!("its column `{name}` cannot be read: {error}"),
    })
}

pub(crate) fn time<R>(row: &R, name: &str, id: &str) -> Result<u64, StoreError>
where
    R: Row,
    for<'n> &'n str: ColumnIndex<R>,
    for<'r> i64: Decode<'r, R::Database> + Type<R::Database>,
{
    let value: i64 = column(row, name, id)?;
    u64::try_from(value).map_err(|_| StoreError::Corrupt {
        run: RunId::new(id),
        detail: format!("its `{name}` is {value}, before 1970"),
    })
}

/// A JSON column, `None` when NULL.
fn json<R, T: DeserializeOwned>(row: &R, name: &str, id: &str) -> Result<Option<T>, StoreError>
where
    R: Row,
    for<'n> &'n str: ColumnIndex<R>,
    for<'r> String: Decode<'r, R::Database> + Type<R::Database>,
{
    let text: Option<String> = column(row, name, id)?;
    text.map(|text| {
        serde_json::from_str(&text).map_err(|error| StoreError::Corrupt {
            run: RunId::new(id),
            detail: format!("its `{name}` is not what this version wrote: {error}"),
        })
    })
    .transpose()
}
