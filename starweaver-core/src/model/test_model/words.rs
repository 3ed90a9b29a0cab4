//! The prompt's words, as the test model puts them into free-text
//! arguments.
//!
//! The rule: split the prompt into words (letters, digits, `_` and `-`;
//! leading and trailing `-` dropped), lower-case them, drop English stop
//! words and request verbs ("where", "is", "the", "show", "find", ...) and
//! one-letter words, and keep the first six distinct ones: the *key
//! words*. "Where is the manifest loader?" gives `manifest loader`. The
//! *specific* word is the longest key word (the first of equals):
//! `manifest`. With no key word left, the first word is used, and with no
//! word at all, `example`. Key words hold no quote, space or shell
//! character, so they are safe in a regular expression, a glob and an
//! `echo` command.

/// Most key words kept from a prompt.
const MAX_KEY_WORDS: usize = 6;
/// Longest word kept, in characters (longer ones are cut).
const MAX_WORD_CHARS: usize = 32;
/// Longest prompt sentence used as a value, in characters.
const MAX_SENTENCE_CHARS: usize = 200;
/// Words read from a prompt; the rest is ignored.
const MAX_WORDS_READ: usize = 256;
/// The word used when the prompt has none.
const FALLBACK: &str = "example";

/// Words that say little about what is asked.
const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "all", "also", "am", "an", "and", "any", "are", "as", "at", "be",
    "been", "before", "being", "but", "by", "can", "could", "describe", "did", "do", "does",
    "doing", "done", "each", "else", "every", "explain", "find", "for", "from", "get", "give",
    "had", "has", "have", "he", "help", "her", "here", "him", "his", "how", "i", "if", "in",
    "into", "is", "it", "its", "just", "know", "let", "like", "list", "look", "may", "me", "might",
    "must", "my", "need", "no", "not", "of", "on", "or", "our", "please", "see", "shall", "she",
    "should", "show", "so", "some", "tell", "than", "that", "the", "their", "them", "then",
    "there", "these", "they", "this", "those", "to", "try", "us", "want", "was", "we", "were",
    "what", "when", "where", "which", "who", "whom", "whose", "why", "will", "with", "would",
    "you", "your",
];

/// The words of one prompt.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Words {
    sentence: String,
    key: Vec<String>,
}

impl Words {
    /// The words of `prompt`.
    pub(super) fn of(prompt: &str) -> Self {
        Self::with_limit(prompt, MAX_KEY_WORDS)
    }

    /// The words of `text`, keeping up to `limit` key words.
    pub(super) fn with_limit(prompt: &str, limit: usize) -> Self {
        let all: Vec<String> = prompt
            .split(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .map(|word| word.trim_matches('-'))
            .filter(|word| !word.is_empty())
            .take(MAX_WORDS_READ)
            .map(|word| word.to_lowercase().chars().take(MAX_WORD_CHARS).collect())
            .collect();
        let mut key: Vec<String> = Vec::new();
        for word in &all {
            if key.len() >= limit {
                break;
            }
            if word.chars().count() > 1
                && !STOP_WORDS.contains(&word.as_str())
                && !key.contains(word)
            {
                key.push(word.clone());
            }
        }
        if key.is_empty() {
            key.push(all.first().map_or(FALLBACK, String::as_str).to_string());
        }
        // Whitespace collapsed, built only up to its bound (a prompt may
        // be long).
        let mut sentence = String::new();
        for word in prompt.split_whitespace() {
            if sentence.chars().count() >= MAX_SENTENCE_CHARS {
                break;
            }
            if !sentence.is_empty() {
                sentence.push(' ');
            }
            sentence.push_str(word);
        }
        let sentence: String = sentence.chars().take(MAX_SENTENCE_CHARS).collect();
        Self { sentence, key }
    }

    /// The key words, space-separated (`manifest loader`).
    pub(super) fn phrase(&self) -> String {
        self.key.join(" ")
    }

    /// The key words one by one.
    pub(super) fn key(&self) -> &[String] {
        &self.key
    }

    /// The longest key word, the first of equals (`manifest`).
    pub(super) fn specific(&self) -> &str {
        let mut best = self.key.first().map_or(FALLBACK, String::as_str);
        for word in &self.key {
            if word.chars().count() > best.chars().count() {
                best = word;
            }
        }
        best
    }

    /// The prompt itself, whitespace collapsed, at most 200 characters;
    /// the key words when it is blank.
    pub(super) fn sentence(&self) -> String {
        if self.sentence.is_empty() {
            return self.phrase();
        }
        self.sentence.clone()
    }
}
