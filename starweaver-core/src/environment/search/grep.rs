//! `grep`: lines matching a regular expression in text files below a
//! search root.

use regex::{Regex, RegexBuilder};
use serde::{Deserialize, Serialize};

use super::glob::GlobWalk;
use super::lines::{context_after, context_before, excerpt, line_around};
use super::pace::Pace;
use super::pattern::{check_pattern_length, PathPattern};
use super::root::search_root;
use super::walk::NAMED_UNREADABLE;
use super::{SearchError, WalkOptions};
use crate::bounds::{echo, MAX_ECHO_BYTES};
use crate::environment::{normalize_path_with, EntryKind, EnvironmentEntry, EnvironmentProvider};

/// Default cap on grep matches.
pub const DEFAULT_GREP_MAX_MATCHES: usize = 1_000;
/// Files larger than this are skipped by default (4 MiB).
pub const DEFAULT_GREP_MAX_FILE_BYTES: u64 = 4 * 1024 * 1024;
/// Matched lines longer than this many characters are shortened.
pub const DEFAULT_GREP_MAX_LINE_CHARS: usize = 500;
/// Bytes of matched and context lines one grep returns by default
/// (256 KiB, `read_file`'s cap), so a broad pattern cannot flood a
/// model's context.
pub const DEFAULT_GREP_MAX_OUTPUT_BYTES: usize = 256 * 1024;

/// Compiled-program size limit, so a hostile pattern cannot take
/// unbounded memory.
const REGEX_SIZE_LIMIT: usize = 4 * 1024 * 1024;

/// How [`grep`] searches.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GrepOptions {
    /// File or directory to search (root-relative; `""` is the
    /// environment root). A file is searched even when hidden, ignored
    /// or excluded by [`Self::glob`]: it was named explicitly.
    pub root: String,
    /// Only search files whose path (relative to `root`) matches this
    /// glob, with [`super::glob`]'s semantics.
    pub glob: Option<String>,
    /// Match case-insensitively.
    pub case_insensitive: bool,
    /// Treat the pattern as literal text, not a regular expression.
    pub fixed_strings: bool,
    /// Search hidden paths (see [`WalkOptions::include_hidden`]).
    pub include_hidden: bool,
    /// Skip paths the provider ignores (default true).
    pub respect_ignore: bool,
    /// Stop after this many matching lines; [`GrepReport::truncated`]
    /// says more exist.
    pub max_matches: usize,
    /// Lines of context to return before and after each match.
    pub context_lines: usize,
    /// Skip files larger than this many bytes.
    pub max_file_bytes: u64,
    /// Shorten returned lines to this many characters.
    pub max_line_chars: usize,
    /// Stop once the returned paths, lines and context lines reach this
    /// many bytes; [`GrepReport::truncated`] says more exist.
    pub max_output_bytes: usize,
}

impl Default for GrepOptions {
    fn default() -> Self {
        Self {
            root: String::new(),
            glob: None,
            case_insensitive: false,
            fixed_strings: false,
            include_hidden: false,
            respect_ignore: true,
            max_matches: DEFAULT_GREP_MAX_MATCHES,
            context_lines: 0,
            max_file_bytes: DEFAULT_GREP_MAX_FILE_BYTES,
            max_line_chars: DEFAULT_GREP_MAX_LINE_CHARS,
            max_output_bytes: DEFAULT_GREP_MAX_OUTPUT_BYTES,
        }
    }
}

impl GrepOptions {
    /// Sets [`Self::root`].
    #[must_use]
    pub fn with_root(mut self, root: impl Into<String>) -> Self {
        self.root = root.into();
        self
    }

    /// Sets [`Self::glob`].
    #[must_use]
    pub fn with_glob(mut self, glob: impl Into<String>) -> Self {
        self.glob = Some(glob.into());
        self
    }

    /// Sets [`Self::case_insensitive`].
    #[must_use]
    pub fn with_case_insensitive(mut self, case_insensitive: bool) -> Self {
        self.case_insensitive = case_insensitive;
        self
    }

    /// Sets [`Self::fixed_strings`].
    #[must_use]
    pub fn with_fixed_strings(mut self, fixed_strings: bool) -> Self {
        self.fixed_strings = fixed_strings;
        self
    }

    /// Sets [`Self::max_matches`].
    #[must_use]
    pub fn with_max_matches(mut self, max_matches: usize) -> Self {
        self.max_matches = max_matches;
        self
    }

    /// Sets [`Self::context_lines`].
    #[must_use]
    pub fn with_context_lines(mut self, context_lines: usize) -> Self {
        self.context_lines = context_lines;
        self
    }
}

/// One matching line.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepMatch {
    /// Root-relative path of the file.
    pub path: String,
    /// 1-based line number.
    pub line_number: usize,
    /// The line, without its line ending (past
    /// [`GrepOptions::max_line_chars`], an excerpt around the match).
    pub line: String,
    /// Context lines before the match, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub before: Vec<String>,
    /// Context lines after the match.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub after: Vec<String>,
}

