//! Feedback collection, rendering (R-RES-5) and the length cap on text for the model (R-CC-6).

use std::borrow::Cow;

use crate::result::HookResult;

/// The `<system-reminder>` key hook feedback is wrapped in.
pub const FEEDBACK_REMINDER_KEY: &str = "hook-feedback";

/// Collects and renders hook feedback for the model.
#[derive(Debug, Clone, Copy)]
pub struct HookFeedback;

impl HookFeedback {
    /// Text that reaches the model (feedback, `additionalContext`, reasons, `systemMessage`) is
    /// cut to this many characters per hook answer and again per merged answer, as Claude Code
    /// caps injected hook output (R-CC-6).
    pub const MAX_CHARS: usize = 10_000;

    /// Cuts `text` to at most `max_chars` characters (never inside a character), the last of
    /// which are a marker saying it was cut; text that fits comes back as it is.
    ///
    /// ```
    /// use hook_core::HookFeedback;
    /// assert_eq!(HookFeedback::clamp("short", 100), "short");
    /// let long = "é".repeat(200);
    /// let cut = HookFeedback::clamp(&long, 100);
    /// assert_eq!(cut.chars().count(), 100);
    /// assert!(cut.starts_with("éé") && cut.ends_with("[… cut at 100 characters]"));
    /// ```
    pub fn clamp(text: &str, max_chars: usize) -> Cow<'_, str> {
        let Some((limit, _)) = text.char_indices().nth(max_chars) else { return Cow::Borrowed(text) };
        let marker = format!("\n[… cut at {max_chars} characters]");
        let Some(keep) = max_chars.checked_sub(marker.chars().count()) else {
            return Cow::Borrowed(&text[..limit]);
        };
        let end = text.char_indices().nth(keep).map_or(limit, |(i, _)| i);
        Cow::Owned(format!("{}{marker}", &text[..end]))
    }

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_cuts_on_character_boundaries_and_says_so() {
        // (text, max, chars kept before the marker, marker present).
        let marker_len = "\n[… cut at 40 characters]".chars().count();
        #[rustfmt::skip]
        let cases: &[(String, usize, usize, bool)] = &[
            ("a".repeat(40), 40, 40, false),
            ("a".repeat(41), 40, 40 - marker_len, true),
            ("€".repeat(50), 40, 40 - marker_len, true),
            ("🦀".repeat(90), 40, 40 - marker_len, true),
            ("x".repeat(10), 5, 5, false),
        ];
        for (text, max, kept, marked) in cases {
            let out = HookFeedback::clamp(text, *max);
            assert!(out.chars().count() <= *max, "{text}");
            assert_eq!(out.ends_with(&format!("[… cut at {max} characters]")), *marked, "{out}");
            let first = text.chars().next().expect("non-empty");
            assert_eq!(out.chars().take_while(|c| *c == first).count(), *kept, "{out}");
        }
    }
}
