//! The terminal UI under a pseudo-terminal: `examples/terminal_ui` runs a
//! scripted agent whose model calls an approval-gated `deploy` and asks two
//! clarifying questions; the test answers the prompts like a person and
//! checks the answers reached the tools.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use crate::common::examples::{build_example, repository};
use std::time::Duration;

use expectrl::{Eof, Expect, Session};

const DOWN: &str = "\u{1b}[B";
const ENTER: &str = "\r";
const BACKSPACE: &str = "\u{7f}";
const ESCAPE: &str = "\u{1b}";

/// The example, built once.
fn example_binary() -> &'static Path {
    static BINARY: OnceLock<PathBuf> = OnceLock::new();
    BINARY.get_or_init(|| build_example("terminal_ui"))
}

/// A session on the example with everything it printed kept.
struct Terminal {
    session: expectrl::session::OsSession,
    seen: Vec<u8>,
}

impl Terminal {
    fn start(no_color: bool) -> Self {
        let mut command = Command::new(example_binary());
        command
            .current_dir(repository())
            .env("TERM", "xterm-256color");
        command.env_remove("CLICOLOR").env_remove("CLICOLOR_FORCE");
        if no_color {
            command.env("NO_COLOR", "1");
        } else {
            command.env_remove("NO_COLOR");
        }
        let mut session = Session::spawn(command).unwrap();
        // Generous: the machine is shared; this only guards against hangs.
        session.set_expect_timeout(Some(Duration::from_secs(60)));
        Self {
            session,
            seen: Vec::new(),
        }
    }

    fn expect(&mut self, text: &str) {
        let found = self.session.expect(text).unwrap_or_else(|error| {
            panic!("waiting for {text:?}: {error}\nseen:\n{}", self.text())
        });
        self.seen.extend_from_slice(found.before());
        self.seen.extend_from_slice(text.as_bytes());
    }

