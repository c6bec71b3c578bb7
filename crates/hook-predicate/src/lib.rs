//! hook-predicate: the matcher language of the aimon hook system (R-PRED).
//!
//! A hook's `matcher` (and its handler-level `if`, R-CFG-3b) decides which tool calls it sees. This
//! crate compiles such a pattern once, at load time, into a [`ToolInputPredicate`] that looks at the
//! tool name *and* its input. The public surface is exactly that trait, [`parse`] with its input
//! vocabulary [`PathAnchors`], [`Error`], and [`rule_paths`] (the absolute globs of a matcher's
//! Read and Edit rules, [`RulePath`] and [`RuleAccess`], for the exec-time guard's mounts;
//! whether it has any, [`lists_rule_paths`]), and
//! [`WholeArgv`] (the guard's scope in which an exec's argv is read to its end), [`ClientTmpdir`]
//! (a client call's scope in which `$TMPDIR` reads as the client's own value), and [`read_only`]
//! with [`NotReadOnly`] (whether a Bash command is shown to only read, and why not) (R-LAYER-3); the four implementations — NameOnly,
//! BashSubcommand, PathGlob and Composite (plus the input-field test they are built from) — are
//! private. How a Bash command is read — its simple commands, wrappers, hidden command lines and
//! file uses — is the shell analyser's, hook-shell, the one workspace crate this one depends on
//! ([`Verdict`] and [`WholeArgv`] are its, re-exported); this crate must not pull reqwest, rmcp,
//! notify, serde-saphyr or rusqlite (R-LAYER-2). Unit tests sit beside the code (`shell_tests/`
//! reads the analyser's option and git tables through the matcher); the grammar table is
//! `tests/matcher_table.rs`; the benchmark is `benches/predicates.rs`; the fuzz targets are
//! `fuzz/fuzz_targets/parse_matcher.rs` and `analyse_bash.rs` at the workspace root
//! (`analyse_shell.rs` fuzzes hook-shell alone).
//!
//! # Grammar (R-PRED-3)
//!
//! ```text
//! pattern    = any | names | extended | regex ;          (* tried in this order *)
//! any        = { ws } | { ws } "*" { ws } ;                (* every tool *)
//! names      = name-chars { name-chars } ;                 (* only [A-Za-z0-9_- ,|]: a list of exact names *)
//!              (* split on "|" and ",", each item trimmed, empty items dropped *)
//! extended   = or ;                                        (* must contain a tool-rule, an input-test or "&" *)
//! or         = and { "|" and } ;
//! and        = unary { "&" unary } ;                       (* "&" binds tighter than "|" *)
//! unary      = "(" or ")" | atom ;
//! atom       = read-only | tool-rule | input-test | name | "*" | name-regex ;
//! read-only  = "@read-only" ;                             (* a call shown to only read *)
//! name       = name-byte { name-byte } ;                   (* [A-Za-z0-9_-]: exact tool name *)
//! name-regex = regex-token ;                               (* unanchored regex on the name *)
//! input-test = "input." field-path "~" regex-token ;
//! field-path = name { "." name } ;                         (* a numeric segment indexes an array *)
//! tool-rule  = name "(" body ")" ;                         (* body: balanced parentheses *)
//! body       = field-path "=" regex                        (* Tool(field=regex): rest of the body *)
//!            | bash-rule                                   (* when name = "Bash" *)
//!            | path-glob ;                                 (* when name is Edit, Read or a file tool *)
//! bash-rule  = "" | "*" | words ":*" | words " *" | words ; (* "*" inside words is a wildcard *)
//! path-glob  = "//" glob | "~/" glob | "/" glob | "./" glob | glob ;
//! regex      = ? Rust regex syntax ? ;
//! regex-token = ? a regex up to the first whitespace or unbalanced ")" outside [...] and (...) ? ;
//! ```
//!
//! Meanings:
//! - `*`, empty or whitespace-only: any tool. `Edit|Write`, `Edit, Write`: exact names;
//!   `mcp__memory` is an exact name too, so it matches no MCP tool; `code-reviewer` is exact.
//! - Anything else that is not an extension is Claude Code's regex, searched unanchored:
//!   `Edit.*` also matches `NotebookEdit`, `^Edit$` anchors, `mcp__memory__.*` takes a whole server.
//! - `Tool(field=regex)`: exact tool name and an unanchored regex on the input field; dotted paths
//!   reach nested fields (`mcp__x__y(payload.id=^abc)`, `MultiEdit(edits.0.old_string=foo)`). A
//!   string is tested as it is, any other value as its compact JSON text (`600`, `true`, `null`,
//!   `["a"]`; on a field that holds a string, uncertain when that does not match, below); a
//!   missing field never matches. `input.<path>~regex` is the same test without a tool
//!   name, for composition: `Bash & input.command~^npm`, `(Edit | Write) & input.file_path~\.rs$`.
//! - On Bash, a regex on `command` (`Bash(command=^rm\s+-rf)` or `input.command~…`) is searched in
//!   the whole command and in every subcommand (R-PRED-4, below); any match counts.
//! - `Bash(git push:*)` and `Bash(git push *)`: a subcommand that is `git push` alone or followed by
//!   arguments (not `git pushy`); `Bash(npm test)`: exactly that subcommand; `*` elsewhere matches any
//!   characters (`Bash(git * main)`); `Bash`, `Bash()` and `Bash(*)`: any Bash call. Rule words are
//!   split like shell words (quotes removed) and compared with the subcommand's words joined by
//!   single spaces.
//! - Path globs (gitignore-style, Claude Code's convention): `Edit(//etc/**)` is absolute,
//!   `Read(~/.ssh/**)` is under [`PathAnchors::home`], `Edit(/docs/**)` is under the declaring
//!   tier's root, `Read(./.env)` and any glob containing `/` (`Edit(src/**/*.rs)`) are anchored at
//!   the project root, and a glob without `/` (`Edit(*.ts)`) matches the file name at any depth
//!   below the project root. `**/` is any depth, `*` never crosses `/`, a trailing `/` means
//!   everything below. `Edit(…)` covers Edit, MultiEdit, Write and NotebookEdit; `Read(…)` covers
//!   Read, Grep and Glob; `Write(…)`, `MultiEdit(…)`, `NotebookEdit(…)`, `Grep(…)`, `Glob(…)` cover
//!   themselves. A `Read(…)` or `Edit(…)` rule with a glob also covers Bash, as a reading or a
//!   writing tool (below); `Read()` and `Edit()` with an empty body do not.
//! - Paths are what the tool would open. The tool's `file_path`, `notebook_path` or `path` (first
//!   present; a call touching several paths gives them all as `file_paths`, and matches when all
//!   do, uncertainly when some do or when `file_paths` is not a list of them) is joined to the call's `cwd` ([`Call::cwd`], else the project root) when relative,
//!   `~`/`~/…` is the home directory ([`PathAnchors::home`], else `HOME`), and the path is
//!   normalised lexically (`src/../.env` is `.env`); the rule matches if that path **or** the path
//!   with its existing symlinks followed (`std::fs::canonicalize` of the longest existing prefix,
//!   the rest appended) matches. `/proc/self/cwd/…` is taken from the call's `cwd`,
//!   `/proc/self/root/…` from `/`; a descriptor (`/dev/fd/7`) or another process's `cwd`/`root`/`fd`
//!   is resolved through the file system when it can be, and is otherwise uncertain when what
//!   follows it may be the protected path. Files outside the project never match a
//!   project-anchored glob.
//! - Search tools: Grep's `glob` and Glob's `pattern` count as the paths they select below the
//!   search's `path` (a search without a `path` searches the `cwd`; a glob without `/` at any
//!   depth): a match when the two globs can select a common path (`glob: "*.env"` for
//!   `Read(./.env)`, not `"*.rs"`), decided by a glob intersection that errs on matching. A search
//!   without a selecting glob matches a rule on a whole directory (`Read(~/.ssh/**)`,
//!   `Read(./secrets/)`: a literal directory followed by `/**`) when it is rooted at the directory,
//!   inside it or above it, not a rule on a single file.
//! - Bash under Read and Edit rules: the command is analysed as for Bash rules and the files it
//!   reads (for a Read rule) or writes (for an Edit rule) are tested like a tool's path:
//!   redirection targets, the file arguments of modelled programs (`cat`, `grep`, `sed`, `head`,
//!   `cp`, `tee`, `rm`, `touch`, `dd`, `tar`, …; a recursive `grep -r`/`rm -r` reaches everything
//!   below its operand), relative paths from before and after each earlier `cd`, variables assigned
//!   earlier in the line. A file argument of unknown value (`cat $X`) or a glob that can select the
//!   path (`cat *`) is uncertain, and so is an unmodelled program, interpreter code or an
//!   unreadable command whose words name the path (its literal file name standing alone, or the
//!   directory of a `dir/**` rule). The model is hook-shell's `files.rs`; `docs/security.md` lists it.
//! - `~/` rules need no home directory when they are parsed: without [`PathAnchors::home`] the glob
//!   is checked at once and resolved against the home directory of the process (`HOME`) the first
//!   time it is matched; with no home directory at all it matches every call of its tools that
//!   names a path.
//! - Arguments hook-wire maps from the clients: `file_globs` (a reading call's paths and globs,
//!   each below the call's `cwd`: a covered path matches, a directory read whole or a glob that
//!   may select a covered path is uncertain, and as with `file_paths` all of them matching is a
//!   match), a Bash call's `cwd` (the directory it runs in: tested there and in the call's own),
//!   and a Bash call's `shell` (any value but `bash`: the text may not be read by a POSIX shell,
//!   and every rule on its command, and a Read or Edit rule's match on it, is uncertain; the name
//!   alone, `Bash`, still matches).
//! - Fields of the wrong type: `command`, `cwd`, `file_path`, `notebook_path`, `path`, Grep's
//!   `glob` and Glob's `pattern` hold strings, `file_paths` and `file_globs` lists of them; any
//!   other value there (a number, an array, an object, `null`), or an input that is not an object,
//!   cannot be shown harmless and is uncertain for every rule that reads it. A `Tool(field=re)`
//!   on such a field is uncertain unless the regex matches the value's JSON text.
//! - Tools the rules do not model (anything but Bash and the file tools above: MCP tools, a
//!   client's tool hook-wire does not map, `WebFetch`, …): a `Read(…)` or `Edit(…)` rule with a
//!   glob is uncertain on a call of one whose arguments may name a path it covers, since the tool
//!   may read or edit it. An argument names a path when its key says so (`path`, `file`,
//!   `filePath`, `*_path`, `paths`, `dir`, `directory`, `target`, `cwd`, `root`, `include`,
//!   `glob`, `src`, `dest`, …, case and `_`/`-` aside; strings and arrays of them) or when it
//!   looks like one whatever its key (absolute, `~/…`, `./…`, `../…`, a `file://` URL);
//!   nested objects and arrays are searched, and a number, boolean or `null` under a path key is
//!   uncertain. Such a path counts when it is covered, when it is a glob that may select a
//!   covered path, or when it is the directory of a `dir/**` rule itself (not one above it: the
//!   tool may only list it). More than 256 such arguments is uncertain.
//! - `@read-only`: a call shown to only read ([`read_only`]): a Bash call every simple command
//!   of which the program table's read-only column models as reading (no write but to
//!   `/dev/null`, no delete, no network, no unmodelled program, nothing the analysis cannot see
//!   through), or a call of Read, Grep or Glob. Uncertain when the command cannot be analysed with
//!   certainty (an allow rule then does not fire), no match otherwise. Protected paths are left to
//!   the Read deny rules, which win over an allow. The column is hook-shell's `read_only.rs`.
//! - Events without a tool (R-PRED-4b): the caller passes the event's match subject (`manual`,
//!   `startup`, an agent type) as the tool name with a `null` input, and the same rules apply.
//!
//! Decisions where two readings could differ (each pinned by a test in `tests/matcher_table.rs`):
//! - The exact-name reading wins over the regex one whenever the pattern has only name characters,
//!   so `code-reviewer` never matches `senior-code-reviewer` and `A | B` is a list of names.
//! - An extension wins over a regex when the whole pattern parses as one: `Bash(command=^git)` is a
//!   field test, not the regex `Bash(command=^git)`. A pattern whose shape is not an extension but
//!   which compiles as a regex is that regex, so Claude Code matchers such as `mcp__(github|gitlab)__.*`
//!   keep their meaning; `WebFetch(domain:x)` (no path rules for WebFetch) is therefore a
//!   never-matching regex, not an error. When the shape *is* an extension but a part of it does not
//!   compile (a regex, a glob), the pattern is an error even if the whole string would be a valid
//!   regex; so is a pattern that neither reading accepts.
//! - A rule body that starts with `identifier=` is a field test: `Bash(FOO=1 make)` tests the input
//!   field `FOO`, it is not a command rule (write `Bash(command=^FOO=1 make)` or `Bash(make)`).
//! - Inside a composite, a regex runs to the next whitespace: write `input.command~^npm | Edit`
//!   with spaces; `input.command~^npm|Edit` is one regex `^npm|Edit`.
//! - `*` in a Bash rule is always a wildcard, even when quoted.
//!
//! # Bash subcommands (R-PRED-4)
//!
//! **The stance** (a deny rule cannot be walked around): a Bash rule matches unless the analyser can
//! show that the command does not do what the rule names. [`ToolInputPredicate::verdict`] says
//! which: [`Verdict::Match`], [`Verdict::NoMatch`], or [`Verdict::Uncertain`] when a construct
//! outside the model could do it; `test` counts an uncertain verdict as a match (deny and ask rules
//! hold), and hook-config lets a hook matched uncertainly deny or ask but not allow. The model is
//! the shell's syntax (below: `case … esac`, `(( … ))`, `for (( … ))`, `[[ … ]]`, one-line
//! `function f { …; }`, `coproc NAME …`, aliases) and a list of known programs
//! (hook-shell's `model.rs`): programs whose arguments are data (`echo`, `grep`, `command -v`, …),
//! wrappers and runners that run a command from their arguments (`env`, `sudo`, `strace`,
//! `unshare`, `busybox`, `npx`, `npm exec`, `docker exec`, …: every later word that is not an
//! option is tried as the command's start), shells of every family, and interpreters. A program
//! outside the model whose arguments name the rule's program (`make touch`, `awk '…system("touch
//! x")…'`, `vim -c '!touch x'`) is uncertain for that rule.
//!
//! A command is split the way a shell splits it: quotes (`'…'`, `"…"`, `$'…'` with its escapes
//! decoded, `$"…"`) and backslashes are removed; `&&`, `||`, `;`, `|`, `|&`, `&`, newlines, `( … )`,
//! `{ …; }`, `$( … )`, backticks and `<( … )` separate subcommands; redirections (`2>&1`, `>f`,
//! `&>f`) and here-document bodies are dropped; comments are skipped. Each subcommand is tested as
//! written and again after every layer of leading `VAR=value` assignments, reserved words (`if`,
//! `then`, `do`, `!`, `{`, …) and wrappers (`env`, `sudo`, `doas`, `nohup`, `time`, `command`,
//! `builtin`, `exec`, `xargs`, `nice`, `ionice`, `timeout`, `stdbuf`, `setsid`, `coproc`) is stripped, so a
//! rule on `sudo rm:*` still works while `sudo rm -rf /` also matches `rm:*`. A command name with a
//! path (`/usr/bin/git`) is also tried by its base name. `sh -c '…'` (any of sh, bash, zsh, dash,
//! ksh, mksh, ash, yash, `busybox sh`), `eval …`, `watch …`, `find … -exec … ;` and `env -S '…'` are
//! analysed recursively; `flock [opts] file cmd` is a wrapper.
//!
//! Options between a program and its subcommand (R-PRED-4c): for git, npm, pnpm, yarn, cargo,
//! docker, podman, kubectl, gh and terraform the global options are known, and an option that takes
//! a value consumes it (`-C dir`, `-c k=v`, `--git-dir .git`, `--git-dir=.git`, `-nprod`,
//! `+nightly`, `-chdir=x`), so `git -C repo push` is also seen as `git push` while `git -C repo
//! status` stays a `status`. An option the analyser does not know (`git --frobnicate x push`), and
//! a `-c` setting that names a command (`core.pager`, …) or whose value is unknown, make the word in
//! its place unknown, so a rule on the program matches.
//!
//! Equivalent option spellings (hook-shell's `options.rs`, tables in hook-shell's `options/tables.rs`): a rule
//! and each view are read as program, subcommand (git, npm, pnpm, yarn, docker, podman, kubectl;
//! with their aliases: `npm i` is `npm install`, `docker container rm` is `docker rm`), options and
//! operands. Options are normalised through the program's table — short letter and long names of
//! one option, unambiguous long prefixes (`--rec`), which options take a value (`-n5`, `-n 5`,
//! `--lines=5`), what an option implies (`git branch -D` is `--delete --force`, `cp -a` is
//! recursive, `git push +main` forces), signals by name or number — and GNU permutation (options
//! anywhere before `--`). A view matches when its options include the rule's (equal them, for a rule
//! without `:*` or ` *`) and its operands are the rule's in order (`*` a wildcard within an operand;
//! a prefix rule allows more). A program without a table has its short clusters split into letters.
//! The rule's text still matches as before; the reading is built once, when the rule is parsed, and
//! testing a view allocates nothing. A word of unknown value among the options or operands makes
//! the view uncertain unless the known words already meet a prefix rule.
//!
//! git (hook-shell's `git.rs`): `git-push` and `/usr/lib/git-core/git-push` are `git push`. A subcommand
//! that is one of git's own commands is certain (git never lets an alias shadow one); any other is
//! uncertain under a rule on git (an alias from a config file, or `help.autocorrect`), unless the
//! command defines it: `-c alias.p=push`, `GIT_CONFIG_COUNT`/`GIT_CONFIG_KEY_n`/`GIT_CONFIG_VALUE_n`
//! or `GIT_CONFIG_PARAMETERS` before git (the resolved command replaces the unresolved one), an
//! earlier `git config alias.p push` (tested beside it); a `!` alias is analysed as a command line.
//! Settings of unknown value in git's environment make the command uncertain. The command lines git
//! runs are analysed: `rebase --exec`, `bisect run`, `submodule foreach`, `filter-branch
//! --tree-filter` and the other filters, `difftool -x`, `grep -O`, `--upload-pack`, `for-each-repo`,
//! command settings given with `-c`, `GIT_CONFIG_*` or `git config`, and `GIT_PAGER`, `EDITOR`, ….
//!
//! Command lines hidden in arguments or on standard input (R-PRED-4c) are analysed recursively:
//! `trap '…' SIG`, `su`/`runuser -c '…'` (`-lc`, `--command=…`), `script -c '…'` (`-qc`),
//! `flock file -c '…'`, `ssh [opts] host cmd…` (and `-o RemoteCommand=…`/`ProxyCommand=…`),
//! `parallel cmd ::: args` (its `{}` replacement strings unknown, arguments appended) and
//! `parallel ::: 'cmd' …`, `xargs -I{} cmd {}` (words holding the replacement string unknown), and a
//! here-string or here-document fed to a shell, `su`, `script`, `ssh host` or `at` (`bash <<'EOF'`,
//! `sh <<< 'git push'`, `bash /dev/stdin <<<…`). What they run cannot be seen when it comes from a
//! pipe, from an expanding here-document holding `$`, `` ` `` or `\`, from a word of unknown value,
//! or from a process substitution given to a shell or to `source`/`.` (`bash <(…)`, `bash < <(…)`):
//! the command is then uncertain. A shell's script file (`bash deploy.sh`, `bash < deploy.sh`,
//! `source ./env.sh`) is not part of the command. Interpreter code (`python -c`, `perl -e`/`-E`,
//! `ruby -e`, `node`/`bun -e`/`-p`/`--eval`, `deno eval`, `php -r`, `lua -e`, `osascript -e`, or a
//! here-document fed to the interpreter) is not shell: a word rule matches when the code names its
//! program as a word of its own (`os.system('git push')` for `git push:*`, not `import digital`),
//! and a regex rule when the code names a program its match can start with (or, unanchored, when
//! the regex finds itself in the code).
//!
//! What cannot be analysed with certainty makes a subcommand rule match, so the hook runs: unbalanced
//! quotes or parentheses, a stray `)` outside `case`, `;;` outside `case`, nesting deeper than 32,
//! more than 16 stripped layers, more than 4,096 views, `$( … )` or backticks inside `${ … }`, `$(( … ))` or an expanding here-document, a shell
//! that reads its commands from standard input (`curl … | sh`, `bash <<EOF`); and, for
//! the command that actually runs, a word whose value depends on an expansion (`$VAR`, `${…}`,
//! `$( … )`, backticks, brace expansion `{a,b}`, a glob such as `gi[t]` in command position) — unless
//! the known words before it already rule the match out: for a word rule, a known word that differs
//! from the rule (`echo $X` never matches `git push:*`, `git $X` does); for a regex anchored with
//! `^`, a known start no match can begin with (`cd $DIR` never matches `^rm\s+-rf`, `rm $FLAGS /`
//! does; an unanchored regex cannot rule anything out). An assignment-shaped word (`TS=$(date)`,
//! `export X=$(…)`) is not unknown: it expands to `NAME=…` whatever happens. Look-alikes stay apart:
//! `git pushy` is not `git push`, and `echo "git push"` is an `echo`. Here-document bodies are data,
//! not commands (unless a shell reads them, above). `[` and `[[` are commands, not globs.
//!
//! The walk is written here rather than taken from a crate: `shlex` and `shell-words` split words but
//! know no operators (`a&&b` is one word to them) and no substitutions; `conch-parser` is
//! unmaintained (0.1.1, 2017); `yash-syntax` is an async parser for a full shell; `brush-parser`
//! (maintained, full bash grammar) builds an allocated AST per call, leaves `$( … )` inside words as
//! text for a second parse, recurses without a depth limit (a deeply nested input is a stack
//! overflow, and R-PRED-6 forbids panics), and reports a parse error where a rule needs to know
//! *which* words are unknown. The analyser here is one pass, depth-limited, and says exactly what it
//! could not see.
//!
//! # Cost (R-PRED-6)
//!
//! [`parse`] checks every regex (the engine's own syntax check, so a bad one is refused at once) and
//! compiles globs; a regex's automaton and its literal pre-check are built the first time it is
//! tested, so a pattern that is never tested costs only its check. Testing a call allocates
//! nothing in the common case (a name test, a string field, an absolute path without `.` segments).
//! Bash analyses are memoised per thread for the last command string, so a tool call tested against
//! many Bash predicates is analysed once.
//!
//! # Regex dialect
//!
//! Regexes use the Rust `regex` crate, not JavaScript's `RegExp`: no look-around and no
//! back-references (such a pattern does not parse and falls back, R-PRED-5), `\d`, `\w` and `\s` are
//! Unicode-aware, and matching takes linear time. Ordinary matchers (`^Edit$`, `mcp__.*`, `\s+`,
//! character classes, alternation) mean the same in both.
//!
//! A rule in use:
//!
//! ```
//! use hook_predicate::{PathAnchors, ToolInputPredicate, parse};
//! use serde_json::json;
//!
//! let rule = parse(r"Bash(command=^rm\s+-rf)", &PathAnchors::new("/work/project"))?;
//! assert!(rule.test("Bash", &json!({"command": "rm -rf /"})));
//! // Every subcommand is searched: chaining does not hide it.
//! assert!(rule.test("Bash", &json!({"command": "ls && rm -rf build"})));
//! assert!(!rule.test("Bash", &json!({"command": "ls -l"})));
//! assert!(!rule.test("Edit", &json!({"command": "rm -rf /"})));
//! # Ok::<(), hook_predicate::Error>(())
//! ```
#![warn(missing_docs)]

mod anchors;
mod bash;
mod composite;
mod error;
mod field;
mod name_only;
mod needles;
mod overlap;
mod parser;
mod path_glob;
mod pattern;
mod predicate;
mod read_only;
mod resolve;
mod rule_paths;
#[cfg(test)]
mod shell_tests;

pub use crate::anchors::PathAnchors;
pub use crate::error::Error;
pub use crate::parser::{parse, parse_built_in};
pub use crate::predicate::{Call, ToolInputPredicate};
pub use crate::read_only::{NotReadOnly, read_only};
pub use crate::rule_paths::{RuleAccess, RulePath, lists_rule_paths, rule_paths};
pub use hook_shell::{ClientTmpdir, Verdict, WholeArgv};