/// What [`grep`] found and what it skipped.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrepReport {
    /// Matching lines, files in walk order, lines in file order.
    pub matches: Vec<GrepMatch>,
    /// True when more matches exist beyond `max_matches` or
    /// `max_output_bytes`.
    pub truncated: bool,
    /// Text files searched.
    pub files_searched: usize,
    /// Files skipped because they are binary (a NUL byte) or not UTF-8.
    pub binary_files_skipped: usize,
    /// Files skipped because they exceed `max_file_bytes`.
    pub large_files_skipped: usize,
    /// Files and directories that could not be read.
    pub unreadable: usize,
    /// The first few of those, so a caller can say where matches may be
    /// missing.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub unreadable_paths: Vec<String>,
}

/// Lines matching `pattern` (a regular expression in the `regex` crate's
/// syntax, or literal text with [`GrepOptions::fixed_strings`]) in the
/// text files below `options.root`. Binary and non-UTF-8 files are
/// skipped and counted; walks follow [`super::glob`]'s hidden, ignore and
/// symlink rules. `^` and `$` match at line boundaries (also around
/// `\r\n`); a match spanning lines is reported at its first line. The
/// search yields to the runtime every few dozen files, so timeouts and
/// cancellation act on long greps.
///
/// ```
/// use starweaver_core::environment::{grep, GrepOptions, VirtualEnvironmentProvider};
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let env = VirtualEnvironmentProvider::new("t")
///     .with_file("src/lib.rs", "fn one() {}\nfn two() {}\n");
/// let report = grep(&env, r"fn t\w+", &GrepOptions::default()).await.unwrap();
/// assert_eq!(report.matches[0].line_number, 2);
/// assert_eq!(report.matches[0].line, "fn two() {}");
/// # });
/// ```
///
/// # Errors
/// [`SearchError::InvalidRegex`] or [`SearchError::InvalidGlob`] for bad
/// patterns; [`SearchError::SymlinkRoot`] when the root is a symlink;
/// [`SearchError::Environment`] when the root is invalid or missing, or
/// is a file that cannot be read.
pub async fn grep(
    provider: &dyn EnvironmentProvider,
    pattern: &str,
    options: &GrepOptions,
) -> Result<GrepReport, SearchError> {
    if let Some(native) = provider.native_grep(pattern, options) {
        return native.await;
    }
    generic_grep(provider, pattern, options).await
}

/// [`grep`] over `list_dir` and `read_bytes`: what every provider
/// without a native search runs, and the reference native searches are
/// tested against.
pub(crate) async fn generic_grep(
    provider: &dyn EnvironmentProvider,
    pattern: &str,
    options: &GrepOptions,
) -> Result<GrepReport, SearchError> {
    let regex = compile(pattern, options)?;
    let filter = match &options.glob {
        Some(glob) if !glob.trim().is_empty() => Some(PathPattern::new(glob, false)?),
        _ => None,
    };
    let root = normalize_path_with(&options.root, &provider.path_limits())?;
    let mut search = Search::new(regex, options);
    let root_entry = search_root(provider, &root).await?;
    if root_entry.kind != EntryKind::Directory {
        // Named explicitly: searched whatever the walk rules say, and a
        // read failure is the answer rather than an empty result.
        search.file(provider, &root_entry, true).await?;
        return Ok(search.finish());
    }
    let walk_options = WalkOptions {
        include_hidden: options.include_hidden,
        respect_ignore: options.respect_ignore,
        max_depth: None,
        max_entries: None,
    };
    let mut files = GlobWalk::new(provider, root.clone(), filter, walk_options).await;
    while let Some(entry) = files.next_match().await? {
        // Symlinks are never followed, directories hold no lines.
        if entry.kind != EntryKind::File {
            continue;
        }
        if search.file(provider, &entry, false).await? {
            break;
        }
    }
    search.unreadable_dirs(files.unreadable_dirs(), files.unreadable_paths());
    Ok(search.finish())
}

/// The regular expression of a grep (or its literal text, escaped).
pub(crate) fn compile(pattern: &str, options: &GrepOptions) -> Result<Regex, SearchError> {
    check_pattern_length("grep", pattern)?;
    let source = if options.fixed_strings {
        regex::escape(pattern)
    } else {
        pattern.to_string()
    };
    RegexBuilder::new(&source)
        .case_insensitive(options.case_insensitive)
        .multi_line(true)
        .crlf(true)
        .size_limit(REGEX_SIZE_LIMIT)
        .dfa_size_limit(REGEX_SIZE_LIMIT)
        .build()
        .map_err(|error| SearchError::InvalidRegex {
            pattern: echo(pattern).into_owned(),
            message: regex_message(&error.to_string()),
        })
}

/// The regex crate's message, which repeats the whole pattern: past
/// [`MAX_ECHO_BYTES`] only its closing `error: ...` line is kept, so a
/// huge pattern is not sent back.
fn regex_message(message: &str) -> String {
    if message.len() <= MAX_ECHO_BYTES {
        return message.to_string();
    }
    let reason = message
        .lines()
        .rev()
        .find(|line| line.starts_with("error:"))
        .unwrap_or(message);
    echo(reason).into_owned()
}

