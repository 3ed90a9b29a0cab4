//! The shell policy enforced by the local provider itself: allowlist
//! bypasses (paths for allowed names, shell operators in arguments,
//! loader and lookup overrides, scripts) are refused or stay literal,
//! foreground and background alike.

use std::os::unix::fs::PermissionsExt;

use starweaver::environment::{
    EnvironmentError, EnvironmentProvider, ProcessShellProvider, ProgramCommand, ShellCommand,
    ShellPolicy, RULE_ENV_UNDER_ALLOWLIST, RULE_EXECUTION_DISABLED, RULE_PROGRAM_NOT_ALLOWED,
    RULE_SHELL_UNDER_ALLOWLIST,
};

use super::provider;

fn rule<T: std::fmt::Debug>(result: Result<T, EnvironmentError>) -> &'static str {
    match result {
        Err(EnvironmentError::PolicyDenied { rule, .. }) => rule,
        other => panic!("expected a policy refusal, got {other:?}"),
    }
}

#[tokio::test]
async fn shell_operators_in_an_allowed_programs_arguments_stay_literal() {
    let (dir, provider) = provider();
    let provider = provider.with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    let hostile = [
        "hi; touch pwned",
        "$(touch pwned2)",
        "`touch pwned3`",
        "| touch pwned4",
    ];
    let output = provider
        .run_program(&ProgramCommand::new("echo", hostile))
        .await
        .unwrap();
    assert!(output.success(), "{output:?}");
    assert_eq!(output.stdout.text, format!("{}\n", hostile.join(" ")));
    for file in ["pwned", "pwned2", "pwned3", "pwned4"] {
        assert!(!dir.path().join(file).exists(), "{file} was created");
    }
}

#[tokio::test]
async fn paths_naming_an_allowed_program_are_refused() {
    let (dir, provider) = provider();
    // A look-alike `./echo` in the root that would leave a mark if run.
    let fake = dir.path().join("echo");
    std::fs::write(&fake, "#!/bin/sh\ntouch ran\n").unwrap();
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    let provider = provider.with_shell_policy(ShellPolicy::allow_programs(["echo", "env"]));
    for executable in [
        "/bin/echo",
        "./echo",
        "/usr/bin/env",
        "../echo",
        "echo ",
        "ECHO",
    ] {
        let command = ProgramCommand::new(executable, ["hi"]);
        assert_eq!(
            rule(provider.run_program(&command).await),
            RULE_PROGRAM_NOT_ALLOWED,
            "{executable}"
        );
        assert_eq!(
            rule(provider.start_program(&command).await),
            RULE_PROGRAM_NOT_ALLOWED,
            "{executable} in the background"
        );
    }
    assert!(!dir.path().join("ran").exists());
}

#[tokio::test]
async fn lookup_and_loader_overrides_are_refused_under_an_allowlist() {
    let (_dir, provider) = provider();
    let provider = provider.with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    for variable in ["PATH", "LD_PRELOAD", "LD_LIBRARY_PATH"] {
        let command = ProgramCommand::new("echo", ["hi"]).with_env(variable, "/tmp");
        assert_eq!(
            rule(provider.run_program(&command).await),
            RULE_ENV_UNDER_ALLOWLIST
        );
        assert_eq!(
            rule(provider.start_program(&command).await),
            RULE_ENV_UNDER_ALLOWLIST
        );
    }
}

#[tokio::test]
async fn scripts_are_refused_under_an_allowlist_and_everything_when_disabled() {
    let (dir, provider) = provider();
    let allowlisted = provider.with_shell_policy(ShellPolicy::allow_programs(["echo"]));
    let script = ShellCommand::shell("echo hi; touch pwned");
    assert_eq!(
        rule(allowlisted.run_shell(&script).await),
        RULE_SHELL_UNDER_ALLOWLIST
    );
    assert_eq!(
        rule(allowlisted.start_shell(&script).await),
        RULE_SHELL_UNDER_ALLOWLIST
    );
    let disabled = allowlisted.with_shell_policy(ShellPolicy::disabled());
    assert_eq!(
        rule(disabled.run_shell(&script).await),
        RULE_EXECUTION_DISABLED
    );
    let echo = ProgramCommand::new("echo", ["hi"]);
    assert_eq!(
        rule(disabled.start_program(&echo).await),
        RULE_EXECUTION_DISABLED
    );
    assert!(!dir.path().join("pwned").exists());
}
