//! The command line as a library: a host that shows or stores run output
//! its own way masks secrets through `starweaver::cli::mask`, with the
//! rule the `starweaver` binary applies.

use std::collections::BTreeMap;

use serde_json::json;
use starweaver::cli::mask::{is_secret, Redactor, MASK};
use starweaver::config::secrets::is_secret_name;

#[test]
fn a_library_user_masks_secret_values_in_text_and_json() {
    let vars = BTreeMap::from([
        ("GITHUB_TOKEN".to_string(), "ghp_s3cr3t_value".to_string()),
        ("REGION".to_string(), "eu-west-1".to_string()),
    ]);
    let redactor = Redactor::for_vars(&vars);
    // By name: the last word of `GITHUB_TOKEN` is a secret word, `REGION`'s is not.
    assert!(is_secret_name("GITHUB_TOKEN") && !is_secret_name("REGION"));
    assert_eq!(
        redactor.text("pushing with ghp_s3cr3t_value to eu-west-1"),
        format!("pushing with {MASK} to eu-west-1")
    );
    let mut record = json!({
        "kind": "tool_call",
        "args": {"header": "Bearer ghp_s3cr3t_value", "region": "eu-west-1"}
    });
    redactor.json(&mut record);
    assert_eq!(record["args"]["header"], format!("Bearer {MASK}"));
    assert_eq!(record["args"]["region"], "eu-west-1");
    assert!(!redactor.finds_in_values(&record));
    // A manifest's `secret_vars` makes any name secret; more values join every clone.
    let declared = vec!["DEPLOY_TARGET".to_string()];
    assert!(is_secret("DEPLOY_TARGET", &declared));
    let shared = redactor.clone();
    redactor.add([("DEPLOY_TARGET".to_string(), "prod-cluster-7".to_string())]);
    assert_eq!(shared.text("to prod-cluster-7"), format!("to {MASK}"));
}
