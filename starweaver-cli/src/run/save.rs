//! The save file: a waiting or cancelled run, with what is needed to rebuild its agent.
//!
//! ```json
//! {"format": "starweaver-run", "version": 1, "manifest": "/abs/agents/x.yaml",
//!  "vars": {"tone": "short", "api_key": "***"}, "secret_vars": ["api_key"], "max_steps": 8,
//!  "session": {...}}
//! ```
//!
//! `session` is the session's exported state; secret variable values are masked there and in
//! `vars`, and `secret_vars` names the masked variables, so a resume must be given them again
//! with `--var`. A run whose pending calls hold a secret in their arguments is not saved:
//! masked, the call would run with the mask when approved; kept, the file would hold the secret.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::Value;
use starweaver_core::agent::{AgentHitlResults, AgentSessionState};

use crate::mask::{Redactor, MASK};
use starweaver_config::files::{read_limited, ReadLimitedError};

/// The `format` field every save file carries.
pub const FORMAT: &str = "starweaver-run";
/// The save file layout this build writes and reads.
pub const VERSION: u32 = 1;
/// The largest save file `--resume` reads.
pub const MAX_SAVE_BYTES: u64 = 64 * 1024 * 1024;

/// A saved run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct SaveFile {
    /// Always [`FORMAT`].
    pub format: String,
    /// The layout version, [`VERSION`].
    pub version: u32,
    /// The manifest, as an absolute path.
    pub manifest: PathBuf,
    /// The agent's `name` in that manifest when the run was saved, so a resume on a file that
    /// now declares another agent is refused instead of failing a call later.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent: Option<String>,
    /// The `--var` overrides (secret values masked).
    #[serde(default)]
    pub vars: BTreeMap<String, String>,
    /// The variables whose values `vars` masks (absent in files written before it was kept:
    /// then the masked values tell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret_vars: Option<Vec<String>>,
    /// The `--max-steps` override, if one was given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_steps: Option<u32>,
    /// The session's exported state (secret values masked).
    pub session: Value,
    /// Answers given to pending calls that did not run yet because others of their step still
    /// wait (a step's calls run together once every one is answered); the next resume uses
    /// them unless a flag answers the same call again.
    #[serde(default, skip_serializing_if = "no_answers")]
    pub answered: AgentHitlResults,
}

/// Whether `answers` holds nothing (and is left out of the file).
fn no_answers(answers: &AgentHitlResults) -> bool {
    answers.interactions.is_empty() && answers.deferred_results.is_empty()
}

/// Which variables are secret, and the masker of their values.
pub struct Secrets<'a> {
    /// The manifest's `secret_vars`.
    pub declared: &'a [String],
    /// Masks every secret value.
    pub redactor: &'a Redactor,
}

impl SaveFile {
    /// A save file for `state`, with secrets masked.
    ///
    /// # Errors
    /// When the state cannot be turned into JSON, when a pending call's arguments or the
    /// answers already given hold a secret value (masking them would change what the call does
    /// once it runs), or when a secret is left where masking cannot reach (an object key, an
    /// identifier).
    pub fn new(
        manifest: &Path,
        vars: &BTreeMap<String, String>,
        secrets: &Secrets<'_>,
        max_steps: Option<u32>,
        (state, answered): (&AgentSessionState, &AgentHitlResults),
    ) -> Result<Self, String> {
        refuse_secret_arguments(state, secrets.redactor)?;
        refuse_secret_answers(answered, secrets.redactor)?;
        let json = state
            .to_json()
            .map_err(|error| format!("cannot save the run: {error}"))?;
        let mut session: Value =
            serde_json::from_str(&json).map_err(|error| format!("cannot save the run: {error}"))?;
        secrets.redactor.json(&mut session);
        if secrets.redactor.finds_in_free_keys(&session, false) {
            return Err(
                "cannot save the run: a secret variable's value is a field name in the \
                        conversation's tool arguments or results, and field names are never \
                        masked; run again without --save"
                    .to_string(),
            );
        }
        Ok(Self {
            format: FORMAT.to_string(),
            version: VERSION,
            manifest: manifest.to_path_buf(),
            agent: None,
            vars: Redactor::vars_to_save(vars, secrets.declared),
            secret_vars: Some(
                Redactor::secret_names(vars, secrets.declared)
                    .into_iter()
                    .collect(),
            ),
            max_steps,
            session,
            answered: answered.clone(),
        })
    }

