//! The events table (R-EVT, R-LAYER-4): one declaration per event; everything else iterates it.

use std::fmt;

/// What a BLOCK or DENY means on an event (R-EVT-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DecisionChannel {
    /// Block/deny is logged as a WARN and changes nothing.
    Advisory,
    /// A block (or an exit-2 veto) stops what the event announces: the turn, the tool call, the compaction.
    Block,
    /// A veto becomes a deny of the permission request.
    Deny,
    /// A block means "do not stop: keep working, with the reason as the next instruction"
    /// (R-EVT-7). Never reached by a failure (R-EVT-8).
    Continuation,
}

/// Where a hook's feedback text goes (R-EVT-5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FeedbackRoute {
    /// Feedback is dropped.
    Discarded,
    /// Appended to the tool result inside a `<system-reminder key="hook-feedback">` block.
    ToolResult,
    /// Appended to the conversation as a user-role message.
    UserMessage,
    /// Folded into the summariser's custom instructions.
    CompactInstructions,
    /// Added to the model's context (next to the prompt, at the start of the session, at the end
    /// of the turn, where the event sits).
    ModelContext,
}

/// What a hook failure (timeout, crash, unusable answer) or a configuration error does on an
/// event (R-EVT-8). Failures never invert meaning.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum OnFailure {
    /// A `failClosed` handler's failure and a configuration error both refuse what the event
    /// announces, through its answer channel, with the error as the reason.
    Refuse,
    /// A `failClosed` handler's failure refuses; a configuration error is reported and changes
    /// nothing.
    FailClosed,
    /// Reported, and nothing changes: `failClosed` and a cancelled wait never refuse (on a
    /// continuation event the agent may stop).
    Report,
}

/// The kind of answer channel the event has in an agent client; the client's wire crate turns
/// the kind into its own keys (R-EVT-6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnswerChannel {
    /// The client reads no answer of its own for this event (or it has no client counterpart).
    Nothing,
    /// A permission decision (allow / deny / ask / defer) with a reason and, where modelled, an
    /// input rewrite.
    PermissionDecision,
    /// A permission request's behaviour (allow / deny) with a message.
    PermissionBehavior,
    /// A top-level block with a reason.
    TopLevelBlock,
    /// The process exit code: a block exits 2 with the reason on stderr.
    ExitCode,
    /// A path the hook produced (printed as the last stdout line by a command hook); a refusal
    /// is a non-zero exit.
    Path,
    /// Event-specific answer fields the engine does not model, handed to the client unchanged;
    /// a refusal is a non-zero exit.
    PassThrough,
}

/// What a configured matcher is tested against on an event (R-PRED-4b).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MatchSubject {
    /// The tool name (and the tool input, for predicates that look at arguments).
    Tool,
    /// A payload field, by its Claude Code key (`trigger`, `source`, `reason`, `agent_type`).
    Field(&'static str),
    /// The last component of a path held in a payload field (a watched file's name).
    FileName(&'static str),
    /// Nothing: a matcher other than `*`/empty is ignored with a load-time WARN.
    Nothing,
}

/// The declarative handler kinds (R-CFG-4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum HandlerKind {
    /// `command`: a shell command.
    Command,
    /// `http`: a webhook.
    Http,
    /// `mcp`: a tool on an MCP server.
    Mcp,
    /// `deny`: an immediate denial.
    Deny,
    /// `prompt`: one question to a model, answered `{ok, reason}`.
    Prompt,
    /// `agent`: a bounded model loop with read-only tools, answered `{ok, reason}`.
    Agent,
}

impl HandlerKind {
    /// The `type` value used in hooks.json.
    pub const fn config_name(self) -> &'static str {
        match self {
            HandlerKind::Command => "command",
            HandlerKind::Http => "http",
            HandlerKind::Mcp => "mcp",
            HandlerKind::Deny => "deny",
            HandlerKind::Prompt => "prompt",
            HandlerKind::Agent => "agent",
        }
    }
}

