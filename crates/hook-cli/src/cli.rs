//! The command-line surface (R-CLI-8): every command, its options and its `--help` text.

use std::path::{Path, PathBuf};

use clap::{ArgAction, Args, Parser, Subcommand};

/// Claude-Code-compatible hooks for any agent runtime, from the command line.
///
/// Reads `.aimon/hooks.json` from the home directory, the project and the project's local file,
/// and runs the hooks of one event for one payload.
#[derive(Debug, Parser)]
#[command(name = "aimon-hooks", version, propagate_version = true, max_term_width = 100)]
pub(crate) struct Cli {
    /// More log output on stderr (-v info, -vv debug, -vvv trace). RUST_LOG overrides it.
    #[arg(short, long, action = ArgAction::Count, global = true)]
    pub(crate) verbose: u8,

    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run the hooks of one event for one payload and print the verdict as JSON (R-CLI-1).
    ///
    /// Exit 0 when the outcome is proceed or ask, 2 when blocked or denied, 1 on a configuration
    /// or usage error.
    Run(RunArgs),
    /// Answer a Claude Code hook call: payload on stdin, Claude Code's JSON on stdout (R-CLI-2).
    ///
    /// Route every Claude Code event through it with one settings entry per event, e.g.
    /// {"hooks":{"PreToolUse":[{"hooks":[{"type":"command","command":"aimon-hooks claude"}]}]}}.
    /// A project's own hooks run their command, http and mcp handlers only once trusted with
    /// `aimon-hooks trust`; until then only their deny handlers apply.
    Claude,
    /// Check hooks.json files: every error and warning with file:line:col; exit 1 on errors (R-CLI-3).
    Validate(ValidateArgs),
    /// List the effective hooks: tier, event, matcher, handler, id (R-CLI-4).
    List(ListArgs),
    /// For every configured hook, say whether it would run for a payload, and why not (R-CLI-9).
    Explain(ExplainArgs),
    /// Convert the hooks of a Claude Code settings.json into .aimon/hooks.json (R-CC-3).
    ImportClaude(ImportArgs),
    /// Print the JSON Schema of hooks.json, for editors (R-CLI-6).
    Schema,
    /// Watch the tier files, hot-reload them, and print each onConfigReload as a JSON line (R-CLI-7).
    Watch(WatchArgs),
    /// Trust a project's hooks: record the SHA-256 of its .aimon files and SKILL.md files.
    ///
    /// Until then (and again after any of them changes), `claude` runs only their deny hooks and
    /// skips their command, http and mcp hooks. AIMON_TRUST_PROJECT_HOOKS=1 trusts every project.
    Trust(TrustArgs),
    /// Show or cancel pending rewake envelopes in the store ($AIMON_REWAKE_STORE, else ~/.aimon/rewake.db).
    ///
    /// `run` and `claude` write the envelopes their hooks ask for (asyncRewake) to this store;
    /// `aimon-hooks serve` fires them and puts each answer in the session's mailbox.
    #[command(subcommand)]
    Rewake(RewakeCommand),
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

/// Where the tiers are.
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
        let cwd = std::env::current_dir().map_err(|e| anyhow::anyhow!("cannot read the current directory: {e}"))?;
        Ok(absolute(&cwd, self.project.as_deref().unwrap_or(Path::new("."))))
    }

    /// The home directory, absolute; `None` when neither `--home` nor `$HOME` is set.
    pub(crate) fn home_dir(&self) -> Option<PathBuf> {
        let cwd = std::env::current_dir().unwrap_or_default();
        self.home
            .clone()
            .or_else(|| std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from))
            .map(|h| absolute(&cwd, &h))
    }
}

/// `path` made absolute against `base`, with `.` components dropped.
pub(crate) fn absolute(base: &Path, path: &Path) -> PathBuf {
    let joined = if path.is_absolute() { path.to_owned() } else { base.join(path) };
    joined.components().filter(|c| !matches!(c, std::path::Component::CurDir)).collect()
}

/// What selects and feeds the hooks of one event.
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
