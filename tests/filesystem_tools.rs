//! The filesystem bundle and the ripgrep-style search under it: glob
//! semantics, the hidden/.agents rule, ignore rules, symlinks, grep
//! options, reads, writes, edits, error classes, the SKILL.md reminder,
//! the tool proxy and a full agent run.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use serde_json::json;
use starweaver::environment::{
    glob, grep, is_hidden_excluded, walk, EntryKind, EnvironmentError, EnvironmentProvider,
    GlobOptions, GrepOptions, SearchError, VirtualEnvironmentProvider, WalkOptions,
    ENVIRONMENT_CAPABILITY,
};
use starweaver::model::{ModelMessage, ModelResponse, ToolCallPart};
use starweaver::{
    filesystem_tools, tool_metadata_tags, tool_proxy_toolset, AgentBuilder, AgentContext,
    AgentSession, DynToolset, FunctionModel, PrefixedToolset, TestModel, ToolContext,
    ToolDependencyProfile, ToolDependencyRequirements, ToolRegistry, ToolReturnKind,
};

mod common;
use common::environment::{
    call_on, context_with, filesystem_registry, hidden_tree, match_paths, ok_on, project,
    TestEnvironment,
};
use common::{ambient, call_response, responses_so_far, strings, tool_returns};

// ---------------------------------------------------------------------------
// Helpers
// ---------------------------------------------------------------------------

async fn glob_paths(
    provider: &dyn EnvironmentProvider,
    pattern: &str,
    options: &GlobOptions,
) -> Vec<String> {
    glob(provider, pattern, options)
        .await
        .unwrap()
        .entries
        .into_iter()
        .map(|entry| entry.path)
        .collect()
}

/// A virtual provider that ignores `target/` directories and `*.log`
/// files, and reports `linked` as a symlink to `src` (listing it would
/// show `src`'s children, as following the link would).
fn rules_provider() -> TestEnvironment {
    TestEnvironment::new(
        VirtualEnvironmentProvider::new("rules")
            .with_file("src/lib.rs", "needle\n")
            .with_file("target/debug/out.rs", "needle\n")
            .with_file("build.log", "needle\n")
            .with_file("notes/run.log", "needle\n")
            .with_file("notes/today.md", "needle\n"),
    )
    .with_dir_symlink("linked", "src")
    .with_ignore_rule(|path, is_dir| {
        let name = path.rsplit('/').next().unwrap_or(path);
        (is_dir && name == "target") || (!is_dir && name.ends_with(".log"))
    })
}

// ---------------------------------------------------------------------------
// Glob semantics (library)
// ---------------------------------------------------------------------------

#[tokio::test]
async fn bare_patterns_match_at_any_depth() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(
        glob_paths(&env, "*.rs", &options).await,
        ["main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "cli.rs", &options).await,
        ["src/bin/cli.rs"]
    );
    // A leading `/` anchors a bare pattern at the search root.
    assert_eq!(glob_paths(&env, "/main.rs", &options).await, ["main.rs"]);
    assert!(glob_paths(&env, "/lib.rs", &options).await.is_empty());
}

#[tokio::test]
async fn scoped_patterns_match_one_segment_under_their_directory() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(glob_paths(&env, "src/*.rs", &options).await, ["src/lib.rs"]);
    assert_eq!(
        glob_paths(&env, "src/*/*.rs", &options).await,
        ["src/bin/cli.rs"]
    );
    assert!(glob_paths(&env, "bin/*.rs", &options).await.is_empty());
    assert!(glob_paths(&env, "missing/*.rs", &options).await.is_empty());
    // Relative to the chosen search path.
    let in_src = GlobOptions::default().with_root("src");
    assert_eq!(
        glob_paths(&env, "bin/*.rs", &in_src).await,
        ["src/bin/cli.rs"]
    );
    assert_eq!(
        glob_paths(&env, "*.rs", &in_src).await,
        ["src/bin/cli.rs", "src/lib.rs"]
    );
}

