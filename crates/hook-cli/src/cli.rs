//! The command-line surface (R-CLI-8): every command, its options and its `--help` text.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};

use clap::{ArgAction, Args, Parser, Subcommand};
use hook_wire::Client;

/// Claude-Code-compatible hooks for any agent runtime, from the command line.
///
/// Hooks live in `.aimon/hooks.json` (Claude Code's format) in the home directory, the project and
/// the project's local file. `run` runs the hooks of one event for one payload and prints the
/// verdict; `claude`, `gemini`, `qwen`, `codex` and `copilot` answer a hook call of their client
/// (`init` routes a client's events to them); `guard` runs a command under the exec-time guard;
/// `serve` keeps one engine for every project and answers over a socket. `trust` lets a project's
/// own hooks run; `validate`, `list`, `explain`, `packs` and `schema` check and show the files;
/// `test` runs policy tests, `replay` recorded sessions, and `log` reads the decision log;
/// `import-claude` converts Claude Code settings; `watch` hot-reloads; `rewake` shows and cancels
/// deferred re-invocations.
#[derive(Debug, Parser)]
#[command(name = "aimon-hooks", version, propagate_version = true, max_term_width = 100)]
pub(crate) struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace). RUST_LOG overrides it.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub(crate) verbose: u8,

    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Each command's arguments are built only when that command runs (`defer`): building them all
/// cost every `run` a fifth of its instructions.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum Command {
    /// Run the hooks of one event for one payload and print the verdict as JSON.
    ///
    /// Exit 0 when the outcome is proceed or ask, 2 when blocked or denied, 1 on a configuration
    /// or usage error.
    Run(RunArgs),
    // A client's hook call (`claude`, `gemini`, `qwen`, `codex`, `copilot`): answered before
    // logging or a runtime is built, through `ClientCommand::client_call`.
    #[command(flatten)]
    Client(ClientCommand),
    /// Check hooks.json files: every error and warning with file:line:col; exit 1 on errors.
    Validate(ValidateArgs),
    /// List the effective hooks: tier, event, matcher, handler, id.
    List(ListArgs),
    /// List the rule packs built into this binary and their rules (ask or deny, and why), and
    /// which of them the tiers turn on.
    ///
    /// A tier turns packs on with {"packs": ["aimon/destructive", "aimon/secrets",
    /// "aimon/exfiltration"]}; your own ~/.aimon/hooks.json turns one rule off with
    /// {"disable": ["aimon/destructive#force-push"]}. aimon/self is always on.
    Packs(PacksArgs),
    /// For every configured hook, say whether it would run for a payload, and why not.
    Explain(ExplainArgs),
    /// Convert the hooks of a Claude Code settings.json into .aimon/hooks.json.
    ImportClaude(ImportArgs),
    /// Print the JSON Schema of hooks.json, for editors.
    Schema,
    /// Watch the tier files, hot-reload them, and print each onConfigReload as a JSON line.
    Watch(WatchArgs),
    /// Trust a project's hooks: record the SHA-256 of its .aimon files and SKILL.md files.
    ///
    /// Until then (and again after any of them changes), `claude` runs only their deny hooks and
    /// skips their command, http, mcp, prompt and agent hooks. AIMON_TRUST_PROJECT_HOOKS=1 trusts
    /// every project.
    Trust(TrustArgs),
    /// Run one long-lived hook engine for every project, on a Unix socket and optionally TCP.
    ///
    /// Endpoints: POST /v1/run/{event}, POST /v1/claude (Claude Code's http handler), GET
    /// /v1/health, GET /v1/hooks?project=DIR, GET /metrics. TCP requests need the header
    /// `Authorization: Bearer <token>` with the token of ~/.aimon/serve.token. Stops on SIGTERM
    /// or SIGINT after finishing the requests in flight.
    Serve(ServeArgs),
    /// Set up an agent client to route its hook events here.
    #[command(subcommand)]
    Init(InitTarget),
    /// Show or cancel pending rewake envelopes in the store ($AIMON_REWAKE_STORE, else ~/.aimon/rewake.db).
    ///
    /// `run` and `claude` write the envelopes their hooks ask for (asyncRewake) to this store;
    /// `aimon-hooks serve` fires them and puts each answer in the session's mailbox.
    #[command(subcommand)]
    Rewake(RewakeCommand),
    /// Run the policy tests of .aimon/tests/*.json and *.yaml against the effective hooks.
    ///
    /// Each case is a payload and what must come out (outcome, decision, a reason substring,
    /// updatedInput, the deciding hook); the real handlers run. Exit 1 when any case fails.
    Test(TestArgs),
    /// Run recorded sessions (Claude Code transcripts, Codex rollouts) through the current policy.
    ///
    /// No tool runs, and command, http, mcp, prompt and agent handlers run only with
    /// --run-handlers. Reports every call the policy would decide differently from what happened.
    Replay(ReplayArgs),
    /// Show the decision log (~/.aimon/decisions.jsonl, or AIMON_DECISION_LOG).
    Log(LogArgs),
    /// Run a command with every exec of its process tree checked against the Bash deny rules.
    ///
    /// The rules are the effective `deny` hooks of the tiers (PreToolUse); each exec is matched as
    /// one simple command on its real argv and cwd. A denied exec fails with EPERM and
    /// `aimon-hooks: denied by <hook source>: <reason> (<argv>)` on stderr. A single argument
    /// after `--` runs with `bash -c` (as CLAUDE_CODE_SHELL_PREFIX passes it). Exit: the
    /// command's code (128 + N after signal N); 126 without running anything where the kernel
    /// refuses ptrace or seccomp notifications (x86_64 Linux only).
    Guard(GuardArgs),
}