/// One grep in progress: the caps, counters and matches so far. Files
/// must be fed in walk order, so output is deterministic and stops at
/// the same place whoever reads the files.
pub(crate) struct Search<'o> {
    regex: Regex,
    options: &'o GrepOptions,
    report: GrepReport,
    /// Bytes of paths, lines and context returned so far.
    output_bytes: usize,
    pace: Pace,
}

impl<'o> Search<'o> {
    /// A grep for `regex` under `options`' caps.
    pub(crate) fn new(regex: Regex, options: &'o GrepOptions) -> Self {
        Self {
            regex,
            options,
            report: GrepReport::default(),
            output_bytes: 0,
            pace: Pace::default(),
        }
    }

    /// Counts a file skipped for its size.
    pub(crate) fn skip_large(&mut self) {
        self.report.large_files_skipped += 1;
    }

    /// Counts a file skipped as binary.
    pub(crate) fn skip_binary(&mut self) {
        self.report.binary_files_skipped += 1;
    }

    /// Searches the text of one file; true once a cap is exceeded.
    pub(crate) fn text(&mut self, path: &str, text: &str) -> bool {
        self.report.files_searched += 1;
        self.lines(path, text)
    }

    /// Counts a text file in which the expression was found not to
    /// match.
    pub(crate) fn searched_without_match(&mut self) {
        self.report.files_searched += 1;
    }

    /// Adds directories a walk could not list.
    pub(crate) fn unreadable_dirs(&mut self, count: usize, paths: &[String]) {
        self.report.unreadable += count;
        let named = NAMED_UNREADABLE.saturating_sub(self.report.unreadable_paths.len());
        self.report
            .unreadable_paths
            .extend(paths.iter().take(named).cloned());
        self.report.unreadable_paths.sort();
    }

    /// Searches one file; true once a cap is exceeded. A read failure is
    /// an error for a `named` file and counted otherwise.
    async fn file(
        &mut self,
        provider: &dyn EnvironmentProvider,
        entry: &EnvironmentEntry,
        named: bool,
    ) -> Result<bool, SearchError> {
        if entry.size > self.options.max_file_bytes {
            self.skip_large();
            return Ok(false);
        }
        let bytes = match provider.read_bytes(&entry.path).await {
            Ok(bytes) => bytes,
            Err(error) if named => return Err(error.into()),
            Err(_) => {
                self.unreadable(&entry.path);
                return Ok(false);
            }
        };
        self.pace.step(bytes.len()).await;
        if u64::try_from(bytes.len()).unwrap_or(u64::MAX) > self.options.max_file_bytes {
            self.skip_large();
            return Ok(false);
        }
        match crate::environment::as_text(&bytes) {
            Some(text) => Ok(self.text(&entry.path, text)),
            None => {
                self.skip_binary();
                Ok(false)
            }
        }
    }

    /// Counts a file that could not be read, naming the first few.
    pub(crate) fn unreadable(&mut self, path: &str) {
        self.report.unreadable += 1;
        if self.report.unreadable_paths.len() < NAMED_UNREADABLE {
            self.report.unreadable_paths.push(path.to_string());
        }
    }

    /// Collects the matching lines of `text`; true once a cap is
    /// exceeded. Searching the whole text (instead of line by line) lets
    /// the regex engine skip ahead with its literal prefilters.
    fn lines(&mut self, path: &str, text: &str) -> bool {
        let max_chars = self.options.max_line_chars;
        let context = self.options.context_lines;
        let mut position = 0;
        let mut line_number = 1;
        let mut counted_to = 0;
        while position <= text.len() {
            let Some(found) = self.regex.find_at(text, position) else {
                break;
            };
            let (start, end) = line_around(text, found.start());
            // Nothing follows a final newline: no phantom last line.
            if start == text.len() && (text.is_empty() || text.ends_with('\n')) {
                break;
            }
            line_number += text[counted_to..start].matches('\n').count();
            counted_to = start;
            if self.report.matches.len() >= self.options.max_matches {
                self.report.truncated = true;
                return true;
            }
            let match_end = found.end().min(end).max(found.start());
            let line = excerpt(
                &text[start..end],
                found.start() - start,
                match_end - start,
                max_chars,
            );
            let Some(mut budget) = self.budget(path.len() + line.len()) else {
                self.report.truncated = true;
                return true;
            };
            let before = context_before(text, start, context, max_chars, &mut budget);
            let after = context_after(text, end, context, max_chars, &mut budget);
            self.output_bytes = self.options.max_output_bytes - budget;
            self.report.matches.push(GrepMatch {
                path: path.to_string(),
                line_number,
                line,
                before,
                after,
            });
            position = end + 1;
        }
        false
    }

    /// The output budget left once `bytes` more are returned, or `None`
    /// when they do not fit.
    fn budget(&self, bytes: usize) -> Option<usize> {
        self.options
            .max_output_bytes
            .checked_sub(self.output_bytes)?
            .checked_sub(bytes)
    }

    /// The report.
    pub(crate) fn finish(self) -> GrepReport {
        self.report
    }
}