#[tokio::test]
async fn recursive_patterns_match_root_level_and_nested_files() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(
        glob_paths(&env, "**/*.rs", &options).await,
        ["main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "src/**/*.rs", &options).await,
        ["src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "**/*.{md,rs}", &options).await,
        ["docs/guide.md", "main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    // Directories only when asked for.
    let with_dirs = GlobOptions {
        include_dirs: true,
        ..GlobOptions::default()
    };
    assert_eq!(
        glob_paths(&env, "src/*", &with_dirs).await,
        ["src/bin", "src/lib.rs"]
    );
    assert_eq!(glob_paths(&env, "src/*", &options).await, ["src/lib.rs"]);
}

#[tokio::test]
async fn glob_caps_results_and_reports_truncation() {
    let env = project();
    let report = glob(&env, "**/*", &GlobOptions::default().with_max_results(2))
        .await
        .unwrap();
    assert_eq!(report.entries.len(), 2);
    assert!(report.truncated);
    let all = glob(&env, "**/*", &GlobOptions::default()).await.unwrap();
    assert_eq!(all.entries.len(), 4);
    assert!(!all.truncated);
}

#[tokio::test]
async fn bad_patterns_and_roots_are_errors_not_panics() {
    let env = project();
    for pattern in ["src/{a,b", "[z-a]", "", "../*.rs", "src/[a"] {
        let result = glob(&env, pattern, &GlobOptions::default()).await;
        assert!(
            matches!(result, Err(SearchError::InvalidGlob { .. })),
            "{pattern}: {result:?}"
        );
    }
    let result = grep(&env, "fn (", &GrepOptions::default()).await;
    let Err(SearchError::InvalidRegex { message, .. }) = result else {
        panic!("expected an invalid regex error, got {result:?}");
    };
    assert!(message.contains("unclosed group"), "{message}");
    assert!(matches!(
        glob(&env, "*.rs", &GlobOptions::default().with_root("nope")).await,
        Err(SearchError::Environment(EnvironmentError::NotFound { .. }))
    ));
    assert!(matches!(
        glob(&env, "*.rs", &GlobOptions::default().with_root("main.rs")).await,
        Err(SearchError::Environment(
            EnvironmentError::NotADirectory { .. }
        ))
    ));
    assert!(matches!(
        glob(&env, "*.rs", &GlobOptions::default().with_root("../up")).await,
        Err(SearchError::Environment(
            EnvironmentError::PathEscape { .. }
        ))
    ));
}

// ---------------------------------------------------------------------------
// Hidden paths, ignore rules, symlinks
// ---------------------------------------------------------------------------

#[tokio::test]
async fn the_roots_agents_directory_stays_visible_other_hidden_paths_do_not() {
    let env = hidden_tree();
    assert_eq!(
        glob_paths(&env, "**/*", &GlobOptions::default()).await,
        [".agents/skills/research/SKILL.md", "src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "SKILL.md", &GlobOptions::default()).await,
        [".agents/skills/research/SKILL.md"]
    );
    // With `a` as the search root, `a/.agents` is the root's direct child.
    assert_eq!(
        glob_paths(&env, "SKILL.md", &GlobOptions::default().with_root("a")).await,
        ["a/.agents/skills/x/SKILL.md"]
    );
    // A scoped pattern through a hidden directory needs include_hidden.
    assert!(glob_paths(&env, ".git/*", &GlobOptions::default())
        .await
        .is_empty());
    assert_eq!(
        glob_paths(&env, ".git/*", &GlobOptions::default().with_hidden(true)).await,
        [".git/config"]
    );
    assert_eq!(
        glob_paths(&env, ".agents/skills/*/SKILL.md", &GlobOptions::default()).await,
        [".agents/skills/research/SKILL.md"]
    );
    assert_eq!(
        glob_paths(&env, "**/*", &GlobOptions::default().with_hidden(true)).await,
        [
            ".agents/.cache/state.md",
            ".agents/skills/research/SKILL.md",
            ".env",
            ".git/config",
            "a/.agents/skills/x/SKILL.md",
            "src/lib.rs"
        ]
    );

    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    let paths: Vec<&str> = report.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, [".agents/skills/research/SKILL.md", "src/lib.rs"]);

    let walked: Vec<String> = walk(&env, "", &WalkOptions::default())
        .await
        .unwrap()
        .into_iter()
        .map(|entry| entry.path)
        .collect();
    assert_eq!(
        walked,
        [
            ".agents",
            ".agents/skills",
            ".agents/skills/research",
            ".agents/skills/research/SKILL.md",
            "a",
            "src",
            "src/lib.rs"
        ]
    );
    assert!(!is_hidden_excluded(
        "",
        ".agents/skills/research/SKILL.md",
        false
    ));
    assert!(is_hidden_excluded("", "a/.agents/skills/x/SKILL.md", false));
}

#[tokio::test]
async fn provider_ignore_rules_apply_to_walks_but_not_to_direct_listings() {
    let env = rules_provider();
    // The symlink is listed (not followed); ignored paths are not.
    assert_eq!(
        glob_paths(&env, "**/*", &GlobOptions::default()).await,
        ["linked", "notes/today.md", "src/lib.rs"]
    );
    // A scoped pattern cannot reach into an ignored directory either.
    assert!(
        glob_paths(&env, "target/debug/*.rs", &GlobOptions::default())
            .await
            .is_empty()
    );
    let unfiltered = GlobOptions {
        respect_ignore: false,
        ..GlobOptions::default()
    };
    assert_eq!(glob_paths(&env, "*.log", &unfiltered).await.len(), 2);

    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    let paths: Vec<&str> = report.matches.iter().map(|m| m.path.as_str()).collect();
    assert_eq!(paths, ["notes/today.md", "src/lib.rs"]);

    let env: Arc<dyn EnvironmentProvider> = Arc::new(rules_provider());
    let listing = ok_on(env, "ls", json!({})).await;
    let names: Vec<&str> = listing["entries"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["build.log", "linked", "notes/", "src/", "target/"]);
}

#[tokio::test]
async fn directory_symlinks_are_never_followed() {
    let env = rules_provider();
    assert_eq!(
        glob_paths(&env, "*.rs", &GlobOptions::default()).await,
        ["src/lib.rs"]
    );
    let walked = walk(&env, "", &WalkOptions::default()).await.unwrap();
    assert!(walked
        .iter()
        .all(|entry| !entry.path.starts_with("linked/")));
    assert!(walked
        .iter()
        .any(|entry| entry.path == "linked" && entry.kind == EntryKind::Symlink));
    assert!(glob_paths(&env, "linked/*.rs", &GlobOptions::default())
        .await
        .is_empty());
    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    assert!(report.matches.iter().all(|m| !m.path.starts_with("linked")));
}

#[tokio::test]
async fn walks_respect_depth_and_entry_limits() {
    let env = project();
    let shallow = walk(&env, "", &WalkOptions::default().with_max_depth(1))
        .await
        .unwrap();
    let names: Vec<&str> = shallow.iter().map(|entry| entry.path.as_str()).collect();
    assert_eq!(names, ["docs", "main.rs", "src"]);
    let capped = walk(&env, "", &WalkOptions::default().with_max_entries(2))
        .await
        .unwrap();
    assert_eq!(capped.len(), 2);
    assert!(walk(&env, "missing", &WalkOptions::default())
        .await
        .is_err());
}

// ---------------------------------------------------------------------------
// Grep (library)
// ---------------------------------------------------------------------------

#[tokio::test]
async fn grep_reports_paths_line_numbers_and_lines() {
    let env = project();
    let report = grep(&env, "FOLLOWUP", &GrepOptions::default())
        .await
        .unwrap();
    let found: Vec<(&str, usize, &str)> = report
        .matches
        .iter()
        .map(|m| (m.path.as_str(), m.line_number, m.line.as_str()))
        .collect();
    assert_eq!(
        found,
        [
            ("docs/guide.md", 2, "See FOLLOWUP list."),
            ("src/lib.rs", 2, "// FOLLOWUP: docs")
        ]
    );
    assert_eq!(report.files_searched, 4);
    assert!(!report.truncated);

    let insensitive = grep(
        &env,
        "followup",
        &GrepOptions::default().with_case_insensitive(true),
    )
    .await
    .unwrap();
    assert_eq!(insensitive.matches.len(), 3);
    let sensitive = grep(&env, "followup", &GrepOptions::default())
        .await
        .unwrap();
    assert_eq!(sensitive.matches.len(), 1);
    assert_eq!(sensitive.matches[0].line, "    followup!()");

    let anchored = grep(&env, "^fn", &GrepOptions::default()).await.unwrap();
    assert_eq!(anchored.matches.len(), 2);
}

#[tokio::test]
async fn grep_literal_mode_escapes_regex_syntax() {
    let env = VirtualEnvironmentProvider::new("t").with_file("a.txt", "a.b\naxb\n(x)\n");
    let regex = grep(&env, "a.b", &GrepOptions::default()).await.unwrap();
    assert_eq!(regex.matches.len(), 2);
    let literal = grep(
        &env,
        "a.b",
        &GrepOptions::default().with_fixed_strings(true),
    )
    .await
    .unwrap();
    assert_eq!(literal.matches.len(), 1);
    let parens = grep(
        &env,
        "(x)",
        &GrepOptions::default().with_fixed_strings(true),
    )
    .await
    .unwrap();
    assert_eq!(parens.matches[0].line_number, 3);
}

#[tokio::test]
async fn grep_caps_matches_and_reports_truncation() {
    let text: String = (1..=50).map(|n| format!("hit {n}\n")).collect();
    let env = VirtualEnvironmentProvider::new("t")
        .with_file("a.txt", &text)
        .with_file("b.txt", &text);
    let report = grep(&env, "hit", &GrepOptions::default().with_max_matches(60))
        .await
        .unwrap();
    assert_eq!(report.matches.len(), 60);
    assert!(report.truncated);
    assert_eq!(report.matches[59].path, "b.txt");
    assert_eq!(report.matches[59].line_number, 10);
    let exact = grep(&env, "hit", &GrepOptions::default().with_max_matches(100))
        .await
        .unwrap();
    assert_eq!(exact.matches.len(), 100);
    assert!(!exact.truncated);
}

#[tokio::test]
async fn grep_skips_and_counts_binary_and_non_utf8_files() {
    let env = VirtualEnvironmentProvider::new("t")
        .with_file("text.txt", "needle\n")
        .with_bytes("image.png", b"\x89PNG\0needle".to_vec())
        .with_bytes("latin1.txt", b"needle caf\xe9".to_vec());
    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    assert_eq!(report.matches.len(), 1);
    assert_eq!(report.matches[0].path, "text.txt");
    assert_eq!(report.binary_files_skipped, 2);
    assert_eq!(report.files_searched, 1);
}

#[tokio::test]
async fn grep_filters_by_glob_searches_single_files_and_adds_context() {
    let env = project();
    let only_rs = grep(&env, "FOLLOWUP", &GrepOptions::default().with_glob("*.rs"))
        .await
        .unwrap();
    assert_eq!(only_rs.matches.len(), 1);
    assert_eq!(only_rs.matches[0].path, "src/lib.rs");
    let scoped = grep(
        &env,
        "followup",
        &GrepOptions::default().with_glob("src/bin/*.rs"),
    )
    .await
    .unwrap();
    assert_eq!(scoped.matches[0].path, "src/bin/cli.rs");

    let single = grep(
        &env,
        "fn",
        &GrepOptions::default().with_root("src/bin/cli.rs"),
    )
    .await
    .unwrap();
    assert_eq!(single.matches.len(), 1);
    assert_eq!(single.files_searched, 1);

    let context = grep(
        &env,
        "followup!",
        &GrepOptions::default().with_context_lines(1),
    )
    .await
    .unwrap();
    assert_eq!(context.matches[0].before, ["fn run() {"]);
    assert_eq!(context.matches[0].after, ["}"]);

    let crlf = VirtualEnvironmentProvider::new("t").with_file("w.txt", "one\r\ntwo\r\n");
    let report = grep(&crlf, "^two$", &GrepOptions::default()).await.unwrap();
    assert_eq!(report.matches[0].line, "two");
    assert_eq!(report.matches[0].line_number, 2);
}

// ---------------------------------------------------------------------------
// The bundle: definitions
// ---------------------------------------------------------------------------

#[test]
fn every_tool_is_filtered_to_the_environment_and_documents_its_arguments() {
    let filesystem_registry = filesystem_registry();
    assert_eq!(
        filesystem_registry.names(),
        ["edit_file", "glob", "grep", "ls", "read_file", "write_file"]
    );
    for definition in filesystem_registry.definitions() {
        let requirements = ToolDependencyRequirements::from_metadata(&definition.metadata);
        assert_eq!(requirements.profile, ToolDependencyProfile::Filtered);
        assert_eq!(requirements.host_capabilities, [ENVIRONMENT_CAPABILITY]);
        let properties = definition.parameters["properties"].as_object().unwrap();
        assert!(!properties.is_empty(), "{}", definition.name);
        for (name, property) in properties {
            assert!(
                property["description"]
                    .as_str()
                    .is_some_and(|d| !d.is_empty()),
                "{}.{name} has no description",
                definition.name
            );
        }
        assert!(definition.return_schema.is_some(), "{}", definition.name);
        let tags = tool_metadata_tags(&definition.metadata);
        let mutating = ["write_file", "edit_file"].contains(&definition.name.as_str());
        assert!(tags.contains(&"filesystem".to_string()));
        assert_eq!(tags.contains(&"mutating".to_string()), mutating);
        assert_eq!(tags.contains(&"read_only".to_string()), !mutating);
        assert_eq!(definition.sequential == Some(true), mutating);
    }
    let toolset = filesystem_tools();
    assert_eq!(toolset.name(), "filesystem");
    assert_eq!(toolset.get_instructions().len(), 1);
}

// ---------------------------------------------------------------------------
// The bundle: tools
// ---------------------------------------------------------------------------

#[tokio::test]
async fn glob_and_grep_tools_follow_the_library_semantics() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    let found = ok_on(env.clone(), "glob", json!({"pattern": "*.rs"})).await;
    assert_eq!(
        strings(&found["files"]),
        ["main.rs", "src/bin/cli.rs", "src/lib.rs"]
    );
    assert_eq!(found["count"], 3);
    assert_eq!(found["truncated"], false);
    let scoped = ok_on(env.clone(), "glob", json!({"pattern": "src/*.rs"})).await;
    assert_eq!(strings(&scoped["files"]), ["src/lib.rs"]);
    let capped = ok_on(
        env.clone(),
        "glob",
        json!({"pattern": "**/*", "max_results": 1}),
    )
    .await;
    assert_eq!(capped["truncated"], true);
    assert!(capped["hint"].as_str().unwrap().contains("narrow"));

    let hits = ok_on(
        env.clone(),
        "grep",
        json!({"pattern": "followup", "case_insensitive": true, "glob": "*.rs"}),
    )
    .await;
    assert_eq!(match_paths(&hits), ["src/bin/cli.rs", "src/lib.rs"]);
    assert_eq!(hits["matches"][0]["line_number"], 2);
    let capped = ok_on(
        env.clone(),
        "grep",
        json!({"pattern": "o", "max_results": 2}),
    )
    .await;
    assert_eq!(capped["count"], 2);
    assert_eq!(capped["truncated"], true);
    let literal = ok_on(
        env.clone(),
        "grep",
        json!({"pattern": "followup!()", "literal": true}),
    )
    .await;
    assert_eq!(literal["count"], 1);
}

#[tokio::test]
async fn hidden_paths_in_the_tools_and_the_include_hidden_hint() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(hidden_tree());
    let found = ok_on(env.clone(), "glob", json!({"pattern": "**/*.md"})).await;
    assert_eq!(
        strings(&found["files"]),
        [".agents/skills/research/SKILL.md"]
    );
    let git = ok_on(env.clone(), "glob", json!({"pattern": ".git/*"})).await;
    assert_eq!(git["count"], 0);
    assert!(git["hint"].as_str().unwrap().contains("include_hidden"));
    let all = ok_on(
        env.clone(),
        "grep",
        json!({"pattern": "needle", "include_hidden": true}),
    )
    .await;
    assert_eq!(all["count"], 6);
}

