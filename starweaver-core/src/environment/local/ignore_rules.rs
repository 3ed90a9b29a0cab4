//! The ignore rules of a local tree, as git and ripgrep read them:
//! `.gitignore` and `.ignore` in every directory (each applying to what
//! lies below it, the deepest deciding, `!` re-including), the root's
//! `.git/info/exclude`, and git's global excludes file. They apply
//! whether or not the folder is a git repository.
//!
//! Each directory's rules are read once, through the confined root (so an
//! ignore file that is a link leading out is not read), each file bounded
//! to [`MAX_IGNORE_FILE_BYTES`] and [`MAX_IGNORE_PATTERNS`], and cached. A write or removal through
//! the provider drops the cached rules it touches, and listing a
//! directory drops them when its ignore files changed on disk since.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::Read;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use cap_std::fs::{Dir, Metadata, MetadataExt};
use ignore::gitignore::{Gitignore, GitignoreBuilder};

use super::hooks::Hooks;
use super::open::open_regular;
use crate::environment::{file_name, join_path, parent_path};

/// Most bytes read from one ignore file; the rest is not read, and a line
/// cut at the limit is dropped.
pub(super) const MAX_IGNORE_FILE_BYTES: usize = 1024 * 1024;

/// Most patterns taken from one ignore file; later lines are skipped.
/// Every path a walk visits is matched against the patterns of each
/// directory above it, and 40,000 wildcard patterns cost over a
/// millisecond per path (release build), so a hostile file cannot stall
/// walks.
pub(super) const MAX_IGNORE_PATTERNS: usize = 10_000;

/// The ignore files of every directory, the later one deciding when both
/// match (as ripgrep ranks `.ignore` above `.gitignore`).
const IGNORE_FILES: [&str; 2] = [".gitignore", ".ignore"];

/// The repository's own excludes, read at the root below its
/// `.gitignore`.
const GIT_EXCLUDE: &str = ".git/info/exclude";

/// Directories whose rules are cached before the cache starts over.
const MAX_CACHED_DIRS: usize = 16_384;

/// Bytes of ignore files cached before the cache starts over.
const MAX_CACHED_BYTES: usize = 64 * 1024 * 1024;

/// Directory chains (see [`Chain`]) cached before they start over.
const MAX_CACHED_CHAINS: usize = 65_536;

/// What identifies one version of an ignore file on disk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Stamp {
    inode: u64,
    size: u64,
    modified: (i64, i64),
    changed: (i64, i64),
}

