//! Text that bash evaluates later, out of the analyser's sight (issue #38): an array subscript
//! holding a command substitution reaches arithmetic evaluation from any quoted word given to
//! `let`, `declare -i`/`-n`, `printf -v`, `read`, `test -v`, `[[ … -eq … ]]` or `$((name))`; a
//! prompt expansion (`${x@P}`, `PS4` with `set -x`) runs the prompt's substitutions; startup files
//! and exported functions (`BASH_ENV`, `ENV`, `--rcfile`, `BASH_FUNC_…`) run code the command
//! line only names; `((…) )` is a subshell; a carriage return, a delimiter joined by a line
//! continuation and `$[…<<…]` move what the lexer sees; `env -S`, xargs' long options and `-a`,
//! `~+` and `~-` change which program or file a word is; git's `ext::` transport, `core.gitProxy`,
//! `remote.<name>.uploadpack`, `trailer.<t>.command` and `tar.<fmt>.command` run commands. A command holding any of these is uncertain for
//! every rule, a path rule included: a deny rule treats it as a match, an allow rule as none.

use std::sync::LazyLock;

use regex::Regex;

/// Marks of later evaluation, each a regex over the raw command text.
#[rustfmt::skip]
const MARKS: &[&str] = &[
    r"\[[^\]]*(\$\(|`)",                       // a subscript holding a command substitution
    r"@P\}",                                    // prompt expansion
    r"\bPS[0-4]=",                              // a prompt set by the command
    r"\b(BASH_ENV|ENV)=",                       // startup code
    r"--(rcfile|init-file)\b",
    r"BASH_FUNC_",                              // an exported function
    r"\(\([^()]*\)\s+\)",                       // `((…) )`: nested subshells, not arithmetic
    r"\r",                                      // a carriage return is a word character
    r"<<-?\s*\S*\\\n",                          // a here-document delimiter continued on the next line
    r"\$\[[^\]]*<<",                            // `$[1<<2]` is no here-document
    r"\benv\s+(\S+\s+)*?-[A-Za-z]*S|--split-string", // `env -S` splits its own argument
    r"--(process-slot-var|arg-file)\b",         // xargs' long options with a separate value
    r"\bxargs(\s+(-\S+|\d+))*\s+-[0-9A-Za-z]*a",     // `xargs -a FILE` reads FILE
    r"(^|[\s;&|(])~[+-]",                       // `~+`, `~-`: the working directories
    // git settings and transports that run a command
    r"(?i)ext::|protocol\.ext\.|GIT_ALLOW_PROTOCOL|gitproxy|\.(uploadpack|receivepack)\b|\b(trailer|tar)\.[^\s=]*\.command",
];

static EVALUATED: LazyLock<Regex> =
    LazyLock::new(|| Regex::new(&MARKS.join("|")).unwrap_or_else(|e| panic!("the marks compile: {e}")));

/// Text every match of a mark holds one of (each mark's own literal part): a command holding none
/// matches no mark, and the regex is neither compiled nor run for it (compiling it costs about
/// half a millisecond, at every start of the exec-time guard).
#[rustfmt::skip]
const NEEDED: &[&str] = &[
    "[", "@P}", "PS", "ENV=", "--rcfile", "--init-file", "BASH_FUNC_", "((", "\r", "<<", "env", "--split-string",
    "--process-slot-var", "--arg-file", "xargs", "~",
];

/// [`NEEDED`] for the caseless mark, in ASCII lower case (`uploadpac`: under Unicode case
/// folding the Kelvin sign is a `k`).
const NEEDED_CASELESS: &[&str] = &["ext::", "protocol", "gitproxy", "uploadpac", "receivepac", ".command"];

/// Whether `cmd` holds text bash evaluates later ([`MARKS`]).
pub(super) fn evaluated_later(cmd: &str) -> bool {
    may_match(cmd) && EVALUATED.is_match(cmd)
}

/// Whether `cmd` holds one of [`NEEDED`] or [`NEEDED_CASELESS`].
fn may_match(cmd: &str) -> bool {
    NEEDED.iter().any(|n| cmd.contains(n)) || {
        let lower = cmd.to_ascii_lowercase();
        NEEDED_CASELESS.iter().any(|n| lower.contains(n))
    }
}

#[cfg(test)]
mod tests {
    use super::{EVALUATED, evaluated_later, may_match};

    /// The literals only skip work: every line of the benign corpus and every mark's own example
    /// that the regex matches holds one of them.
    #[test]
    fn every_command_a_mark_matches_holds_a_needed_literal() {
        let corpus = include_str!("../../hook-predicate/tests/fixtures/benign-commands.txt");
        let lines =
            corpus.lines().chain(["a[$(x)]", "remote.o.uploadpac\u{212a}=x", "x\rPS1=y", "GIT_ALLOW_PROTOCOL=ext"]);
        let missed: Vec<&str> = lines.filter(|l| EVALUATED.is_match(l) && !may_match(l)).collect();
        assert!(missed.is_empty(), "{missed:?}");
        let matched = corpus.lines().filter(|l| EVALUATED.is_match(l)).count();
        assert!(matched > 10, "the corpus exercises the marks: {matched} lines");
    }

    #[test]
    fn text_that_bash_evaluates_later_is_marked_and_plain_commands_are_not() {
        let marked = [
            "let 'a[$(git push)]'",
            "x='$(git push)'; echo ${x@P}",
            "PS4='$(git push)'; set -x; :",
            "BASH_ENV=/dev/stdin bash -c : <<< 'git push'",
            "((git push) )",
            "echo x\r# ; git push",
            "cat <<EO\\\nF\ngit push\nEOF\n",
            "echo $[1<<2]\ngit push",
            "env -SPATH=/usr/bin git push",
            "cat ~+/.env",
            "xargs -a .env echo",
            "git -c core.gitProxy=x fetch git://h/r",
            "git -c Remote.O.UploadPack=x fetch o",
            "GIT_ALLOW_PROTOCOL=ext git fetch x",
        ];
        let plain = [
            "git status",
            "find . | xargs ls -la",
            "echo $((1 + 2))",
            "ls -la ~/x",
            "arr[1]=2; echo ${arr[1]}",
            "cat <<EOF\nx\nEOF\n",
        ];
        for cmd in marked {
            assert!(evaluated_later(cmd), "{cmd:?}");
        }
        for cmd in plain {
            assert!(!evaluated_later(cmd), "{cmd:?}");
        }
    }
}
