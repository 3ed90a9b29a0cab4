//! A kernel that cannot enforce the policy: refused while required,
//! run with what it enforces (and said so) when not.

use serde_json::json;
use starweaver::environment::{SandboxKernel, SandboxPolicy};
use starweaver::model::ToolReturnKind;

use super::{stdout, Sandboxed};

#[tokio::test]
async fn required_refuses_every_command_on_a_kernel_without_landlock() {
    let shell = Sandboxed::with(|provider| provider.with_sandbox_kernel(SandboxKernel::none()));
    for arguments in [
        json!({"command": "echo ran > inside.txt"}),
        json!({"program": "touch", "args": ["inside.txt"]}),
        json!({"command": "echo ran > inside.txt", "background": true}),
    ] {
        let part = shell.exec(arguments.clone()).await;
        assert_ne!(
            part.kind,
            ToolReturnKind::Success,
            "{arguments}: {}",
            part.content
        );
        let message = part.content["message"].as_str().unwrap_or_default();
        assert!(message.contains("Landlock"), "{message}");
        assert!(message.contains("required: false"), "{message}");
        assert!(message.contains("mode: off"), "{message}");
        assert_eq!(
            part.content["details"]["error"], "sandbox_unavailable",
            "{}",
            part.content
        );
    }
    assert!(
        !shell.inside("inside.txt").exists(),
        "a refused command ran"
    );
}

#[tokio::test]
async fn not_required_runs_and_says_what_was_not_enforced() {
    let shell = Sandboxed::with(|provider| {
        provider
            .with_sandbox(SandboxPolicy::default().with_required(false))
            .with_sandbox_kernel(SandboxKernel::none())
    });
    let part = shell.script("echo ran").await;
    assert_eq!(stdout(&part), "ran\n");
    let sandbox = &part.metadata["sandbox"];
    assert_eq!(sandbox["mode"], "workspace-write", "{sandbox}");
    assert!(sandbox.get("landlock_abi").is_none(), "{sandbox}");
    let missing = sandbox["not_enforced"].as_array().unwrap();
    assert!(
        missing
            .iter()
            .any(|entry| entry.as_str().unwrap_or_default().starts_with("Landlock")),
        "{sandbox}"
    );
}

#[tokio::test]
async fn a_kernel_without_scoping_is_reported_not_refused() {
    if !super::has_abi(6) {
        return;
    }
    let shell = Sandboxed::with(|provider| {
        provider.with_sandbox_kernel(SandboxKernel::detect().with_landlock_abi(5))
    });
    let part = shell.script("echo ran").await;
    assert_eq!(stdout(&part), "ran\n");
    let sandbox = &part.metadata["sandbox"];
    assert_eq!(sandbox["landlock_abi"], 5, "{sandbox}");
    assert_eq!(sandbox["scoped"], false, "{sandbox}");
    assert!(
        sandbox["not_enforced"][0]
            .as_str()
            .unwrap()
            .contains("signal"),
        "{sandbox}"
    );
}

#[tokio::test]
async fn off_runs_without_a_sandbox_anywhere() {
    let shell = Sandboxed::with(|provider| {
        provider
            .with_sandbox(SandboxPolicy::off())
            .with_sandbox_kernel(SandboxKernel::none())
    });
    let target = shell.out("written.txt");
    let part = shell
        .script(&format!("echo off > {}; echo ran", target.display()))
        .await;
    assert_eq!(stdout(&part), "ran\n");
    assert!(
        target.exists(),
        "mode off is today's behaviour: writes anywhere"
    );
    assert_eq!(part.metadata["sandbox"]["mode"], "off");
}
