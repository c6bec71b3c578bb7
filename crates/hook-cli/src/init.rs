//! `init claude` (R-CLI-10), `init gemini`/`init qwen`, `init codex` and `init copilot`: the file side of hook-wire's
//! settings editing.

use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use hook_core::HookEventType;
use serde_json::Value;

use crate::cli::{InitClaudeArgs, InitCodexArgs, InitCopilotArgs, TierArgs};

/// Routes Claude Code's events to this binary (or to `serve`), or removes the routes.
pub(crate) fn claude(args: &InitClaudeArgs) -> anyhow::Result<u8> {
    if args.http && !args.remove && !args.fail_open {
        bail!(
            "--http routes fail open: Claude Code lets a call through when the daemon is down, hangs or answers \
             anything else than a decision, and whatever listens on its port can answer; nothing was changed. \
             The command route (`aimon-hooks init claude`) forwards to a running serve too, and never fails open; \
             add --fail-open to write http routes anyway"
        );
    }
    crate::packs_cmd::protect_if(args.protect)?;
    let home = TierArgs::default().home_dir().context("no home directory: set HOME")?;
    let file = if args.project {
        let cwd = crate::env::Env::get().cwd()?.to_path_buf();
        cwd.join(if args.http { hook_wire::CLAUDE_LOCAL_SETTINGS } else { hook_wire::CLAUDE_SETTINGS })
    } else {
        home.join(hook_wire::CLAUDE_SETTINGS)
    };
    let route = if args.http {
        hook_wire::claude::http_route(&args.url, &hook_server::ensure_token(&home)?)
    } else {
        let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?;
        hook_wire::claude::command_route(&binary.display().to_string())
    };
    let named = args
        .event
        .iter()
        .map(|name| HookEventType::resolve(name).map_err(|e| anyhow::anyhow!("{}", e.warning())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut edit = JsonFile::read(&file)?;
    let settings = &mut edit.value;
    let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?.display().to_string();
    let prefix = hook_wire::claude::guard_prefix(&binary);
    // On by default wherever the kernel allows it; asked for by name, a kernel that does not is
    // an error (every Bash command would be refused): said before anything is written.
    let guard = match (args.remove, args.no_guard) {
        (true, _) | (false, true) => Guarded::Off,
        (false, false) => match crate::guard::unavailable() {
            None => Guarded::On,
            Some(why) if args.guard => bail!("cannot set up the exec guard, nothing was changed: {why}"),
            Some(why) => Guarded::Unavailable(why),
        },
    };
    let edited = match (args.remove, args.guard) {
        (true, true) => hook_wire::claude::remove_shell_prefix(settings, &prefix),
        (true, false) => hook_wire::claude::remove_routes(settings, &route)
            .and_then(|()| hook_wire::claude::remove_shell_prefix(settings, &prefix)),
        (false, _) => hook_wire::claude::add_routes(settings, &hook_wire::claude::routed_events(&named), &route)
            .and_then(|()| match guard {
                Guarded::On => hook_wire::claude::set_shell_prefix(settings, &prefix),
                Guarded::Off => hook_wire::claude::remove_shell_prefix(settings, &prefix),
                Guarded::Unavailable(_) => Ok(()),
            }),
    };
    edited.with_context(|| format!("cannot edit {}", file.display()))?;
    let unavailable = match &guard {
        Guarded::Unavailable(why) => Some(why.as_str()),
        _ => None,
    };
    let layers = claude_layers(claude_routes(&edit.value, &binary), unavailable);
    if !edit.save()? {
        eprintln!("{}: already up to date", file.display());
        eprintln!("{layers}");
        return Ok(0);
    }
    let done = match (args.remove, args.guard, &guard) {
        (true, true, _) => "the exec guard removed",
        (true, false, _) => "routes removed",
        (false, _, Guarded::On) => "events routed to aimon-hooks, every Bash command run under `aimon-hooks guard`",
        (false, _, _) => "events routed to aimon-hooks",
    };
    eprintln!("{}: {done}", file.display());
    eprintln!("{layers}");
    Ok(0)
}

/// What `init claude` does with the exec-time guard.
enum Guarded {
    /// Every Bash command runs under it (the default).
    On,
    /// Left off (`--no-guard`, `--remove`).
    Off,
    /// Left as it was: the kernel refuses what the guard needs (why).
    Unavailable(String),
}

/// Whether Claude Code's `settings` route its events to `binary` (or to `serve` over http), and
/// whether they run every Bash command under its guard.
fn claude_routes(settings: &Value, binary: &str) -> (bool, bool) {
    let command = hook_wire::claude::command_route(binary);
    let routed = settings["hooks"].as_object().is_some_and(|hooks| {
        hooks
            .values()
            .flat_map(|groups| groups.as_array().into_iter().flatten())
            .flat_map(|group| group["hooks"].as_array().into_iter().flatten())
            .any(|h| {
                hook_wire::claude::is_route(h, &command) || h["url"].as_str().is_some_and(|u| u.ends_with("/v1/claude"))
            })
    });
    let prefix = hook_wire::claude::guard_prefix(binary);
    (routed, settings["env"]["CLAUDE_CODE_SHELL_PREFIX"].as_str() == Some(prefix.as_str()))
}

/// The layers line of Claude Code's settings: `layers: parse-time rules on; exec-time guard on
/// (CLAUDE_CODE_SHELL_PREFIX)`; `unavailable`: why the guard cannot run here.
fn claude_layers((routed, guarded): (bool, bool), unavailable: Option<&str>) -> String {
    let guard = match (unavailable, guarded) {
        (Some(why), _) => format!("off (unavailable here: {why})"),
        (None, true) => String::from("on (CLAUDE_CODE_SHELL_PREFIX)"),
        (None, false) => String::from("off"),
    };
    layers(routed, &guard)
}

/// The layers Claude Code's settings files of `home` and `project` turn on together (what
/// `validate` reports).
pub(crate) fn claude_settings_layers(home: Option<&Path>, project: &Path, unavailable: Option<&str>) -> String {
    let binary = std::env::current_exe().map(|b| b.display().to_string()).unwrap_or_default();
    let files = home
        .map(|h| h.join(hook_wire::CLAUDE_SETTINGS))
        .into_iter()
        .chain([project.join(hook_wire::CLAUDE_SETTINGS), project.join(hook_wire::CLAUDE_LOCAL_SETTINGS)]);
    let (mut routed, mut guarded) = (false, false);
    for file in files {
        let settings = std::fs::read_to_string(&file).ok().and_then(|t| serde_json::from_str::<Value>(&t).ok());
        if let Some((r, g)) = settings.map(|s| claude_routes(&s, &binary)) {
            (routed, guarded) = (routed || r, guarded || g);
        }
    }
    format!("{} (Claude Code)", claude_layers((routed, guarded), unavailable))
}

/// The one line saying which layers are active.
pub(crate) fn layers(parse: bool, guard: &str) -> String {
    format!("layers: parse-time rules {}; exec-time guard {guard}", if parse { "on" } else { "off" })
}

/// Routes a client's events to `aimon-hooks <client>` in its settings file (home or project), or
/// removes the routes; a second run changes nothing, everything else in the file is kept.
pub(crate) fn client(client: hook_wire::Client, args: &crate::cli::InitClientArgs) -> anyhow::Result<u8> {
    crate::packs_cmd::protect_if(args.protect)?;
    let relative = client.settings_file().context("this client has its own init command")?;
    let base = if args.project {
        crate::env::Env::get().cwd()?.to_path_buf()
    } else {
        TierArgs::default().home_dir().context("no home directory: set HOME")?
    };
    let file = base.join(relative);
    let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?;
    let mut edit = JsonFile::read(&file)?;
    client
        .edit_settings(&mut edit.value, &binary.display().to_string(), args.remove)
        .with_context(|| format!("cannot edit {}", file.display()))?;
    if !edit.save()? {
        eprintln!("{}: already up to date", file.display());
        launch(client, &binary, args.launcher.as_deref(), args.remove)?;
        return Ok(0);
    }
    eprintln!("{}: {}", file.display(), if args.remove { "routes removed" } else { "events routed to aimon-hooks" });
    launch(client, &binary, args.launcher.as_deref(), args.remove)?;
    Ok(0)
}

/// Routes Codex's events to `aimon-hooks codex` in its `hooks.json` and trusts those handlers in
/// `$CODEX_HOME/config.toml` (Codex runs no non-managed hook without its trusted hash), and with
/// `--project` the project too (Codex loads no project layer it does not trust), or removes what
/// it wrote. Everything else in both files is kept; a second run changes nothing.
pub(crate) fn codex(args: &InitCodexArgs) -> anyhow::Result<u8> {
    crate::packs_cmd::protect_if(args.protect)?;
    let home = TierArgs::default().home_dir().context("no home directory: set HOME")?;
    let codex_home = hook_wire::codex_home(&home);
    let file = if args.project {
        crate::env::Env::get().cwd()?.join(hook_wire::CODEX_DIR).join(hook_wire::CODEX_HOOKS)
    } else {
        codex_home.join(hook_wire::CODEX_HOOKS)
    };
    let config_file = codex_home.join(hook_wire::CODEX_CONFIG);
    let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?;
    let route = hook_wire::codex::command_route(&binary.display().to_string());
    let mut edit = JsonFile::read(&file)?;
    let settings = &mut edit.value;
    let config_before = read_optional(&config_file)?.unwrap_or_default();
    let mut config: toml_edit::DocumentMut =
        config_before.parse().with_context(|| format!("{} is not valid TOML", config_file.display()))?;
    let old = hook_wire::codex::trusted_hashes(settings, &file, &route);
    let edited = if args.remove {
        hook_wire::claude::remove_routes(settings, &route)
    } else {
        hook_wire::claude::add_routes(settings, hook_wire::codex::ROUTED_EVENTS, &route)
    };
    edited.with_context(|| format!("cannot edit {}", file.display()))?;
    let state = trust_table(&mut config).with_context(|| format!("cannot edit {}", config_file.display()))?;
    for (key, _) in &old {
        state.remove(key);
    }
    for (key, hash) in hook_wire::codex::trusted_hashes(settings, &file, &route) {
        let mut entry = toml_edit::Table::new();
        entry.insert("trusted_hash", toml_edit::value(hash));
        state.insert(&key, toml_edit::Item::Table(entry));
    }
    if args.project {
        let project = crate::env::Env::get().cwd()?.to_path_buf();
        let edited = trust_project(&mut config, &project, args.remove)
            .with_context(|| format!("cannot edit {}", config_file.display()))?;
        if let Some(other) = edited {
            eprintln!(
                "{}: {} is marked trust_level = {other:?}, which was kept: Codex loads its .codex/hooks.json only once it is \"trusted\"",
                config_file.display(),
                project.display()
            );
        }
    }
    let config_text = config.to_string();
    let mut changed = edit.save()?;
    if config_text != config_before {
        write_with_backup(&config_file, (!config_before.is_empty()).then_some(config_before.as_str()), &config_text)?;
        changed = true;
    }
    let what = match (changed, args.remove) {
        (false, _) => "already up to date",
        (true, true) => "routes and their trust removed",
        (true, false) => "events routed to aimon-hooks codex and trusted",
    };
    eprintln!("{} ({}): {what}", file.display(), config_file.display());
    launch(hook_wire::Client::Codex, &binary, args.launcher.as_deref(), args.remove)?;
    Ok(0)
}

/// The comment after the project trust `init codex --project` writes, so that `--remove` takes
/// back that and nothing else.
const TRUST_MARK: &str = "# written by aimon-hooks init codex --project";

/// Trusts `project` in Codex's config (`[projects."<dir>"] trust_level = "trusted"`, marked with
/// [`TRUST_MARK`]), without which Codex does not load the project's `.codex/` layer; with
/// `remove`, takes back only a trust it wrote. A trust level the person set (`"untrusted"`) is
/// kept and returned, to be reported.
fn trust_project(config: &mut toml_edit::DocumentMut, project: &Path, remove: bool) -> anyhow::Result<Option<String>> {
    let key = project.display().to_string();
    let projects = config.entry("projects").or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(projects) = projects.as_table_mut() else { bail!("\"projects\" is not a table") };
    projects.set_implicit(true);
    let entry = projects.entry(&key).or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(entry) = entry.as_table_like_mut() else { bail!("\"projects.{key}\" is not a table") };
    let level = entry.get("trust_level");
    let ours = level
        .and_then(toml_edit::Item::as_value)
        .and_then(|v| v.decor().suffix())
        .and_then(toml_edit::RawString::as_str)
        .is_some_and(|suffix| suffix.contains(TRUST_MARK));
    let mut kept = None;
    if remove {
        if ours {
            entry.remove("trust_level");
        }
    } else {
        match level.map(|l| l.as_str()) {
            None => {
                let trusted = toml_edit::Value::from("trusted").decorated(" ", format!(" {TRUST_MARK}"));
                entry.insert("trust_level", toml_edit::Item::Value(trusted));
            }
            Some(Some("trusted")) => {}
            Some(other) => kept = Some(other.unwrap_or("(not a string)").to_owned()),
        }
    }
    if entry.is_empty() {
        projects.remove(&key);
    }
    if projects.is_empty() {
        config.remove("projects");
    }
    Ok(kept)
}

/// The `[hooks.state]` table of Codex's config, made if missing.
fn trust_table(config: &mut toml_edit::DocumentMut) -> anyhow::Result<&mut toml_edit::Table> {
    let hooks = config.entry("hooks").or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(hooks) = hooks.as_table_mut() else { bail!("\"hooks\" is not a table") };
    hooks.set_implicit(true);
    let state = hooks.entry("state").or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
    let Some(state) = state.as_table_mut() else { bail!("\"hooks.state\" is not a table") };
    state.set_implicit(true);
    Ok(state)
}

/// The text of `file`, `None` when it does not exist.
fn read_optional(file: &Path) -> anyhow::Result<Option<String>> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => bail!("cannot read {}: {e}", file.display()),
    }
}