/// Everything the engine knows about one event.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct EventSpec {
    /// The AIMON name (`preTool`).
    pub aimon: &'static str,
    /// The Claude Code name (`PreToolUse`), when one exists.
    pub claude: Option<&'static str>,
    /// What BLOCK/DENY does.
    pub decision: DecisionChannel,
    /// Whether ASK is read (R-CHAIN-2).
    pub reads_ask: bool,
    /// Where feedback goes.
    pub feedback: FeedbackRoute,
    /// Whether `asyncRewake` is valid (R-CFG-RW-1; R-CFG-RW-1b adds the events whose later
    /// answer reaches the agent through the session mailbox).
    pub rewake: bool,
    /// Whether SKILL.md frontmatter may declare hooks for it (R-SKILL-1).
    pub frontmatter: bool,
    /// Whether frontmatter may give a matcher for it (R-SKILL-2).
    pub frontmatter_matcher: bool,
    /// What a matcher is tested against.
    pub matcher: MatchSubject,
    /// Declarative handler kinds allowed (R-CFG-5).
    pub handlers: &'static [HandlerKind],
    /// What a failure or a configuration error does (R-EVT-8).
    pub on_failure: OnFailure,
    /// The kind of answer channel in the client (R-EVT-6).
    pub answer: AnswerChannel,
    /// Whether a command hook's plain (non-JSON) stdout on exit 0 is feedback (R-EVT-7).
    pub stdout_is_feedback: bool,
    /// Whether a hook's `updated_input` is applied (tool events that run the rewritten call).
    pub updates_input: bool,
    /// How a session's rewake mail reaches the model on this event (R-RW-11); `None`: the mail
    /// waits for another call of the session.
    pub mail: Option<MailChannel>,
    /// Whether the person is told about a project's untrusted hooks on this event even when none
    /// of them would have run for the call (the start of a session).
    pub tells_untrusted: bool,
    /// Whether `init <client>` routes the event without being asked: `false` where routing it at
    /// all changes the client's behaviour or cost (a worktree the hook must create, every
    /// message displayed).
    pub routed_on_init: bool,
    /// The tool result status the event implies when the client does not say (`success` after a
    /// tool call that succeeded); `None` where the event says nothing about a result.
    pub tool_result: Option<&'static str>,
    /// Consecutive "keep working" answers allowed per session before the agent may stop anyway,
    /// on a continuation event (R-EVT-7).
    pub continuation_cap: Option<u32>,
}

/// How rewake mail reaches the model on an event (R-RW-11); the client's wire turns the kind into
/// its own keys.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MailChannel {
    /// Text added to the model's context.
    Context,
    /// A block of the stop with the mail as its reason: the agent keeps working instead of
    /// stopping.
    Continuation,
}

const COMMAND_ONLY: &[HandlerKind] = &[HandlerKind::Command];
/// Claude Code's "all five" events: prompt and agent handlers run there too.
const WITH_MODEL: &[HandlerKind] =
    &[HandlerKind::Command, HandlerKind::Http, HandlerKind::Mcp, HandlerKind::Prompt, HandlerKind::Agent];
/// [`WITH_MODEL`] plus `deny`.
const WITH_MODEL_AND_DENY: &[HandlerKind] = &[
    HandlerKind::Command,
    HandlerKind::Http,
    HandlerKind::Mcp,
    HandlerKind::Deny,
    HandlerKind::Prompt,
    HandlerKind::Agent,
];

/// Claude Code's three tool-less handler kinds: `command`, `http` and `mcp`.
const COMMAND_HTTP_MCP: &[HandlerKind] = &[HandlerKind::Command, HandlerKind::Http, HandlerKind::Mcp];

