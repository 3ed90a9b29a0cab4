#![allow(clippy::unwrap_used, clippy::expect_used)]

use super::*;

/// The reference's full example, every section filled in.
pub(crate) const FULL: &str = crate::reference::FULL_EXAMPLE;

#[test]
fn the_documented_manifest_reads_into_the_types() {
    let manifest: Manifest = serde_saphyr::from_str(FULL).unwrap();
    assert_eq!(manifest.version, MANIFEST_VERSION);
    assert_eq!(manifest.model.id, "test");
    assert_eq!(manifest.toolsets.len(), 8);
    assert!(
        matches!(&manifest.toolsets[0], ToolsetSpec::Tools(tools) if tools.tools == ["lookup"])
    );
    assert!(matches!(manifest.toolsets[3], ToolsetSpec::UserInput(_)));
    let shell = manifest.shell.unwrap();
    assert!(shell.allow_execute);
    assert_eq!(shell.allowed_programs, ["git", "cargo"]);
    let sandbox = shell.sandbox.unwrap();
    assert_eq!(sandbox.mode, SandboxModeSpec::ReadOnly);
    assert_eq!(sandbox.writable, ["target"]);
    assert_eq!(
        manifest.runtime.unwrap().unavailable_tools,
        UnavailableTools::Skip
    );
}

#[test]
fn unknown_keys_are_errors_at_every_depth() {
    for bad in [
        "version: 1\nname: a\nmodel: {id: test}\ninstruction: hi\n",
        "version: 1\nname: a\nmodel: {id: test, temprature: 1}\n",
        "version: 1\nname: a\nmodel: {id: test}\ntoolsets: [{type: filesystem, readonly: true}]\n",
        "version: 1\nname: a\nmodel: {id: test}\nshell: {allow_exec: true}\n",
    ] {
        assert!(serde_saphyr::from_str::<Manifest>(bad).is_err(), "{bad}");
    }
}

#[test]
fn left_out_settings_never_widen_authority() {
    let manifest: Manifest =
        serde_saphyr::from_str("version: 1\nname: a\nmodel: {id: test}\nshell: {}\n").unwrap();
    assert!(!manifest.shell.unwrap().allow_execute);
    let bare: Manifest =
        serde_saphyr::from_str("version: 1\nname: a\nmodel: {id: test}\n").unwrap();
    assert!(bare.shell.is_none() && bare.toolsets.is_empty() && bare.environment.is_none());
}

#[test]
fn a_sandbox_left_half_out_keeps_the_safe_defaults() {
    let manifest: Manifest = serde_saphyr::from_str(
        "version: 1\nname: a\nmodel: {id: test}\nshell: {allow_execute: true, sandbox: {}}\n",
    )
    .unwrap();
    let sandbox = manifest.shell.unwrap().sandbox.unwrap();
    assert_eq!(sandbox, SandboxSpec::default());
    assert_eq!(sandbox.mode, SandboxModeSpec::WorkspaceWrite);
    assert_eq!(sandbox.read, SandboxReadSpec::All);
    assert!(!sandbox.network && sandbox.required && sandbox.writable.is_empty());
    for bad in [
        "shell: {sandbox: {mode: readonly}}",
        "shell: {sandbox: {network: 1}}",
        "shell: {sandbox: {writeable: [target]}}",
        "shell: {sandbox: {read: home}}",
    ] {
        let text = format!("version: 1\nname: a\nmodel: {{id: test}}\n{bad}\n");
        assert!(serde_saphyr::from_str::<Manifest>(&text).is_err(), "{bad}");
    }
}

#[test]
fn approval_is_a_list_or_all() {
    let manifest: Manifest = serde_saphyr::from_str(
        "version: 1\nname: a\nmodel: {id: test}\ntoolsets:\n  - {type: shell, approval_required: true}\n  - {type: filesystem, approval_required: [write_file]}\n",
    )
    .unwrap();
    assert!(
        matches!(&manifest.toolsets[0], ToolsetSpec::Shell(s) if s.approval_required == ApprovalRequired::All(true))
    );
    assert!(
        matches!(&manifest.toolsets[1], ToolsetSpec::Filesystem(f) if f.approval_required == ApprovalRequired::Tools(vec!["write_file".into()]))
    );
}

#[test]
fn the_schema_comes_from_the_types() {
    let schema = serde_json::to_value(schemars::schema_for!(Manifest)).unwrap();
    let required = schema["required"].as_array().unwrap();
    for field in ["version", "name", "model"] {
        assert!(required.iter().any(|r| r == field), "{field}");
    }
    assert_eq!(schema["additionalProperties"], false);
}