/// Writes `text` to `file`, keeping the previous text (if any) as `<file>.aimon-backup`.
fn write_with_backup(file: &Path, before: Option<&str>, text: &str) -> anyhow::Result<()> {
    if let Some(before) = before {
        let backup = PathBuf::from(format!("{}.aimon-backup", file.display()));
        std::fs::write(&backup, before).with_context(|| format!("cannot write {}", backup.display()))?;
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(file, text).with_context(|| format!("cannot write {}", file.display()))
}

/// A client's JSON settings file being edited: its text as read (`None` when it does not exist)
/// and its value (`{}` for a missing or blank file), saved back only when the edit changed it.
struct JsonFile<'a> {
    path: &'a Path,
    before: Option<String>,
    original: Value,
    value: Value,
}

impl<'a> JsonFile<'a> {
    fn read(path: &'a Path) -> anyhow::Result<Self> {
        let before = read_optional(path)?;
        let value = match before.as_deref().map(str::trim) {
            None | Some("") => Value::Object(serde_json::Map::new()),
            Some(text) => {
                serde_json::from_str(text).with_context(|| format!("{} is not valid JSON", path.display()))?
            }
        };
        Ok(JsonFile { path, before, original: value.clone(), value })
    }

    /// Writes the value (pretty, one final newline, the old text kept as `<file>.aimon-backup`)
    /// when the file is missing or the edit changed it; returns whether it wrote.
    fn save(&self) -> anyhow::Result<bool> {
        if self.before.is_some() && self.value == self.original {
            return Ok(false);
        }
        write_with_backup(self.path, self.before.as_deref(), &(serde_json::to_string_pretty(&self.value)? + "\n"))?;
        Ok(true)
    }
}

