//! What a builtin does when it starts: the output it writes at once,
//! then whether it exits, sleeps or keeps reading its input.

use super::builtin::{Invocation, BUILTINS};
use super::stream::Stream;
use crate::bounds::shorten;
use crate::environment::{
    join_path, normalize_path_with, CommandOptions, EnvironmentError, EnvironmentProvider,
    VirtualEnvironmentProvider,
};

/// How long a message may repeat a word of the command.
const MAX_SHOWN_WORD_BYTES: usize = 64;

/// What a started command does after its first output.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Next {
    /// Ends at once with this exit code.
    Exit(i32),
    /// Sleeps this many (virtual) milliseconds, then exits 0.
    Sleep(u64),
    /// Copies its input to its output until the input is closed, then
    /// exits 0 (`cat` without a file).
    ReadInput,
}

/// A command just started.
#[derive(Debug)]
pub(super) struct Start {
    /// Standard output so far.
    pub(super) stdout: Stream,
    /// Standard error so far.
    pub(super) stderr: Stream,
    /// What it does next.
    pub(super) next: Next,
}

impl VirtualEnvironmentProvider {
    /// The root-relative working directory of a command: the root, or
    /// the requested directory when it is one.
    ///
    /// # Errors
    /// [`EnvironmentError::NotFound`], [`EnvironmentError::NotADirectory`]
    /// or a path error when it is not a directory inside the root.
    pub(super) async fn working_directory(
        &self,
        options: &CommandOptions,
    ) -> Result<String, EnvironmentError> {
        let Some(requested) = &options.working_directory else {
            return Ok(String::new());
        };
        let path = normalize_path_with(requested, &self.path_limits())?;
        if self.stat(&path).await?.is_dir() {
            Ok(path)
        } else {
            Err(EnvironmentError::NotADirectory { path })
        }
    }

    /// Starts `invocation` (`None`: an empty script) in `cwd`.
    pub(super) async fn start(
        &self,
        invocation: Option<&Invocation>,
        cwd: &str,
        options: &CommandOptions,
    ) -> Start {
        let max_bytes = self.processes.limits.max_output_bytes;
        let mut start = Start {
            stdout: Stream::new(max_bytes),
            stderr: Stream::new(max_bytes),
            next: Next::Exit(0),
        };
        let Some(Invocation { name, args }) = invocation else {
            return start;
        };
        let stdin = options.stdin.as_deref().unwrap_or_default();
        start.next = match name.as_str() {
            "true" => Next::Exit(0),
            "false" => Next::Exit(1),
            "echo" => echo(args, &mut start.stdout),
            "pwd" => {
                start.stdout.push(format!("/{cwd}\n").as_bytes());
                Next::Exit(0)
            }
            "env" => {
                for (variable, value) in &options.env {
                    start
                        .stdout
                        .push(format!("{variable}={value}\n").as_bytes());
                }
                Next::Exit(0)
            }
            "exit" => exit(args, &mut start.stderr),
            "sleep" => match sleep_ms(args) {
                Ok(ms) => Next::Sleep(ms),
                Err(message) => {
                    start.stderr.push(message.as_bytes());
                    Next::Exit(1)
                }
            },
            "cat" if args.is_empty() || *args == ["-"] => {
                start.stdout.push(stdin);
                Next::ReadInput
            }
            "cat" => self.cat(args, cwd, stdin, &mut start).await,
            unknown => {
                start.stderr.push(
                    format!(
                        "{}: command not found; the in-memory environment runs only these \
                         builtins: {BUILTINS}\n",
                        shown(unknown)
                    )
                    .as_bytes(),
                );
                Next::Exit(127)
            }
        };
        start
    }

    /// `cat FILE...`: the files (relative to `cwd`; `-` is the input) in
    /// order; a file that cannot be read is reported and skipped, and
    /// makes the exit code 1.
    async fn cat(&self, args: &[String], cwd: &str, stdin: &[u8], start: &mut Start) -> Next {
        let mut code = 0;
        for arg in args {
            if arg == "-" {
                start.stdout.push(stdin);
                continue;
            }
            let joined = if arg.starts_with('/') {
                arg.clone()
            } else {
                join_path(cwd, arg)
            };
            let read = match normalize_path_with(&joined, &self.path_limits()) {
                Ok(path) => self.read_bytes(&path).await,
                Err(error) => Err(error),
            };
            match read {
                Ok(bytes) => start.stdout.push(&bytes),
                Err(error) => {
                    code = 1;
                    let message = format!("cat: {}: {}\n", shown(arg), reason(&error));
                    start.stderr.push(message.as_bytes());
                }
            }
        }
        Next::Exit(code)
    }
}