/// The clients' commands: one variant per [`Client`], each answering one hook call (payload on
/// stdin, the client's answer on stdout) through `agent::answer`.
#[derive(Debug, Subcommand)]
#[command(defer = true)]
pub(crate) enum ClientCommand {
    /// Answer a Claude Code hook call: payload on stdin, Claude Code's JSON on stdout.
    ///
    /// Route every Claude Code event through it with one settings entry per event, e.g.
    /// {"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"aimon-hooks claude"}]}]}}.
    /// When `aimon-hooks serve` runs, the call is answered by it over its socket (same output).
    /// A project's own hooks run their command, http, mcp, prompt and agent handlers only once
    /// trusted with `aimon-hooks trust`; until then only their deny handlers apply.
    Claude(CallArgs),
    /// Answer a Google Gemini CLI hook call: payload on stdin, Gemini's answer on stdout.
    ///
    /// `init gemini` routes Gemini's events here; same policy, trust and daemon as `claude`.
    Gemini(CallArgs),
    /// Answer a Qwen Code hook call: payload on stdin, Qwen's answer on stdout.
    ///
    /// `init qwen` routes Qwen's events here; same policy, trust and daemon as `claude`.
    Qwen(CallArgs),
    /// Answer an OpenAI Codex CLI hook call: payload on stdin, Codex's answer on stdout.
    ///
    /// `init codex` routes Codex's events to it and writes the trusted hashes Codex runs hooks by.
    /// Answers Codex cannot take (ask, a rewritten input without an allow) are given as a deny
    /// with a reason.
    Codex(CallArgs),
    /// Answer a GitHub Copilot CLI hook call: payload on stdin, the answer on stdout.
    ///
    /// A handler on a PascalCase event (`PreToolUse`, what `init copilot` writes) runs it as it is
    /// and gets Claude Code's form with the decision also at the top level. A handler on a
    /// camelCase event (`preToolUse`), whose payload names no event, runs it with
    /// `--event preToolUse` and gets the camelCase form (top-level keys only).
    Copilot(CopilotArgs),
}

