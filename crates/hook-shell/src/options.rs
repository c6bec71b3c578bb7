//! Equivalent spellings of a command's options (DESIGN-0.3 §1): `rm -rf` is `rm -fr`, `rm -r -f`,
//! `rm --recursive --force` and `rm x -rf`; `git branch -D` is `git branch -d -f`; `kill -9` is
//! `kill -KILL`, `kill -s KILL` and `kill --signal=SIGKILL`; `npm i` is `npm install`.
//!
//! A rule and a command are both read into a program, a subcommand (for git, npm, docker, kubectl,
//! …), options and operands. Options go through the program's table (short letter and long names
//! of one option, which options take a value, which imply others); a program without a table gets
//! its short clusters split into letters. A rule matches when the command's options include the
//! rule's (exactly the rule's, for a rule without a trailing wildcard) and its operands are the
//! rule's, in order.

use crate::programs;
use crate::table::{git_dashed, is_git_command};
use crate::verdict::Verdict;
use crate::word::{Text, Word, basename};

mod tables;

use tables::{Norm, Opt, PROGRAMS, Program, Shape, Sub, Takes};

/// One element of a command after its program and subcommand.
enum Item<'w> {
    /// An option by its canonical name, with its value if it has one (`None` inside the value: a
    /// value of unknown text).
    Opt {
        canon: &'w str,
        value: Option<Option<&'w str>>,
        norm: Norm,
    },
    Operand(&'w str),
    /// A word of unknown value: it may be any options or operands, or none.
    Unknown,
    /// A word of unknown value after `--`: operands only.
    UnknownOperand,
}

/// Where a command's arguments start, once its program and subcommand are read.
struct Head<'w> {
    program: &'w str,
    model: Option<&'static Program>,
    /// The subcommand, canonical when the table knows it (`i` → `install`).
    sub: Option<&'w str>,
    sub_model: Option<&'static Sub>,
    /// The subcommand is not one of the program's own (a git alias, say): it may stand for any.
    sub_open: bool,
    /// Global options stand between the program and its subcommand (`git -C dir push`).
    globals: bool,
    args: usize,
}

/// Why a head could not be read.
enum NoHead<'w> {
    /// Not a command this reader can say anything about (its name is not a known word).
    Unreadable,
    /// The program's name, with something before or at its subcommand of unknown meaning.
    Uncertain(&'w str),
}

fn head<W: Text>(words: &[W]) -> Result<Head<'_>, NoHead<'_>> {
    let Some(first) = words.first().filter(|w| w.known()) else { return Err(NoHead::Unreadable) };
    let name = basename(first.text());
    if let Some(sub) = git_dashed(name) {
        // `git-push` and `/usr/lib/git-core/git-push`: git's exec-path names are `git push`.
        let model = PROGRAMS.iter().find(|p| p.names.contains(&"git"));
        let sub_model = model.and_then(|m| m.subs.iter().find(|s| s.names.contains(&sub)));
        return Ok(Head {
            program: "git",
            model,
            sub: Some(sub_model.map_or(sub, |s| s.canon)),
            sub_model,
            sub_open: false,
            globals: false,
            args: 1,
        });
    }
    let model = PROGRAMS.iter().find(|p| p.names.contains(&name));
    let program = model.map_or(name, |m| m.names[0]);
    if !(programs::has_subcommands(name) || model.is_some_and(|m| !m.subs.is_empty())) {
        return Ok(Head { program, model, sub: None, sub_model: None, sub_open: false, globals: false, args: 1 });
    }
    let at = match programs::subcommand(words) {
        programs::Subcommand::Plain => 1,
        programs::Subcommand::At(at) => at,
        programs::Subcommand::Unknown(_) => return Err(NoHead::Uncertain(program)),
    };
    let Some(word) = words.get(at) else {
        return Ok(Head { program, model, sub: None, sub_model: None, sub_open: false, globals: at > 1, args: at });
    };
    if !word.known() {
        return Err(NoHead::Uncertain(program));
    }
    let text = word.text();
    let next = words.get(at + 1).filter(|w| w.known()).map(Text::text);
    let found = model.and_then(|m| {
        m.subs.iter().find_map(|s| {
            s.names.iter().find_map(|n| match n.split_once(' ') {
                Some((a, b)) => (a == text && Some(b) == next).then_some((s, 2)),
                None => (*n == text).then_some((s, 1)),
            })
        })
    });
    Ok(match found {
        Some((s, taken)) => Head {
            program,
            model,
            sub: Some(s.canon),
            sub_model: Some(s),
            sub_open: false,
            globals: at > 1,
            args: at + taken,
        },
        None => {
            let sub_open = program == "git" && !is_git_command(text);
            Head { program, model, sub: Some(text), sub_model: None, sub_open, globals: at > 1, args: at + 1 }
        }
    })
}

