//! The scrubbed environment: host secrets never reach a command; the
//! inherited names, the provider's fixed variables and the command's
//! own `env` do, in that order. The host variable is set only in a child
//! test process, so no test of this process shares a changed
//! environment.

use starweaver::environment::{EnvironmentProvider, ProgramCommand, ShellCommand};

use super::{provider, run_in_child};

const SECRET_NAME: &str = "STARWEAVER_TEST_SECRET";
const SECRET_VALUE: &str = "hunter2-not-for-commands";

#[test]
fn host_secrets_are_scrubbed_and_chosen_variables_pass() {
    let stdout = run_in_child(
        "local_processes::scrubbed_env::scrubbing_child",
        &[(SECRET_NAME, SECRET_VALUE)],
    );
    assert!(stdout.contains("scrubbing checked"), "{stdout}");
}

#[tokio::test]
#[ignore = "run by host_secrets_are_scrubbed_and_chosen_variables_pass in a process of its own"]
async fn scrubbing_child() {
    assert_eq!(
        std::env::var(SECRET_NAME).as_deref(),
        Ok(SECRET_VALUE),
        "the parent sets the secret"
    );
    let (_dir, provider) = provider();
    let env = ProgramCommand::new("env", [""; 0]);
    let output = provider.run_program(&env).await.unwrap();
    assert!(output.success(), "{output:?}");
    assert!(
        !output.stdout.text.contains(SECRET_NAME),
        "{}",
        output.stdout.text
    );
    assert!(!output.stdout.text.contains(SECRET_VALUE));
    let path = std::env::var("PATH").unwrap();
    assert!(
        output.stdout.text.contains(&format!("PATH={path}\n")),
        "{}",
        output.stdout.text
    );

    let provider = provider
        .with_inherited_env([SECRET_NAME])
        .with_env("STARWEAVER_FIXED", "fixed")
        .with_env("STARWEAVER_BOTH", "fixed");
    let script = ShellCommand::shell("env").with_env("STARWEAVER_BOTH", "request");
    let text = provider.run_shell(&script).await.unwrap().stdout.text;
    assert!(
        text.contains(&format!("{SECRET_NAME}={SECRET_VALUE}\n")),
        "{text}"
    );
    assert!(text.contains("STARWEAVER_FIXED=fixed\n"));
    assert!(
        text.contains("STARWEAVER_BOTH=request\n"),
        "the command's env comes last"
    );
    assert!(
        !text.lines().any(|line| line.starts_with("PATH=")),
        "PATH is no longer inherited: {text}"
    );
    println!("scrubbing checked");
}
