//! A stored run's variables as a worker runs it: the store keeps every secret masked, so the
//! worker gives secret values from its own `--var` or environment.

use std::collections::BTreeMap;

use crate::mask::MASK;

/// The variables to run a stored run with: its stored `vars`, with each masked (secret) value
/// replaced by the worker's `--var` of that name, else the environment variable of that name
/// (as written, then in upper case).
///
/// # Errors
/// A message naming every secret variable the worker cannot give.
pub(crate) fn run_vars(
    stored: &BTreeMap<String, String>,
    worker: &BTreeMap<String, String>,
    env: impl Fn(&str) -> Option<String>,
) -> Result<BTreeMap<String, String>, String> {
    let mut vars = BTreeMap::new();
    let mut missing = Vec::new();
    for (name, value) in stored {
        if value != MASK {
            vars.insert(name.clone(), value.clone());
            continue;
        }
        let given = worker
            .get(name)
            .cloned()
            .or_else(|| env(name))
            .or_else(|| env(&name.to_uppercase()));
        match given {
            Some(value) => {
                vars.insert(name.clone(), value);
            }
            None => missing.push(name.as_str()),
        }
    }
    if missing.is_empty() {
        return Ok(vars);
    }
    Err(format!(
        "the run needs its secret variable(s) {} (the store never keeps a secret): start the \
         worker with --var NAME=VALUE or the variable in its environment (as named, or in upper \
         case)",
        missing
            .iter()
            .map(|name| format!("`{name}`"))
            .collect::<Vec<_>>()
            .join(", ")
    ))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn map(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(name, value)| ((*name).to_string(), (*value).to_string()))
            .collect()
    }

    #[test]
    fn masked_values_come_from_the_worker_and_a_missing_one_is_named() {
        let stored = map(&[("tone", "short"), ("api_key", MASK), ("db_token", MASK)]);
        let worker = map(&[("api_key", "from-flag")]);
        let env = |name: &str| (name == "DB_TOKEN").then(|| "from-env".to_string());
        let vars = run_vars(&stored, &worker, env).unwrap();
        assert_eq!(
            vars,
            map(&[
                ("tone", "short"),
                ("api_key", "from-flag"),
                ("db_token", "from-env")
            ])
        );
        let error = run_vars(&stored, &BTreeMap::new(), |_| None).unwrap_err();
        assert!(error.contains("`api_key`, `db_token`"), "{error}");
    }
}