/// The option of `name` (`-r`, `--recursive`, `-delete`) in the tables, subcommand's first.
fn find<'t>(tables: &[&'t [Opt]; 2], name: &str) -> Option<&'t Opt> {
    tables.iter().flat_map(|t| t.iter()).find(|o| o.names.contains(&name))
}

/// Reads `words` (a command's arguments) into items, calling `f` for each.
fn items<'w, W: Text>(head: &Head<'_>, words: &'w [W], f: &mut impl FnMut(Item<'w>)) {
    let shape = head.model.map_or(Shape::Getopt, |m| m.shape);
    let tables: [&[Opt]; 2] = [head.sub_model.map_or(&[], |s| s.options), head.model.map_or(&[], |m| m.options)];
    let refspecs = head.sub_model.is_some_and(|s| s.refspecs);
    let emit = |f: &mut dyn FnMut(Item<'w>), opt: &'static Opt, value: Option<Option<&'w str>>| {
        f(Item::Opt { canon: opt.canon, value, norm: opt.norm });
        for implied in opt.implies {
            f(Item::Opt { canon: implied, value: None, norm: Norm::Plain });
        }
    };
    let mut i = 0;
    let mut options_done = false;
    let mut operands = 0;
    let mut signal = false;
    // A value the option at hand takes from the next word.
    let next_value = |i: &mut usize| -> Option<Option<&'w str>> {
        let w = words.get(*i)?;
        *i += 1;
        Some(w.known().then(|| w.text()))
    };
    while let Some(w) = words.get(i) {
        i += 1;
        if w.may_hold_options() {
            f(if options_done { Item::UnknownOperand } else { Item::Unknown });
            continue;
        }
        let t = w.text();
        let operand = options_done || t == "-" || !t.starts_with('-');
        if operand {
            if shape == Shape::Dd
                && let Some((key, value)) = t.split_once('=')
            {
                f(Item::Opt { canon: key, value: Some(Some(value)), norm: Norm::Plain });
                continue;
            }
            if shape == Shape::Tar && i == 1 && !t.is_empty() && t.bytes().all(|b| b.is_ascii_alphabetic()) {
                // `tar xzf archive`: the first word is a cluster without its dash, whose options
                // take their values from the words that follow, in order.
                for (k, _) in t.char_indices() {
                    let letter = &t[k..k + 1];
                    match tables[1].iter().find(|o| o.names.iter().any(|n| n.strip_prefix('-') == Some(letter))) {
                        Some(opt) if opt.takes == Takes::Value => emit(f, opt, next_value(&mut i)),
                        Some(opt) => emit(f, opt, None),
                        None => f(Item::Opt { canon: letter, value: None, norm: Norm::Plain }),
                    }
                }
                continue;
            }
            let mut text = t;
            if refspecs && operands > 0 {
                // `git push origin +main` forces, `git push origin :main` deletes.
                if let Some(rest) = text.strip_prefix('+') {
                    f(Item::Opt { canon: "--force", value: None, norm: Norm::Plain });
                    text = rest;
                } else if let Some(rest) = text.strip_prefix(':') {
                    f(Item::Opt { canon: "--delete", value: None, norm: Norm::Plain });
                    text = rest;
                }
            }
            operands += 1;
            f(Item::Operand(text));
            continue;
        }
        if t == "--" {
            options_done = true;
            continue;
        }
        if shape == Shape::Find {
            // find's expression: every `-word` is one primary; `-exec … ;` holds a command.
            if matches!(t, "-exec" | "-execdir" | "-ok" | "-okdir") {
                let end =
                    words[i..].iter().position(|w| matches!(w.text(), ";" | "+")).map_or(words.len(), |p| i + p + 1);
                f(Item::Opt { canon: t, value: None, norm: Norm::Plain });
                i = end;
                continue;
            }
            match find(&tables, t) {
                Some(opt) if opt.takes == Takes::Value => emit(f, opt, next_value(&mut i)),
                Some(opt) => emit(f, opt, None),
                None => f(Item::Opt { canon: t, value: None, norm: Norm::Plain }),
            }
            continue;
        }
        if shape == Shape::Kill
            && let Some(sig) = t.strip_prefix('-').filter(|s| is_signal(s))
        {
            signal = true;
            f(Item::Opt { canon: "--signal", value: Some(Some(sig)), norm: Norm::Signal });
            continue;
        }
        if shape == Shape::Chmod && is_mode(t) {
            operands += 1;
            f(Item::Operand(t));
            continue;
        }
        if let Some(long) = t.strip_prefix("--") {
            let (name, attached) = match long.split_once('=') {
                Some((name, value)) => (&t[..2 + name.len()], Some(value)),
                None => (t, None),
            };
            let exact = find(&tables, name);
            // GNU and git accept any unambiguous start of a long name (`--rec` for `--recursive`);
            // an ambiguous one is read as every option it could be.
            let mut matched = false;
            let mut consumed: Option<Option<Option<&'w str>>> = None;
            let all = tables.iter().flat_map(|t| t.iter());
            for opt in all.filter(|o| match exact {
                Some(e) => std::ptr::eq(*o, e),
                None => name.len() > 2 && o.names.iter().any(|n| n.starts_with("--") && n.starts_with(name)),
            }) {
                matched = true;
                let value = match (opt.takes, attached) {
                    (_, Some(v)) => Some(Some(v)),
                    (Takes::Value, None) => *consumed.get_or_insert_with(|| next_value(&mut i)),
                    _ => None,
                };
                signal |= opt.norm == Norm::Signal;
                emit(f, opt, value);
            }
            if !matched {
                f(Item::Opt { canon: name, value: attached.map(Some), norm: Norm::Plain });
            }
            continue;
        }
        // A cluster of short options: `-rf`, `-n5`, `-xzf archive`.
        let cluster = &t[1..];
        for (k, c) in cluster.char_indices() {
            let letter = &cluster[k..k + c.len_utf8()];
            let rest = &cluster[k + c.len_utf8()..];
            let opt = tables
                .iter()
                .flat_map(|t| t.iter())
                .find(|o| o.names.iter().any(|n| n.strip_prefix('-') == Some(letter)));
            match opt {
                Some(opt) if opt.takes == Takes::Nothing => {
                    signal |= opt.norm == Norm::Signal;
                    emit(f, opt, None);
                }
                Some(opt) => {
                    let value = if !rest.is_empty() {
                        Some(Some(rest))
                    } else if opt.takes == Takes::Value {
                        next_value(&mut i)
                    } else {
                        None
                    };
                    signal |= opt.norm == Norm::Signal;
                    emit(f, opt, value);
                    break;
                }
                None => f(Item::Opt { canon: letter, value: None, norm: Norm::Plain }),
            }
        }
    }
    if shape == Shape::Kill && !signal {
        // No signal named: the default, TERM.
        f(Item::Opt { canon: "--signal", value: Some(Some("TERM")), norm: Norm::Signal });
    }
}