/// The row most events are: advisory (its BLOCK/DENY is ignored with a WARN), feedback discarded,
/// no matcher, no rewake, no frontmatter, `command`/`http`/`mcp` handlers, failures reported,
/// nothing answered, routed on `init`. A row of the table is its name and what differs from
/// this base or from [`BLOCKING`]; `aimon` and `claude` are always given.
const ADVISORY: EventSpec = EventSpec {
    aimon: "",
    claude: None,
    decision: DecisionChannel::Advisory,
    reads_ask: false,
    feedback: FeedbackRoute::Discarded,
    rewake: false,
    frontmatter: false,
    frontmatter_matcher: false,
    matcher: MatchSubject::Nothing,
    handlers: COMMAND_HTTP_MCP,
    on_failure: OnFailure::Report,
    answer: AnswerChannel::Nothing,
    stdout_is_feedback: false,
    updates_input: false,
    mail: None,
    tells_untrusted: false,
    routed_on_init: true,
    tool_result: None,
    continuation_cap: None,
};

/// [`ADVISORY`] for an event a hook can stop: a block stops what the event announces (top-level
/// `decision: "block"`), and a failure refuses it.
const BLOCKING: EventSpec = EventSpec {
    decision: DecisionChannel::Block,
    on_failure: OnFailure::Refuse,
    answer: AnswerChannel::TopLevelBlock,
    ..ADVISORY
};