impl ClientCommand {
    /// The one path from the command line to a client: which client, its arguments, and the
    /// event its command line names (Copilot's camelCase handlers, whose payloads name none).
    pub(crate) fn client_call(&self) -> (Client, &CallArgs, Option<&str>) {
        match self {
            ClientCommand::Claude(args) => (Client::Claude, args, None),
            ClientCommand::Gemini(args) => (Client::Gemini, args, None),
            ClientCommand::Qwen(args) => (Client::Qwen, args, None),
            ClientCommand::Codex(args) => (Client::Codex, args, None),
            ClientCommand::Copilot(args) => (Client::Copilot, &args.call, args.event.as_deref()),
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct PacksArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TestArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Run the policy tests of the packs built into this binary instead, each pack on its own.
    #[arg(long, conflicts_with = "files")]
    pub(crate) packs: bool,
    /// Test files to run [default: the project's .aimon/tests/*.json, *.yaml].
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also write a JUnit XML report here.
    #[arg(long, value_name = "FILE")]
    pub(crate) junit: Option<PathBuf>,
    /// Run the project's command, http, mcp, prompt and agent hooks even if you have not trusted them
    /// (`aimon-hooks trust`); without it they are skipped, as behind an agent.
    #[arg(long)]
    pub(crate) trust: bool,
}

/// Whose recorded sessions `replay` reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub(crate) enum ReplayClient {
    /// Claude Code transcripts (~/.claude/projects/<project>/*.jsonl).
    Claude,
    /// Codex rollouts (~/.codex/sessions/**/*.jsonl).
    Codex,
}

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Transcript or rollout files (or directories of them) [default: every session of the project].
    #[arg(value_name = "PATH")]
    pub(crate) paths: Vec<PathBuf>,
    /// Only calls at or after this time (RFC 3339, or a duration ago: 2h, 3days).
    #[arg(long, value_name = "TIME")]
    pub(crate) since: Option<String>,
    /// The client whose sessions are read [default: claude].
    #[arg(long, value_enum)]
    pub(crate) client: Option<ReplayClient>,
    /// Print a JSON report instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Also run command, http, mcp, prompt and agent handlers (they may have effects); by default
    /// they are skipped.
    #[arg(long)]
    pub(crate) run_handlers: bool,
}

#[derive(Debug, Args)]
pub(crate) struct LogArgs {
    /// Keep printing lines as they are written.
    #[arg(long, short)]
    pub(crate) follow: bool,
    /// Print the JSON lines as they are instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Only this session's decisions.
    #[arg(long, value_name = "ID")]
    pub(crate) session: Option<String>,
    /// The home directory whose .aimon/decisions.jsonl is read [default: $HOME].
    #[arg(long, value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct GuardArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// The command and its arguments.
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub(crate) command: Vec<std::ffi::OsString>,
}

/// The client `init` sets up.
#[derive(Debug, Subcommand)]
pub(crate) enum InitTarget {
    /// Route every Claude Code event to aimon-hooks in Claude Code's settings (a backup of the
    /// previous file is kept as <file>.aimon-backup; a second run changes nothing).
    Claude(InitClaudeArgs),
    /// Route Google Gemini CLI's events to `aimon-hooks gemini` in .gemini/settings.json.
    Gemini(InitClientArgs),
    /// Route Qwen Code's events to `aimon-hooks qwen` in .qwen/settings.json.
    Qwen(InitClientArgs),
    /// Route OpenAI Codex CLI's events to `aimon-hooks codex` in ~/.codex/hooks.json (or the
    /// project's .codex/hooks.json) and trust those handlers in $CODEX_HOME/config.toml.
    Codex(InitCodexArgs),
    /// Route GitHub Copilot CLI's events to `aimon-hooks copilot` in the project's
    /// .github/hooks/aimon.json (Copilot reads repository hooks only; trust the folder in Copilot).
    Copilot(InitCopilotArgs),
}

