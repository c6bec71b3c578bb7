//! The event tables of `docs/config.md` and `docs/cli.md`, rendered from hook-core's events table
//! (`HookEventType::ALL` and each event's `EventSpec`), so what the docs say an event does is what
//! the engine does.

use hook_core::{AnswerChannel, DecisionChannel, FeedbackRoute, HandlerKind, HookEventType, MatchSubject, OnFailure};

/// The region of `docs/config.md`.
pub(crate) const CONFIG_EVENTS: &str = "event-table";
/// The region of `docs/cli.md`.
pub(crate) const CLAUDE_EVENTS: &str = "claude-event-table";

fn code(s: &str) -> String {
    format!("`{s}`")
}

fn decision(e: HookEventType) -> String {
    let spec = e.spec();
    let base = match spec.decision {
        DecisionChannel::Advisory => "nothing (a WARN says it was ignored)",
        DecisionChannel::Block => "refuses what the event announces",
        DecisionChannel::Deny => "denies the permission",
        DecisionChannel::Continuation => "keeps the agent working, the reason as its next instruction",
    };
    if spec.reads_ask { format!("{base}; `ask` asks the person") } else { base.to_owned() }
}

fn subject(e: HookEventType) -> String {
    match e.spec().matcher {
        MatchSubject::Tool => "the tool (name and input)".to_owned(),
        MatchSubject::Field(field) => code(field),
        MatchSubject::FileName(field) => format!("the file name in {}", code(field)),
        MatchSubject::Nothing => "nothing (a matcher is ignored)".to_owned(),
    }
}

fn handlers(e: HookEventType) -> String {
    let kinds: Vec<String> = e.spec().handlers.iter().map(|k: &HandlerKind| code(k.config_name())).collect();
    kinds.join(", ")
}

fn feedback(e: HookEventType) -> &'static str {
    match e.spec().feedback {
        FeedbackRoute::Discarded => "dropped",
        FeedbackRoute::ToolResult => "appended to the tool result",
        FeedbackRoute::UserMessage => "a user message",
        FeedbackRoute::CompactInstructions => "the summariser's instructions",
        FeedbackRoute::ModelContext => "the model's context",
    }
}

fn on_failure(e: HookEventType) -> &'static str {
    match e.spec().on_failure {
        OnFailure::Refuse => "refuses (a `failClosed` failure or a configuration error)",
        OnFailure::FailClosed => "refuses only for a `failClosed` handler's failure",
        OnFailure::Report => "reported; nothing changes",
    }
}

fn answer(e: HookEventType) -> &'static str {
    match e.spec().answer {
        AnswerChannel::Nothing => "none",
        AnswerChannel::PermissionDecision => "permission decision",
        AnswerChannel::PermissionBehavior => "permission behaviour",
        AnswerChannel::TopLevelBlock => "top-level block",
        AnswerChannel::ExitCode => "exit code",
        AnswerChannel::Path => "path",
        AnswerChannel::PassThrough => "pass-through",
    }
}

fn yes(b: bool) -> &'static str {
    if b { "yes" } else { "—" }
}

/// The table of `docs/config.md`: every event, what a block does, the matcher's subject, the
/// handler kinds, whether `asyncRewake` and SKILL.md frontmatter hooks are allowed.
pub(crate) fn config_table() -> String {
    let mut out = String::from(
        "| AIMON | Claude Code | what it is | a block or deny | the matcher is tested against | handlers | `asyncRewake` | in SKILL.md |\n|---|---|---|---|---|---|---|---|\n",
    );
    for &e in HookEventType::ALL {
        let claude = e.claude_name().map_or_else(|| "—".to_owned(), code);
        out.push_str(&format!(
            "| {} | {claude} | {} | {} | {} | {} | {} | {} |\n",
            code(e.name()),
            e.summary(),
            decision(e),
            subject(e),
            handlers(e),
            yes(e.spec().rewake),
            yes(e.spec().frontmatter),
        ));
    }
    out
}

/// The table of `docs/cli.md`: every event Claude Code sends, how `claude` answers it.
pub(crate) fn claude_table() -> String {
    let mut out = String::from(
        "| Claude Code | AIMON | answer channel | a block or deny | feedback | a failure or configuration error |\n|---|---|---|---|---|---|\n",
    );
    for &e in HookEventType::ALL {
        let Some(claude) = e.claude_name() else { continue };
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} |\n",
            code(claude),
            code(e.name()),
            answer(e),
            decision(e),
            feedback(e),
            on_failure(e),
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_event_has_a_row_in_the_config_table_and_every_claude_event_in_the_cli_table() {
        let config = config_table();
        let claude = claude_table();
        for &e in HookEventType::ALL {
            assert!(config.contains(&format!("| `{}` |", e.name())), "{e}");
            if let Some(name) = e.claude_name() {
                assert!(claude.contains(&format!("| `{name}` | `{}` |", e.name())), "{e}");
            }
        }
        assert_eq!(config.lines().count(), HookEventType::ALL.len() + 2);
    }

    #[test]
    fn a_row_says_what_the_spec_says() {
        let config = config_table();
        let row = |name: &str| config.lines().find(|l| l.starts_with(&format!("| `{name}` |"))).unwrap().to_owned();
        assert!(row("onStop").contains("keeps the agent working"), "{}", row("onStop"));
        assert!(row("onStart").contains("| `command` |"), "{}", row("onStart"));
        assert!(row("preTool").contains("`ask` asks the person"), "{}", row("preTool"));
        assert!(row("subagentStart").contains("| `agent_type` |"), "{}", row("subagentStart"));
    }
}