    fn keys(&mut self, keys: &[&str]) {
        for key in keys {
            self.session.send(key).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits for the end of the output and returns all of it.
    fn finish(mut self) -> String {
        let rest = self.session.expect(Eof).unwrap();
        self.seen.extend_from_slice(rest.before());
        self.seen.extend(rest.matches().flatten());
        self.text()
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.seen).into_owned()
    }
}

/// Colour escapes (SGR: `ESC [ ... m`).
fn colour_escapes(text: &str) -> usize {
    regex::Regex::new("\u{1b}\\[[0-9;]*m")
        .unwrap()
        .find_iter(text)
        .count()
}

#[test]
fn approvals_and_clarifying_questions_are_answered_at_the_terminal() {
    let mut terminal = Terminal::start(false);
    terminal.expect("deploy");
    terminal.expect("Run deploy?");
    terminal.keys(&[ENTER]);
    terminal.expect("Which environment?");
    terminal.expect("Choose one");
    terminal.keys(&[DOWN, ENTER]);
    terminal.expect("Which regions?");
    terminal.expect("Choose any");
    terminal.keys(&[" ", DOWN, DOWN, " ", ENTER]);
    let output = terminal.finish();

    assert!(
        output.contains("deploy ran with {\"service\":\"api\"}"),
        "{output}"
    );
    assert!(output.contains("\"answer\":\"production\""), "{output}");
    assert!(output.contains("\"answer\":\"eu, asia\""), "{output}");
    assert!(output.contains("Deployed as asked."), "{output}");
    assert!(output.contains("tool calls 2"), "{output}");
    // On a terminal that takes colour, the UI uses it.
    assert!(colour_escapes(&output) > 0, "{output}");
}

#[test]
fn edited_arguments_reach_the_tool_and_no_color_means_no_colour() {
    let mut terminal = Terminal::start(true);
    terminal.expect("Run deploy?");
    terminal.keys(&[DOWN, DOWN, ENTER]);
    terminal.expect("Arguments (JSON)");
    let erase = vec![BACKSPACE; "{\"service\":\"api\"}".len()];
    terminal.keys(&erase);
    terminal.keys(&["{\"service\":\"web\"}", ENTER]);
    terminal.expect("Choose one");
    terminal.keys(&[ENTER]);
    terminal.expect("Choose any");
    terminal.keys(&[" ", ENTER]);
    let output = terminal.finish();

    assert!(
        output.contains("deploy ran with {\"service\":\"web\"}"),
        "{output}"
    );
    assert!(output.contains("\"answer\":\"staging\""), "{output}");
    assert!(output.contains("Deployed as asked."), "{output}");
    assert_eq!(colour_escapes(&output), 0, "{output:?}");
}

#[test]
fn a_denial_with_a_reason_reaches_the_model_and_the_call_never_runs() {
    let mut terminal = Terminal::start(true);
    terminal.expect("Run deploy?");
    terminal.keys(&[DOWN, ENTER]);
    terminal.expect("Reason (shown to the model)");
    terminal.keys(&["not on a Friday", ENTER]);
    terminal.expect("Choose one");
    terminal.keys(&[ENTER]);
    terminal.expect("Choose any");
    terminal.keys(&[" ", ENTER]);
    let output = terminal.finish();

    assert!(
        output.contains("The user denied this tool call: not on a Friday"),
        "{output}"
    );
    assert!(!output.contains("deploy ran with"), "{output}");
    assert!(output.contains("\"answer\":\"staging\""), "{output}");
}

#[test]
fn leaving_a_prompt_leaves_the_run_waiting_and_asks_nothing_more() {
    let mut terminal = Terminal::start(true);
    terminal.expect("Run deploy?");
    terminal.keys(&[ESCAPE]);
    let output = terminal.finish();

    assert!(output.contains("The run is waiting on 2 calls"), "{output}");
    // The questions (shown as `[Env] Which environment?`) were never asked.
    assert!(!output.contains("[Env]"), "{output}");
    assert!(!output.contains("deploy ran with"), "{output}");
}

/// The real binary running `agents/release-checklist.yaml` under a pseudo-terminal, colourless.
fn release_checklist() -> expectrl::session::OsSession {
    let mut command = crate::common::starweaver_binary();
    command
        .current_dir(repository())
        .args([
            "run",
            "agents/release-checklist.yaml",
            "--prompt",
            "Walk me through the release.",
        ])
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1");
    let mut session = Session::spawn(command).unwrap();
    // Generous: the machine is shared; this only guards against hangs.
    session.set_expect_timeout(Some(Duration::from_secs(60)));
    session
}

/// The real binary on a real agent: `agents/release-checklist.yaml` (its script) asks a
/// clarifying question and waits for approval of its writes; every prompt is answered with
/// Enter (approve, first choice) and the run goes on to its answer.
#[test]
fn the_binary_asks_at_the_terminal_and_the_run_continues_with_the_answers() {
    let mut session = release_checklist();
    let mut seen = String::new();
    let mut step = |session: &mut expectrl::session::OsSession, text: &str, keys: &[&str]| {
        let found = session
            .expect(text)
            .unwrap_or_else(|error| panic!("waiting for {text:?}: {error}\nseen:\n{seen}"));
        seen.push_str(&String::from_utf8_lossy(found.before()));
        seen.push_str(text);
        for key in keys {
            session.send(key).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
    };
    // Its script asks one question (first choice), then each write waits for approval.
    step(&mut session, "Choose one", &[ENTER]);
    step(&mut session, "Run write_file?", &[ENTER]);
    step(&mut session, "Run edit_file?", &[ENTER]);
    step(&mut session, "tool calls", &[]);
    let rest = session.expect(Eof).unwrap();
    seen.push_str(&String::from_utf8_lossy(rest.before()));
    for part in rest.matches() {
        seen.push_str(&String::from_utf8_lossy(part));
    }
    // The approved calls ran, the answer reached the tool, and the run ended with its answer.
    assert!(seen.contains("Run write_file?: Approve"), "{seen}");
    assert!(
        seen.contains("✓ write_file: {\"path\":\"RELEASE_NOTES.md\",\"bytes_written\":"),
        "{seen}"
    );
    assert!(
        seen.contains("✓ ask_user_question: {\"answers\":[{\"question\":\"Is the changelog"),
        "{seen}"
    );
    assert!(seen.contains("step 2 · model request"), "{seen}");
    // The answer quotes what the maintainer chose.
    assert!(seen.contains("The maintainer answered \"Yes\""), "{seen}");
    assert!(seen.contains("tool calls"), "{seen}");
}

// Ctrl-C at a prompt was read as a key and treated like Esc: the run ended waiting (exit 3)
// with the cursor still hidden, instead of being cancelled like Ctrl-C anywhere else.
#[test]
fn ctrl_c_at_a_prompt_cancels_the_run_and_shows_the_cursor_again() {
    let mut session = release_checklist();
    let asked = session.expect("Choose one").unwrap();
    let mut seen = String::from_utf8_lossy(asked.before()).into_owned();
    seen.push_str("Choose one");
    session.send("\u{3}").unwrap();
    // A Ctrl-C that lands while the prompt is still drawn (before it reads keys) is a signal:
    // the run is cancelled at the prompt's next key. A second Ctrl-C is that key.
    session.set_expect_timeout(Some(Duration::from_secs(5)));
    let rest = match session.expect(Eof) {
        Ok(rest) => rest,
        Err(_) => {
            session.send("\u{3}").unwrap();
            session.set_expect_timeout(Some(Duration::from_secs(60)));
            session.expect(Eof).unwrap()
        }
    };
    seen.push_str(&String::from_utf8_lossy(rest.before()));
    for part in rest.matches() {
        seen.push_str(&String::from_utf8_lossy(part));
    }
    assert!(seen.contains("Cancelled"), "{seen}");
    assert!(!seen.contains("The run is waiting"), "{seen}");
    let hidden = seen.rfind("\u{1b}[?25l");
    let shown = seen.rfind("\u{1b}[?25h");
    assert!(shown > hidden, "the cursor stays hidden:\n{seen:?}");
}

/// The real binary under a pseudo-terminal in `dir`, colourless, with `args`; everything it
/// printed until it ended, with the keys sent after each text awaited.
fn binary_at_terminal(dir: &Path, args: &[&str], steps: &[(&str, &[&str])]) -> String {
    let mut command = crate::common::starweaver_binary();
    command
        .current_dir(dir)
        .args(args)
        .env("TERM", "xterm-256color")
        .env("NO_COLOR", "1");
    let mut session = Session::spawn(command).unwrap();
    // Generous: the machine is shared; this only guards against hangs.
    session.set_expect_timeout(Some(Duration::from_secs(60)));
    let mut seen = String::new();
    for (text, keys) in steps {
        let found = session
            .expect(*text)
            .unwrap_or_else(|error| panic!("waiting for {text:?}: {error}\nseen:\n{seen}"));
        seen.push_str(&String::from_utf8_lossy(found.before()));
        seen.push_str(text);
        for key in *keys {
            session.send(key).unwrap();
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let rest = session.expect(Eof).unwrap();
    seen.push_str(&String::from_utf8_lossy(rest.before()));
    for part in rest.matches() {
        seen.push_str(&String::from_utf8_lossy(part));
    }
    seen
}

// Regression: a saved run waiting on a question and an approval could be finished only by
// answering both at a terminal; `--answer` now answers the question there too, and `--yes` the
// approval, so nothing is asked.
#[test]
fn a_saved_question_resumed_at_a_terminal_takes_answer_and_yes_without_asking() {
    let (dir, question) = crate::run_cli::save_resume::saved_question_and_approval();
    let answer = format!("{question}=ship to staging first");
    let seen = binary_at_terminal(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--answer", &answer],
        &[],
    );
    assert!(!seen.contains("Choose"), "{seen}");
    assert!(!seen.contains("Run write_file?"), "{seen}");
    assert!(seen.contains("✓ write_file"), "{seen}");
    assert!(seen.contains("ship to staging first"), "{seen}");
    assert!(seen.contains("tool calls"), "{seen}");
}

/// Without `--answer`, the same resume at a terminal asks the question (and only it: `--yes`
/// approves the write), then goes on.
#[test]
fn a_saved_question_resumed_at_a_terminal_is_asked_and_the_approval_runs() {
    let (dir, _) = crate::run_cli::save_resume::saved_question_and_approval();
    let seen = binary_at_terminal(
        dir.path(),
        &["run", "--resume", "run.json", "--yes", "--save", "run.json"],
        &[("Choose one", &[ENTER]), ("tool calls", &[])],
    );
    assert!(!seen.contains("Run write_file?"), "{seen}");
    assert!(seen.contains("✓ write_file"), "{seen}");
    assert!(
        crate::run_cli::save_resume::pending_calls(dir.path()).is_empty(),
        "{seen}"
    );
}
