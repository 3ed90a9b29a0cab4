//! Colours, only when the caller decided the terminal may have them: the
//! formatting functions take a [`Paint`] instead of asking the terminal, so
//! they give the same text in tests as on a terminal.

use console::Style;

/// Whether styled text carries colour escapes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Paint {
    /// `false` gives plain text (pipes, `NO_COLOR`).
    pub color: bool,
}

impl Paint {
    /// Plain text, no escapes at all (what the tests compare against).
    #[cfg(test)]
    pub const PLAIN: Self = Self { color: false };

    fn apply(self, style: Style, text: &str) -> String {
        if self.color {
            style.force_styling(true).apply_to(text).to_string()
        } else {
            text.to_string()
        }
    }

    /// Secondary details: ids, usage, arguments.
    pub fn dim(self, text: &str) -> String {
        self.apply(Style::new().dim(), text)
    }

    /// Names worth spotting: tools, steps.
    pub fn bold(self, text: &str) -> String {
        self.apply(Style::new().bold(), text)
    }

    /// Success marks.
    pub fn green(self, text: &str) -> String {
        self.apply(Style::new().green(), text)
    }

    /// Errors and refusals.
    pub fn red(self, text: &str) -> String {
        self.apply(Style::new().red(), text)
    }

    /// Waiting states and warnings.
    pub fn yellow(self, text: &str) -> String {
        self.apply(Style::new().yellow(), text)
    }

    /// Tool calls.
    pub fn cyan(self, text: &str) -> String {
        self.apply(Style::new().cyan(), text)
    }
}

#[cfg(test)]
mod tests {
    use super::Paint;

    #[test]
    fn plain_paint_adds_nothing_and_colour_adds_escapes() {
        assert_eq!(Paint::PLAIN.red("no"), "no");
        assert!(Paint { color: true }.red("no").contains('\u{1b}'));
    }
}