/// An option of a rule, with its value when the rule gives one.
#[derive(Debug)]
struct RuleOpt {
    canon: String,
    value: Option<String>,
    norm: Norm,
}

/// A rule's words read like a command: what a command must hold to match it (built once, when the
/// rule is parsed).
#[derive(Debug)]
pub struct Spelling {
    program: String,
    /// The program's other names (`podman` for `docker`).
    names: &'static [&'static str],
    sub: Option<String>,
    options: Vec<RuleOpt>,
    operands: Vec<String>,
    /// The rule ends in `:*` or ` *`: more operands may follow, and more options.
    prefix: bool,
    /// The rule writes `--` (`git checkout -- :*`): a command must write it too, as a word of its
    /// own after the subcommand (`git checkout main` switches branches, `git checkout -- a.txt`
    /// discards changes).
    dashdash: bool,
}

impl Spelling {
    /// Reads a rule's words; `None` when they have no such reading (a wildcard in the program, the
    /// subcommand or an option, a word of unknown meaning, or more than 64 options).
    pub fn new(words: &[String], prefix: bool) -> Option<Spelling> {
        let head = head(words).ok()?;
        if head.globals || words[..head.args].iter().any(|w| w.contains('*')) {
            // A wildcard before the arguments, or global options in the rule: the rule's text alone.
            return None;
        }
        let mut spelling = Spelling {
            program: head.program.to_owned(),
            names: head.model.map_or(&[], |m| m.names),
            sub: head.sub.map(str::to_owned),
            options: Vec::new(),
            operands: Vec::new(),
            prefix,
            dashdash: words[head.args..].iter().any(|w| w == "--"),
        };
        let mut readable = true;
        items(&head, &words[head.args..], &mut |item| match item {
            Item::Opt { canon, value, norm } => {
                readable &= !canon.contains('*') && value.is_none_or(|v| v.is_some_and(|v| !v.contains('*')));
                let value = value.flatten().map(str::to_owned);
                if !spelling.options.iter().any(|o| o.canon == canon && o.value == value) {
                    spelling.options.push(RuleOpt { canon: canon.to_owned(), value, norm });
                }
            }
            Item::Operand(text) => spelling.operands.push(text.to_owned()),
            Item::Unknown | Item::UnknownOperand => readable = false,
        });
        (readable && spelling.options.len() <= 64).then_some(spelling)
    }

