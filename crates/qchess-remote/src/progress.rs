//! A spinner on stderr while a job waits.

use std::io::IsTerminal;
use std::time::Duration;

use crate::wire::JobStatus;

/// A spinner on stderr while a job waits; hidden unless stderr is a terminal.
pub(crate) struct Progress {
    bar: Option<indicatif::ProgressBar>,
}

impl Progress {
    pub(crate) fn new(enabled: bool, job_id: &str) -> Progress {
        if !enabled || !std::io::stderr().is_terminal() {
            return Progress { bar: None };
        }
        let bar = indicatif::ProgressBar::new_spinner();
        if let Ok(style) = indicatif::ProgressStyle::with_template("{spinner} job {prefix}: {msg} ({elapsed})") {
            bar.set_style(style);
        }
        bar.set_prefix(job_id.to_owned());
        bar.set_message("submitted");
        bar.enable_steady_tick(Duration::from_millis(120));
        Progress { bar: Some(bar) }
    }

    pub(crate) fn update(&self, status: &JobStatus) {
        self.message(&status.to_string());
    }

    /// Shows `text` (a status in the provider's words) beside the spinner.
    pub(crate) fn message(&self, text: &str) {
        if let Some(bar) = &self.bar {
            bar.set_message(text.to_owned());
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
