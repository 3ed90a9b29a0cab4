//! Grep: paths, line numbers and lines, literal mode, caps, binary
//! files, glob filters, context, output budgets and timeouts.

use std::future::Future;
use std::sync::Arc;
use std::task::Poll;

use serde_json::json;
use starweaver::environment::{
    grep, walk, EnvironmentProvider, GrepOptions, VirtualEnvironmentProvider, WalkOptions,
};
use starweaver::model::{ToolCallPart, ToolReturnKind};
use starweaver::{attach_environment, filesystem_tools, AgentContext, ToolRegistry};

use crate::common::environment::{call_on, match_paths, ok_on, project};
use crate::common::{ambient, strings};

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
// The grep tool
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

// ---------------------------------------------------------------------------
// Regression tests from code reviews
// ---------------------------------------------------------------------------

/// docs/filesystem-tools.md: "`path` also accepts `file_path` (the name
/// many models use)". `grep` (like `ls` and `glob`) has no such alias and
/// no `deny_unknown_fields`, so `file_path` is dropped silently and the
/// whole tree is searched instead of the one file.
#[tokio::test]
async fn grep_accepts_file_path_like_the_other_tools() {
    let env: Arc<dyn EnvironmentProvider> = Arc::new(
        VirtualEnvironmentProvider::new("t")
            .with_file("a.txt", "needle in a\n")
            .with_file("b.txt", "needle in b\n"),
    );
    let part = call_on(
        env,
        "grep",
        json!({"pattern": "needle", "file_path": "a.txt"}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success, "{}", part.content);
    assert_eq!(
        part.content["files_searched"], 1,
        "file_path was ignored: {}",
        part.content
    );
}

/// `read_file` caps its content at 256 KiB "so one read cannot flood the
/// model's context", but `grep` has no byte budget: up to 1,000 matches,
/// each with a 500-character line and up to 20 context lines of 500
/// characters, is about 10 MiB in one tool return. Matches and context
/// should share a byte budget (and set `truncated` when it runs out).
#[tokio::test]
async fn grep_output_is_bounded_like_read_file() {
    let line = format!("needle {}\n", "x".repeat(600));
    let env: Arc<dyn EnvironmentProvider> =
        Arc::new(VirtualEnvironmentProvider::new("t").with_file("wide.txt", line.repeat(1_100)));
    let part = call_on(
        env,
        "grep",
        json!({"pattern": "needle", "max_results": 1000, "context_lines": 10}),
    )
    .await;
    assert_eq!(part.kind, ToolReturnKind::Success);
    let bytes = serde_json::to_string(&part.content).unwrap().len();
    assert!(
        bytes <= 1024 * 1024,
        "one grep call returned {bytes} bytes to the model"
    );
}

/// Registry timeouts (and cancellation) only act when the tool's future
/// returns `Pending`. Walks and greps over the in-memory provider never
/// do: every `list_dir`/`read_bytes` is ready at once and the search loop
/// has no yield point, so a grep that runs for ~0.4 s (debug build) under
/// a 1 ms tool timeout finishes and is reported as a success, blocking
/// the runtime thread all the while. Searches should yield (or check a
/// deadline / the cancellation token) every few files and directories.
#[tokio::test]
async fn a_long_grep_respects_the_tool_timeout() {
    let body = "alpha beta gamma delta\n".repeat(2_000);
    let mut tree = VirtualEnvironmentProvider::new("big");
    for index in 0..400 {
        tree = tree.with_file(&format!("d{}/f{index}.txt", index % 20), body.clone());
    }
    let mut context = AgentContext::default();
    attach_environment(&mut context, Arc::new(tree));
    let part = ToolRegistry::new()
        .with_timeout_ms(1)
        .with_toolset(&filesystem_tools())
        .execute_call(
            ambient(context),
            &ToolCallPart::new("call-1", "grep", json!({"pattern": "[a-z]+\\d"})),
        )
        .await;
    assert_eq!(
        part.kind,
        ToolReturnKind::Timeout,
        "a 1 ms timeout did not stop the search: {}",
        part.content
    );
}