macro_rules! events {
    ($( $(#[doc = $doc:literal])+ $konst:ident => $spec:expr ),* $(,)?) => {
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy)]
        enum Index { $($konst),* }

        static TABLE: &[EventSpec] = &[$($spec),*];

        /// Each event's doc comment, line by line: the sentence the docs show for it.
        static SUMMARIES: &[&[&str]] = &[$(&[$($doc),+]),*];

        impl HookEventType {
            $( $(#[doc = $doc])+ pub const $konst: HookEventType = HookEventType(Index::$konst as u8); )*
            /// Every event, in canonical order.
            pub const ALL: &'static [HookEventType] = &[$(HookEventType::$konst),*];
        }
    };
}

events! {
    /// Turn start; a block aborts the turn.
    ON_START => EventSpec {
        aimon: "onStart", claude: None, decision: DecisionChannel::Block, feedback: FeedbackRoute::UserMessage,
        frontmatter: true, handlers: COMMAND_ONLY, on_failure: OnFailure::FailClosed, ..ADVISORY
    },
    /// Turn end; a block keeps the agent working with the reason as its next instruction.
    ON_STOP => EventSpec {
        aimon: "onStop", claude: Some("Stop"), decision: DecisionChannel::Continuation,
        feedback: FeedbackRoute::ModelContext, rewake: true, frontmatter: true, handlers: WITH_MODEL,
        answer: AnswerChannel::TopLevelBlock, mail: Some(MailChannel::Continuation), continuation_cap: Some(8),
        ..ADVISORY
    },
    /// Before a tool call; may deny, block, ask or rewrite the input.
    PRE_TOOL => EventSpec {
        aimon: "preTool", claude: Some("PreToolUse"), reads_ask: true, feedback: FeedbackRoute::ToolResult,
        rewake: true, frontmatter: true, frontmatter_matcher: true, matcher: MatchSubject::Tool,
        handlers: WITH_MODEL_AND_DENY, answer: AnswerChannel::PermissionDecision, updates_input: true, ..BLOCKING
    },
    /// After a tool call; may rewrite the output and talk to the model.
    POST_TOOL => EventSpec {
        aimon: "postTool", claude: Some("PostToolUse"), feedback: FeedbackRoute::ToolResult, rewake: true,
        frontmatter: true, frontmatter_matcher: true, matcher: MatchSubject::Tool, handlers: WITH_MODEL,
        answer: AnswerChannel::TopLevelBlock, mail: Some(MailChannel::Context), tool_result: Some("success"),
        ..ADVISORY
    },
    /// When the permission system needs a decision.
    PERMISSION_REQUEST => EventSpec {
        aimon: "permissionRequest", claude: Some("PermissionRequest"), decision: DecisionChannel::Deny,
        reads_ask: true, feedback: FeedbackRoute::ToolResult, frontmatter: true, matcher: MatchSubject::Tool,
        handlers: WITH_MODEL, answer: AnswerChannel::PermissionBehavior, updates_input: true, ..BLOCKING
    },
    /// After a permission was denied.
    PERMISSION_DENIED => EventSpec {
        aimon: "permissionDenied", claude: Some("PermissionDenied"), frontmatter: true, matcher: MatchSubject::Tool,
        handlers: WITH_MODEL, answer: AnswerChannel::PassThrough, ..ADVISORY
    },
    /// A subagent starts.
    SUBAGENT_START => EventSpec {
        aimon: "subagentStart", claude: Some("SubagentStart"), feedback: FeedbackRoute::ModelContext,
        frontmatter: true, matcher: MatchSubject::Field("agent_type"), ..ADVISORY
    },
    /// A subagent stops; a block keeps it working.
    SUBAGENT_STOP => EventSpec {
        aimon: "subagentStop", claude: Some("SubagentStop"), decision: DecisionChannel::Continuation,
        feedback: FeedbackRoute::ModelContext, rewake: true, frontmatter: true,
        matcher: MatchSubject::Field("agent_type"), handlers: WITH_MODEL, answer: AnswerChannel::TopLevelBlock,
        continuation_cap: Some(8), ..ADVISORY
    },
    /// Before compaction; a block skips AUTO and refuses MANUAL.
    PRE_COMPACT => EventSpec {
        aimon: "preCompact", claude: Some("PreCompact"), feedback: FeedbackRoute::CompactInstructions, rewake: true,
        frontmatter: true, matcher: MatchSubject::Field("trigger"), ..BLOCKING
    },
    /// After compaction.
    POST_COMPACT => EventSpec {
        aimon: "postCompact", claude: Some("PostCompact"), frontmatter: true, matcher: MatchSubject::Field("trigger"),
        ..ADVISORY
    },
    /// A live session is opened (again on resume).
    ON_SESSION_START => EventSpec {
        aimon: "onSessionStart", claude: Some("SessionStart"), feedback: FeedbackRoute::ModelContext, rewake: true,
        matcher: MatchSubject::Field("source"), handlers: &[HandlerKind::Command, HandlerKind::Mcp],
        stdout_is_feedback: true, mail: Some(MailChannel::Context), tells_untrusted: true, ..ADVISORY
    },
    /// A live session is closed.
    ON_SESSION_END => EventSpec {
        aimon: "onSessionEnd", claude: Some("SessionEnd"), rewake: true, matcher: MatchSubject::Field("reason"),
        ..ADVISORY
    },
    /// After a hooks.json hot reload (or a failed attempt).
    ON_CONFIG_RELOAD => EventSpec {
        aimon: "onConfigReload", claude: None, rewake: true, handlers: COMMAND_ONLY, ..ADVISORY
    },
    /// A prompt was submitted; a block erases it.
    USER_PROMPT_SUBMIT => EventSpec {
        aimon: "userPromptSubmit", claude: Some("UserPromptSubmit"), feedback: FeedbackRoute::ModelContext,
        rewake: true, handlers: WITH_MODEL, stdout_is_feedback: true, mail: Some(MailChannel::Context), ..BLOCKING
    },
    /// A typed command expands into a prompt; a block stops the expansion.
    USER_PROMPT_EXPANSION => EventSpec {
        aimon: "userPromptExpansion", claude: Some("UserPromptExpansion"), feedback: FeedbackRoute::ModelContext,
        matcher: MatchSubject::Field("command_name"), handlers: WITH_MODEL, stdout_is_feedback: true, ..BLOCKING
    },
    /// After a tool call failed.
    POST_TOOL_FAILURE => EventSpec {
        aimon: "postToolFailure", claude: Some("PostToolUseFailure"), feedback: FeedbackRoute::ToolResult,
        rewake: true, matcher: MatchSubject::Tool, handlers: WITH_MODEL, mail: Some(MailChannel::Context), ..ADVISORY
    },
    /// After a batch of tool calls, before the next model call; a block stops the loop.
    POST_TOOL_BATCH => EventSpec {
        aimon: "postToolBatch", claude: Some("PostToolBatch"), feedback: FeedbackRoute::ModelContext,
        handlers: WITH_MODEL, on_failure: OnFailure::FailClosed, ..BLOCKING
    },
    /// The client sends a notification.
    NOTIFICATION => EventSpec {
        aimon: "notification", claude: Some("Notification"), matcher: MatchSubject::Field("notification_type"),
        ..ADVISORY
    },
    /// The turn ended on an API error.
    STOP_FAILURE => EventSpec {
        aimon: "stopFailure", claude: Some("StopFailure"), matcher: MatchSubject::Field("error"), ..ADVISORY
    },
    /// A task is being created; a block rolls the creation back.
    TASK_CREATED => EventSpec {
        aimon: "taskCreated", claude: Some("TaskCreated"), feedback: FeedbackRoute::ModelContext, handlers: WITH_MODEL,
        on_failure: OnFailure::FailClosed, answer: AnswerChannel::ExitCode, ..BLOCKING
    },
    /// A task is being marked completed; a block keeps it open.
    TASK_COMPLETED => EventSpec {
        aimon: "taskCompleted", claude: Some("TaskCompleted"), feedback: FeedbackRoute::ModelContext,
        handlers: WITH_MODEL, on_failure: OnFailure::FailClosed, answer: AnswerChannel::ExitCode, ..BLOCKING
    },
    /// A teammate is about to go idle; a block keeps it working.
    TEAMMATE_IDLE => EventSpec {
        aimon: "teammateIdle", claude: Some("TeammateIdle"), decision: DecisionChannel::Continuation,
        feedback: FeedbackRoute::ModelContext, handlers: WITH_MODEL, answer: AnswerChannel::ExitCode,
        continuation_cap: Some(8), ..ADVISORY
    },
    /// An instructions file (CLAUDE.md, a rule) was loaded.
    INSTRUCTIONS_LOADED => EventSpec {
        aimon: "instructionsLoaded", claude: Some("InstructionsLoaded"), matcher: MatchSubject::Field("load_reason"),
        ..ADVISORY
    },
    /// A configuration file changed; a block keeps the change from applying.
    CONFIG_CHANGE => EventSpec {
        aimon: "configChange", claude: Some("ConfigChange"), matcher: MatchSubject::Field("source"), ..BLOCKING
    },
    /// The working directory changed.
    CWD_CHANGED => EventSpec {
        aimon: "cwdChanged", claude: Some("CwdChanged"), answer: AnswerChannel::PassThrough, ..ADVISORY
    },
    /// A directory was added to the session.
    DIRECTORY_ADDED => EventSpec {
        aimon: "directoryAdded", claude: Some("DirectoryAdded"), matcher: MatchSubject::Field("source"), ..ADVISORY
    },
    /// A watched file changed on disk.
    FILE_CHANGED => EventSpec {
        aimon: "fileChanged", claude: Some("FileChanged"), matcher: MatchSubject::FileName("file_path"),
        answer: AnswerChannel::PassThrough, ..ADVISORY
    },
    /// A worktree is being created; the hook answers its path, and any refusal fails the creation.
    WORKTREE_CREATE => EventSpec {
        aimon: "worktreeCreate", claude: Some("WorktreeCreate"), on_failure: OnFailure::FailClosed,
        answer: AnswerChannel::Path, routed_on_init: false, ..BLOCKING
    },
    /// A worktree is being removed.
    WORKTREE_REMOVE => EventSpec {
        aimon: "worktreeRemove", claude: Some("WorktreeRemove"), routed_on_init: false, ..ADVISORY
    },
    /// An MCP server asks the person for input; a block denies it.
    ELICITATION => EventSpec {
        aimon: "elicitation", claude: Some("Elicitation"), matcher: MatchSubject::Field("mcp_server_name"),
        answer: AnswerChannel::PassThrough, ..BLOCKING
    },
    /// The person answered an elicitation; a block declines the answer.
    ELICITATION_RESULT => EventSpec {
        aimon: "elicitationResult", claude: Some("ElicitationResult"), matcher: MatchSubject::Field("mcp_server_name"),
        on_failure: OnFailure::FailClosed, answer: AnswerChannel::PassThrough, ..BLOCKING
    },
    /// Assistant text is being displayed.
    MESSAGE_DISPLAY => EventSpec {
        aimon: "messageDisplay", claude: Some("MessageDisplay"), answer: AnswerChannel::PassThrough,
        routed_on_init: false, ..ADVISORY
    },
    /// The client runs its set-up (init or maintenance).
    SETUP => EventSpec {
        aimon: "setup", claude: Some("Setup"), feedback: FeedbackRoute::ModelContext,
        matcher: MatchSubject::Field("trigger"), handlers: &[HandlerKind::Command, HandlerKind::Mcp], ..ADVISORY
    },
    /// Before the model is switched; a refusal cancels the switch.
    PRE_MODEL_SWITCH => EventSpec {
        aimon: "preModelSwitch", claude: Some("PreModelSwitch"), reads_ask: true,
        answer: AnswerChannel::PermissionDecision, ..BLOCKING
    },
    /// After the model was switched.
    POST_MODEL_SWITCH => EventSpec {
        aimon: "postModelSwitch", claude: Some("PostModelSwitch"), feedback: FeedbackRoute::ModelContext, ..ADVISORY
    },
    /// Before a skill's shell command runs; a refusal (deny, ask or defer) keeps it from running.
    PRE_SKILL_SHELL_COMMAND => EventSpec {
        aimon: "preSkillShellCommand", claude: Some("PreSkillShellCommand"), reads_ask: true,
        matcher: MatchSubject::Tool,
        handlers: &[HandlerKind::Command, HandlerKind::Http, HandlerKind::Mcp, HandlerKind::Deny],
        answer: AnswerChannel::PermissionDecision, ..BLOCKING
    },
}

/// Names that look like events but are not (R-EVT-3): a payload field.
pub const UNSUPPORTED_EVENT_NAMES: &[&str] = &["stop_hook_active"];

/// An event: a typed token into the events table (R-REG-1).
///
/// ```
/// use hook_core::HookEventType;
/// let e = HookEventType::resolve("PRETOOL").unwrap();
/// assert_eq!(e, HookEventType::PRE_TOOL);
/// assert_eq!(e.claude_name(), Some("PreToolUse"));
/// assert_eq!(HookEventType::ALL.len(), 36);
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct HookEventType(u8);

/// Why a name did not resolve to an event (R-EVT-3).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EventNameError {
    /// One of [`UNSUPPORTED_EVENT_NAMES`].
    Unsupported(String),
    /// Anything else.
    Unknown(String),
}

impl EventNameError {
    /// The WARN text the seed's troubleshooting table gives for this name.
    pub fn warning(&self) -> String {
        match self {
            EventNameError::Unsupported(n) => {
                format!("hooks: '{n}' event is not supported by AIMON in this phase")
            }
            EventNameError::Unknown(n) => format!("hooks: unknown event '{n}'"),
        }
    }
}

impl fmt::Display for EventNameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.warning())
    }
}

