//! Where commands run: a directory inside the root, checked through the
//! confined root handle; escapes, files and missing paths are refused
//! naming the path.

use std::os::unix::fs::symlink;

use starweaver::environment::{
    EnvironmentError, EnvironmentProvider, ProcessShellProvider, ShellCommand,
};

use super::provider;

#[tokio::test]
async fn commands_run_in_the_root_or_a_directory_below_it() {
    let (dir, provider) = provider();
    std::fs::create_dir_all(dir.path().join("sub/deeper")).unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let pwd = ShellCommand::shell("pwd -P");
    let output = provider.run_shell(&pwd).await.unwrap();
    assert_eq!(output.stdout.text.trim_end(), root.to_str().unwrap());
    for given in ["sub/deeper", "/sub/deeper", "./sub/../sub/deeper/"] {
        let output = provider
            .run_shell(&pwd.clone().with_working_directory(given))
            .await
            .unwrap();
        assert_eq!(
            output.stdout.text.trim_end(),
            root.join("sub/deeper").to_str().unwrap(),
            "{given}"
        );
    }
}

#[tokio::test]
async fn escapes_files_and_missing_directories_are_refused() {
    let (dir, provider) = provider();
    let outside = tempfile::tempdir().unwrap();
    symlink(outside.path(), dir.path().join("out")).unwrap();
    std::fs::write(dir.path().join("file"), "x").unwrap();
    let touch = ShellCommand::shell("touch mark");
    let refused = |given: &str| touch.clone().with_working_directory(given);

    let error = provider.run_shell(&refused("out")).await.unwrap_err();
    assert!(
        matches!(&error, EnvironmentError::AccessDenied { path, .. } if path == "out"),
        "{error}"
    );
    let error = provider.start_shell(&refused("out")).await.unwrap_err();
    assert!(
        matches!(error, EnvironmentError::AccessDenied { .. }),
        "{error}"
    );
    let error = provider.run_shell(&refused("../x")).await.unwrap_err();
    assert!(
        matches!(error, EnvironmentError::PathEscape { .. }),
        "{error}"
    );
    let error = provider.run_shell(&refused("file")).await.unwrap_err();
    assert!(
        matches!(&error, EnvironmentError::NotADirectory { path } if path == "file"),
        "{error}"
    );
    let error = provider
        .run_shell(&refused("missing/dir"))
        .await
        .unwrap_err();
    assert!(
        matches!(&error, EnvironmentError::NotFound { path } if path == "missing/dir"),
        "{error}"
    );
    assert!(!outside.path().join("mark").exists());
}
