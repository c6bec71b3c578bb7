//! The cases of issue 38 (parse-time attacks found by the outside audit and by the searching
//! oracle, `oracle/search.rs`), one section per class of the issue, minimised. Sections are
//! numbered 31-36 for the issue's classes 1-6 so they stay apart from issue 23's.

use super::{Case, c};

const PUSH: &str = "Bash(git push:*)";
const READ_ENV: &str = "Read(./.env)";

/// The sections, by class of the issue (31 is class 1, …).
pub(super) fn by_class() -> Vec<(u8, Vec<Case>)> {
    vec![
        (31, evaluation()),
        (32, lexer()),
        (33, stdin_and_startup()),
        (34, option_grammars()),
        (35, git_settings()),
        (36, files()),
    ]
}

/// Class 1: what reaches arithmetic or prompt evaluation is code.
#[rustfmt::skip]
fn evaluation() -> Vec<Case> {
    vec![
        c(PUSH, "let 'a[$(git push)]'", true).bash(),
        c(PUSH, "x='a[$(git push)]'; echo $((x))", true).bash(),
        c(PUSH, "[[ 'a[$(git push)]' -eq 0 ]]", true).bash(),
        c(PUSH, "declare -i x='a[$(git push)]'", true).bash(),
        c(PUSH, "declare -n r='a[$(git push)]'; echo $r", true).bash(),
        c(PUSH, "printf -v 'a[$(git push)]' x", true).bash(),
        c(PUSH, "read 'a[$(git push)]' <<< x", true).bash(),
        c(PUSH, "test -v 'a[$(git push)]'", true).bash(),
        c(PUSH, "x='$(git push)'; echo ${x@P}", true).bash(),
        c(PUSH, "PS4='$(git push)'; set -x; :", true).bash(),
        c(PUSH, "((git push) )", true),
        c(READ_ENV, "echo $((cat .env) )", true),
        c(READ_ENV, "declare -n r='a[$(cat .env)]'; echo $r", true).bash(),
    ]
}

/// Class 2: the lexer reads words and here-documents as bash does.
#[rustfmt::skip]
fn lexer() -> Vec<Case> {
    vec![
        c(PUSH, "cat <<EO\\\nF\ngit push\nEOF\n:", true),
        c(PUSH, "echo $[1<<2]\ngit push", true).bash(),
        c(PUSH, "echo x\r# ; git push", true),
        // A substitution of `echo WORD` is the word WORD; anything else stays unknown.
        c(PUSH, "$(echo git) push", true),
        c(PUSH, "`echo git` push", true),
        c(PUSH, "\"$(echo git)\" push", true),
        c(PUSH, "$(echo hello)", false),
        c(PUSH, "$(echo -n git) push", true),
        c(PUSH, "$(echo git push)", true),
        c(PUSH, "$(echo gi)t push", true),
        // Quotes inside `${ … }` quote its brackets too (found this session: the `}` inside the
        // quotes ended the expansion and the next quote hid `git push`).
        c(PUSH, "echo ${x:-'}'} ; git push ; echo '${w:-'}", true).bash(),
        c(PUSH, "echo ${x:-\"}\"} ; git push ; echo \"${w:-\"}\"}\"", true).bash(),
        c(PUSH, "echo ${x:-$'\\''} ; git push ; echo '${w:-'}", true).bash(),
        c(PUSH, "echo \"${x:-'}'}\" ; git push", true).bash(),
        // `\'` inside `$'…'` ends the quote for sh, which has no `$'…'` (found by the search's
        // pairing mutation, under sh): the shells pair the quotes after it differently.
        c(READ_ENV, "$'\\'' ; x='$(cat .env)'; #'", true),
        c(PUSH, "$'\\'' ; x='$(git'' push)'; \\'", true),
        c(READ_ENV, "echo $'\\'' ; x='$(cat .e''nv)' ; #'", true),
        // A first line whose plain words end in a quote nothing closes: bash refuses the line and
        // runs none of it. On a later line, the lines before it run.
        c(PUSH, "git push; echo 'unterminated", false).bash(),
        c(PUSH, "git push && rg \"find . -delete", false).bash(),
        c(PUSH, "git push\necho 'unterminated", true).bash(),
        c(PUSH, "bash -c", false).bash(),
        c(PUSH, "bash -c; git push", true).bash(),
        // An unquoted here-document's body is known text when only backslashes are in it: `\\t`
        // stays `\\t` for the shell that reads it; a backslash at a line's end joins lines.
        c(PUSH, "bash <<-EOF\n\\techo hello\nEOF", false).bash(),
        c(PUSH, "bash <<EOF\n\\git push\nEOF", true).bash(),
        c(PUSH, "bash <<EOF\n\\\\git push\nEOF", true).bash(),
        c(PUSH, "bash <<EOF\ngit pu\\\nsh\nEOF", true).bash(),
        c(PUSH, "bash <<EOF\necho \\$(git push)\nEOF", true).bash(),
    ]
}

