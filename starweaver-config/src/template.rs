//! The instructions template engine, set up once for the checker and the loader: minijinja with
//! strict undefined names (a missing variable is an error, never an empty string) and a step
//! budget (a hostile template cannot loop for long).

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior, Value};

/// Template steps one render may take.
pub const TEMPLATE_FUEL: u64 = 100_000;

/// The most bytes rendered instructions may hold: they go to the model with every request.
pub const MAX_RENDERED_BYTES: usize = 1024 * 1024;

/// The engine every template of the crate uses (instructions and model scripts): strict
/// undefined names and [`TEMPLATE_FUEL`] steps per render or evaluation.
#[must_use]
pub fn environment() -> Environment<'static> {
    let mut environment = Environment::new();
    environment.set_undefined_behavior(UndefinedBehavior::Strict);
    environment.set_fuel(Some(TEMPLATE_FUEL));
    environment
}

/// Renders `template` with `vars` under `vars.*` and the manifest's `name` as `name`.
///
/// # Errors
/// The engine's error: a syntax error, an undefined name, a failing filter, a render that ran
/// out of steps, or one that writes more than [`MAX_RENDERED_BYTES`] (the render stops there).
pub fn render_instructions(
    template: &str,
    vars: &BTreeMap<String, serde_json::Value>,
    name: &str,
) -> Result<String, minijinja::Error> {
    let context = minijinja::context! {
        vars => Value::from_serialize(vars),
        name => name,
    };
    render(template, context, "the instructions")
}

/// Renders `template` with `context` on [`environment`], stopping at [`MAX_RENDERED_BYTES`];
/// `what` names the text in the errors (`the instructions`).
///
/// # Errors
/// As [`render_instructions`].
pub fn render(template: &str, context: Value, what: &str) -> Result<String, minijinja::Error> {
    let environment = environment();
    let template = environment.template_from_str(template)?;
    let mut out = Capped::default();
    template
        .render_captured_to(context, &mut out)
        .map_err(|error| {
            if out.overflowed {
                minijinja::Error::new(
                    minijinja::ErrorKind::InvalidOperation,
                    format!("{what} would render to more than {MAX_RENDERED_BYTES} bytes"),
                )
            } else {
                error
            }
        })?;
    // Only whole template output is written, and the sources are UTF-8.
    String::from_utf8(out.bytes).map_err(|_| {
        minijinja::Error::new(
            minijinja::ErrorKind::InvalidOperation,
            format!("{what} would not render to UTF-8 text"),
        )
    })
}

/// A writer that refuses to grow past [`MAX_RENDERED_BYTES`], so a template that loops or
/// repeats its text stops at the cap instead of filling memory.
#[derive(Default)]
struct Capped {
    bytes: Vec<u8>,
    overflowed: bool,
}

impl std::io::Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if self.bytes.len() + buf.len() > MAX_RENDERED_BYTES {
            self.overflowed = true;
            return Err(std::io::Error::other("rendered instructions too large"));
        }
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn a_render_stops_at_the_size_cap() {
        let vars = BTreeMap::from([("x".to_string(), serde_json::json!("y".repeat(1000)))]);
        let small = render_instructions("{{ vars.x }} {{ name }}", &vars, "a").unwrap();
        assert_eq!(small.len(), 1002);
        let error = render_instructions(
            "{% for i in range(5000) %}{{ vars.x }}{% endfor %}",
            &vars,
            "a",
        )
        .unwrap_err();
        assert!(error.to_string().contains("render to more than"), "{error}");
    }
}
