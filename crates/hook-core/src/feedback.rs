//! Feedback collection and rendering (R-RES-5).

use crate::result::HookResult;

/// The `<system-reminder>` key hook feedback is wrapped in.
pub const FEEDBACK_REMINDER_KEY: &str = "hook-feedback";

/// Collects and renders hook feedback for the model.
#[derive(Debug, Clone, Copy)]
pub struct HookFeedback;

impl HookFeedback {
    /// Advisory feedback of the results that neither denied, blocked nor asked, joined in
    /// dispatch order, so a denial reason is never shown twice. `None` when there is none.
    pub fn collect_advisory<'a>(results: impl IntoIterator<Item = &'a HookResult>) -> Option<String> {
        join_texts(results.into_iter().filter_map(HookResult::advisory_feedback))
    }

    /// The reasons of the results that denied or blocked, joined in dispatch order.
    pub fn collect_reasons<'a>(results: impl IntoIterator<Item = &'a HookResult>) -> Option<String> {
        join_texts(results.into_iter().filter(|r| r.is_blocked()).filter_map(|r| r.feedback.as_deref()))
    }

    /// Wraps feedback as a system reminder, the way it travels inside a tool result body.
    ///
    /// ```
    /// use hook_core::HookFeedback;
    /// assert_eq!(
    ///     HookFeedback::render("lint failed"),
    ///     "<system-reminder key=\"hook-feedback\">\nlint failed\n</system-reminder>"
    /// );
    /// ```
    pub fn render(feedback: &str) -> String {
        format!("<system-reminder key=\"{FEEDBACK_REMINDER_KEY}\">\n{feedback}\n</system-reminder>")
    }

    /// Appends rendered feedback to a tool result body (a user turn cannot sit between
    /// `tool_use` and `tool_result`, so feedback rides inside the body).
    pub fn append_to_tool_result(body: &str, feedback: Option<&str>) -> String {
        match feedback {
            Some(fb) if body.is_empty() => Self::render(fb),
            Some(fb) => format!("{body}\n\n{}", Self::render(fb)),
            None => body.to_owned(),
        }
    }
}

fn join_texts<'a>(texts: impl Iterator<Item = &'a str>) -> Option<String> {
    let joined: Vec<&str> = texts.filter(|t| !t.trim().is_empty()).collect();
    (!joined.is_empty()).then(|| joined.join("\n"))
}
