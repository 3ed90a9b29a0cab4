//! What the simulation runs: a command's builtin name and words, read
//! from a program request as given or from a script of plain words.

use crate::environment::{CommandRequest, EnvironmentError};

/// The builtins the simulation knows, for messages.
pub(super) const BUILTINS: &str = "echo, true, false, exit, sleep, cat, pwd, env";

/// Characters with a shell meaning the simulation does not reproduce
/// (operators, redirections, expansion, quoting, globs, line breaks).
const SHELL_SYNTAX: &[char] = &[
    '|', '&', ';', '<', '>', '(', ')', '$', '`', '\\', '"', '\'', '*', '?', '[', '\n', '\r',
];

/// One command: a name and its arguments.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Invocation {
    /// The builtin to run (or an unknown name, which exits 127).
    pub(super) name: String,
    /// The words after the name.
    pub(super) args: Vec<String>,
}

/// The invocation a request asks for; `None` for an empty script, which
/// does nothing and succeeds, as in a shell.
///
/// # Errors
/// [`EnvironmentError::Unsupported`] for a script using shell syntax
/// (the simulation would otherwise run something other than what a
/// shell would).
pub(super) fn invocation(
    environment: &str,
    request: &CommandRequest,
) -> Result<Option<Invocation>, EnvironmentError> {
    match request {
        CommandRequest::Program(program) => Ok(Some(Invocation {
            name: program.form.executable.clone(),
            args: program.form.args.clone(),
        })),
        CommandRequest::Shell(shell) => {
            parse_script(&shell.form.script).map_err(|syntax| EnvironmentError::Unsupported {
                environment: environment.to_string(),
                operation: format!(
                    "{syntax} in a shell command: the in-memory environment runs only single \
                     builtin commands of plain words ({BUILTINS})"
                ),
            })
        }
    }
}

/// Splits a script on whitespace, refusing what a shell would read as
/// more than plain words: the `Err` names the construct.
fn parse_script(script: &str) -> Result<Option<Invocation>, String> {
    if let Some(found) = script.chars().find(|c| SHELL_SYNTAX.contains(c)) {
        let shown = match found {
            '\n' | '\r' => "a line break".to_string(),
            other => format!("`{other}`"),
        };
        return Err(shown);
    }
    let mut words = script.split_whitespace();
    let Some(name) = words.next() else {
        return Ok(None);
    };
    if name.contains('=') {
        return Err(format!(
            "the variable assignment `{}`",
            crate::bounds::shorten(name, 32)
        ));
    }
    if name == "!" {
        return Err("`!`".to_string());
    }
    let args: Vec<String> = words.map(str::to_string).collect();
    if let Some(word) = std::iter::once(name)
        .chain(args.iter().map(String::as_str))
        .find(|word| word.starts_with('#') || word.starts_with('~'))
    {
        let first = word.chars().next().unwrap_or('#');
        return Err(format!("a word starting with `{first}`"));
    }
    Ok(Some(Invocation {
        name: name.to_string(),
        args,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(script: &str) -> Option<Vec<String>> {
        parse_script(script).ok().flatten().map(|invocation| {
            std::iter::once(invocation.name)
                .chain(invocation.args)
                .collect()
        })
    }

    #[test]
    fn plain_words_split_on_whitespace() {
        assert_eq!(
            words("  echo   hello\tworld "),
            Some(vec!["echo".into(), "hello".into(), "world".into()])
        );
        assert_eq!(
            words("echo a=b c#d e~f"),
            Some(vec![
                "echo".into(),
                "a=b".into(),
                "c#d".into(),
                "e~f".into()
            ])
        );
        assert_eq!(parse_script("   "), Ok(None));
    }

    #[test]
    fn shell_syntax_is_named() {
        for (script, named) in [
            ("echo a | wc", "`|`"),
            ("true && false", "`&`"),
            ("echo a; echo b", "`;`"),
            ("echo a > out", "`>`"),
            ("echo $(pwd)", "`$`"),
            ("echo $HOME", "`$`"),
            ("echo 'a b'", "`'`"),
            ("echo *.rs", "`*`"),
            ("echo a\necho b", "a line break"),
            ("A=1 env", "the variable assignment `A=1`"),
            ("! true", "`!`"),
            ("echo ~/x", "a word starting with `~`"),
            ("echo # comment", "a word starting with `#`"),
        ] {
            assert_eq!(parse_script(script), Err(named.to_string()), "{script}");
        }
    }

    #[test]
    fn programs_keep_their_arguments_literally() {
        let request = CommandRequest::from(crate::environment::ProgramCommand::new(
            "echo",
            ["a | b", "$(x)"],
        ));
        let parsed = invocation("t", &request).ok().flatten();
        assert_eq!(
            parsed.map(|invocation| invocation.args),
            Some(vec!["a | b".to_string(), "$(x)".to_string()])
        );
        let refused = invocation("t", &crate::environment::ShellCommand::shell("a|b").into());
        let message = refused
            .err()
            .map(|error| error.to_string())
            .unwrap_or_default();
        assert!(
            message.contains("`|`") && message.contains(BUILTINS),
            "{message}"
        );
    }
}
