//! The outside corpus (issue 38): the labelled command lines of three peer guards' own suites,
//! `../shared/corpora/peer-commands.jsonl`, read by path (third-party data the repository does not
//! keep). The benign test and the oracle's long run print the share of its allow-labelled lines
//! that four deny rules stop.

use std::path::{Path, PathBuf};

use hook_predicate::{Call, PathAnchors, Verdict, parse};
use serde_json::{Value, json};

/// The rules whose false alarms are measured.
pub(crate) const DENY_RULES: &[&str] =
    &["Bash(rm -rf:*)", "Bash(git push --force:*)", "Bash(git reset --hard:*)", "Read(./.env)"];

/// Where the corpus is, beside the repository.
pub(crate) fn path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/corpora/peer-commands.jsonl")
}

/// The corpus's lines as (command, allow-labelled), or `None` when the file is absent.
pub(crate) fn lines() -> Option<Vec<(String, bool)>> {
    let text = std::fs::read_to_string(path()).ok()?;
    let lines = text
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|v| Some((v["command"].as_str()?.to_owned(), v["label"].as_str() == Some("safe"))))
        .collect();
    Some(lines)
}

/// What the rules make of the allow-labelled lines.
#[derive(Debug, Default)]
pub(crate) struct FalseAlarms {
    /// Allow-labelled lines.
    pub(crate) allowed: usize,
    /// Of them, stopped by some rule (a match or an uncertain one).
    pub(crate) denied: usize,
    /// Of them, stopped only because the analysis could not show that no rule matches: the
    /// analyser's false alarms. The rest are lines a rule describes as written (`rm -rf /tmp/x`
    /// under `Bash(rm -rf:*)`), which the peers' policies allow and the rule does not.
    pub(crate) uncertain: Vec<String>,
}

impl FalseAlarms {
    pub(crate) fn measure(lines: &[(String, bool)]) -> FalseAlarms {
        let project = std::env::temp_dir().join("aimon-false-alarms");
        let anchors = PathAnchors::new(&project).with_home(project.join("home"));
        let rules: Vec<_> = DENY_RULES.iter().map(|r| parse(r, &anchors).expect("the rule parses")).collect();
        let mut out = FalseAlarms::default();
        for (command, _) in lines.iter().filter(|(_, allow)| *allow) {
            out.allowed += 1;
            let input = json!({ "command": command });
            let call = Call::new("Bash", &input).in_dir(Some(&project));
            let verdicts: Vec<Verdict> = rules.iter().map(|rule| rule.verdict(&call)).collect();
            if verdicts.iter().any(|v| v.matches()) {
                out.denied += 1;
                if !verdicts.contains(&Verdict::Match) {
                    out.uncertain.push(command.clone());
                }
            }
        }
        out
    }

    fn share(&self, n: usize) -> f64 {
        100.0 * n as f64 / self.allowed.max(1) as f64
    }

    /// The analyser's false alarms, as a share of the allow-labelled lines.
    pub(crate) fn uncertain_share(&self) -> f64 {
        self.share(self.uncertain.len())
    }

    pub(crate) fn summary(&self) -> String {
        format!(
            "outside corpus: {} of {} allow-labelled lines stopped ({:.2} %) under {DENY_RULES:?}; {} of them \
             ({:.2} %) only because the analysis was uncertain, the rest matched as written",
            self.denied,
            self.allowed,
            self.share(self.denied),
            self.uncertain.len(),
            self.uncertain_share()
        )
    }
}