/// Class 3: what a program reads from stdin or a startup file is its argument text.
#[rustfmt::skip]
fn stdin_and_startup() -> Vec<Case> {
    vec![
        c(PUSH, "BASH_ENV=/dev/stdin bash -c : <<< 'git push'", true).bash(),
        c(PUSH, "bash --rcfile /dev/stdin -ic : <<< 'git push'", true).bash(),
        c(PUSH, "env 'BASH_FUNC_ls%%=() { git push; }' bash -c ls", true).bash(),
        c(READ_ENV, "BASH_ENV=/dev/stdin bash : <<< 'cat .env'", true).bash(),
        // A command-valued variable is a command line wherever it is assigned (`PAGER`, `EDITOR`,
        // …): before the command, through `env`, or exported for a later one.
        c(PUSH, "PAGER='git push' man ls", true),
        c(PUSH, "export GIT_PAGER='git push'; git log", true),
        c(PUSH, "env EDITOR='git push' crontab -e", true),
        c(READ_ENV, "MANPAGER='cat .env' man ls", true),
        c(PUSH, "LESSOPEN='|sh -c %s' less 'git push'", true).skip("the file name less substitutes: a program named by the argument"),
        c(PUSH, "GIT_SSH_COMMAND=git git fetch ssh://push/x", true).skip("the stub git runs no transport"),
        c(PUSH, "GIT_EDITOR=true git rebase --continue", false),
        // Interpreters and shells asked only for their version read no program.
        c(PUSH, "python3 --version", false),
        c(PUSH, "node -v", false),
        c(PUSH, "bash --version", false),
        c(PUSH, "ruby -v", false),
        c(PUSH, "python3 -V -c 'import os; os.system(\"git push\")'", true).skip("python prints its version and exits"),
        c(PUSH, "python3", true).skip("a program on standard input: nothing to run"),
        // What `echo` prints into xargs is known: the words it appends or the line it puts in.
        c(PUSH, "echo push | xargs git", true),
        c(PUSH, "echo ok | xargs -I{} bash -c {}", false),
        c(PUSH, "echo push | xargs -I{} git {}", true),
        c(READ_ENV, "echo .env | xargs cat", true),
        c(READ_ENV, "echo a.md | xargs cat", false),
        c(READ_ENV, "echo .env | xargs -I{} cat ./{}", true),
        c(READ_ENV, "echo .env | xargs -i{} cat ./{}", true),
        c(READ_ENV, "echo a.md | xargs -iX cat ./X", false),
        c(READ_ENV, "xargs cat <<< \"'.env'\"", true).bash(),
        c(READ_ENV, "echo a.md | xargs -0 cat", true).skip("xargs -0 reads `a.md` and a newline: a name no file has"),
    ]
}