#[tokio::test]
async fn bad_patterns_ask_the_model_to_fix_its_call() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    let part = call_on(env.clone(), "glob", json!({"pattern": "src/{a,b"})).await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry, "{}", part.content);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("invalid glob pattern `src/{a,b`"));
    let part = call_on(env, "grep", json!({"pattern": "fn ("})).await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry, "{}", part.content);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("invalid regular expression"), "{message}");
    assert!(message.contains("literally"), "{message}");
}

#[tokio::test]
async fn ls_lists_children_with_kinds_and_sizes() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    let listing = ok_on(env.clone(), "ls", json!({})).await;
    assert_eq!(listing["path"], "");
    assert_eq!(
        listing["entries"],
        json!([
            {"name": "docs/", "path": "docs", "kind": "directory"},
            {"name": "main.rs", "path": "main.rs", "kind": "file", "size": 13},
            {"name": "src/", "path": "src", "kind": "directory"}
        ])
    );
    assert_eq!(listing["total"], 3);
    assert_eq!(listing["truncated"], false);
    let nested = ok_on(env.clone(), "ls", json!({"path": "./src/"})).await;
    assert_eq!(nested["path"], "src");
    assert_eq!(nested["entries"][0]["name"], "bin/");
    let part = call_on(env, "ls", json!({"path": "main.rs"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "not_a_directory");
}

#[tokio::test]
async fn read_file_returns_windows_of_lines() {
    let text: String = (1..=10).map(|n| format!("line {n}\n")).collect();
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("notes.txt", &text));
    let whole = ok_on(env.clone(), "read_file", json!({"path": "notes.txt"})).await;
    assert_eq!(whole["content"], text);
    assert_eq!(whole["total_lines"], 10);
    assert_eq!(whole["start_line"], 1);
    assert_eq!(whole["truncated"], false);
    assert!(whole.get("next_offset").is_none());

    let window = ok_on(
        env.clone(),
        "read_file",
        json!({"path": "notes.txt", "offset": 3, "limit": 2}),
    )
    .await;
    assert_eq!(window["content"], "line 3\nline 4\n");
    assert_eq!(window["start_line"], 3);
    assert_eq!(window["lines_returned"], 2);
    assert_eq!(window["total_lines"], 10);
    assert_eq!(window["truncated"], true);
    assert_eq!(window["next_offset"], 5);

    let tail = ok_on(
        env.clone(),
        "read_file",
        json!({"file_path": "/notes.txt", "offset": 9}),
    )
    .await;
    assert_eq!(tail["content"], "line 9\nline 10\n");
    assert_eq!(tail["truncated"], false);

    let part = call_on(
        env.clone(),
        "read_file",
        json!({"path": "notes.txt", "offset": 11}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("has 10 lines"));

    let empty: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("empty.txt", ""));
    let nothing = ok_on(empty, "read_file", json!({"path": "empty.txt"})).await;
    assert_eq!(nothing["content"], "");
    assert_eq!(nothing["total_lines"], 0);
}

