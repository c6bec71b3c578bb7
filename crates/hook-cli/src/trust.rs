//! Trust for hooks that come with a repository (R-CLI-12): the `trust` command, which gate each
//! command loads under, and what `claude`, `list`, `explain` and `validate` say about it.
//!
//! `claude` (the project comes from the agent's payload), `list`, `explain` and `validate` use
//! the person's store, so they show what `claude` does; `run` and `watch` name their project by
//! being run there (or with `--project`) and trust it. `AIMON_TRUST_PROJECT_HOOKS=1` trusts every
//! project everywhere.

use std::path::{Path, PathBuf};

use anyhow::Context as _;
use hook_config::{ConfigFile, HandlerKind, LoadedConfig, TierPaths, TrustGate, TrustStore, sha256_hex};
use serde_json::{Value, json};

use crate::cli::TrustArgs;

/// How a command treats the project's files.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Trust {
    /// The person named the project (`run`, `watch`): every file is trusted.
    Explicit,
    /// The person's store decides (`claude`, and what `list`/`explain`/`validate` show).
    Store,
}

/// The gate for the tiers at `paths`.
pub(crate) fn gate(paths: &TierPaths, trust: Trust) -> TrustGate {
    match trust {
        Trust::Explicit => TrustGate::everything(),
        Trust::Store => {
            TrustGate::for_agent(paths.home.as_deref(), &paths.project, crate::env::Env::get().trust_project_hooks)
        }
    }
}

/// The tier files the gate does not trust and that hold a `command`, `http` or `mcp` handler
/// on any event.
pub(crate) fn withheld_files(gate: &TrustGate, config: &LoadedConfig) -> Vec<PathBuf> {
    let has_code = |f: &ConfigFile| f.entries.iter().flat_map(|e| &e.handlers).any(|h| h.kind() != HandlerKind::Deny);
    config
        .files
        .iter()
        .filter(|f| has_code(f) && !gate.is_trusted(f.tier, &f.path, &f.sha256))
        .map(|f| f.path.clone())
        .collect()
}

/// `validate`'s line on one parsed file's trust.
pub(crate) fn validate_line(gate: &TrustGate, file: &ConfigFile) -> String {
    if gate.is_trusted(file.tier, &file.path, &file.sha256) {
        format!("{}: trusted", file.path.display())
    } else {
        format!(
            "{}: not trusted: its command, http, mcp, prompt and agent hooks are skipped under 'aimon-hooks claude'; {} to trust it",
            file.path.display(),
            gate.command()
        )
    }
}

/// `trust [--project DIR] | --list | --revoke`.
pub(crate) fn command(args: &TrustArgs) -> anyhow::Result<u8> {
    let home = args.tiers.home_dir().context("no home directory for the trust store: set $HOME or pass --home")?;
    let store = TrustStore::in_home(&home);
    if args.list {
        let only = args.tiers.project.as_ref().map(|_| args.tiers.project_dir()).transpose()?;
        return list(&store, only.as_deref(), args.json);
    }
    let project = match args.tiers.project {
        Some(_) => args.tiers.project_dir()?,
        // Run inside a repository, `trust` means the project `claude` would derive from there.
        None => {
            let cwd = crate::env::Env::get().cwd()?.to_path_buf();
            let hints = hook_wire::ProjectHints { cwd: Some(&cwd), ..hook_wire::ProjectHints::default() };
            hook_wire::project_dir(&hints, &cwd, Some(&home))
        }
    };
    if args.revoke {
        let (canon, removed) = store.revoke(&project)?;
        match removed {
            Some(record) => println!("revoked trust in {} ({} file(s))", canon.display(), record.files.len()),
            None => println!("nothing was trusted in {}", canon.display()),
        }
        return Ok(0);
    }
    let (canon, record) = store.trust(&project)?;
    if record.files.is_empty() {
        println!(
            "nothing to trust in {}: no .aimon/hooks.json, .aimon/hooks.local.json, .aimon/mcp.json or SKILL.md",
            canon.display()
        );
        return Ok(0);
    }
    for (file, sha256) in &record.files {
        println!("trusted {} sha256:{sha256}", file.display());
    }
    println!("{} file(s) of {} recorded in {}", record.files.len(), canon.display(), store.path().display());
    Ok(0)
}

/// `trust --list`: every recorded file and whether it still matches.
fn list(store: &TrustStore, only: Option<&Path>, as_json: bool) -> anyhow::Result<u8> {
    let doc = store.read()?;
    let only = only.map(|p| std::fs::canonicalize(p).unwrap_or_else(|_| p.to_owned()));
    let mut rows = Vec::new();
    for (project, record) in doc.projects.iter().filter(|(p, _)| only.as_ref().is_none_or(|o| o == *p)) {
        for (file, sha256) in &record.files {
            let state = match std::fs::read(file) {
                Ok(bytes) if sha256_hex(&bytes) == *sha256 => "trusted",
                Ok(_) => "changed",
                Err(_) => "missing",
            };
            rows.push(json!({"project": project, "file": file, "sha256": sha256, "trustedAt": record.trusted_at,
                             "state": state}));
        }
    }
    if as_json {
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    if rows.is_empty() {
        println!("no trusted files in {}", store.path().display());
        return Ok(0);
    }
    let text = |row: &Value, key: &str| row[key].as_str().unwrap_or_default().to_owned();
    let header = ["STATE", "TRUSTED AT", "FILE"].map(str::to_owned);
    let cells: Vec<[String; 3]> =
        rows.iter().map(|r| [text(r, "state"), text(r, "trustedAt"), text(r, "file")]).collect();
    crate::table::print_table(&header, &cells);
    Ok(0)
}
