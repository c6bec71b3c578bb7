//! False alarms, measured (DESIGN-0.3 §1, issue 23): the benign corpus — real command lines of the
//! shell scripts the machine image ships, nobody here wrote them — through `Bash(git push:*)`,
//! `Bash(rm -rf:*)` and `Bash(curl:*)`.
//!
//! - A line whose text does not contain the rule's program (`git`, `rm`, `curl` as a substring)
//!   is never a certain match: the analyser cannot have seen a program the line does not name.
//! - The uncertain share (lines matched only because the analyser could not show otherwise, ÷ all
//!   lines) is printed per rule and held under 6.6 % (a regression guard; the goal is 2 %).
//! - The outside corpus's allow-labelled lines (issue 38, read by path) under four deny rules: the
//!   share stopped, and the share stopped only because the analysis was uncertain, are printed;
//!   the second is held under 2.6 %.
//!
//! `AIMON_CORPUS_VERBOSE=1` also prints, per rule, the 20 most common command words of the
//! uncertain lines with their counts and two examples each (what the analyser work should take
//! next): `AIMON_CORPUS_VERBOSE=1 cargo test -p hook-predicate --test benign_corpus -- --nocapture`;
//! `AIMON_CORPUS_VERBOSE=all` prints every command word and every uncertain line.
//!
//! The corpus is `tests/fixtures/benign-commands.txt`, made by `extract-benign-commands.py` beside
//! it (not needed to run this test).

use std::collections::HashMap;
use std::sync::OnceLock;

#[allow(dead_code, reason = "shared with the matcher table and the oracle, which read the rest")]
mod common;

use hook_predicate::{Call, PathAnchors, Verdict, parse};
use serde_json::json;

const CORPUS: &str = include_str!("fixtures/benign-commands.txt");

/// The rules, and the program a line must name before the rule can match it for certain.
const RULES: [(&str, &str); 3] = [("Bash(git push:*)", "git"), ("Bash(rm -rf:*)", "rm"), ("Bash(curl:*)", "curl")];

/// The uncertain share no rule may exceed: a regression guard over today's 5.2–6.5 % (the goal is
/// 2 %; `docs/security.md` says, per category, what stays uncertain and why). Most of what stays uncertain really could run the rule's program: a command word that is
/// a variable (`$action cp …`, `exec "$@"`), `eval "$(…)"`, `trap "$HANDLER"`, an option word of
/// unknown value (`rm -f "$x"` may be `rm -f -r`).
const MAX_UNCERTAIN_SHARE: f64 = 0.066;

/// The share of the outside corpus's allow-labelled lines the analyser may stop by uncertainty:
/// the goal, 2 % (today 1.95 %: what remains is mostly a reader given file names it cannot know
/// under `Read(./.env)` — `xargs cat` fed by a pipe without `-0`, which splits a name at its
/// blanks, `find -type f -exec file {} +`, whose `{}` may be `.env`).
const MAX_OUTSIDE_UNCERTAIN_SHARE: f64 = 0.02;

fn corpus() -> Vec<&'static str> {
    CORPUS.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
}

/// What one rule said of the whole corpus.
struct Report {
    pattern: &'static str,
    program: &'static str,
    lines: usize,
    matches: usize,
    uncertain: Vec<&'static str>,
    /// Certain matches on lines that do not name the rule's program.
    impossible: Vec<&'static str>,
}

impl Report {
    fn uncertain_share(&self) -> f64 {
        self.uncertain.len() as f64 / self.lines as f64
    }

    fn summary(&self) -> String {
        let without = self.uncertain.iter().filter(|l| !l.contains(self.program)).count();
        format!(
            "{}: {} lines, {} matches, {} uncertain ({without} of them not naming `{}`): uncertain share {:.2} %",
            self.pattern,
            self.lines,
            self.matches,
            self.uncertain.len(),
            self.program,
            100.0 * self.uncertain_share()
        )
    }
}

fn reports() -> &'static [Report] {
    static REPORTS: OnceLock<Vec<Report>> = OnceLock::new();
    REPORTS.get_or_init(|| {
        let anchors = PathAnchors::new("/proj").with_home("/home/u");
        let lines = corpus();
        RULES
            .iter()
            .map(|&(pattern, program)| {
                let predicate = parse(pattern, &anchors).expect("the corpus rules parse");
                let mut report = Report {
                    pattern,
                    program,
                    lines: lines.len(),
                    matches: 0,
                    uncertain: Vec::new(),
                    impossible: Vec::new(),
                };
                for &line in &lines {
                    let input = json!({ "command": line });
                    match predicate.verdict(&Call::new("Bash", &input)) {
                        Verdict::NoMatch => {}
                        Verdict::Match => {
                            report.matches += 1;
                            if !line.contains(program) {
                                report.impossible.push(line);
                            }
                        }
                        Verdict::Uncertain => {
                            report.matches += 1;
                            report.uncertain.push(line);
                        }
                    }
                }
                report
            })
            .collect()
    })
}