#[tokio::test]
async fn read_file_refuses_binary_files_and_directories_as_feedback() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_bytes("logo.png", b"\x89PNG\r\n\x1a\n\0\0".to_vec())
            .with_dir("assets"),
    );
    let part = call_on(env.clone(), "read_file", json!({"path": "logo.png"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert!(!part.is_error);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("binary"), "{message}");
    assert_eq!(part.content["details"]["error"], "binary");

    let part = call_on(env.clone(), "read_file", json!({"path": "assets"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "is_a_directory");

    let part = call_on(env, "read_file", json!({"path": "missing.md"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "not_found");
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("does not exist"));
}

#[tokio::test]
async fn write_file_creates_parents_and_says_whether_it_created() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("t"));
    let env: Arc<dyn EnvironmentProvider> = provider.clone();
    let first = ok_on(
        env.clone(),
        "write_file",
        json!({"path": "deep/dir/new.txt", "content": "héllo"}),
    )
    .await;
    assert_eq!(
        first,
        json!({"path": "deep/dir/new.txt", "bytes_written": 6, "created": true})
    );
    assert!(provider.stat("deep/dir").await.unwrap().is_dir());
    let second = ok_on(
        env.clone(),
        "write_file",
        json!({"path": "deep/dir/new.txt", "content": "bye"}),
    )
    .await;
    assert_eq!(second["created"], false);
    assert_eq!(provider.read_text("deep/dir/new.txt").await.unwrap(), "bye");

    let part = call_on(env, "write_file", json!({"path": "deep", "content": "x"})).await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
    assert_eq!(part.content["details"]["error"], "is_a_directory");
}

#[tokio::test]
async fn edit_file_requires_a_unique_exact_match() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("app.rs", "let a = 1;\nlet b = 1;\nlet c = 2;\n"),
    );
    let env: Arc<dyn EnvironmentProvider> = provider.clone();

    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "= 1;", "new_string": "= 9;"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("occurs 2 times"), "{message}");
    assert!(message.contains("lines 1, 2"), "{message}");
    assert!(message.contains("replace_all"), "{message}");

    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "let d", "new_string": "let e"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);
    let message = part.content["message"].as_str().unwrap();
    assert!(message.contains("not found"), "{message}");
    assert!(message.contains("read the file again"), "{message}");

    let part = call_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "", "new_string": "x"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::ModelRetry);

    let unique = ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "let b = 1;", "new_string": "let b = 3;"}),
    )
    .await;
    assert_eq!(
        unique,
        json!({"path": "app.rs", "replacements": 1, "first_line": 2})
    );
    let all = ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "app.rs", "old_string": "let", "new_string": "const", "replace_all": true}),
    )
    .await;
    assert_eq!(all["replacements"], 3);
    assert_eq!(
        provider.read_text("app.rs").await.unwrap(),
        "const a = 1;\nconst b = 3;\nconst c = 2;\n"
    );

    // A CRLF file keeps its line endings when the model sends `\n`.
    provider
        .write_text("win.txt", "one\r\ntwo\r\nthree\r\n")
        .await
        .unwrap();
    ok_on(
        env.clone(),
        "edit_file",
        json!({"path": "win.txt", "old_string": "one\ntwo", "new_string": "1\n2"}),
    )
    .await;
    assert_eq!(
        provider.read_text("win.txt").await.unwrap(),
        "1\r\n2\r\nthree\r\n"
    );

    let part = call_on(
        env,
        "edit_file",
        json!({"path": "nope.rs", "old_string": "a", "new_string": "b"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Feedback);
}

#[tokio::test]
async fn a_missing_environment_is_a_user_error() {
    for (name, arguments) in [
        ("ls", json!({})),
        ("read_file", json!({"path": "a"})),
        ("write_file", json!({"path": "a", "content": ""})),
        (
            "edit_file",
            json!({"path": "a", "old_string": "a", "new_string": "b"}),
        ),
        ("glob", json!({"pattern": "*"})),
        ("grep", json!({"pattern": "a"})),
    ] {
        // An ambient context without an environment, and no context at all.
        for ctx in [ambient(AgentContext::default()), ToolContext::default()] {
            let part = filesystem_registry()
                .execute_call(ctx, &ToolCallPart::new("c", name, arguments.clone()))
                .await;
            assert_eq!(part.kind, ToolReturnKind::UserError, "{name}");
            let message = part.content["message"].as_str().unwrap();
            assert!(message.contains("attach_environment"), "{message}");
            assert!(
                message.contains("AgentSession::with_environment"),
                "{message}"
            );
        }
    }
}

#[tokio::test]
async fn paths_outside_the_root_are_feedback_naming_the_problem() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    for (name, arguments) in [
        ("read_file", json!({"path": "../etc/passwd"})),
        ("write_file", json!({"path": "a/../../x", "content": ""})),
        ("ls", json!({"path": ".."})),
        ("glob", json!({"pattern": "*", "path": "../.."})),
        ("grep", json!({"pattern": "a", "path": "../"})),
    ] {
        let part = call_on(env.clone(), name, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Feedback,
            "{name}: {}",
            part.content
        );
        assert_eq!(part.content["details"]["error"], "path_escape", "{name}");
        assert!(part.content["message"]
            .as_str()
            .unwrap()
            .contains("outside the environment root"));
    }
}

