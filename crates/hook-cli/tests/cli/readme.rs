//! The README cannot fall behind the command line: every command `aimon-hooks --help` lists has
//! a row in the README's command table (a command added on any branch makes its row a
//! requirement). The crate rows are checked by `cargo xtask check-layers` from cargo metadata.

use crate::support::{Outcome, Sandbox};

/// The commands of a clap `--help` text: the first word of each line under `Commands:`, without
/// clap's own `help`.
fn commands_of(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .map(str::to_owned)
        .collect()
}

/// Whether `readme` has a table row that starts with the command (`| `run <EVENT> …` |`).
fn has_row(readme: &str, command: &str) -> bool {
    readme.lines().any(|l| {
        l.strip_prefix("| `")
            .and_then(|rest| rest.strip_prefix(command))
            .is_some_and(|rest| rest.starts_with([' ', '`']))
    })
}

#[test]
fn the_readme_has_a_row_for_every_command_of_help() {
    let out = Outcome::of(Sandbox::new().cmd().arg("--help"));
    assert_eq!(out.code, 0, "{}", out.stderr);
    let commands = commands_of(&out.stdout);
    assert!(commands.len() >= 12, "today's twelve commands at least: {commands:?}\n{}", out.stdout);
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md");
    let readme = std::fs::read_to_string(&path).expect("README.md");
    let missing: Vec<&String> = commands.iter().filter(|c| !has_row(&readme, c)).collect();
    assert!(missing.is_empty(), "README.md has no command-table row (| `<command> …` |) for {missing:?}");
}

#[test]
fn the_readme_check_reads_help_and_rows_as_a_person_would() {
    let help = "Usage: aimon-hooks <COMMAND>\n\nCommands:\n  run     Run it\n          more about run\n  import-claude  Convert\n  help    Print this message\n\nOptions:\n  -v  More\n";
    assert_eq!(commands_of(help), ["run", "import-claude"]);
    let readme = "| `run <EVENT>` | x |\n| `import-claude` | y |\n| `runner` | z |\n";
    assert!(has_row(readme, "run") && has_row(readme, "import-claude"));
    assert!(!has_row(readme, "guard"), "a command with no row is missing");
    assert!(!has_row("| `runner` | z |", "run"), "a longer name is another command");
}