/// Class 4: runners' option grammars.
#[rustfmt::skip]
fn option_grammars() -> Vec<Case> {
    vec![
        c(PUSH, "env -S 'PATH=/usr/bin' git push", true),
        c(PUSH, "env -SPATH=/usr/bin git push", true),
        c(PUSH, "env -S git push", true),
        c(PUSH, "xargs --process-slot-var V git push", true),
        c(PUSH, "xargs --arg-file /dev/null git push", true),
        // A runner execs its command: `.` (a directory) starts none, the next word may.
        c(PUSH, "npx eslint .", false),
        c(PUSH, "strace -f . git push", true),
        // man runs only the pager or browser it is told of.
        c(PUSH, "man git", false),
        c(PUSH, "man -P 'git push' ls", true),
        c(PUSH, "man -aP 'git push' ls", true),
        c(PUSH, "man --pa='git push' ls", true),
        c(PUSH, "tree -I 'target|.git'", false),
        c("Edit(./.git/**)", "tree -I 'target|.git'", false),
        c("Edit(./.git/**)", "tree -o .git/config", true),
        // find lists names below its roots and writes -fprint's file.
        c("Edit(./.git/**)", "find . -type f -not -path './.git/*'", false),
        c("Edit(./.git/**)", "find . -name x -fprint .git/config", true),
        c("Edit(./.git/**)", "find . -name config -path '*/.git/*' -delete", true),
        c("Edit(./.git/**)", "find .git -delete", true),
        // sed runs a command only from a script's `e`: one that only substitutes is inert.
        c(PUSH, "echo x | sed 's/git push/y/'", false),
        c(PUSH, "echo x | sed 's/x/git push/e'", true),
        c(PUSH, "echo x | sed '1e git push'", true),
        c(PUSH, "echo x | sed -n -f /dev/stdin <<< '1e git push'", true).bash(),
        // A glob may expand to options: a file named `--force` or `-f` makes them.
        c("Bash(git push --force:*)", "touch -- --force; git push origin *", true),
        c("Bash(git push --force:*)", "touch -- --force; git push origin ./*", false),
        c("Bash(rm -rf:*)", "touch ./-f; rm -r *", true),
        // What xargs appends is the command of a wrapper with none of its own, and an operand of
        // a program that runs its operands (found this session by the peers bench).
        c(PUSH, "printf 'git push' | xargs -0 bash -c", true).bash(),
        c(PUSH, "echo git push > f; xargs -a f env", true).bash(),
        c(PUSH, "echo git push > f; xargs -a f nice", true).bash(),
        c(PUSH, "echo git push > f; xargs -a f timeout 5", true).bash(),
        c(PUSH, "echo git push > f; xargs -a f sudo", true).skip("sudo is not in the sandbox"),
        c(PUSH, "printf 'git\\0push\\0;\\0' | xargs -0 find . -maxdepth 0 -exec", true).bash(),
        c(PUSH, "printf 'git push' | xargs -0 watch", true).skip("watch runs until it is stopped"),
        // GNU parallel's jobs, each argument quoted into the command line (appended, or for `{}`).
        c("Bash(rm -rf:*)", "parallel bash -c ::: 'rm -rf x'", true).skip("GNU parallel is not in the sandbox"),
        c("Bash(rm -rf:*)", "parallel rm {} x ::: -rf", true).skip("GNU parallel is not in the sandbox"),
        c("Bash(rm -rf:*)", "parallel -X rm ::: -r -f", true).skip("GNU parallel is not in the sandbox"),
        c("Bash(rm -rf:*)", "parallel rm -r ::: x y", false).skip("GNU parallel is not in the sandbox"),
        c(PUSH, "parallel bash -c 'echo ok' ::: ok", false).skip("GNU parallel is not in the sandbox"),
        c(PUSH, "echo hi | xargs", false).bash(),
        c(PUSH, "find . -name '*.rs' | xargs grep foo", false).bash(),
    ]
}