impl std::error::Error for EventNameError {}

impl HookEventType {
    /// This event's row of the table.
    pub fn spec(self) -> &'static EventSpec {
        &TABLE[self.0 as usize]
    }

    /// Position in canonical order (0-based).
    pub fn index(self) -> usize {
        self.0 as usize
    }

    /// What the event is, in one sentence: its doc comment in the table (the generated event
    /// tables of the docs show it).
    ///
    /// ```
    /// use hook_core::HookEventType;
    /// assert_eq!(HookEventType::ON_START.summary(), "Turn start; a block aborts the turn.");
    /// ```
    pub fn summary(self) -> String {
        SUMMARIES[self.0 as usize].iter().map(|line| line.trim()).collect::<Vec<_>>().join(" ")
    }

    /// The AIMON name.
    pub fn name(self) -> &'static str {
        self.spec().aimon
    }

    /// The Claude Code name, when one exists (R-EVT-0, R-EVT-2).
    pub fn claude_name(self) -> Option<&'static str> {
        self.spec().claude
    }

    /// The name a payload's `hook_event_name` carries: Claude Code's where one exists (R-CC-1).
    pub fn payload_name(self) -> &'static str {
        self.spec().claude.unwrap_or(self.spec().aimon)
    }

    /// Resolves either spelling, case-insensitively (R-EVT-1).
    pub fn resolve(name: &str) -> Result<HookEventType, EventNameError> {
        let trimmed = name.trim();
        if let Some(e) = Self::ALL.iter().copied().find(|e| {
            e.name().eq_ignore_ascii_case(trimmed) || e.claude_name().is_some_and(|c| c.eq_ignore_ascii_case(trimmed))
        }) {
            return Ok(e);
        }
        if UNSUPPORTED_EVENT_NAMES.iter().any(|u| u.eq_ignore_ascii_case(trimmed)) {
            Err(EventNameError::Unsupported(name.to_owned()))
        } else {
            Err(EventNameError::Unknown(name.to_owned()))
        }
    }

    /// Whether BLOCK/DENY does anything here (R-EVT-5).
    pub fn has_decision_channel(self) -> bool {
        self.spec().decision != DecisionChannel::Advisory
    }

    /// Whether a handler-level `if` is honoured here (R-CFG-3b): the tool events.
    pub fn supports_if(self) -> bool {
        self.spec().matcher == MatchSubject::Tool
    }

    /// Whether a declarative handler of this kind may be declared here (R-CFG-5).
    pub fn allows_handler(self, kind: HandlerKind) -> bool {
        self.spec().handlers.contains(&kind)
    }
}