/// Routes Copilot's PascalCase events to `aimon-hooks copilot` in the project's
/// `.github/hooks/aimon.json`, or removes them; other handlers in the file are kept.
pub(crate) fn copilot(args: &InitCopilotArgs) -> anyhow::Result<u8> {
    crate::packs_cmd::protect_if(args.protect)?;
    let file = crate::env::Env::get().cwd()?.to_path_buf().join(hook_wire::COPILOT_HOOKS);
    let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?;
    let route = hook_wire::copilot::command_route(&binary.display().to_string());
    let mut edit = JsonFile::read(&file)?;
    hook_wire::copilot::edit_routes(&mut edit.value, &route, args.remove)
        .with_context(|| format!("cannot edit {}", file.display()))?;
    if !edit.save()? {
        eprintln!("{}: already up to date", file.display());
    } else {
        eprintln!(
            "{}: {}",
            file.display(),
            if args.remove { "routes removed" } else { "events routed to aimon-hooks copilot" }
        );
    }
    launch(hook_wire::Client::Copilot, &binary, args.launcher.as_deref(), args.remove)?;
    Ok(0)
}

/// The first line of a launcher `init <client> --launcher` writes, so that `--remove` takes
/// back that file and no other.
const LAUNCHER_MARK: &str = "# written by aimon-hooks init: starts the client under aimon-hooks guard";