/// The options of `init` for a client whose settings file has Claude Code's `hooks` shape.
#[derive(Debug, Args)]
pub(crate) struct InitClientArgs {
    /// Edit the file in the current directory instead of the home directory.
    #[arg(long)]
    pub(crate) project: bool,
    /// Remove the routing entries instead.
    #[arg(long)]
    pub(crate) remove: bool,
    /// Also turn the rule packs aimon/destructive, aimon/secrets and aimon/exfiltration on in your
    /// own ~/.aimon/hooks.json (`aimon-hooks packs` lists their rules).
    #[arg(long, conflicts_with = "remove")]
    pub(crate) protect: bool,
    /// Also write PATH: a launcher script that starts the client under `aimon-hooks guard` (every
    /// exec of the client's tree checked); with --remove, take it away again.
    #[arg(long, value_name = "PATH")]
    pub(crate) launcher: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct InitCopilotArgs {
    /// Accepted for symmetry: Copilot's hooks file is always the project's.
    #[arg(long)]
    pub(crate) project: bool,
    /// Remove the routing entries instead.
    #[arg(long)]
    pub(crate) remove: bool,
    /// Also turn the rule packs aimon/destructive, aimon/secrets and aimon/exfiltration on in your
    /// own ~/.aimon/hooks.json (`aimon-hooks packs` lists their rules).
    #[arg(long, conflicts_with = "remove")]
    pub(crate) protect: bool,
    /// Also write PATH: a launcher script that starts the client under `aimon-hooks guard` (every
    /// exec of the client's tree checked); with --remove, take it away again.
    #[arg(long, value_name = "PATH")]
    pub(crate) launcher: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct InitCodexArgs {
    /// Edit <project>/.codex/hooks.json instead of ~/.codex/hooks.json.
    #[arg(long)]
    pub(crate) project: bool,
    /// Remove the routing entries (and their trusted hashes) instead.
    #[arg(long)]
    pub(crate) remove: bool,
    /// Also turn the rule packs aimon/destructive, aimon/secrets and aimon/exfiltration on in your
    /// own ~/.aimon/hooks.json (`aimon-hooks packs` lists their rules).
    #[arg(long, conflicts_with = "remove")]
    pub(crate) protect: bool,
    /// Also write PATH: a launcher script that starts the client under `aimon-hooks guard` (every
    /// exec of the client's tree checked); with --remove, take it away again.
    #[arg(long, value_name = "PATH")]
    pub(crate) launcher: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct InitClaudeArgs {
    /// Edit ~/.claude/settings.json (the default).
    #[arg(long, conflicts_with = "project")]
    pub(crate) user: bool,
    /// Edit <project>/.claude/settings.json (settings.local.json with --http, so the token is not committed).
    #[arg(long)]
    pub(crate) project: bool,
    /// Route to a running `aimon-hooks serve` over http instead of running `aimon-hooks claude`:
    /// fails open (a daemon that is down, or anything else on its port, lets every call through),
    /// so it needs --fail-open too.
    #[arg(long)]
    pub(crate) http: bool,
    /// With --http: accept that Claude Code lets a call through when the daemon is down, hangs or
    /// answers anything else than a decision.
    #[arg(long, requires = "http")]
    pub(crate) fail_open: bool,
    /// The URL the http handlers post to.
    #[arg(long, value_name = "URL", requires = "http", default_value = "http://127.0.0.1:7787/v1/claude")]
    pub(crate) url: String,
    /// Remove the routing entries instead (with --guard: only the shell prefix).
    #[arg(long)]
    pub(crate) remove: bool,
    /// Also turn the rule packs aimon/destructive, aimon/secrets and aimon/exfiltration on in your
    /// own ~/.aimon/hooks.json (`aimon-hooks packs` lists their rules).
    #[arg(long, conflicts_with = "remove")]
    pub(crate) protect: bool,
    /// Run every Bash command under `aimon-hooks guard` (settings `env.CLAUDE_CODE_SHELL_PREFIX`):
    /// the default wherever the kernel allows it; given, a kernel that does not is an error.
    #[arg(long)]
    pub(crate) guard: bool,
    /// Leave the exec-time guard off (and take out a shell prefix `init` wrote before).
    #[arg(long, conflicts_with = "guard")]
    pub(crate) no_guard: bool,
    /// Also route this event (WorktreeCreate, WorktreeRemove and MessageDisplay are routed only when named; repeatable).
    #[arg(long, value_name = "NAME")]
    pub(crate) event: Vec<String>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum RewakeCommand {
    /// List the pending envelopes: id, hook, event, project, session, next fire, attempt.
    List {
        /// Print a JSON array instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Cancel one envelope by id, or every envelope of a hook in a project.
    Cancel(RewakeCancelArgs),
}

#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("target").required(true).args(["id", "hook"])))]
pub(crate) struct RewakeCancelArgs {
    /// The envelope id (`rw-…`, as `rewake list` shows it).
    #[arg(value_name = "ID")]
    pub(crate) id: Option<String>,
    /// Cancel every envelope of this hook id instead (hook ids repeat across projects).
    #[arg(long, value_name = "HOOK_ID", conflicts_with = "id")]
    pub(crate) hook: Option<String>,
    /// With --hook: the project the hook belongs to [default: the current directory].
    #[arg(long, value_name = "DIR", requires = "hook")]
    pub(crate) project: Option<PathBuf>,
}

// Where the tiers are. (Plain comments on the flattened argument structs: clap would take a doc
// comment for the about text of every command that flattens them.)
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct TierArgs {
    /// The project whose .aimon/hooks.json and .aimon/hooks.local.json are read [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// The home directory whose .aimon/hooks.json is read [default: $HOME].
    #[arg(long, value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
}

impl TierArgs {
    /// The project directory, absolute.
    pub(crate) fn project_dir(&self) -> anyhow::Result<PathBuf> {
        let cwd = crate::env::Env::get().cwd()?;
        Ok(absolute(cwd, self.project.as_deref().unwrap_or(Path::new("."))))
    }

    /// The home directory, absolute; `None` when neither `--home` nor `$HOME` is set.
    pub(crate) fn home_dir(&self) -> Option<PathBuf> {
        let env = crate::env::Env::get();
        self.home.clone().or_else(|| env.home().map(Path::to_owned)).map(|h| absolute(env.cwd_or_empty(), &h))
    }
}

/// `path` made absolute against `base`, with `.` components dropped.
pub(crate) fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_owned() } else { base.join(path) };
    joined.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect()
}

// What selects and feeds the hooks of one event.
#[derive(Debug, Clone, Args)]
pub(crate) struct EventInput {
    /// The event, in either spelling, any case: preTool, PreToolUse, onStop, Stop, …
    #[arg(value_name = "EVENT")]
    pub(crate) event: String,
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Activate the hooks of this skill's SKILL.md frontmatter (repeatable).
    #[arg(long = "skill", value_name = "SKILL.md")]
    pub(crate) skills: Vec<PathBuf>,
    /// The Claude-Code-shaped JSON payload: a file, or - for stdin [default: stdin].
    #[arg(long, value_name = "FILE|-")]
    pub(crate) payload: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    #[command(flatten)]
    pub(crate) input: EventInput,
    /// Stop at the first hook that blocks or denies; later hooks do not run.
    #[arg(long)]
    pub(crate) stop_on_blocked: bool,
    /// Treat every handler as failClosed: a failing hook blocks on the decision events.
    #[arg(long)]
    pub(crate) fail_closed: bool,
    /// Run the matching hooks in parallel instead of one after another.
    #[arg(long)]
    pub(crate) parallel: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ValidateArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Check these files instead of the tiers (each read as a PROJECT-tier file).
    #[arg(value_name = "FILE")]
    pub(crate) files: Vec<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Also list the hooks of this skill's SKILL.md frontmatter (repeatable).
    #[arg(long = "skill", value_name = "SKILL.md")]
    pub(crate) skills: Vec<PathBuf>,
    /// Print a JSON array instead of a table.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ExplainArgs {
    #[command(flatten)]
    pub(crate) input: EventInput,
    /// Print a JSON array instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// Claude Code settings files to convert, merged in order
    /// [default: .claude/settings.json → .aimon/hooks.json and .claude/settings.local.json → .aimon/hooks.local.json].
    #[arg(value_name = "SETTINGS")]
    pub(crate) settings: Vec<PathBuf>,
    /// The project whose .claude/ is read and whose .aimon/ is written [default: the current directory].
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<PathBuf>,
    /// Write here instead (- for stdout); only with SETTINGS files.
    #[arg(long, short, value_name = "FILE|-")]
    pub(crate) output: Option<PathBuf>,
    /// Overwrite an existing output file.
    #[arg(long)]
    pub(crate) force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
    /// Show the trusted files (of --project only, when given) and whether they still match.
    #[arg(long, conflicts_with = "revoke")]
    pub(crate) list: bool,
    /// Forget the project's trusted files.
    #[arg(long)]
    pub(crate) revoke: bool,
    /// With --list: print a JSON array instead of a table.
    #[arg(long, requires = "list")]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct WatchArgs {
    #[command(flatten)]
    pub(crate) tiers: TierArgs,
}

#[derive(Debug, Args)]
pub(crate) struct CopilotArgs {
    #[command(flatten)]
    pub(crate) call: CallArgs,
    /// The camelCase event this handler is routed for (`preToolUse`, `postToolUse`,
    /// `userPromptSubmitted`, `sessionStart`, `agentStop`, `sessionEnd`, …): Copilot's camelCase
    /// payloads name none.
    #[arg(long, value_name = "EVENT")]
    pub(crate) event: Option<String>,
}

// Every client command's arguments.
#[derive(Debug, Default, Args)]
pub(crate) struct CallArgs {
    /// Evaluate in this process even when `aimon-hooks serve` runs (also AIMON_NO_SERVE=1).
    #[arg(long)]
    pub(crate) no_serve: bool,
    /// The socket of `aimon-hooks serve` [default: ~/.aimon/serve.sock].
    #[arg(long, value_name = "PATH")]
    pub(crate) socket: Option<PathBuf>,
}

/// The arguments of `claude` when the command line is `claude [--no-serve] [--socket PATH]` and
/// nothing else, read without clap (the hook call's fast path); `None` sends it through clap,
/// which also answers `--help`, `-v` and every mistake.
pub(crate) fn plain_claude(mut args: impl Iterator<Item = std::ffi::OsString>) -> Option<CallArgs> {
    if args.next()? != "claude" {
        return None;
    }
    let mut claude = CallArgs::default();
    while let Some(arg) = args.next() {
        if arg == "--no-serve" {
            claude.no_serve = true;
        } else if arg == "--socket" && claude.socket.is_none() {
            claude.socket = Some(PathBuf::from(args.next()?));
        } else if let Some(path) =
            arg.to_str().and_then(|a| a.strip_prefix("--socket=")).filter(|_| claude.socket.is_none())
        {
            claude.socket = Some(PathBuf::from(path));
        } else {
            return None;
        }
    }
    Some(claude)
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// Also answer HTTP/1.1 on this TCP address (bearer token required) [default address: 127.0.0.1:7787].
    #[arg(long, value_name = "ADDR", num_args = 0..=1, default_missing_value = hook_server::DEFAULT_LISTEN)]
    pub(crate) listen: Option<SocketAddr>,
    /// The Unix socket to listen on (mode 0600) [default: ~/.aimon/serve.sock].
    #[arg(long, value_name = "PATH")]
    pub(crate) socket: Option<PathBuf>,
    /// The home directory whose .aimon/ holds the user tier, the socket and the token [default: $HOME].
    #[arg(long, value_name = "DIR")]
    pub(crate) home: Option<PathBuf>,
    /// Where rewake envelopes are stored (a SQLite path or a postgres:// URL).
    #[arg(long, value_name = "URL")]
    pub(crate) store: Option<String>,
    /// Audit mode for every hook: each runs and its decision is logged, but no call is answered
    /// with it (also AIMON_AUDIT=1).
    #[arg(long)]
    pub(crate) audit: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_client_command_line_reaches_its_client_through_client_call() {
        // A command line, and the client, --no-serve and event it reaches.
        let cases: [(&[&str], Client, bool, Option<&str>); 6] = [
            (&["claude"], Client::Claude, false, None),
            (&["gemini", "--no-serve"], Client::Gemini, true, None),
            (&["qwen"], Client::Qwen, false, None),
            (&["codex", "--socket", "/s"], Client::Codex, false, None),
            (&["copilot"], Client::Copilot, false, None),
            (&["copilot", "--event", "preToolUse", "--no-serve"], Client::Copilot, true, Some("preToolUse")),
        ];
        for (line, client, no_serve, event) in cases {
            let cli = Cli::try_parse_from(std::iter::once("aimon-hooks").chain(line.iter().copied()))
                .unwrap_or_else(|e| panic!("{line:?}: {e}"));
            let Command::Client(call) = &cli.command else { panic!("{line:?} is a client's call") };
            let (got, args, named) = call.client_call();
            assert_eq!((got, args.no_serve, named), (client, no_serve, event), "{line:?}");
        }
        let other = Cli::try_parse_from(["aimon-hooks", "claude", "--event", "preToolUse"]);
        assert!(other.is_err(), "only copilot takes --event");
    }

    #[test]
    fn only_a_plain_claude_command_line_skips_clap() {
        // A command line, and the (no_serve, socket) it reads as, if it skips clap.
        type Case = (&'static [&'static str], Option<(bool, Option<&'static str>)>);
        let cases: [Case; 10] = [
            (&["claude"], Some((false, None))),
            (&["claude", "--no-serve"], Some((true, None))),
            (&["claude", "--socket", "/s"], Some((false, Some("/s")))),
            (&["claude", "--socket=/s", "--no-serve"], Some((true, Some("/s")))),
            (&["claude", "--socket"], None),
            (&["claude", "--socket", "/a", "--socket", "/b"], None),
            (&["claude", "-v"], None),
            (&["claude", "--help"], None),
            (&["run", "preTool"], None),
            (&[], None),
        ];
        for (line, expected) in cases {
            let parsed = plain_claude(line.iter().map(std::ffi::OsString::from));
            let got = parsed.map(|a| (a.no_serve, a.socket));
            assert_eq!(got, expected.map(|(n, s)| (n, s.map(PathBuf::from))), "{line:?}");
        }
    }
}