    /// Records the agent's name, checked on resume.
    #[must_use]
    pub fn with_agent(mut self, name: impl Into<String>) -> Self {
        self.agent = Some(name.into());
        self
    }

    /// Writes the file (via a temporary file beside it, so a failed write leaves no half file),
    /// readable by its owner only: the conversation may quote private files.
    ///
    /// # Errors
    /// A message naming the path and the failure.
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = serde_json::to_string_pretty(self)
            .map_err(|error| format!("cannot save the run: {error}"))?;
        if path.is_dir() {
            return Err(format!(
                "cannot write the save file `{}`: it is a folder; name a file with --save",
                path.display()
            ));
        }
        let (temporary, file) = create_private_temporary(path).map_err(|error| {
            format!(
                "cannot write the save file `{}`: {error}; choose a writable path with --save",
                path.display()
            )
        })?;
        fill(file, text.as_bytes())
            .and_then(|()| std::fs::rename(&temporary, path))
            .map_err(|error| {
                let _ = std::fs::remove_file(&temporary);
                format!(
                    "cannot write the save file `{}`: {error}; choose a writable path with --save",
                    path.display()
                )
            })
    }

    /// Reads and checks a save file.
    ///
    /// # Errors
    /// A message naming the path and what is wrong with it.
    pub fn read(path: &Path) -> Result<Self, String> {
        let bad = |what: String| format!("cannot resume from `{}`: {what}", path.display());
        let bytes = read_limited(path, MAX_SAVE_BYTES).map_err(|error| match error {
            ReadLimitedError::Io(error) => bad(error.to_string()),
            ReadLimitedError::NotAFile => {
                bad("it is not a regular file; give a file written by --save".to_string())
            }
            ReadLimitedError::TooLarge { .. } => bad(format!(
                "the file is larger than {MAX_SAVE_BYTES} bytes; it is not a save file"
            )),
        })?;
        let text = String::from_utf8(bytes)
            .map_err(|_| bad("the file is not UTF-8 text; give a file written by --save".into()))?;
        let value: Value = serde_json::from_str(&text)
            .map_err(|error| bad(format!("not JSON ({error}); give a file written by --save")))?;
        if value.get("format").and_then(Value::as_str) != Some(FORMAT) {
            return Err(bad(format!(
                "no `\"format\": \"{FORMAT}\"`; give a file written by --save"
            )));
        }
        match value.get("version").and_then(Value::as_u64) {
            Some(version) if version == u64::from(VERSION) => {}
            other => {
                return Err(bad(format!(
                    "save file version {} is not {VERSION}, the one this build reads",
                    other.map_or_else(|| "(missing)".to_string(), |v| v.to_string())
                )))
            }
        }
        serde_json::from_value(value).map_err(|error| bad(error.to_string()))
    }

    /// The session state, checked.
    ///
    /// # Errors
    /// A message saying why the state cannot be read.
    pub fn state(&self) -> Result<AgentSessionState, String> {
        AgentSessionState::from_json(&self.session.to_string()).map_err(|error| error.to_string())
    }

    /// The saved variables with `given` laid over them; every secret the file masked must be
    /// given again.
    ///
    /// # Errors
    /// A message naming the secret variables that are missing.
    pub fn vars_with(
        &self,
        given: &BTreeMap<String, String>,
    ) -> Result<BTreeMap<String, String>, String> {
        let mut vars = self.vars.clone();
        vars.extend(given.iter().map(|(k, v)| (k.clone(), v.clone())));
        let missing: Vec<&str> = match &self.secret_vars {
            Some(names) => names
                .iter()
                .filter(|name| !given.contains_key(name.as_str()))
                .map(String::as_str)
                .collect(),
            // A file from before `secret_vars` was kept: only secret values are saved masked.
            None => vars
                .iter()
                .filter(|(_, value)| value.as_str() == MASK)
                .map(|(name, _)| name.as_str())
                .collect(),
        };
        if missing.is_empty() {
            return Ok(vars);
        }
        let flags: Vec<String> = missing.iter().map(|n| format!("--var {n}=...")).collect();
        Err(format!(
            "the saved run needs its secret variable(s) {} again (secrets are never saved); \
             resume with {}",
            missing.join(", "),
            flags.join(" ")
        ))
    }
}