/// The command word of a line, roughly: its first word after leading assignments and `!`.
fn command_word(line: &str) -> &str {
    line.split_whitespace().find(|w| *w != "!" && !is_assignment(w)).unwrap_or("(assignments only)")
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        let name = name.strip_suffix('+').unwrap_or(name);
        !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn print_most_common_uncertain(report: &Report, all: bool) {
    let mut groups: HashMap<&str, Vec<&str>> = HashMap::new();
    for line in &report.uncertain {
        groups.entry(command_word(line)).or_default().push(line);
    }
    let mut groups: Vec<(&str, Vec<&str>)> = groups.into_iter().collect();
    groups.sort_by(|a, b| b.1.len().cmp(&a.1.len()).then(a.0.cmp(b.0)));
    let (words, examples) = if all { (groups.len(), usize::MAX) } else { (20, 2) };
    println!("  the {words} most common command words of its uncertain lines:");
    for (word, lines) in groups.iter().take(words) {
        println!("  {:>5}  {word}", lines.len());
        for line in lines.iter().take(examples) {
            println!("         {line}");
        }
    }
}

#[test]
fn the_corpus_holds_at_least_five_thousand_distinct_command_lines() {
    let lines = corpus();
    let mut distinct = lines.clone();
    distinct.sort_unstable();
    distinct.dedup();
    assert!(lines.len() >= 5_000, "the corpus holds {} lines", lines.len());
    assert_eq!(distinct.len(), lines.len(), "the corpus lines are distinct");
    assert!(lines.iter().all(|l| l.len() <= 400), "every line is at most 400 bytes");
}

#[test]
fn a_line_that_does_not_name_the_rules_program_is_never_a_certain_match() {
    let offending: Vec<String> =
        reports().iter().flat_map(|r| r.impossible.iter().map(move |line| format!("{}: {line}", r.pattern))).collect();
    assert!(
        offending.is_empty(),
        "{} lines matched a rule whose program they do not name:\n{}",
        offending.len(),
        offending.join("\n")
    );
}

#[test]
fn the_uncertain_share_of_each_rule_stays_under_its_bound() {
    let verbose = std::env::var("AIMON_CORPUS_VERBOSE").ok();
    let mut over = Vec::new();
    for report in reports() {
        println!("{}", report.summary());
        if let Some(verbose) = verbose.as_deref().filter(|v| matches!(*v, "1" | "all")) {
            print_most_common_uncertain(report, verbose == "all");
        }
        if report.uncertain_share() > MAX_UNCERTAIN_SHARE {
            over.push(report.summary());
        }
    }
    assert!(over.is_empty(), "over {} %:\n{}", 100.0 * MAX_UNCERTAIN_SHARE, over.join("\n"));
}

/// The analyser's own false alarms on the outside corpus's allow-labelled lines (issue 38): lines
/// stopped only because the analysis was uncertain. Printed with the share stopped in all; held
/// under [`MAX_OUTSIDE_UNCERTAIN_SHARE`]. The corpus is third-party data beside the repository: where
/// it is absent the test says so and measures nothing.
#[test]
fn the_outside_allow_labelled_lines_stopped_are_printed_and_the_analysers_share_stays_under_its_bound() {
    let Some(lines) = common::outside::lines() else {
        println!("the outside corpus is absent ({}): nothing measured", common::outside::path().display());
        return;
    };
    let alarms = common::outside::FalseAlarms::measure(&lines);
    println!("{}", alarms.summary());
    if std::env::var("AIMON_CORPUS_VERBOSE").is_ok() {
        alarms.uncertain.iter().for_each(|line| println!("  {line}"));
    }
    assert!(alarms.allowed > 1000, "the corpus holds {} allow-labelled lines", alarms.allowed);
    assert!(
        alarms.uncertain_share() <= 100.0 * MAX_OUTSIDE_UNCERTAIN_SHARE,
        "{}\n{}",
        alarms.summary(),
        alarms.uncertain.join("\n")
    );
}

#[test]
fn the_command_word_of_a_line_skips_assignments_and_negation() {
    assert_eq!(command_word("FOO=1 BAR+=x ! git push"), "git");
    assert_eq!(command_word("\"$GPGV\" --homedir x"), "\"$GPGV\"");
    assert_eq!(command_word("X=1"), "(assignments only)");
    assert_eq!(command_word("echo a=b"), "echo");
}
