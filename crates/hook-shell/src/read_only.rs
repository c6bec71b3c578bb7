//! What is shown read-only (issue 40): a command every simple command of which is modelled as
//! only reading, so a pack may allow it without asking.
//!
//! Each program is judged by the program table's read-only column (`column.rs`). The answer is turned around from the deny stance: anything the analysis cannot show is *not*
//! read-only (an uncertain analysis, interpreter code, an unmodelled program, a word of unknown
//! value where an option may stand, a glob that may expand to an option, a redirection that
//! writes anywhere but `/dev/null`, an assignment to a variable that changes what runs).
//! Protected paths are not judged here: a Read deny rule (and self-protection) match such a
//! command and deny wins over allow in the merge.

use crate::analyse::{Need, with_analysis};
use crate::analysis::{Analysis, View};
use crate::column::{
    READ_ONLY, Refusal, Rule, SAFE_VARIABLES, WRAPPERS, program, program_name, refuse, shell_variable, wrapper,
};
use crate::files;
use crate::hidden;
use crate::word::{Word, basename};

/// The category of a command the analysis could not read with certainty.
pub const UNCERTAIN: &str = "not analysable with certainty";

/// The shell's regular builtins that run no program and act on nothing but their words (and
/// standard output): assignments before one of them last for that builtin alone and reach no
/// program (`FOO=1 echo hi`). Special builtins (`:`, `export`, `eval`, …) keep such assignments
/// after them, so they are not here.
const BUILTINS_RUNNING_NOTHING: &[&str] = &["echo", "printf", "test", "[", "true", "false", "pwd"];

/// Words that open or close a compound command: the command they belong to is another view.
const KEYWORDS: &[&str] =
    &["!", "{", "}", "if", "then", "elif", "else", "fi", "do", "done", "while", "until", "esac", "]]"];

/// Whether `cmd` is shown read-only, with the programs it runs (their base names); else why not.
pub fn read_only(cmd: &str) -> Result<Vec<String>, Refusal> {
    with_analysis(cmd, Need::Files, judge)
}

fn judge(a: &Analysis) -> Result<Vec<String>, Refusal> {
    if a.uncertain || a.files.overflow {
        return Err(refuse(UNCERTAIN, ""));
    }
    if let Some(code) = a.code.first() {
        return Err(refuse("interpreter code", code.chars().take(40).collect::<String>()));
    }
    // `a.opaque` holds the words of programs the walk does not model (sed and awk among them): each
    // such program is a view below, judged by the read-only column.
    for u in &a.files.uses {
        match &u.arg {
            // bash opens a connection for a redirection from or to these.
            files::Arg::Known(path) if path.starts_with("/dev/tcp/") || path.starts_with("/dev/udp/") => {
                return Err(refuse("reaches the network", path.clone()));
            }
            // A redirection of unknown target may be such a connection; a program opening a file
            // of unknown name (`cat "$f"`, `xargs grep x`) opens no connection.
            files::Arg::Unknown if u.access.write || a.unknown_redirect => {
                return Err(refuse("opens a file of unknown name", ""));
            }
            _ if !u.access.write => {}
            files::Arg::Unknown => return Err(refuse("opens a file of unknown name", "")),
            files::Arg::Known(path) if matches!(path.as_str(), "/dev/null" | "/dev/stdout" | "/dev/stderr") => {}
            files::Arg::Known(path) => return Err(refuse("writes a file", path.clone())),
            files::Arg::Glob(glob) => return Err(refuse("writes a file", glob.clone())),
        }
    }
    if a.views.is_empty() {
        return Err(refuse("nothing to run", ""));
    }
    let mut programs: Vec<String> = Vec::new();
    for view in &a.views {
        if let Some(program) = view_read_only(view)? {
            let name = basename(&program);
            // `egrep` and `fgrep` are scripts that run `grep -E`, `grep -F`; `xargs` with no
            // program after it (its view is the innermost) runs `echo`.
            let also = match name {
                "egrep" | "fgrep" => Some("grep"),
                "xargs" if view.innermost => Some("echo"),
                _ => None,
            };
            for name in std::iter::once(name).chain(also) {
                if !programs.iter().any(|p| p == name) {
                    programs.push(name.to_owned());
                }
            }
        }
    }
    Ok(programs)
}

/// One view: its first word decides how it is read. `Some(program)` when it runs one.
fn view_read_only(view: &View) -> Result<Option<String>, Refusal> {
    let words = &view.words;
    let first = &words[0];
    if first.assignment {
        // Alone, an assignment sets a shell variable; before a command, that command's environment
        // (before a builtin that runs nothing, an environment nothing reads).
        let alone = words.iter().all(|w| w.assignment);
        let command = words.iter().find(|w| !w.assignment);
        if command.is_some_and(|w| w.known && BUILTINS_RUNNING_NOTHING.contains(&w.text.as_str())) {
            return Ok(None);
        }
        for w in words.iter().take_while(|w| w.assignment) {
            let name = w.text.split_once('=').map_or(w.text.as_str(), |(n, _)| n.trim_end_matches('+'));
            if !(SAFE_VARIABLES.contains(&name) || alone && shell_variable(name)) {
                return Err(refuse("assigns a variable", name));
            }
            if !w.known {
                return Err(refuse("assigns a value of unknown text", name));
            }
        }
        return Ok(None);
    }
    if !first.known || first.glob {
        return Err(refuse("a program of unknown name", &first.text));
    }
    if !first.quoted && KEYWORDS.contains(&first.text.as_str()) {
        return Ok(None);
    }
    if matches!(first.text.as_str(), "for" | "select" | "case" | "in") {
        return keyword(words).map(|()| None);
    }
    let name = program_name(&first.text)?;
    if let Some((_, with_value, flags)) = WRAPPERS.iter().find(|(w, ..)| *w == name) {
        wrapper(words, with_value, flags)?;
        return Ok(Some(name.to_owned()));
    }
    let Some((_, rule)) = READ_ONLY.iter().find(|(p, _)| *p == name) else {
        if hidden::prints_and_exits(words) {
            return Ok(Some(name.to_owned()));
        }
        return Err(refuse("a program not modelled read-only", name));
    };
    if view.more_args && !matches!(rule, Rule::Any) {
        // `xargs` appends words nobody can see: only a program whose words are all data takes them.
        return Err(refuse("arguments appended by a wrapper", &view.text));
    }
    program(words, *rule)?;
    Ok(Some(name.to_owned()))
}

/// `for NAME in …`, `case WORD in`, `select NAME in …`: the loop variable may not be one that
/// changes what runs (`for PATH in …`).
fn keyword(words: &[Word]) -> Result<(), Refusal> {
    match (words[0].text.as_str(), words.get(1)) {
        ("for" | "select", Some(var)) if !shell_variable(&var.text) => Err(refuse("assigns a variable", &var.text)),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests;