#[tokio::test]
async fn results_with_a_skill_file_carry_a_reminder() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(hidden_tree());
    let found = ok_on(env.clone(), "glob", json!({"pattern": "SKILL.md"})).await;
    let reminder = found["reminder"].as_str().unwrap();
    assert!(
        reminder.contains(".agents/skills/research/SKILL.md"),
        "{reminder}"
    );
    assert!(reminder.contains("read its whole SKILL.md"), "{reminder}");

    let hits = ok_on(env.clone(), "grep", json!({"pattern": "research"})).await;
    assert!(hits["reminder"].as_str().is_some());

    let listing = ok_on(
        env.clone(),
        "ls",
        json!({"path": ".agents/skills/research"}),
    )
    .await;
    assert!(listing["reminder"].as_str().is_some());

    // No SKILL.md in the results, no reminder.
    let plain = ok_on(env.clone(), "glob", json!({"pattern": "*.rs"})).await;
    assert!(plain.get("reminder").is_none());
    let plain = ok_on(env.clone(), "grep", json!({"pattern": "source"})).await;
    assert!(plain.get("reminder").is_none());
    let plain = ok_on(env, "ls", json!({"path": "src"})).await;
    assert!(plain.get("reminder").is_none());

    // A directory named SKILL.md is not a skill file.
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_dir("SKILL.md"));
    let listing = ok_on(env, "ls", json!({})).await;
    assert!(listing.get("reminder").is_none());
}

