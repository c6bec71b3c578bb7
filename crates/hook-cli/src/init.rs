//! `init claude` (R-CLI-10) and `init gemini`/`init qwen`: the file side of hook-wire's
//! settings editing.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use anyhow::{Context as _, bail};
use hook_core::HookEventType;
use serde_json::Value;

use crate::cli::{InitClaudeArgs, TierArgs};

/// Routes Claude Code's events to this binary (or to `serve`), or removes the routes.
pub(crate) fn claude(args: &InitClaudeArgs) -> anyhow::Result<u8> {
    let home = TierArgs::default().home_dir().context("no home directory: set HOME")?;
    let file = if args.project {
        let cwd = std::env::current_dir().context("cannot read the current directory")?;
        cwd.join(".claude").join(if args.http { "settings.local.json" } else { "settings.json" })
    } else {
        home.join(".claude/settings.json")
    };
    let route = if args.http {
        hook_wire::claude::http_route(&args.url, &token(&home)?)
    } else {
        let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?;
        hook_wire::claude::command_route(&binary.display().to_string())
    };
    let named = args
        .event
        .iter()
        .map(|name| HookEventType::resolve(name).map_err(|e| anyhow::anyhow!("{}", e.warning())))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let before = match std::fs::read_to_string(&file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => bail!("cannot read {}: {e}", file.display()),
    };
    let mut settings: Value = match before.as_deref().map(str::trim) {
        None | Some("") => Value::Object(serde_json::Map::new()),
        Some(text) => serde_json::from_str(text).with_context(|| format!("{} is not valid JSON", file.display()))?,
    };
    let original = settings.clone();
    let prefix = hook_wire::claude::guard_prefix(
        &std::env::current_exe().context("cannot find the running aimon-hooks binary")?.display().to_string(),
    );
    if args.guard
        && !args.remove
        && let Some(why) = crate::guard::unavailable()
    {
        // Every Bash command would be refused: say so before anything is written.
        bail!("cannot set up the exec guard, nothing was changed: {why}");
    }
    let edited = match (args.remove, args.guard) {
        (true, true) => hook_wire::claude::remove_shell_prefix(&mut settings, &prefix),
        (true, false) => hook_wire::claude::remove_routes(&mut settings, &route)
            .and_then(|()| hook_wire::claude::remove_shell_prefix(&mut settings, &prefix)),
        (false, guard) => {
            hook_wire::claude::add_routes(&mut settings, &hook_wire::claude::routed_events(&named), &route)
                .and_then(|()| if guard { hook_wire::claude::set_shell_prefix(&mut settings, &prefix) } else { Ok(()) })
        }
    };
    edited.with_context(|| format!("cannot edit {}", file.display()))?;
    if settings == original && before.is_some() {
        eprintln!("{}: already up to date", file.display());
        return Ok(0);
    }
    if let Some(text) = &before {
        let backup = PathBuf::from(format!("{}.aimon-backup", file.display()));
        std::fs::write(&backup, text).with_context(|| format!("cannot write {}", backup.display()))?;
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&settings)? + "\n";
    std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    let done = match (args.remove, args.guard) {
        (true, true) => "the exec guard removed",
        (true, false) => "routes removed",
        (false, true) => "events routed to aimon-hooks, every Bash command run under `aimon-hooks guard`",
        (false, false) => "events routed to aimon-hooks",
    };
    eprintln!("{}: {done}", file.display());
    Ok(0)
}

/// The daemon's bearer token from `~/.aimon/serve.token`, created (random, mode 0600) if missing.
fn token(home: &Path) -> anyhow::Result<String> {
    let path = hook_core::AimonDir::under(home).serve_token();
    match std::fs::read_to_string(&path) {
        Ok(text) if !text.trim().is_empty() => return Ok(text.trim().to_owned()),
        Ok(_) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => bail!("cannot read {}: {e}", path.display()),
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("cannot draw a random token: {e}"))?;
    let token: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create(true).truncate(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut out = options.open(&path).with_context(|| format!("cannot create {}", path.display()))?;
    writeln!(out, "{token}").with_context(|| format!("cannot write {}", path.display()))?;
    Ok(token)
}

/// Routes a client's events to `aimon-hooks <client>` in its settings file (home or project), or
/// removes the routes; a second run changes nothing, everything else in the file is kept.
pub(crate) fn client(client: hook_wire::Client, args: &crate::cli::InitClientArgs) -> anyhow::Result<u8> {
    let relative = client.settings_file().context("this client has its own init command")?;
    let base = if args.project {
        std::env::current_dir().context("cannot read the current directory")?
    } else {
        TierArgs::default().home_dir().context("no home directory: set HOME")?
    };
    let file = base.join(relative);
    let binary = std::env::current_exe().context("cannot find the running aimon-hooks binary")?;
    let before = match std::fs::read_to_string(&file) {
        Ok(text) => Some(text),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => bail!("cannot read {}: {e}", file.display()),
    };
    let mut settings: Value = match before.as_deref().map(str::trim) {
        None | Some("") => Value::Object(serde_json::Map::new()),
        Some(text) => serde_json::from_str(text).with_context(|| format!("{} is not valid JSON", file.display()))?,
    };
    let original = settings.clone();
    client
        .edit_settings(&mut settings, &binary.display().to_string(), args.remove)
        .with_context(|| format!("cannot edit {}", file.display()))?;
    if settings == original && before.is_some() {
        eprintln!("{}: already up to date", file.display());
        return Ok(0);
    }
    if let Some(text) = &before {
        let backup = PathBuf::from(format!("{}.aimon-backup", file.display()));
        std::fs::write(&backup, text).with_context(|| format!("cannot write {}", backup.display()))?;
    }
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    let text = serde_json::to_string_pretty(&settings)? + "\n";
    std::fs::write(&file, text).with_context(|| format!("cannot write {}", file.display()))?;
    eprintln!("{}: {}", file.display(), if args.remove { "routes removed" } else { "events routed to aimon-hooks" });
    Ok(0)
}