/// Refuses a state whose pending calls hold a secret value in their arguments, naming them.
fn refuse_secret_arguments(state: &AgentSessionState, redactor: &Redactor) -> Result<(), String> {
    let holding: Vec<String> = state
        .pending()
        .iter()
        .filter(|request| redactor.finds_in_values(&request.arguments))
        .map(|request| format!("`{}` (call {})", request.tool_name, request.tool_call_id))
        .collect();
    if holding.is_empty() {
        return Ok(());
    }
    Err(format!(
        "cannot save the run: the arguments of the pending call(s) {} hold a secret variable's \
         value; a save file never holds a secret, and with the value masked the call would run \
         with `{MASK}` once approved; answer the call now (at a terminal, or with --yes) instead \
         of saving it",
        holding.join(", ")
    ))
}

/// Refuses to keep answers that hold a secret value, naming their calls: kept, the file would
/// hold the secret; masked, the call would run with the mask.
fn refuse_secret_answers(answered: &AgentHitlResults, redactor: &Redactor) -> Result<(), String> {
    let interactions = answered
        .interactions
        .iter()
        .filter_map(|(id, interaction)| {
            let value = serde_json::to_value(interaction).ok()?;
            redactor.finds_in_values(&value).then_some(id)
        });
    let results = answered
        .deferred_results
        .iter()
        .filter(|(_, value)| redactor.finds_in_values(value))
        .map(|(id, _)| id);
    let holding: Vec<&String> = interactions.chain(results).collect();
    if holding.is_empty() {
        return Ok(());
    }
    Err(format!(
        "cannot save the run: the answers given to call(s) {} hold a secret variable's value,          and a save file never holds a secret; give every waiting call its answer in one resume          so they run now, instead of saving",
        holding
            .iter()
            .map(|id| format!("`{id}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

/// A new owner-only file beside `path` to write the save into before it is renamed over
/// `path`. Created with `create_new`, so an existing file or a link planted under that name is
/// never opened, followed or overwritten: the next name is tried instead.
fn create_private_temporary(path: &Path) -> std::io::Result<(PathBuf, std::fs::File)> {
    use std::os::unix::fs::OpenOptionsExt as _;
    let base = path.file_name().unwrap_or_default().to_string_lossy();
    let mut last = None;
    for attempt in 0..16u32 {
        let name = format!(".{base}.{}.{attempt}.partial", std::process::id());
        let temporary = path.with_file_name(name);
        match std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .mode(0o600)
            .open(&temporary)
        {
            Ok(file) => return Ok((temporary, file)),
            Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => last = Some(error),
            Err(error) => return Err(error),
        }
    }
    Err(last.unwrap_or_else(|| std::io::Error::other("no free temporary name")))
}

/// Writes `bytes` and syncs them to disk.
fn fill(mut file: std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write as _;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    // The temporary file was opened by a fixed name, following a link planted there: the save
    // overwrote the link's target and left it readable by all.
    #[test]
    fn a_link_planted_at_the_temporary_name_is_never_followed() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("victim.txt");
        std::fs::write(&victim, "precious").unwrap();
        let path = dir.path().join("run.json");
        let planted = dir
            .path()
            .join(format!(".run.json.{}.0.partial", std::process::id()));
        std::os::unix::fs::symlink(&victim, &planted).unwrap();
        let (temporary, file) = create_private_temporary(&path).unwrap();
        assert_ne!(temporary, planted);
        fill(file, b"{}").unwrap();
        std::fs::rename(&temporary, &path).unwrap();
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
        let meta = std::fs::symlink_metadata(&path).unwrap();
        assert!(meta.file_type().is_file());
        assert_eq!(meta.permissions().mode() & 0o777, 0o600);
    }

    #[test]
    fn secrets_are_masked_and_required_again() {
        let vars = BTreeMap::from([
            ("api_key".to_string(), "sk-1".to_string()),
            ("tone".to_string(), "dry".to_string()),
        ]);
        let session = starweaver_core::agent::AgentSession::new(
            starweaver_core::agent::AgentBuilder::new(std::sync::Arc::new(
                starweaver_core::model::TestModel::auto(),
            ))
            .build(),
        );
        let file = SaveFile::new(
            Path::new("/m.yaml"),
            &vars,
            &Secrets {
                declared: &[],
                redactor: &Redactor::for_vars(&vars),
            },
            None,
            (&session.export_state(), &AgentHitlResults::new()),
        )
        .unwrap();
        assert_eq!(file.vars["api_key"], MASK);
        let error = file.vars_with(&BTreeMap::new()).unwrap_err();
        assert!(error.contains("--var api_key=..."), "{error}");
        let again = BTreeMap::from([("api_key".to_string(), "sk-1".to_string())]);
        assert_eq!(file.vars_with(&again).unwrap()["tone"], "dry");
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        file.write(&path).unwrap();
        assert!(!std::fs::read_to_string(&path).unwrap().contains("sk-1"));
        use std::os::unix::fs::PermissionsExt as _;
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o077, 0, "{mode:o}");
        assert!(SaveFile::read(&path).unwrap().state().is_ok());
        std::fs::write(&path, "{\"format\":\"other\"}").unwrap();
        assert!(SaveFile::read(&path).unwrap_err().contains("format"));
    }

    // Regression: answers given on a resume that still waited were dropped, so a later resume
    // asked for them again; now they are kept, and one holding a secret is never written.
    #[test]
    fn answers_given_are_kept_and_a_secret_in_one_is_refused() {
        let vars = BTreeMap::from([("api_key".to_string(), "sk-12345".to_string())]);
        let session = starweaver_core::agent::AgentSession::new(
            starweaver_core::agent::AgentBuilder::new(std::sync::Arc::new(
                starweaver_core::model::TestModel::auto(),
            ))
            .build(),
        );
        let secrets = Secrets {
            declared: &[],
            redactor: &Redactor::for_vars(&vars),
        };
        let approved = AgentHitlResults::new().with_interaction(
            starweaver_core::agent::AgentHitlUserInteraction::approved("call-1"),
        );
        let file = SaveFile::new(
            Path::new("/m.yaml"),
            &vars,
            &secrets,
            None,
            (&session.export_state(), &approved),
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("run.json");
        file.write(&path).unwrap();
        assert_eq!(SaveFile::read(&path).unwrap().answered, approved);
        let leaking =
            AgentHitlResults::new().with_deferred_result("call-2", serde_json::json!("sk-12345"));
        let error = SaveFile::new(
            Path::new("/m.yaml"),
            &vars,
            &secrets,
            None,
            (&session.export_state(), &leaking),
        )
        .unwrap_err();
        assert!(error.contains("`call-2`"), "{error}");
        assert!(!error.contains("sk-12345"), "{error}");
    }

    #[test]
    fn only_the_variables_saved_secret_are_asked_again() {
        let vars = BTreeMap::from([
            ("api_key".to_string(), "sk-1".to_string()),
            // Not secret: its value only happens to be the mask.
            ("tone".to_string(), MASK.to_string()),
        ]);
        let session = starweaver_core::agent::AgentSession::new(
            starweaver_core::agent::AgentBuilder::new(std::sync::Arc::new(
                starweaver_core::model::TestModel::auto(),
            ))
            .build(),
        );
        let file = SaveFile::new(
            Path::new("/m.yaml"),
            &vars,
            &Secrets {
                declared: &[],
                redactor: &Redactor::for_vars(&vars),
            },
            None,
            (&session.export_state(), &AgentHitlResults::new()),
        )
        .unwrap();
        assert_eq!(file.secret_vars, Some(vec!["api_key".to_string()]));
        let again = BTreeMap::from([("api_key".to_string(), "sk-1".to_string())]);
        assert_eq!(file.vars_with(&again).unwrap()["tone"], MASK);
        // A file written before the list was kept: the masked values still tell.
        let mut old = file.clone();
        old.secret_vars = None;
        let error = old.vars_with(&again).unwrap_err();
        assert!(error.contains("--var tone=..."), "{error}");
    }
}