// ---------------------------------------------------------------------------
// Proxy and agent runs
// ---------------------------------------------------------------------------

#[tokio::test]
async fn the_bundle_works_behind_a_prefixed_tool_proxy() {
    let proxy = tool_proxy_toolset(vec![filesystem_tools()]);
    let prefixed: DynToolset = Arc::new(PrefixedToolset::new("workspace", proxy));
    let filesystem_registry = ToolRegistry::new().with_toolset(&prefixed);
    assert_eq!(
        filesystem_registry.names(),
        ["workspace_call_tool", "workspace_search_tools"]
    );

    let provider: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("docs").with_file("README.md", "hello"));
    let found = filesystem_registry
        .execute_call(
            ambient(context_with(provider.clone())),
            &ToolCallPart::new(
                "s1",
                "workspace_search_tools",
                json!({"query": "read a text file"}),
            ),
        )
        .await;
    assert_eq!(found.kind, ToolReturnKind::Success, "{}", found.content);
    let names: Vec<&str> = found.content["tools"]
        .as_array()
        .unwrap()
        .iter()
        .map(|tool| tool["name"].as_str().unwrap())
        .collect();
    assert!(names.contains(&"read_file"), "{names:?}");

    // The wrapped tool still resolves the environment through its own
    // Filtered profile.
    let read = filesystem_registry
        .execute_call(
            ambient(context_with(provider)),
            &ToolCallPart::new(
                "c1",
                "workspace_call_tool",
                json!({"name": "read_file", "arguments": {"path": "README.md"}}),
            ),
        )
        .await;
    assert_eq!(read.kind, ToolReturnKind::Success, "{}", read.content);
    assert_eq!(read.content["content"], "hello");
}

#[tokio::test]
async fn an_agent_reads_edits_and_greps_through_a_session() {
    let provider = Arc::new(
        VirtualEnvironmentProvider::new("repo")
            .with_file("README.md", "# Demo\nstatus: draft\n")
            .with_file(".agents/skills/release/SKILL.md", "release steps\n"),
    );
    let model = Arc::new(TestModel::scripted(vec![
        call_response("c1", "read_file", json!({"path": "README.md"})),
        call_response(
            "c2",
            "edit_file",
            json!({"path": "README.md", "old_string": "draft", "new_string": "final"}),
        ),
        call_response("c3", "grep", json!({"pattern": "final|release"})),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model.clone())
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(provider.clone()));

    let result = session.run("finish the readme").await.unwrap();
    assert_eq!(result.output, "done");
    assert_eq!(
        provider.read_text("README.md").await.unwrap(),
        "# Demo\nstatus: final\n"
    );
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 3);
    assert!(returns
        .iter()
        .all(|part| part.kind == ToolReturnKind::Success));
    assert_eq!(returns[0].content["content"], "# Demo\nstatus: draft\n");
    assert_eq!(
        match_paths(&returns[2].content),
        [".agents/skills/release/SKILL.md", "README.md"]
    );
    assert!(returns[2].content["reminder"].as_str().is_some());
    // The toolset's instruction reached the model.
    let first = &model.requests()[0];
    let tools: Vec<&str> = first
        .parameters
        .tools
        .iter()
        .map(|tool| tool.name.as_str())
        .collect();
    assert!(tools.contains(&"read_file"));
    assert!(first
        .parameters
        .instructions
        .iter()
        .any(|text| text.contains("Filesystem tools act on the attached environment")));
}

#[tokio::test]
async fn a_missing_file_is_feedback_the_run_continues_past() {
    // Feedback costs no retry budget: four misses in a row do not fail
    // the run, as four model retries (budget 3) would.
    let provider = Arc::new(VirtualEnvironmentProvider::new("repo").with_file("a.md", "A"));
    let model = Arc::new(FunctionModel::new(|messages: &[ModelMessage], _| {
        let step = responses_so_far(messages);
        Ok(if step < 4 {
            call_response(
                &format!("c{step}"),
                "read_file",
                json!({"path": format!("missing{step}.md")}),
            )
        } else if step == 4 {
            call_response("c4", "read_file", json!({"path": "a.md"}))
        } else {
            ModelResponse::text("found it")
        })
    }));
    let agent = AgentBuilder::new(model)
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(provider));
    let result = session.run("find the file").await.unwrap();
    assert_eq!(result.output, "found it");
    let returns = tool_returns(&result.messages);
    assert_eq!(returns.len(), 5);
    assert!(returns[..4]
        .iter()
        .all(|part| part.kind == ToolReturnKind::Feedback));
    assert_eq!(returns[4].content["content"], "A");
}

// ---------------------------------------------------------------------------
// Review fixes: symlinked roots, unreadable paths, arguments, output size
// ---------------------------------------------------------------------------