/// `echo [-n] WORD...`: the words joined by spaces, and a line break
/// unless `-n` comes first.
fn echo(args: &[String], stdout: &mut Stream) -> Next {
    let (newline, words) = match args.split_first() {
        Some((first, rest)) if first == "-n" => (false, rest),
        _ => (true, args),
    };
    let mut line = words.join(" ");
    if newline {
        line.push('\n');
    }
    stdout.push(line.as_bytes());
    Next::Exit(0)
}

/// `exit [N]`: N modulo 256, as a shell reports it.
fn exit(args: &[String], stderr: &mut Stream) -> Next {
    let Some(arg) = args.first() else {
        return Next::Exit(0);
    };
    match arg.parse::<i64>() {
        Ok(code) => Next::Exit(i32::try_from(code.rem_euclid(256)).unwrap_or(255)),
        Err(_) => {
            stderr.push(format!("exit: Illegal number: {}\n", shown(arg)).as_bytes());
            Next::Exit(2)
        }
    }
}

/// `sleep N[s|m|h|d]...`: the sum of the intervals, in milliseconds
/// (saturating); `Err` is the message for standard error.
fn sleep_ms(args: &[String]) -> Result<u64, String> {
    if args.is_empty() {
        return Err("sleep: missing operand\n".to_string());
    }
    let mut total: u64 = 0;
    for arg in args {
        let (number, unit_ms) = match arg.char_indices().last() {
            Some((at, 's')) => (&arg[..at], 1_000.0),
            Some((at, 'm')) => (&arg[..at], 60_000.0),
            Some((at, 'h')) => (&arg[..at], 3_600_000.0),
            Some((at, 'd')) => (&arg[..at], 86_400_000.0),
            _ => (arg.as_str(), 1_000.0),
        };
        let seconds = number
            .parse::<f64>()
            .ok()
            .filter(|value| value.is_finite() && *value >= 0.0)
            .ok_or_else(|| format!("sleep: invalid time interval '{}'\n", shown(arg)))?;
        // Float to integer casts saturate.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let ms = (seconds * unit_ms).ceil() as u64;
        total = total.saturating_add(ms);
    }
    Ok(total)
}

/// A word of the command, shortened for a message.
fn shown(word: &str) -> std::borrow::Cow<'_, str> {
    shorten(word, MAX_SHOWN_WORD_BYTES)
}

/// Why `cat` could not read a file, in its usual words.
fn reason(error: &EnvironmentError) -> String {
    match error {
        EnvironmentError::NotFound { .. } => "No such file or directory".to_string(),
        EnvironmentError::IsADirectory { .. } => "Is a directory".to_string(),
        EnvironmentError::NotADirectory { .. } => "Not a directory".to_string(),
        EnvironmentError::PathEscape { .. } => "outside the environment root".to_string(),
        other => other.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(list: &[&str]) -> Vec<String> {
        list.iter().map(|word| (*word).to_string()).collect()
    }

    #[test]
    fn sleep_reads_intervals_and_refuses_nonsense() {
        assert_eq!(sleep_ms(&words(&["1"])), Ok(1_000));
        assert_eq!(sleep_ms(&words(&["0.25", "1m"])), Ok(60_250));
        assert_eq!(sleep_ms(&words(&["2h"])), Ok(7_200_000));
        assert_eq!(sleep_ms(&words(&["1e30d"])), Ok(u64::MAX));
        for bad in ["-1", "inf", "NaN", "x", "1x", "", "s"] {
            assert!(sleep_ms(&words(&[bad])).is_err(), "{bad}");
        }
        assert!(sleep_ms(&[]).is_err());
    }

    #[test]
    fn exit_codes_wrap_as_in_a_shell() {
        let mut stderr = Stream::new(100);
        assert_eq!(exit(&words(&["3"]), &mut stderr), Next::Exit(3));
        assert_eq!(exit(&words(&["256"]), &mut stderr), Next::Exit(0));
        assert_eq!(exit(&words(&["-1"]), &mut stderr), Next::Exit(255));
        assert_eq!(exit(&[], &mut stderr), Next::Exit(0));
        assert_eq!(exit(&words(&["x"]), &mut stderr), Next::Exit(2));
        assert!(stderr.capture().text.contains("Illegal number: x"));
    }
}
