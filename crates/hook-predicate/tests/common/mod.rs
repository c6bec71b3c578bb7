//! Test support shared by `matcher_table.rs` and `oracle/`: the Bash case table.
//!
//! One table feeds both binaries: `matcher_table` checks the analyser's answer against each case's
//! expected value; `oracle` runs each case under real shells with stub programs and checks that no
//! stub received the denied argv while the analyser said "no match".
//!
//! - `bash_table.rs`: the cases written before issue 23 (bypasses, look-alikes, hidden commands).
//! - `issue23.rs`: the cases of issue 23, one section per class of the issue.
//! - `issue37.rs`: the loader and git's push plumbing (issue 37).
//! - `outside.rs`: the outside corpus's allow-labelled lines under four deny rules (issue 38).

mod bash_table;
mod issue23;
mod issue37;
mod issue38;
#[allow(dead_code, reason = "read by the benign test and the oracle bench, not by the matcher table or the oracle")]
pub(crate) mod outside;

/// How the oracle runs a case.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Exec {
    /// Under `sh -c` and `bash -c`.
    Shells,
    /// Under `bash -c` only: the case is bash syntax, and what `sh` makes of it says nothing.
    BashOnly,
    /// Not run, for the reason given (something the oracle cannot provide).
    Skip(&'static str),
}

/// One Bash case: a rule, a command, and whether the rule must match it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Case {
    pub(crate) pattern: &'static str,
    pub(crate) command: &'static str,
    pub(crate) expected: bool,
    pub(crate) exec: Exec,
    /// The payload's `cwd`, relative to the project root (`None`: the project root itself).
    pub(crate) cwd: Option<&'static str>,
    /// The class of issue 23 the case belongs to (0: written before it).
    pub(crate) class: u8,
}

/// A case run under both shells from the project root.
pub(crate) const fn c(pattern: &'static str, command: &'static str, expected: bool) -> Case {
    Case { pattern, command, expected, exec: Exec::Shells, cwd: None, class: 0 }
}

impl Case {
    /// Run under bash only.
    pub(crate) const fn bash(self) -> Case {
        Case { exec: Exec::BashOnly, ..self }
    }

    /// Not run by the oracle, for `reason`.
    pub(crate) const fn skip(self, reason: &'static str) -> Case {
        Case { exec: Exec::Skip(reason), ..self }
    }

    /// The call's `cwd` is `dir` below the project root.
    pub(crate) const fn cwd(self, dir: &'static str) -> Case {
        Case { cwd: Some(dir), ..self }
    }

    const fn class(self, class: u8) -> Case {
        Case { class, ..self }
    }
}

/// Every Bash case: the earlier table, then issue 23's and issue 38's.
pub(crate) fn bash_cases() -> Vec<Case> {
    let mut cases = bash_table::cases();
    for (class, section) in issue23::by_class().into_iter().chain(issue38::by_class()) {
        cases.extend(section.into_iter().map(|case| case.class(class)));
    }
    cases.extend(issue37::cases().into_iter().map(|case| case.class(37)));
    cases
}