#[tokio::test]
async fn a_symlink_as_the_search_root_is_refused_naming_it() {
    let env = rules_provider();
    let refused = |result: Result<(), SearchError>| matches!(result, Err(SearchError::SymlinkRoot { path }) if path == "linked");
    let globbed = glob(&env, "*.rs", &GlobOptions::default().with_root("linked")).await;
    assert!(refused(globbed.map(drop)));
    // With a literal prefix the root is checked the same way.
    let scoped = glob(
        &env,
        "a/*.rs",
        &GlobOptions::default().with_root("/linked/"),
    )
    .await;
    assert!(refused(scoped.map(drop)));
    assert!(refused(
        walk(&env, "linked", &WalkOptions::default())
            .await
            .map(drop)
    ));
    let grepped = grep(&env, "needle", &GrepOptions::default().with_root("linked")).await;
    assert!(refused(grepped.map(drop)));
    // The environment root is never refused, and links below it are
    // listed, not entered.
    assert!(walk(&env, "", &WalkOptions::default()).await.is_ok());

    let env: Arc<dyn EnvironmentProvider> = Arc::new(rules_provider());
    for (tool, arguments) in [
        ("glob", json!({"pattern": "*.rs", "path": "linked"})),
        ("grep", json!({"pattern": "needle", "path": "linked"})),
        ("ls", json!({"path": "linked"})),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Feedback,
            "{tool}: {}",
            part.content
        );
        assert_eq!(
            part.content["details"],
            json!({"error": "symlink", "path": "linked"}),
            "{tool}"
        );
        let message = part.content["message"].as_str().unwrap();
        assert!(message.contains("target path"), "{tool}: {message}");
    }
}

/// A provider where `private/` cannot be listed and `secret.txt` cannot
/// be read, as with permission-denied paths on disk.
fn locked() -> Arc<dyn EnvironmentProvider> {
    Arc::new(
        TestEnvironment::new(
            VirtualEnvironmentProvider::new("locked")
                .with_file("open.txt", "nothing here\n")
                .with_file("private/notes.txt", "needle\n")
                .with_file("secret.txt", "needle\n"),
        )
        .with_unlistable_dir("private")
        .with_unreadable_file("secret.txt"),
    )
}

#[tokio::test]
async fn unreadable_paths_are_reported_not_mistaken_for_no_matches() {
    let found = ok_on(locked(), "glob", json!({"pattern": "**/*.txt"})).await;
    assert_eq!(strings(&found["files"]), ["open.txt", "secret.txt"]);
    assert_eq!(found["unreadable"], 1);
    assert_eq!(found["unreadable_paths"], json!(["private"]));
    let hint = found["hint"].as_str().unwrap();
    assert!(
        hint.contains("could not be read") && hint.contains("`private`"),
        "{hint}"
    );

    let hits = ok_on(locked(), "grep", json!({"pattern": "needle"})).await;
    assert_eq!(hits["count"], 0);
    assert_eq!(hits["unreadable"], 2);
    assert_eq!(hits["unreadable_paths"], json!(["private", "secret.txt"]));
    assert!(hits["hint"]
        .as_str()
        .unwrap()
        .contains("matches there are missing"));

    // Nothing unreadable: no fields, no hint.
    let clean = ok_on(Arc::new(project()), "grep", json!({"pattern": "fn"})).await;
    assert!(clean.get("unreadable").is_none() && clean.get("hint").is_none());

    // A file named as the search path that cannot be read is the error,
    // not an empty success.
    let part = call_on(
        locked(),
        "grep",
        json!({"pattern": "x", "path": "secret.txt"}),
    )
    .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::ExecutionFailed,
        "{}",
        part.content
    );
    assert!(part.content["message"]
        .as_str()
        .unwrap()
        .contains("secret.txt"));
    let env = project();
    let missing = grep(&env, "x", &GrepOptions::default().with_root("src/nope.rs")).await;
    assert!(matches!(
        missing,
        Err(SearchError::Environment(EnvironmentError::NotFound { .. }))
    ));
}

#[tokio::test]
async fn misspelled_arguments_are_invalid_arguments_naming_the_field() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    for (tool, arguments, field) in [
        ("ls", json!({"paht": "src"}), "paht"),
        (
            "glob",
            json!({"pattern": "*.rs", "max_result": 5}),
            "max_result",
        ),
        (
            "glob",
            json!({"pattern": "*.rs", "file_path": "src"}),
            "file_path",
        ),
        (
            "grep",
            json!({"pattern": "fn", "contxt_lines": 2}),
            "contxt_lines",
        ),
        (
            "read_file",
            json!({"path": "main.rs", "lenght": 1}),
            "lenght",
        ),
        (
            "write_file",
            json!({"path": "x.rs", "contents": ""}),
            "contents",
        ),
        (
            "edit_file",
            json!({"path": "main.rs", "old_string": "a", "new_string": "b", "replace_al": true}),
            "replace_al",
        ),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::InvalidArguments,
            "{tool}: {}",
            part.content
        );
        let message = part.content["message"].as_str().unwrap();
        assert!(message.contains(field), "{tool}: {message}");
    }
    // `file_path` stays an alias where `path` names a file.
    for (tool, arguments) in [
        ("read_file", json!({"file_path": "main.rs"})),
        ("grep", json!({"pattern": "main", "file_path": "main.rs"})),
        ("write_file", json!({"file_path": "new.rs", "content": "x"})),
        (
            "edit_file",
            json!({"file_path": "new.rs", "old_string": "x", "new_string": "y"}),
        ),
    ] {
        let part = call_on(env.clone(), tool, arguments).await;
        assert_eq!(
            part.kind,
            ToolReturnKind::Success,
            "{tool}: {}",
            part.content
        );
    }
}