/// Class 5: git runs commands from settings and transports. The oracle's stub git does not follow
/// them, so these rows are judged by the matcher table only.
#[rustfmt::skip]
fn git_settings() -> Vec<Case> {
    vec![
        c(PUSH, "git -c protocol.ext.allow=always fetch 'ext::sh -c git% push'", true).skip("the stub git runs no transport"),
        c(PUSH, "git -c core.gitProxy='sh -c \"git push\"' fetch git://h/r", true).skip("the stub git runs no proxy"),
        c(PUSH, "git -c remote.o.uploadpack='git push #' fetch o", true).skip("the stub git runs no upload-pack"),
        // A known command-valued setting is a command line of its own; git's subcommand stays
        // certain. One from the environment is not visible.
        c(PUSH, "git -c core.editor=true status", false),
        c(PUSH, "git -c core.editor='git push' commit", true).skip("the stub git runs no editor"),
        c(PUSH, "git -c diff.algorithm=histogram diff", false),
        c(PUSH, "git -c diff.external='git push' diff", true).skip("the stub git runs no external diff"),
        c(PUSH, "git --config-env=core.pager=P log", true).skip("the stub git reads no environment"),
    ]
}

/// Class 6: files named other ways.
#[rustfmt::skip]
fn files() -> Vec<Case> {
    vec![
        c(READ_ENV, "xargs -a .env echo", true),
        c(READ_ENV, "cat ~+/.env", true).bash(),
        // A process substitution is a pipe, not a file; its own command is read.
        c(READ_ENV, "diff <(ls) <(ls -la)", false).bash(),
        c(READ_ENV, "cat <(cat .env)", true).bash(),
        c(READ_ENV, "cat <(echo x)/../.env", false).bash(),
        // Found by the long run: find's `{}` is every path found, `.env` among them.
        c(READ_ENV, "find -type f -exec file {} +", true),
        c(READ_ENV, "find . -exec cat {} \\;", true),
        c(READ_ENV, "find . -exec cat ./{} \\;", true),
        // With a -name test before the action, `{}` is a glob of what it lists.
        c(READ_ENV, "find . -name '*.md' -exec cat {} +", false),
        c(READ_ENV, "find . -name '.env*' -exec cat {} +", true),
        c(READ_ENV, "find . -iname '.ENV' -exec cat {} \\;", true),
        c(READ_ENV, "find . -name '*.md' -o -name .env -exec cat {} \\;", true),
        c(READ_ENV, "find . -exec cat {} \\; -name '*.md'", true),
        c(READ_ENV, "find -L . -name '*.md' -exec cat {} +", true),
        c("Bash(rm -rf:*)", "find . -name '*.txt' -exec rm {} \\;", false),
        // Every path find visits is below its start point: none is an option.
        c("Bash(rm -rf:*)", "find . -exec rm -r {} \\;", false),
        c("Bash(rm -rf:*)", "find . -type f -exec rm -f {} +", false),
        c("Bash(rm -rf:*)", "find . -exec rm -r -f {} +", true),
        c("Bash(rm -rf:*)", "find $d -exec rm -r {} +", true),
        // So are the NUL-separated paths `find … -print0` pipes into `xargs -0`; xargs without -0
        // splits a name at blanks (`x .env y.md` is three names).
        c(READ_ENV, "find . -name '*.md' -print0 | xargs -0 cat", false),
        c(READ_ENV, "find . -name '.env*' -print0 | xargs -0 cat", true),
        c(READ_ENV, "find . -print0 -name '*.md' | xargs -0 cat", true),
        c(READ_ENV, "touch 'x .env y.md'; find . -name '*.md' | xargs cat", true),
        c(READ_ENV, "find . -name '*.md' -print0 | sort -z | xargs -0 cat", true),
        c(READ_ENV, "find . -name '*.md' -print0 | xargs -0 -a /dev/stdin cat", true),
    ]
}
