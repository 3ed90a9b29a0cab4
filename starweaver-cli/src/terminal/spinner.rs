//! A spinner with the elapsed time on stderr while the model or a tool
//! works; it is cleared before anything else is printed or asked.

use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

/// How often the spinner redraws.
const TICK: Duration = Duration::from_millis(120);
/// How long something runs before the spinner appears: quick steps show
/// no spinner at all.
const MOMENT: Duration = Duration::from_millis(400);

/// The one live spinner of a run, if any.
#[derive(Default)]
pub struct Spinner {
    bar: Option<ProgressBar>,
}

impl Spinner {
    /// Shows `message` with a spinner and the time since it started,
    /// replacing any earlier one, once it has run for a moment. Nothing is
    /// drawn when stderr is not a terminal.
    pub fn start(&mut self, message: String) {
        self.stop();
        let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template("{spinner} {msg} {elapsed}") {
            bar.set_style(style);
        }
        bar.set_message(message);
        bar.enable_steady_tick(TICK);
        // Shown only once it has run for a moment, and only if still live.
        let later = bar.downgrade();
        let shown = std::thread::Builder::new()
            .name("spinner".to_string())
            .spawn(move || {
                std::thread::sleep(MOMENT);
                if let Some(bar) = later.upgrade() {
                    if !bar.is_finished() {
                        bar.set_draw_target(ProgressDrawTarget::stderr());
                    }
                }
            });
        // Without a thread there is no spinner; the run goes on.
        drop(shown);
        self.bar = Some(bar);
    }

    /// Clears the spinner from the screen.
    pub fn stop(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// Runs `print` with the spinner hidden, so printed lines never mix
    /// with it; the spinner comes back afterwards.
    pub fn suspend<R>(&self, print: impl FnOnce() -> R) -> R {
        match &self.bar {
            Some(bar) => bar.suspend(print),
            None => print(),
        }
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        self.stop();
    }
}