    /// What this rule says of one view: `None` when the view is not a command of the rule's
    /// program (another test decides).
    pub fn verdict(&self, words: &[Word], more_args: bool) -> Option<Verdict> {
        // The common case first, without reading anything: another program.
        let name = basename(&words.first()?.text);
        if name != self.program && !self.names.contains(&name) && !(self.program == "git" && name.starts_with("git-")) {
            return None;
        }
        let head = match head(words) {
            Ok(head) => head,
            Err(NoHead::Uncertain(program)) => return (program == self.program).then_some(Verdict::Uncertain),
            Err(NoHead::Unreadable) => return None,
        };
        if head.program != self.program {
            return None;
        }
        if let Some(sub) = &self.sub {
            match head.sub {
                Some(s) if s == sub => {}
                // git runs a command of its own whatever its aliases say; anything else may be an
                // alias, or autocorrected, into the rule's.
                Some(_) if head.sub_open => return Some(Verdict::Uncertain),
                // `parallel git ::: push`: the subcommand is among the words appended.
                None if more_args => return Some(Verdict::Uncertain),
                _ => return Some(Verdict::NoMatch),
            }
        }
        let (mut seen, mut extra, mut unknown) = (0u64, false, more_args);
        let (mut operand, mut operands_match) = (0, true);
        items(&head, &words[head.args..], &mut |item| match item {
            Item::Opt { canon, value, .. } => {
                let mut hit = false;
                for (k, rule) in self.options.iter().enumerate() {
                    if rule.canon != canon {
                        continue;
                    }
                    match (&rule.value, value) {
                        (None, _) => hit = true,
                        (Some(_), Some(None)) => unknown = true,
                        (Some(want), Some(Some(got))) if values_equal(rule.norm, want, got) => hit = true,
                        _ => continue,
                    }
                    if hit {
                        seen |= 1 << k;
                    }
                }
                extra |= !hit;
            }
            Item::Operand(text) => {
                match self.operands.get(operand) {
                    Some(want) => operands_match &= glob_matches(want, text),
                    None => operands_match &= self.prefix,
                }
                operand += 1;
            }
            Item::UnknownOperand => {
                // More operands than the rule names are what a prefix rule allows.
                unknown |= !(self.prefix && operand >= self.operands.len());
                operand += 1;
            }
            Item::Unknown => unknown = true,
        });
        let all = if self.options.len() == 64 { u64::MAX } else { (1u64 << self.options.len()) - 1 };
        let dashdash = !self.dashdash || words[head.args..].iter().any(|w| w.known && w.text == "--");
        let matched =
            seen == all && operands_match && operand >= self.operands.len() && (self.prefix || !extra) && dashdash;
        // A word of unknown value can add options and operands, never take the known ones away
        // (short of being `--` itself, before them): a prefix rule met by the known words is met.
        Some(if matched && self.prefix {
            Verdict::Match
        } else if unknown {
            Verdict::Uncertain
        } else {
            Verdict::from_bool(matched)
        })
    }
}

