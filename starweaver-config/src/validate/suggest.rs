//! "Did you mean" suggestions and readable lists of the allowed names.

/// How similar (0 to 1) a word must be to a candidate to be suggested.
const THRESHOLD: f64 = 0.7;

/// Words longer than this are no typo of a field or value name, and comparing them would cost
/// time and memory in proportion to their length: they get no suggestion.
const MAX_WORD_CHARS: usize = 64;

/// Beyond this many candidates (names a file declares itself, such as thousands of tools) a
/// suggestion would cost time in proportion to the list for every misspelling: none is made.
const MAX_CANDIDATES: usize = 1000;

/// At most this many names are listed in a help; the rest are counted.
const MAX_LISTED: usize = 20;

/// The candidate closest to `word`, if one is close enough to be a likely typo: similar enough
/// overall, or one edit away (short names such as `id` are never similar "overall").
pub(super) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    if word.chars().count() > MAX_WORD_CHARS || candidates.len() > MAX_CANDIDATES {
        return None;
    }
    let word = word.to_lowercase();
    candidates
        .iter()
        .filter_map(|candidate| {
            let candidate_lower = candidate.to_lowercase();
            let edits = strsim::damerau_levenshtein(&word, &candidate_lower);
            let score = strsim::normalized_damerau_levenshtein(&word, &candidate_lower);
            (score >= THRESHOLD || edits == 1).then_some((score, *candidate))
        })
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, candidate)| candidate)
}

/// `` `a`, `b`, `c` `` for messages that list what is allowed; a long list ends with
/// "and N more" so a help stays short.
pub(super) fn list(names: &[&str]) -> String {
    let shown = names
        .iter()
        .take(MAX_LISTED)
        .map(|name| format!("`{}`", short(name)))
        .collect::<Vec<_>>()
        .join(", ");
    match names.len().saturating_sub(MAX_LISTED) {
        0 => shown,
        more => format!("{shown} and {more} more"),
    }
}

/// At most [`MAX_WORD_CHARS`] characters of a name.
fn short(name: &str) -> String {
    let mut chars = name.chars();
    let head: String = chars.by_ref().take(MAX_WORD_CHARS).collect();
    if chars.next().is_some() {
        format!("{head}...")
    } else {
        head
    }
}

/// The help for a name that is not one of `candidates`: the closest one, or the whole list.
pub(super) fn help(word: &str, candidates: &[&str], what: &str) -> String {
    match closest(word, candidates) {
        Some(candidate) => format!("did you mean `{candidate}`?"),
        None if candidates.is_empty() => format!("no {what} are allowed here"),
        None => format!("the {what} allowed here are {}", list(candidates)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_their_word_and_strangers_get_the_list() {
        let fields = ["version", "name", "model", "instructions"];
        assert_eq!(closest("instruction", &fields), Some("instructions"));
        assert_eq!(closest("nme", &fields), Some("name"));
        assert_eq!(closest("Modle", &fields), Some("model"));
        assert_eq!(closest("colour", &fields), None);
        assert_eq!(closest("ids", &["id", "settings"]), Some("id"));
        assert_eq!(closest(&"name".repeat(100), &fields), None);
        assert_eq!(help("nme", &fields, "fields"), "did you mean `name`?");
        assert_eq!(
            help("zzz", &["a", "b"], "fields"),
            "the fields allowed here are `a`, `b`"
        );
        assert_eq!(help("zzz", &[], "fields"), "no fields are allowed here");
        let many: Vec<String> = (0..1500).map(|i| format!("tool{i}")).collect();
        let many: Vec<&str> = many.iter().map(String::as_str).collect();
        assert_eq!(closest("tool1", &many), None);
        assert!(list(&many).ends_with("`tool19` and 1480 more"));
    }
}
