//! The analyser's stance, as a table: what it must see through (a deny rule matches), what it
//! must understand rather than call uncertain, and what stays apart (DESIGN-0.3 §1).

use serde_json::json;

use crate::{Call, PathAnchors, Verdict, parse};

use Verdict::{Match, NoMatch, Uncertain};

/// `(rule, command, verdict)`; `Match` also accepts `Uncertain` where the row says `Uncertain`
/// (a deny holds either way), never the other way round.
#[rustfmt::skip]
const CASES: &[(&str, &str, Verdict)] = &[
    // Shell syntax read the way bash reads it.
    ("touch:*", "function f { touch pwned.txt; }; f", Match),
    ("touch:*", "function f() { touch pwned.txt; }", Match),
    ("touch:*", "function f\n{\ntouch x\n}", Match),
    ("touch:*", "coproc NAME { touch x; }", Match),
    ("touch:*", "coproc NAME ( touch x )", Match),
    ("touch:*", "coproc touch x", Match),
    ("touch:*", "shopt -s expand_aliases; alias t=touch; t x", Match),
    ("git push:*", "alias p='git push'; p", Match),
    ("touch:*", "env -S'touch pwned.txt'", Match),
    ("touch:*", "env -Stouch\\ x", Match),
    ("touch:*", "env -iS'touch x'", Match),
    ("touch:*", "env --split-string='touch x'", Match),
    ("touch:*", "env -u HOME -S 'touch x'", Match),
    ("touch:*", "bash -O extglob -c 'touch x'", Match),
    ("touch:*", "bash --rcfile /dev/null -c 'touch x'", Match),
    ("touch:*", "bash -o pipefail -c 'touch x'", Match),
    ("touch:*", "bash -eo pipefail -c 'touch x'", Match),
    ("touch:*", "sh -e -c 'touch x'", Match),
    ("touch:*", "bash -c '\"$@\"' _ touch x", Uncertain),
    ("touch:*", "fish -c 'touch x'", Match),
    ("touch:*", "tcsh -c 'touch x'", Match),
    ("touch:*", "pwsh -Command 'touch x'", Match),
    ("touch:*", "pwsh -EncodedCommand dABvAHUAYwBoAA==", Uncertain),
    ("touch:*", "nu --commands='touch x'", Match),
    ("touch:*", "echo \"$'\"; touch x", Match),
    ("touch:*", "t''ouch x", Match),
    ("touch:*", "\\touch x", Match),
    ("touch:*", "{touch,x}", Uncertain),
    ("touch:*", "X=touch; $X y", Uncertain),
    // Programs that run their arguments.
    ("touch:*", "strace -f -o log touch x", Match),
    ("touch:*", "unshare -r touch x", Match),
    ("touch:*", "chrt -f 99 touch x", Match),
    ("touch:*", "busybox touch x", Match),
    ("touch:*", "npm exec -- touch x", Match),
    ("touch:*", "npx touch x", Match),
    ("touch:*", "docker exec box touch x", Match),
    ("touch:*", "strace $CMD", Uncertain),
    ("touch:*", "awk 'BEGIN { system(\"touch x\") }'", Uncertain),
    ("touch:*", "awk '{ system($0) }' list", Uncertain),
    ("touch:*", "awk '{ print | \"sh\" }' list", Uncertain),
    ("touch:*", "awk -F: '$1 == \"a\" || $2 { print $1 }' /etc/passwd", NoMatch),
    ("touch:*", "awk '{ x = a / 2 | \"sh\"; y = b / 3 }' f", Uncertain),
    ("touch:*", "awk $OPTS '{ print }' f", Uncertain),
    ("touch:*", "awk -l ext 'BEGIN { }'", Uncertain),
    ("touch:*", "awk -W exec f.awk", Uncertain),
    ("touch:*", "awk *", Uncertain),
    ("touch:*", "awk -e* f", Uncertain),
    ("touch:*", "gawk -D -f p.awk", Uncertain),
    ("touch:*", "gawk --debug -f p.awk", Uncertain),
    ("touch:*", "awk '{ print }' *.txt", NoMatch),
    ("touch:*", "awk -f \"$f\" -- \"$@\"", NoMatch),
    ("touch:*", "awk '/a|b/ { print \"touch\" }' f", NoMatch),
    ("touch:*", "gawk --source='{ print }' -F'|' f", NoMatch),
    ("touch:*", "gdb -batch -ex 'shell touch x'", Uncertain),
    ("touch:*", "sed -n '1e touch x' f", Uncertain),
    ("touch:*", "vim -c '!touch x' f", Uncertain),
    ("touch:*", "tmux new-session -d 'touch x'", Match),
    ("touch:*", "make touch", Uncertain),
    ("touch:*", "perf stat -M \"$m\" -a true", NoMatch),
    ("touch:*", "perf stat -e \"$p\" touch x", Match),
    ("touch:*", "perf stat -e $p true", Uncertain),
    ("touch:*", "perf stat -e \"$@\" true", Uncertain),
    ("touch:*", "perf stat -e \"$p\" $CMD", Uncertain),
    ("touch:*", "perf stat --pre \"$x\" true", Uncertain),
    ("touch:*", "perf stat -e \"$p\" record true", Uncertain),
    ("touch:*", "perf record -o \"$d\" -e cycles -- ls", NoMatch),
    ("git push:*", "trap \"rm -f /tmp/x.$$; exit $?\" EXIT", NoMatch),
    ("git push:*", "trap \"git push; rm -f /tmp/x.$$\" EXIT", Match),
    ("git push:*", "trap \"rm -f $tmp\" EXIT", Uncertain),
    ("git push:*", "trap \"rm -f \\$tmp $$\" EXIT", Uncertain),
    ("git push:*", "trap \"kill $! `date`\" EXIT", Uncertain),
    ("git push:*", "trap \"$! push\" EXIT", Uncertain),
    ("git push:*", "strace git push", Match),
    ("git push:*", "timeout 5 git push", Match),
    // Well-formed compound commands are understood, not uncertain.
    ("touch:*", "for ((i=0;i<3;i++)); do echo $i; done", NoMatch),
    ("touch:*", "(( x > 1 )) && echo big", NoMatch),
    ("touch:*", "case $x in a) echo a;; b|c) echo b;; *) echo c;; esac", NoMatch),
    ("touch:*", "case $x in (a) echo a;; esac; echo done", NoMatch),
    ("touch:*", "case $x in\n  a)\n    echo a\n    ;;\nesac", NoMatch),
    ("touch:*", "case $x in a) touch y;; esac", Match),
    ("touch:*", "case $x in a) echo;; esac; touch y", Match),
    ("touch:*", "echo $(case $x in a) echo a;; esac)", NoMatch),
    ("touch:*", "[[ x =~ (a|b) ]]", NoMatch),
    ("touch:*", "[[ -f a && ( -d b || -z c ) ]] && echo ok", NoMatch),
    ("touch:*", "if [[ $(touch x) ]]; then :; fi", Match),
    ("touch:*", "if (( n < 3 )); then echo; fi", NoMatch),
    ("touch:*", "exec {fd}>log; echo hi >&$fd", NoMatch),
    // Look-ups and data stay apart.
    ("curl:*", "command -v curl >/dev/null", NoMatch),
    ("curl:*", "type curl", NoMatch),
    ("curl:*", "which curl", NoMatch),
    ("touch:*", "echo touch", NoMatch),
    ("touch:*", "grep -r touch .", NoMatch),
    ("touch:*", "printf '%s\\n' touch", NoMatch),
    ("git push:*", "git status", NoMatch),
    ("touch:*", "echo a;; touch b", Match),
];

#[test]
fn the_analyser_sees_through_what_bash_runs_and_understands_well_formed_compounds() {
    let anchors = PathAnchors::new("/proj");
    let mut failures = Vec::new();
    for (rule, command, want) in CASES {
        let predicate = parse(&format!("Bash({rule})"), &anchors).expect(rule);
        let input = json!({ "command": command });
        let got = predicate.verdict(&Call::new("Bash", &input));
        if got != *want {
            failures.push(format!("Bash({rule}) on {command:?}: expected {want:?}, got {got:?}"));
        }
    }
    assert!(failures.is_empty(), "{} of {} cases failed:\n{}", failures.len(), CASES.len(), failures.join("\n"));
}
