//! The about text of `aimon-hooks --help` (the `///` comment on hook-cli's `Cli`) names every
//! top-level command in backticks. The commands are read from `crates/hook-cli/src/cli.rs`: the
//! variants of `enum Command`, a `#[command(flatten)]` variant's enum in its place, a
//! `#[command(name = "…")]` over the variant's kebab-case name.

use std::path::Path;

use anyhow::{Context, Result, bail};

/// The file the command line is declared in.
const CLI: &str = "crates/hook-cli/src/cli.rs";

pub(crate) fn check(root: &Path) -> Result<Vec<String>> {
    let text = std::fs::read_to_string(root.join(CLI)).with_context(|| format!("reading {CLI}"))?;
    let about = about(&text)?;
    Ok(commands(&text, "Command")?
        .into_iter()
        .filter(|name| !about.contains(&format!("`{name}`")))
        .map(|name| {
            format!("{CLI}: the about text of `aimon-hooks --help` (the comment on `Cli`) does not name the command `{name}`")
        })
        .collect())
}

/// The `///` lines above `struct Cli` (attributes between skipped), joined.
fn about(text: &str) -> Result<String> {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines.iter().position(|l| l.contains("struct Cli {")) else { bail!("{CLI} has no `struct Cli`") };
    let mut doc = Vec::new();
    for line in lines[..at].iter().rev().map(|l| l.trim()) {
        if let Some(words) = line.strip_prefix("///") {
            doc.push(words.trim());
        } else if !line.starts_with("#[") {
            break;
        }
    }
    doc.reverse();
    Ok(doc.join(" "))
}

/// The command names of `enum <name>`'s variants, flattened enums expanded.
fn commands(text: &str, name: &str) -> Result<Vec<String>> {
    let head = format!("enum {name} {{");
    let Some(start) = text.find(&head) else { bail!("{CLI} has no `{head}`") };
    let body = &text[start + head.len()..];
    let body = &body[..body.find("\n}").unwrap_or(body.len())];
    let (mut names, mut attributes) = (Vec::new(), Vec::new());
    for line in body.lines() {
        let Some(item) = line.strip_prefix("    ").filter(|l| !l.starts_with(' ')) else { continue };
        if item.starts_with("#[") {
            attributes.push(item);
            continue;
        }
        let variant: String = item.chars().take_while(char::is_ascii_alphanumeric).collect();
        if variant.chars().next().is_some_and(|c| c.is_ascii_uppercase()) {
            let inner = item[variant.len()..].trim_start_matches('(').split(')').next().unwrap_or_default();
            if attributes.iter().any(|a| a.contains("flatten")) && !inner.is_empty() {
                names.extend(commands(text, inner)?);
            } else if let Some(named) = attributes.iter().find_map(|a| renamed(a)) {
                names.push(named);
            } else {
                names.push(kebab(&variant));
            }
        }
        if !item.starts_with("///") && !item.starts_with("//") {
            attributes.clear();
        }
    }
    Ok(names)
}

/// `x` of `#[command(name = "x")]`.
fn renamed(attribute: &str) -> Option<String> {
    let rest = attribute.split_once("name = \"")?.1;
    Some(rest[..rest.find('"')?].to_owned())
}

/// `ImportClaude` → `import-claude`.
fn kebab(variant: &str) -> String {
    let mut out = String::new();
    for (i, c) in variant.chars().enumerate() {
        if c.is_ascii_uppercase() && i > 0 {
            out.push('-');
        }
        out.push(c.to_ascii_lowercase());
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const CLI_RS: &str = r#"
/// Hooks. `run` runs; `claude` and `gemini` answer;
/// `import-claude` converts.
#[derive(Debug, Parser)]
#[command(name = "aimon-hooks")]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

pub(crate) enum Command {
    /// Run.
    Run(RunArgs),
    #[command(flatten)]
    Client(ClientCommand),
    /// Import.
    ImportClaude(ImportArgs),
    /// Schema.
    #[command(name = "json-schema")]
    Schema,
}

pub(crate) enum ClientCommand {
    /// Claude.
    Claude(CallArgs),
    Gemini(CallArgs),
}
"#;

    #[test]
    fn commands_are_read_through_flattened_enums_and_renames() {
        assert_eq!(commands(CLI_RS, "Command").unwrap(), ["run", "claude", "gemini", "import-claude", "json-schema"]);
        assert_eq!(
            about(CLI_RS).unwrap(),
            "Hooks. `run` runs; `claude` and `gemini` answer; `import-claude` converts."
        );
    }

    #[test]
    fn a_command_the_about_text_does_not_name_fails() {
        let root = std::env::temp_dir().join(format!("xtask-cli-about-{}", std::process::id()));
        std::fs::create_dir_all(root.join("crates/hook-cli/src")).unwrap();
        std::fs::write(root.join(CLI), CLI_RS).unwrap();
        assert_eq!(
            check(&root).unwrap(),
            [format!(
                "{CLI}: the about text of `aimon-hooks --help` (the comment on `Cli`) does not name the command `json-schema`"
            )]
        );
        std::fs::remove_dir_all(root).unwrap();
    }
}
