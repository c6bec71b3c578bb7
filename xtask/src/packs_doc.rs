//! The rule tables of `docs/packs.md`, rendered from the packs built into the binary (hook-config's
//! `packs/*.json` and self-protection's rules), so the page says what the binary enforces.

use hook_config::{PACKS_VERSION, PackRule, SELF_GROUP, packs, self_protection_rules};

/// The region of `docs/packs.md`.
pub(crate) const PACKS: &str = "pack-tables";

/// A table cell: pipes escaped, on one line.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

fn table(out: &mut String, name: &str, about: &str, rules: &[PackRule]) {
    out.push_str(&format!(
        "\n### `{name}`\n\n{about}\n\n| rule | does | why | the model is told |\n|---|---|---|---|\n"
    ));
    for rule in rules {
        let why = rule.why.split_once(": ").map_or(rule.why.as_str(), |(_, why)| why);
        out.push_str(&format!(
            "| `{}` | {} | {} | {} |\n",
            rule.id,
            rule.decision.as_str(),
            cell(why),
            cell(&rule.reason)
        ));
    }
}

/// The region's body: one section per pack, self-protection last.
pub(crate) fn render() -> String {
    let mut out = format!("\nVersion {PACKS_VERSION} (the binary's).\n");
    for pack in packs() {
        table(&mut out, pack.name(), pack.about(), &pack.rules());
    }
    let about = "Self-protection, always on (not turned on or off by `packs`; only `\"selfProtection\": false` in your \
                 own `~/.aimon/hooks.json` turns it off). Its matchers name the paths of each project and home \
                 directory, so they are described here.";
    table(&mut out, SELF_GROUP, about, &self_protection_rules());
    out.push('\n');
    out
}