/// For a client without a shell-prefix setting: says how to start it under the guard (writing
/// that as a launcher script at `launcher`, or with `remove` taking a launcher written so back),
/// and which layers are active.
fn launch(client: hook_wire::Client, binary: &Path, launcher: Option<&Path>, remove: bool) -> anyhow::Result<()> {
    let command = format!("{} guard -- {}", shell_quote(&binary.display().to_string()), client.name());
    match (launcher, remove) {
        (Some(path), true) => {
            if read_optional(path)?.is_some_and(|text| text.lines().nth(1) == Some(LAUNCHER_MARK)) {
                std::fs::remove_file(path).with_context(|| format!("cannot remove {}", path.display()))?;
                eprintln!("{}: launcher removed", path.display());
            }
        }
        (Some(path), false) => {
            let text = format!("#!/bin/sh\n{LAUNCHER_MARK}\nexec {command} \"$@\"\n");
            if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
                std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
            }
            std::fs::write(path, text).with_context(|| format!("cannot write {}", path.display()))?;
            use std::os::unix::fs::PermissionsExt as _;
            std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755))
                .with_context(|| format!("cannot make {} executable", path.display()))?;
            eprintln!("{}: starts {} under the exec guard", path.display(), client.name());
        }
        (None, _) => {}
    }
    let guard = match (remove, crate::guard::unavailable(), launcher) {
        (true, _, _) => String::from("off"),
        (false, Some(why), _) => format!("off (unavailable here: {why})"),
        (false, None, Some(path)) => format!("on when {} starts from {}", client.name(), path.display()),
        (false, None, None) => format!("off until {} starts under it: {command}", client.name()),
    };
    eprintln!("{}", layers(!remove, &guard));
    Ok(())
}

/// `word` single-quoted for sh unless it is plainly safe.
fn shell_quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ',' | ':' | '@' | '%' | '+');
    match !word.is_empty() && word.chars().all(plain) {
        true => word.to_owned(),
        false => format!("'{}'", word.replace('\'', "'\\''")),
    }
}