/// Whether two option values are the same: signals by name (`9`, `KILL`, `SIGKILL`, `kill`),
/// names case-insensitively (`-X post`), the rest as written.
fn values_equal(norm: Norm, a: &str, b: &str) -> bool {
    match norm {
        Norm::Plain => a == b,
        Norm::Caseless => a.eq_ignore_ascii_case(b),
        Norm::Signal => {
            let (a, b) = (signal_name(a), signal_name(b));
            a.eq_ignore_ascii_case(b)
        }
    }
}

/// Linux's signal numbers and names (x86 and arm).
#[rustfmt::skip]
const SIGNALS: &[(&str, &str)] = &[("0", "0"), ("1", "HUP"), ("2", "INT"), ("3", "QUIT"), ("4", "ILL"), ("5", "TRAP"),
    ("6", "ABRT"), ("6", "IOT"), ("7", "BUS"), ("8", "FPE"), ("9", "KILL"), ("10", "USR1"), ("11", "SEGV"),
    ("12", "USR2"), ("13", "PIPE"), ("14", "ALRM"), ("15", "TERM"), ("16", "STKFLT"), ("17", "CHLD"), ("17", "CLD"),
    ("18", "CONT"), ("19", "STOP"), ("20", "TSTP"), ("21", "TTIN"), ("22", "TTOU"), ("23", "URG"), ("24", "XCPU"),
    ("25", "XFSZ"), ("26", "VTALRM"), ("27", "PROF"), ("28", "WINCH"), ("29", "IO"), ("29", "POLL"), ("30", "PWR"),
    ("31", "SYS")];

/// A signal's name without `SIG` (`9` → `KILL`, `SIGTERM` → `TERM`); unknown ones as written.
fn signal_name(s: &str) -> &str {
    let s = if s.len() > 3 && s[..3].eq_ignore_ascii_case("sig") { &s[3..] } else { s };
    SIGNALS.iter().find(|(n, _)| *n == s).map_or(s, |(_, name)| name)
}

/// Whether `-s` is kill's `-SIGNAL` (a number, or a name with or without `SIG`).
fn is_signal(s: &str) -> bool {
    let s = signal_name(s);
    (!s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        || SIGNALS.iter().any(|(_, name)| {
            name.eq_ignore_ascii_case(s) && s.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit())
        })
}

/// Whether a chmod word that starts with `-` is a mode (`-x`, `-rwx`, `-w,o+r`), not an option.
fn is_mode(t: &str) -> bool {
    t.len() > 1
        && t[1..].bytes().all(|b| b"rwxXstugoa+-=,0123456789".contains(&b))
        && t[1..].bytes().any(|b| b"rwxXst".contains(&b))
        && !t[1..].bytes().all(|b| b == b'R')
}

/// Whether `text` matches `pattern`, where `*` is any run of characters.
fn glob_matches(pattern: &str, text: &str) -> bool {
    let Some((first, tail)) = pattern.split_once('*') else { return pattern == text };
    let Some(mut rest) = text.strip_prefix(first) else { return false };
    let (middle, last) = tail.rsplit_once('*').unwrap_or(("", tail));
    for part in middle.split('*').filter(|p| !p.is_empty()) {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.len() >= last.len() && rest.ends_with(last)
}