impl Stamp {
    /// The stamp of `metadata` (from `lstat`).
    pub(super) fn of(metadata: &Metadata) -> Self {
        Self {
            inode: metadata.ino(),
            size: metadata.size(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

/// One directory's rules and the stamps of the files they came from.
#[derive(Debug)]
struct DirRules {
    matcher: Gitignore,
    stamps: [Option<Stamp>; 2],
    bytes: usize,
}

/// What applies to the entries of one directory, so judging an entry
/// takes one lookup (of its parent) however deep it lies.
#[derive(Debug, Default)]
struct Chain {
    /// The directory is ignored, or one above it is: so is everything
    /// below it.
    ignored: bool,
    /// The rules of the directory and of each one above it that hold
    /// any pattern, deepest first, each with the length of its
    /// directory's path (0 for the root) to cut entry paths down to
    /// what it matches. Empty when `ignored`.
    rules: Vec<(usize, Arc<DirRules>)>,
}

#[derive(Debug, Default)]
struct Cache {
    rules: HashMap<String, Arc<DirRules>>,
    bytes: usize,
    /// Each directory's [`Chain`], built from its parent's.
    chains: HashMap<String, Arc<Chain>>,
}

/// Numbers for [`IgnoreRules::epoch`], never the same twice in a
/// process, so a chain a thread remembers from one tree or one state of
/// its cache is never taken for another.
static EPOCHS: AtomicU64 = AtomicU64::new(1);

thread_local! {
    /// The chain this thread used last, with the epoch it belongs to and
    /// its directory: a walker thread judges the entries of a directory
    /// one after another, so most lookups need neither the lock nor a
    /// hash of the path.
    static LAST_CHAIN: RefCell<Option<(u64, String, Arc<Chain>)>> = const { RefCell::new(None) };
}

/// The rules of one tree, loaded lazily.
#[derive(Debug)]
pub(super) struct IgnoreRules {
    use_global: bool,
    global: OnceLock<Gitignore>,
    cache: Mutex<Cache>,
    /// Changes whenever cached chains may no longer hold (rules dropped
    /// or read again), so threads stop reusing the one they remember.
    epoch: AtomicU64,
}

impl Default for IgnoreRules {
    fn default() -> Self {
        Self::new(true)
    }
}

impl IgnoreRules {
    /// Rules with or without git's global excludes.
    pub(super) fn new(use_global: bool) -> Self {
        Self {
            use_global,
            global: OnceLock::new(),
            cache: Mutex::default(),
            epoch: AtomicU64::new(EPOCHS.fetch_add(1, Ordering::Relaxed)),
        }
    }

    /// Rules whose global excludes are `global` (tests: the host's own
    /// configuration must not decide results).
    #[cfg(test)]
    pub(super) fn with_global(global: Gitignore) -> Self {
        let rules = Self::new(true);
        let _ = rules.global.set(global);
        rules
    }

    /// Which of [`IGNORE_FILES`] `name` is.
    pub(super) fn file_slot(name: &str) -> Option<usize> {
        IGNORE_FILES.iter().position(|file| *file == name)
    }

    /// True when the normalized `path` is ignored: a directory above it
    /// is, or the rules nearest to it say so.
    pub(super) fn is_ignored(&self, dir: &Dir, path: &str, is_dir: bool) -> bool {
        let Some(parent) = parent_path(path) else {
            return false;
        };
        let chain = self.remembered_chain(dir, parent);
        chain.ignored || self.matches(&chain, path, is_dir)
    }

    /// [`Self::chain`], through the one this thread used last when it is
    /// the same directory's in the same epoch.
    fn remembered_chain(&self, dir: &Dir, directory: &str) -> Arc<Chain> {
        // Read before the lookup: if the chains are dropped meanwhile, the
        // epoch stored with the result is already out of date.
        let epoch = self.epoch.load(Ordering::Acquire);
        let known = LAST_CHAIN.with_borrow(|last| match last {
            Some((at, name, chain)) if *at == epoch && name == directory => Some(Arc::clone(chain)),
            _ => None,
        });
        if let Some(chain) = known {
            return chain;
        }
        let chain = self.chain(dir, directory);
        LAST_CHAIN.with_borrow_mut(|last| match last {
            Some((at, name, kept)) => {
                *at = epoch;
                name.clear();
                name.push_str(directory);
                *kept = Arc::clone(&chain);
            }
            None => *last = Some((epoch, directory.to_string(), Arc::clone(&chain))),
        });
        chain
    }

    /// Drops the cached chains and starts a new epoch, so no thread
    /// reuses a chain built from rules that are gone.
    fn drop_chains(&self, cache: &mut Cache) {
        cache.chains.clear();
        self.epoch
            .store(EPOCHS.fetch_add(1, Ordering::Relaxed), Ordering::Release);
    }

    /// After a write or removal of `path` through the provider: drops
    /// what it may have changed.
    pub(super) fn changed(&self, path: &str) {
        let name = file_name(path);
        if Self::file_slot(name).is_some() {
            self.forget(parent_path(path).unwrap_or(""));
        } else if path == GIT_EXCLUDE {
            self.forget("");
        } else {
            // A removed (or replaced) directory takes its rules along.
            self.forget(path);
        }
    }

    /// After listing `directory`: drops its cached rules when its ignore
    /// files are not the ones they were read from.
    pub(super) fn refresh(&self, directory: &str, stamps: [Option<Stamp>; 2]) {
        let stale = self
            .lock()
            .rules
            .get(directory)
            .is_some_and(|rules| rules.stamps != stamps);
        if stale {
            self.forget(directory);
        }
    }

    /// Drops every cached rule, so the next lookups read the ignore
    /// files again: a native search starts with this, since it walks the
    /// tree without the listings that check the files' stamps.
    pub(super) fn clear(&self) {
        let mut cache = self.lock();
        cache.rules.clear();
        self.drop_chains(&mut cache);
        cache.bytes = 0;
    }

    fn forget(&self, directory: &str) {
        let mut cache = self.lock();
        if let Some(rules) = cache.rules.remove(directory) {
            cache.bytes = cache.bytes.saturating_sub(rules.bytes);
            self.drop_chains(&mut cache);
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Cache> {
        self.cache.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The [`Chain`] of `directory`: from the cache, or built from the
    /// deepest cached directory above it down (each directory judged by
    /// the rules above it, its own rules read only when it is not
    /// ignored, as nothing below an ignored directory can be re-included).
    fn chain(&self, dir: &Dir, directory: &str) -> Arc<Chain> {
        let epoch = self.epoch.load(Ordering::Acquire);
        let mut missing = Vec::new();
        let mut above = None;
        {
            let cache = self.lock();
            let mut current = Some(directory);
            while let Some(at) = current {
                if let Some(chain) = cache.chains.get(at) {
                    above = Some(Arc::clone(chain));
                    break;
                }
                missing.push(at);
                current = parent_path(at);
            }
        }
        let mut chain = above.unwrap_or_default();
        for at in missing.into_iter().rev() {
            // The root is never ignored; any other directory is judged by
            // the chain of its parent.
            let ignored = chain.ignored || (!at.is_empty() && self.matches(&chain, at, true));
            let mut rules = Vec::new();
            if !ignored {
                let own = self.rules(dir, at);
                if !own.matcher.is_empty() {
                    rules.push((at.len(), own));
                }
                rules.extend(chain.rules.iter().cloned());
            }
            chain = Arc::new(Chain { ignored, rules });
            let mut cache = self.lock();
            // Built from rules dropped meanwhile: good for this lookup,
            // but not kept, since dropping those rules again later could
            // not find it.
            if self.epoch.load(Ordering::Acquire) != epoch {
                continue;
            }
            if cache.chains.len() >= MAX_CACHED_CHAINS {
                cache.chains.clear();
            }
            cache.chains.insert(at.to_string(), Arc::clone(&chain));
        }
        chain
    }

    /// What the rules of `chain` (the chain of the directory holding
    /// `path`) say of `path`, ignoring its ancestors' verdicts: the
    /// deepest directory's rules first, then each one up to the root,
    /// then the global excludes.
    fn matches(&self, chain: &Chain, path: &str, is_dir: bool) -> bool {
        for (length, rules) in &chain.rules {
            let relative = if *length == 0 {
                path
            } else {
                path.get(length + 1..).unwrap_or(path)
            };
            let verdict = rules.matcher.matched(relative, is_dir);
            if verdict.is_ignore() {
                return true;
            }
            if verdict.is_whitelist() {
                return false;
            }
        }
        self.global().matched(path, is_dir).is_ignore()
    }

    fn global(&self) -> &Gitignore {
        self.global.get_or_init(|| {
            if self.use_global {
                Gitignore::global().0
            } else {
                Gitignore::empty()
            }
        })
    }

    /// The rules of `directory`, read on first use (outside the lock).
    fn rules(&self, dir: &Dir, directory: &str) -> Arc<DirRules> {
        if let Some(rules) = self.lock().rules.get(directory) {
            return Arc::clone(rules);
        }
        let rules = Arc::new(load(dir, directory));
        let mut cache = self.lock();
        if cache.rules.len() >= MAX_CACHED_DIRS
            || cache.bytes.saturating_add(rules.bytes) > MAX_CACHED_BYTES
        {
            cache.rules.clear();
            self.drop_chains(&mut cache);
            cache.bytes = 0;
        }
        cache.bytes += rules.bytes;
        Arc::clone(cache.rules.entry(directory.to_string()).or_insert(rules))
    }
}

/// Reads the ignore files of `directory`. A file that is missing,
/// unreadable, not a regular file or a link leading out adds nothing;
/// a line that is not a valid pattern is skipped, as git skips it.
fn load(dir: &Dir, directory: &str) -> DirRules {
    let mut builder = GitignoreBuilder::new(".");
    let mut bytes = 0;
    let mut add = |path: &str| {
        if let Some(content) = read_bounded(dir, path) {
            bytes += content.len();
            let patterns = String::from_utf8_lossy(&content);
            let patterns = patterns
                .lines()
                .filter(|line| !line.trim().is_empty() && !line.starts_with('#'))
                .take(MAX_IGNORE_PATTERNS);
            for line in patterns {
                let _ = builder.add_line(None, line);
            }
        }
    };
    if directory.is_empty() {
        add(GIT_EXCLUDE);
    }
    // The directory is opened once and each name looked up in it, rather
    // than each path resolved from the root again.
    let opened = if directory.is_empty() {
        None
    } else {
        dir.open_dir(directory).ok()
    };
    let folder = if directory.is_empty() {
        Some(dir)
    } else {
        opened.as_ref()
    };
    let mut stamps = [None; 2];
    for (slot, name) in IGNORE_FILES.iter().enumerate() {
        // Stamped before it is read: a change after the stamp is caught
        // by the next listing.
        stamps[slot] = folder
            .and_then(|folder| folder.symlink_metadata(name).ok())
            .map(|m| Stamp::of(&m));
        // Most directories have neither file: what `lstat` cannot find is
        // not opened (one created in between has no stamp, so the next
        // listing reads it).
        if stamps[slot].is_some() {
            add(&join_path(directory, name));
        }
    }
    DirRules {
        matcher: builder.build().unwrap_or_else(|_| Gitignore::empty()),
        stamps,
        bytes,
    }
}

/// At most [`MAX_IGNORE_FILE_BYTES`] of the regular file at `path`, cut
/// after its last complete line when longer.
fn read_bounded(dir: &Dir, path: &str) -> Option<Vec<u8>> {
    let file = open_regular(dir, path, &Hooks::default()).ok()?;
    let mut content = Vec::new();
    file.take(MAX_IGNORE_FILE_BYTES as u64 + 1)
        .read_to_end(&mut content)
        .ok()?;
    if content.len() > MAX_IGNORE_FILE_BYTES {
        let end = content
            .iter()
            .take(MAX_IGNORE_FILE_BYTES)
            .rposition(|&byte| byte == b'\n')
            .map_or(0, |at| at + 1);
        content.truncate(end);
    }
    Some(content)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use std::fs;
    use std::path::Path;

    use super::*;
    use crate::environment::{EnvironmentProvider, LocalEnvironmentProvider};

    fn write(root: &Path, path: &str, content: &str) {
        let path = root.join(path);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, content).unwrap();
    }

    fn local(root: &Path) -> LocalEnvironmentProvider {
        LocalEnvironmentProvider::new(root)
            .unwrap()
            .with_global_git_excludes(false)
    }

    #[test]
    fn each_directory_rules_below_it_and_the_deepest_decides() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        write(root, ".gitignore", "*.log\nbuild/\n/top-only.txt\n");
        write(root, "sub/.gitignore", "!keep.log\nlocal.txt\n");
        write(root, "sub/.ignore", "!local.txt\nonly-ignore.txt\n");
        write(root, "vendor/.gitignore", "");
        write(root, ".git/info/exclude", "excluded.txt\n");
        let env = local(root);
        let ignored = |path: &str, is_dir: bool| env.is_ignored(path, is_dir);
        assert!(ignored("a.log", false));
        assert!(ignored("deep/er/a.log", false));
        assert!(!ignored("sub/keep.log", false), "a deeper `!` re-includes");
        assert!(ignored("other/keep.log", false), "only below sub/");
        assert!(ignored("build", true));
        assert!(!ignored("build", false), "`build/` names directories only");
        assert!(ignored("build/x/y.rs", false), "below an ignored directory");
        assert!(ignored("top-only.txt", false));
        assert!(
            !ignored("sub/top-only.txt", false),
            "anchored at its directory"
        );
        assert!(
            !ignored("sub/local.txt", false),
            ".ignore ranks above .gitignore"
        );
        assert!(ignored("sub/only-ignore.txt", false));
        assert!(ignored("excluded.txt", false), ".git/info/exclude");
        assert!(!ignored("src/main.rs", false));
        assert!(!ignored("", true), "the root is never ignored");
    }

    #[test]
    fn a_file_below_an_ignored_directory_cannot_be_re_included() {
        let root = tempfile::tempdir().unwrap();
        let root = root.path();
        write(root, ".gitignore", "vendor/\n");
        write(root, "vendor/.gitignore", "!*\n");
        let env = local(root);
        assert!(env.is_ignored("vendor", true));
        assert!(env.is_ignored("vendor/lib.rs", false));
        assert!(env.is_ignored("vendor/a/b.rs", false));
    }

    #[test]
    fn global_excludes_rank_below_the_trees_own_files() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), ".gitignore", "!important.tmp\n");
        let mut global = GitignoreBuilder::new(".");
        global.add_line(None, "*.tmp").unwrap();
        let mut env = local(root.path());
        env.ignores = std::sync::Arc::new(IgnoreRules::with_global(global.build().unwrap()));
        assert!(env.is_ignored("scratch.tmp", false));
        assert!(env.is_ignored("a/b/scratch.tmp", false));
        assert!(!env.is_ignored("important.tmp", false));
        assert!(!env.is_ignored("scratch.txt", false));
    }

    #[test]
    fn ignore_files_are_bounded_and_never_read_through_links_leading_out() {
        let root = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        let root = root.path();
        // A pattern past the first MiB is not read; one before it is.
        let filler = "# filler line\n".repeat(MAX_IGNORE_FILE_BYTES / 14);
        write(
            root,
            ".gitignore",
            &format!("early.txt\n{filler}late.txt\n"),
        );
        fs::write(outside.path().join("rules"), "*\n").unwrap();
        fs::create_dir(root.join("linked")).unwrap();
        std::os::unix::fs::symlink(outside.path().join("rules"), root.join("linked/.gitignore"))
            .unwrap();
        // So is a pattern past the first 10,000.
        let many: String = (0..MAX_IGNORE_PATTERNS)
            .map(|i| format!("p{i}\n"))
            .collect();
        write(root, "many/.gitignore", &format!("{many}after.txt\n"));
        let env = local(root);
        assert!(env.is_ignored("early.txt", false));
        assert!(!env.is_ignored("late.txt", false));
        assert!(env.is_ignored("many/p9999", false));
        assert!(!env.is_ignored("many/after.txt", false));
        assert!(!env.is_ignored("linked/anything", false));
        let cached = env.ignores.lock().rules.get("").map(|rules| rules.bytes);
        assert!(
            cached.is_some_and(|bytes| bytes <= MAX_IGNORE_FILE_BYTES),
            "{cached:?}"
        );
    }

    #[test]
    fn a_thread_judging_two_trees_in_turn_keeps_them_apart() {
        let (first, second) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        write(first.path(), "sub/.gitignore", "a.txt\n");
        write(second.path(), "sub/.gitignore", "b.txt\n");
        let (first, second) = (local(first.path()), local(second.path()));
        for _ in 0..2 {
            // The same directory name in both trees, one after the other.
            assert!(first.is_ignored("sub/a.txt", false));
            assert!(!second.is_ignored("sub/a.txt", false));
            assert!(!first.is_ignored("sub/b.txt", false));
            assert!(second.is_ignored("sub/b.txt", false));
        }
        // Cleared rules are read again, on the thread that remembered them.
        first.ignores.clear();
        assert!(first.is_ignored("sub/a.txt", false));
    }

    #[tokio::test]
    async fn writes_and_listings_drop_stale_rules() {
        let root = tempfile::tempdir().unwrap();
        write(root.path(), "sub/.gitignore", "a.txt\n");
        let env = local(root.path());
        assert!(env.is_ignored("sub/a.txt", false));
        // Through the provider: dropped at once.
        env.write_text("sub/.gitignore", "b.txt\n").await.unwrap();
        assert!(!env.is_ignored("sub/a.txt", false));
        assert!(env.is_ignored("sub/b.txt", false));
        env.remove("sub/.gitignore").await.unwrap();
        assert!(!env.is_ignored("sub/b.txt", false));
        // Behind its back (a command, an editor): dropped when the
        // directory is next listed.
        write(root.path(), "sub/.ignore", "c.txt\n");
        assert!(!env.is_ignored("sub/c.txt", false), "still cached");
        env.list_dir("sub").await.unwrap();
        assert!(env.is_ignored("sub/c.txt", false));
        // A directory verdict cached before a root rule appears.
        assert!(!env.is_ignored("sub/d/e.txt", false));
        env.write_text(".gitignore", "sub/\n").await.unwrap();
        assert!(env.is_ignored("sub/d/e.txt", false));
    }
}
