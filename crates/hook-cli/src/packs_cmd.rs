//! `aimon-hooks packs`: the rule packs built into this binary, their rules, and which of them the
//! tiers of the current project turn on; and what `init <client> --protect` writes (the three
//! packs on in the person's own `~/.aimon/hooks.json`).

use std::path::Path;

use anyhow::Context as _;
use hook_config::{
    PACKS_VERSION, PackRule, SELF_GROUP, TierPaths, active_packs, load_tiers, packs, self_protection_rules,
};
use serde_json::{Value, json};

use crate::cli::PacksArgs;

/// The packs `--protect` turns on.
pub(crate) const PROTECT: [&str; 3] = ["aimon/destructive", "aimon/secrets", "aimon/exfiltration"];

/// Every pack as `(name, about, rules)`, self-protection last.
fn all() -> Vec<(&'static str, String, Vec<PackRule>)> {
    let about = "Self-protection, always on: the policy's files, the clients' hook settings, their skills and the \
                 aimon-hooks binary are out of every tool call's reach for writing, and the daemon's token for \
                 reading too.";
    packs()
        .iter()
        .map(|p| (p.name(), p.about().to_owned(), p.rules()))
        .chain([(SELF_GROUP, about.to_owned(), self_protection_rules())])
        .collect()
}

/// `packs [--json]`.
pub(crate) fn command(args: &PacksArgs) -> anyhow::Result<u8> {
    let paths = TierPaths::new(args.tiers.home_dir(), args.tiers.project_dir()?);
    let on: Vec<(&str, String)> = match load_tiers(&paths) {
        Ok((config, _)) => active_packs(&config).into_iter().map(|(n, t, _)| (n, t.name().to_owned())).collect(),
        Err(e) => {
            eprintln!("WARN the tiers do not load, so no pack is shown as on: {}", e.sentence());
            Vec::new()
        }
    };
    let state = |name: &str| match on.iter().find(|(n, _)| *n == name) {
        _ if name == SELF_GROUP => String::from("always on"),
        Some((_, tier)) => format!("on in {tier}"),
        None => String::from("off"),
    };
    if args.json {
        let rows: Vec<Value> = all()
            .into_iter()
            .map(|(name, about, rules)| {
                let rules: Vec<Value> = rules
                    .iter()
                    .map(|r| json!({"id": r.id, "decision": r.decision.as_str(), "matcher": r.matcher, "reason": r.reason, "why": r.why}))
                    .collect();
                json!({"name": name, "version": PACKS_VERSION, "state": state(name), "about": about, "rules": rules})
            })
            .collect();
        println!("{}", serde_json::to_string_pretty(&rows)?);
        return Ok(0);
    }
    for (name, about, rules) in all() {
        println!("{name} {PACKS_VERSION} ({}): {about}", state(name));
        let width = rules.iter().map(|r| r.id.len()).max().unwrap_or_default();
        for rule in rules {
            println!("  {:<4} {:<width$}  {}", rule.decision.as_str(), rule.id, rule.why);
        }
    }
    println!(
        "turn packs on in a hooks.json with {{\"packs\": [\"aimon/destructive\", …]}}; one rule off in your own with {{\"disable\": [\"<pack>#<rule>\"]}}"
    );
    Ok(0)
}

/// Turns the [`PROTECT`] packs on in `~/.aimon/hooks.json` under `home` (created if missing; the
/// rest of the file kept); returns the line saying what it did.
pub(crate) fn protect(home: &Path) -> anyhow::Result<String> {
    let file = hook_core::AimonDir::under(home).hooks();
    let mut doc: Value = match std::fs::read_to_string(&file) {
        Ok(text) if !text.trim().is_empty() => {
            serde_json::from_str(&text).with_context(|| format!("{} is not valid JSON", file.display()))?
        }
        Ok(_) => json!({}),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => json!({}),
        Err(e) => return Err(e).with_context(|| format!("cannot read {}", file.display())),
    };
    let Some(root) = doc.as_object_mut() else { anyhow::bail!("{} is not a JSON object", file.display()) };
    let list = root.entry("packs").or_insert_with(|| json!([]));
    let Some(list) = list.as_array_mut() else { anyhow::bail!("'packs' in {} is not a list", file.display()) };
    let missing: Vec<&str> = PROTECT.into_iter().filter(|p| !list.iter().any(|v| v == p)).collect();
    if missing.is_empty() {
        return Ok(format!("{}: packs {} already on", file.display(), PROTECT.join(", ")));
    }
    list.extend(missing.iter().map(|p| json!(p)));
    if let Some(dir) = file.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    }
    std::fs::write(&file, serde_json::to_string_pretty(&doc)? + "\n")
        .with_context(|| format!("cannot write {}", file.display()))?;
    Ok(format!("{}: packs {} on", file.display(), PROTECT.join(", ")))
}

/// The line of `validate` naming the packs the tiers turn on, with their version.
pub(crate) fn validate_line(config: &hook_config::LoadedConfig) -> String {
    let on: Vec<String> = active_packs(config)
        .into_iter()
        .map(|(name, tier, rules)| format!("{name} {PACKS_VERSION} ({tier}, {rules} rules)"))
        .chain([format!("{SELF_GROUP} {PACKS_VERSION} (always on)")])
        .collect();
    format!("packs: {}", on.join(", "))
}

/// What `init <client> --protect` offers besides the packs it turns on: `aimon/read-only` is
/// opt-in (it allows, where the others ask or deny).
const READ_ONLY_OFFER: &str = "fewer prompts (opt-in): add \"aimon/read-only\" to \"packs\" there to allow, without \
     asking, the calls shown to only read (git log, ls, Read); anything else is asked as before";

/// `init <client> --protect`: [`protect`] in the home directory, its line on stderr.
pub(crate) fn protect_if(on: bool) -> anyhow::Result<()> {
    if on {
        let home = crate::cli::TierArgs::default().home_dir().context("no home directory: set HOME")?;
        eprintln!("{}", protect(&home)?);
        eprintln!("{}", READ_ONLY_OFFER);
    }
    Ok(())
}
