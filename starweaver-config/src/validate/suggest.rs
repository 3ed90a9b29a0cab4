//! "Did you mean" suggestions and readable lists of the allowed names.

/// How similar (0 to 1) a word must be to a candidate to be suggested.
const THRESHOLD: f64 = 0.7;

/// Words longer than this are no typo of a field or value name, and comparing them would cost
/// time and memory in proportion to their length: they get no suggestion.
const MAX_WORD_CHARS: usize = 64;

/// The candidate closest to `word`, if one is close enough to be a likely typo: similar enough
/// overall, or one edit away (short names such as `id` are never similar "overall").
pub(super) fn closest<'a>(word: &str, candidates: &[&'a str]) -> Option<&'a str> {
    if word.chars().count() > MAX_WORD_CHARS {
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

/// `` `a`, `b`, `c` `` for messages that list what is allowed.
pub(super) fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|name| format!("`{name}`"))
        .collect::<Vec<_>>()
        .join(", ")
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
    }
}