#[tokio::test]
async fn schema_sampled_arguments_still_deserialize_and_an_auto_run_does_not_panic() {
    // What `TestModel::auto` sends: each tool's schema sampled.
    let env: Arc<dyn EnvironmentProvider> = Arc::new(project());
    for definition in filesystem_registry().definitions() {
        let arguments = starweaver::model::sample_value(&definition.parameters);
        let part = call_on(env.clone(), &definition.name, arguments.clone()).await;
        assert_ne!(
            part.kind,
            ToolReturnKind::InvalidArguments,
            "{} rejected its own sampled arguments {arguments}: {}",
            definition.name,
            part.content
        );
    }

    let model = Arc::new(TestModel::auto());
    let agent = AgentBuilder::new(model.clone())
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(Arc::new(project())));
    let result = session.run("use every tool").await;
    assert_eq!(model.requests()[0].parameters.tools.len(), 6);
    // Every call of the first batch is answered (a tool return, or a
    // retry prompt for edit_file's identical sampled strings), and the
    // run completes: the embedded test model runs any manifest with the
    // filesystem bundle.
    let result = result.unwrap();
    let ModelMessage::Request(answers) = &result.messages[2] else {
        panic!("expected the answers to the first batch");
    };
    assert_eq!(answers.parts.len(), 6, "{:?}", answers.parts);
    assert!(!result.output.is_empty());
}

#[tokio::test]
async fn a_leading_dot_slash_anchors_the_pattern_at_the_search_root() {
    let env = project();
    let options = GlobOptions::default();
    assert_eq!(glob_paths(&env, "./*.rs", &options).await, ["main.rs"]);
    assert_eq!(
        glob_paths(&env, "./src/*.rs", &options).await,
        ["src/lib.rs"]
    );
    assert_eq!(
        glob_paths(&env, "src//bin/./*.rs", &options).await,
        ["src/bin/cli.rs"]
    );
}

#[tokio::test]
async fn long_lines_are_excerpted_around_the_match() {
    let line = format!("{}needle{}\n", "a".repeat(2_000), "b".repeat(2_000));
    let env = VirtualEnvironmentProvider::new("t").with_file("min.js", line);
    let report = grep(&env, "needle", &GrepOptions::default()).await.unwrap();
    let shown = &report.matches[0].line;
    assert!(shown.contains("needle"), "{shown}");
    assert!(shown.starts_with("[1753 characters before] …"), "{shown}");
    assert!(shown.ends_with("… [1753 more characters]"), "{shown}");
}

#[tokio::test]
async fn grep_output_has_a_byte_budget_with_a_hint() {
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file(
            "wide.txt",
            format!("hit {}\n", "x".repeat(400)).repeat(2_000),
        ));
    let part = call_on(env, "grep", json!({"pattern": "hit", "max_results": 1000})).await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    let count = part.content["count"].as_u64().unwrap();
    assert!((300..1000).contains(&count), "{count}");
    assert_eq!(part.content["truncated"], true);
    let hint = part.content["hint"].as_str().unwrap();
    assert!(hint.contains("size limit (160 KiB)"), "{hint}");
    let library = grep(
        &VirtualEnvironmentProvider::new("t").with_file("a.txt", "hit 1\nhit 2\nhit 3\n"),
        "hit",
        &GrepOptions {
            max_output_bytes: 30,
            ..GrepOptions::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(library.matches.len(), 3);
    assert!(!library.truncated);
    let tight = grep(
        &VirtualEnvironmentProvider::new("t").with_file("a.txt", "hit 1\nhit 2\nhit 3\n"),
        "hit",
        &GrepOptions {
            max_output_bytes: 29,
            ..GrepOptions::default()
        },
    )
    .await
    .unwrap();
    assert_eq!(tight.matches.len(), 2);
    assert!(tight.truncated);
}

#[tokio::test]
async fn long_searches_yield_so_timeouts_and_cancellation_can_act() {
    let mut tree = VirtualEnvironmentProvider::new("big");
    for index in 0..200 {
        tree = tree.with_file(&format!("d{}/f{index}.txt", index % 10), "x\n");
    }
    // The in-memory provider is always ready, so a first poll that is
    // pending means the search reached a yield point.
    let (walk_options, grep_options) = (WalkOptions::default(), GrepOptions::default());
    let mut walking = std::pin::pin!(walk(&tree, "", &walk_options));
    let polled = std::future::poll_fn(|cx| Poll::Ready(walking.as_mut().poll(cx))).await;
    assert!(polled.is_pending(), "the walk never yielded");
    let mut grepping = std::pin::pin!(grep(&tree, "y", &grep_options));
    let polled = std::future::poll_fn(|cx| Poll::Ready(grepping.as_mut().poll(cx))).await;
    assert!(polled.is_pending(), "the grep never yielded");
    // Run to the end, the searches still finish.
    assert_eq!(walking.await.unwrap().len(), 210);
    assert_eq!(grepping.await.unwrap().files_searched, 200);
}

/// An `old_string` miss is the model's to fix: it reaches the model as a
/// retry prompt within the tool's ordinary budget (the non-idempotent
/// write is protected by mapping write failures to feedback, not by a
/// zero retry budget).
#[tokio::test]
async fn an_edit_file_miss_in_a_run_reaches_the_model_as_a_retry_prompt() {
    let provider = Arc::new(VirtualEnvironmentProvider::new("repo").with_file("a.md", "A"));
    let model = Arc::new(TestModel::scripted(vec![
        call_response(
            "c1",
            "edit_file",
            json!({"path": "a.md", "old_string": "nope", "new_string": "B"}),
        ),
        call_response(
            "c2",
            "edit_file",
            json!({"path": "a.md", "old_string": "A", "new_string": "B"}),
        ),
        ModelResponse::text("done"),
    ]));
    let agent = AgentBuilder::new(model)
        .toolset(&filesystem_tools())
        .build();
    let mut session = AgentSession::new(agent).with_context(context_with(provider.clone()));
    let result = session.run("edit a.md").await;
    assert!(result.is_ok(), "{result:?}");
    assert_eq!(provider.read_text("a.md").await.unwrap(), "B");
}