impl fmt::Debug for HookEventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "HookEventType({})", self.name())
    }
}

impl fmt::Display for HookEventType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_row_names_its_event_for_itself_and_no_name_is_the_bases_blank() {
        let names: std::collections::BTreeSet<&str> = HookEventType::ALL.iter().map(|e| e.name()).collect();
        assert_eq!(names.len(), HookEventType::ALL.len(), "two rows share an AIMON name");
        assert!(!names.contains(ADVISORY.aimon), "a row kept the base's blank name");
        let claude: Vec<&str> = HookEventType::ALL.iter().filter_map(|e| e.claude_name()).collect();
        assert_eq!(claude.len(), claude.iter().collect::<std::collections::BTreeSet<_>>().len());
    }

    #[test]
    fn the_events_with_a_model_context_channel_take_the_sessions_mail_r_rw_11() {
        let carrying: Vec<(&str, MailChannel)> =
            HookEventType::ALL.iter().filter_map(|e| Some((e.name(), e.spec().mail?))).collect();
        assert_eq!(
            carrying,
            [
                ("onStop", MailChannel::Continuation),
                ("postTool", MailChannel::Context),
                ("onSessionStart", MailChannel::Context),
                ("userPromptSubmit", MailChannel::Context),
                ("postToolFailure", MailChannel::Context),
            ]
        );
    }

    #[test]
    fn every_continuation_event_has_a_cap_and_onstops_is_the_default() {
        for event in HookEventType::ALL {
            let continuation = event.spec().decision == DecisionChannel::Continuation;
            assert_eq!(event.spec().continuation_cap.is_some(), continuation, "{event}");
        }
        assert_eq!(HookEventType::ON_STOP.spec().continuation_cap, Some(crate::DEFAULT_CONTINUATION_CAP));
    }
}
