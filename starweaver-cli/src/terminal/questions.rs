//! Clarifying questions from `ask_user_question`: each question with its
//! options, one choice (`Select`) or several (`MultiSelect`) or an answer
//! of one's own (`Input`); the answers go back keyed by question text, the
//! shape the tool's preprocessor reads.

use console::Term;
use dialoguer::theme::Theme;
use dialoguer::{Input, MultiSelect, Select};
use serde_json::{Map, Value};
use starweaver_core::agent::AgentHitlRequest;
use starweaver_core::bundles::{AskUserQuestionArgs, ClarifyingQuestion};

use super::approval::into_io;
use super::style::Paint;
use super::text::shorten;
use crate::mask::Redactor;

/// The last item of a single-choice question.
pub const OTHER: &str = "Other (type an answer)";

/// The questions of a request, or why they cannot be read.
///
/// # Errors
/// The arguments are not `ask_user_question` arguments.
pub fn questions(request: &AgentHitlRequest) -> Result<Vec<ClarifyingQuestion>, String> {
    serde_json::from_value::<AskUserQuestionArgs>(request.arguments.clone())
        .map(|args| args.questions)
        .map_err(|error| format!("the questions could not be read: {error}"))
}

/// One item per option: `label: description`, on one line, secret values masked.
pub fn option_items(question: &ClarifyingQuestion, redactor: &Redactor) -> Vec<String> {
    question
        .options
        .iter()
        .map(|option| {
            let item = match option.description.trim() {
                "" => option.label.clone(),
                description => format!("{}: {description}", option.label),
            };
            shorten(&redactor.text(&item), 76)
        })
        .collect()
}

/// The line that introduces a question: `[header] question`, secret values masked.
pub fn question_line(question: &ClarifyingQuestion, paint: Paint, redactor: &Redactor) -> String {
    format!(
        "{} {}",
        paint.yellow(&format!(
            "[{}]",
            shorten(&redactor.text(&question.header), 12)
        )),
        shorten(&redactor.text(&question.question), 200)
    )
}

/// The user input for the tool: `{"answers": {question: answer}}`, with a
/// label, a list of labels (multi-select) or free text per question;
/// `None` when nothing was answered.
pub fn answers_value(answers: Vec<(String, Value)>) -> Option<Value> {
    let map: Map<String, Value> = answers
        .into_iter()
        .filter(|(_, answer)| match answer {
            Value::String(text) => !text.trim().is_empty(),
            Value::Array(items) => !items.is_empty(),
            _ => false,
        })
        .collect();
    (!map.is_empty()).then(|| serde_json::json!({ "answers": map }))
}

/// Asks every question on `term`, showing them with secret values masked; `None` when the
/// person left a prompt (Esc) or answered nothing. The answers are keyed by the questions and
/// labels as the model wrote them, which is what the tool matches.
pub fn ask(
    term: &Term,
    theme: &dyn Theme,
    questions: &[ClarifyingQuestion],
    paint: Paint,
    redactor: &Redactor,
) -> std::io::Result<Option<Value>> {
    let mut answers = Vec::with_capacity(questions.len());
    for question in questions {
        term.write_line(&question_line(question, paint, redactor))?;
        let labels: Vec<&str> = question.options.iter().map(|o| o.label.as_str()).collect();
        let answer = if question.multi_select {
            let Some(chosen) = MultiSelect::with_theme(theme)
                .with_prompt("Choose any (space to toggle, enter to confirm)")
                .items(option_items(question, redactor))
                .interact_on_opt(term)
                .map_err(into_io)?
            else {
                return Ok(None);
            };
            let picked: Vec<Value> = chosen
                .iter()
                .filter_map(|index| labels.get(*index))
                .map(|label| Value::String((*label).to_string()))
                .collect();
            if picked.is_empty() {
                let text: String = Input::with_theme(theme)
                    .with_prompt("Your answer (empty to skip)")
                    .allow_empty(true)
                    .interact_text_on(term)
                    .map_err(into_io)?;
                Value::String(text)
            } else {
                Value::Array(picked)
            }
        } else {
            let mut items = option_items(question, redactor);
            items.push(OTHER.to_string());
            let Some(index) = Select::with_theme(theme)
                .with_prompt("Choose one")
                .items(&items)
                .default(0)
                .interact_on_opt(term)
                .map_err(into_io)?
            else {
                return Ok(None);
            };
            match labels.get(index) {
                Some(label) => Value::String((*label).to_string()),
                None => {
                    let text: String = Input::with_theme(theme)
                        .with_prompt("Your answer")
                        .interact_text_on(term)
                        .map_err(into_io)?;
                    Value::String(text)
                }
            }
        };
        answers.push((question.question.clone(), answer));
    }
    Ok(answers_value(answers))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;
    use starweaver_core::agent::AgentHitlRequestKind;
    use starweaver_core::bundles::normalize_clarifying_question_answers;

    fn request(arguments: Value) -> AgentHitlRequest {
        AgentHitlRequest {
            tool_call_id: "q1".into(),
            tool_name: "ask_user_question".into(),
            arguments,
            kind: AgentHitlRequestKind::Approval,
            metadata: Default::default(),
            agent: Vec::new(),
        }
    }

    fn two_questions() -> Value {
        json!({"questions": [
            {"question": "Which format?", "header": "Format",
             "options": [{"label": "YAML", "description": "readable"}, {"label": "JSON"}]},
            {"question": "Which parts?", "header": "Parts", "multiSelect": true,
             "options": [{"label": "api"}, {"label": "web"}, {"label": "cli"}]}
        ]})
    }

    #[test]
    fn answers_take_the_shape_the_tool_reads() {
        let questions = questions(&request(two_questions())).unwrap();
        assert_eq!(
            option_items(&questions[0], &Redactor::default()),
            ["YAML: readable", "JSON"]
        );
        let value = answers_value(vec![
            ("Which format?".into(), json!("YAML")),
            ("Which parts?".into(), json!(["api", "cli"])),
        ])
        .unwrap();
        let normalized = normalize_clarifying_question_answers(&questions, &value).unwrap();
        assert_eq!(normalized.answers["Which format?"], "YAML");
        assert_eq!(normalized.answers["Which parts?"], "api, cli");
    }

    #[test]
    fn blank_answers_are_left_out_and_nothing_answered_is_none() {
        assert_eq!(
            answers_value(vec![("a".into(), json!(" ")), ("b".into(), json!([]))]),
            None
        );
        assert!(questions(&request(json!({"questions": "no"}))).is_err());
    }
}
