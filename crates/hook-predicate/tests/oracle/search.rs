//! The differential oracle that searches (issue #38): grammar-aware mutations put a target act
//! (`git push`, reading `.env`) into seed commands, run each candidate in the sandbox under bash
//! (and sh), and keep the ones whose run did what the rule denies while the analyser said "no
//! match". A failure is minimised word by word while it still fails, then printed as a table row.

use std::path::Path;
use std::time::{Duration, Instant};

use hook_predicate::{Call, PathAnchors, Verdict, parse};
use serde_json::json;

use crate::denied::Rule;
use crate::sandbox::Sandbox;

/// A rule and the act that breaks it, as a shell fragment.
pub(crate) const TARGETS: &[(&str, &str)] = &[("Bash(git push:*)", "git push"), ("Read(./.env)", "cat .env")];

/// Places for an act, by the issue's classes; `@` is the act, `@q` the act single-quoted inside.
pub(crate) const SHAPES: &[(u8, &str)] = &[
    (1, "let 'a[$(@)]'"),
    (1, "x='a[$(@)]'; echo $((x))"),
    (1, "[[ 'a[$(@)]' -eq 0 ]]"),
    (1, "declare -i x; x='a[$(@)]'"),
    (1, "declare -n r='a[$(@)]'; echo $r"),
    (1, "printf -v 'a[$(@)]' x"),
    (1, "read 'a[$(@)]' <<< x"),
    (1, "test -v 'a[$(@)]'"),
    (1, "x='$(@)'; echo ${x@P}"),
    (1, "PS4='$(@)' ; set -x; :"),
    (1, "((@) )"),
    (1, "echo $((@) )"),
    (2, "cat <<EO\\\nF\n@\nEOF\n:"),
    (2, "echo $[1<<2]\n@"),
    (2, "echo x\r# ; @"),
    (3, "BASH_ENV=/dev/stdin bash -c : <<< '@'"),
    (3, "bash --rcfile /dev/stdin -ic : <<< '@'"),
    (3, "env 'BASH_FUNC_ls%%=() { @; }' bash -c ls"),
    (3, "bash <<< '@'"),
    (3, "sh -s <<< '@'"),
    (3, "echo '@' | bash"),
    (3, "xargs -I{} sh -c {} <<< '@'"),
    (4, "env -S 'PATH=/usr/bin' @"),
    (4, "env -SPATH=/usr/bin @"),
    (4, "exec -a NAME @"),
    (4, "xargs --process-slot-var V @ < /dev/null"),
    (4, "nice -n 1 @"),
    (4, "timeout -k 1 5 @"),
    (4, "command -p @"),
    (6, "xargs -a .env echo"),
    (6, "cat ~+/.env"),
    (6, "cd . && cat ./.env"),
    (6, "ln -s . d; cat d/.env"),
];

/// Ways to write an act's first word that bash reads the same.
const SPELLINGS: &[&str] = &["@", "'@'", "\"@\"", "\\@", "@''", "${X:-@}"];

/// Words whose quotes a reader may pair differently from bash (inside `${ … }`, `$'…'`, escapes,
/// comments, nested substitutions). Put one before an act and one after it, a misreading hides the
/// act inside what the reader takes for one quoted word.
#[rustfmt::skip]
const QUOTE_WORDS: &[&str] = &["${x:-'}'}", "'${w:-'}", "${x:-\"}\"}", "\"${w:-\"}\"}\"", "${x:-$'\\''}",
    "$'\\''", "\"'\"", "'\"'", "\\'", "\\\"", "${x#\\'}", "\"${x//'/}\"", "\"${x:-'}'}\"", "$(echo ')')",
    "`echo \\'`", "$((1))'", "a#'", "#'", "${x:+'a}b'}", "\"$(echo \"'\")\"", "$\"'\"", "[[ a = \"'\" ]]",
    "${x:-`echo }`}", "$(case x in x) echo \"'\";; esac)", "${#x}'", "${x/\\}/'}"];

/// A small seeded generator (xorshift64*), so a run is reproducible from its seed.
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        (self.0.wrapping_mul(0x2545_F491_4F6C_DD1D) >> 33) as usize % n.max(1)
    }
}

/// One candidate: a rule and a command.
#[derive(Debug, Clone)]
pub(crate) struct Candidate {
    pub(crate) pattern: &'static str,
    pub(crate) command: String,
    pub(crate) class: u8,
}

/// A mutation of `seed`: an act in a shape, its first word respelled, put before, after or instead
/// of the seed; or, one time in four, between two words whose quotes may be misread, or between a
/// cut of the seed and a cut of another (`seeds`), which leaves either reader in whatever quoting
/// the cut ends in.
pub(crate) fn mutate(rng: &mut Rng, seed: &str, seeds: &[String]) -> Candidate {
    let (pattern, act) = TARGETS[rng.below(TARGETS.len())];
    let (class, shape) = SHAPES[rng.below(SHAPES.len())];
    let (first, rest) = act.split_once(' ').unwrap_or((act, ""));
    let spelled = SPELLINGS[rng.below(SPELLINGS.len())].replace('@', first);
    let act = format!("{spelled} {rest}");
    let act = act.trim_end();
    let fragment = shape.replace('@', act);
    let command = match rng.below(12) {
        0..=2 => fragment,
        3..=5 => format!("{seed}; {fragment}"),
        6..=8 => format!("{fragment}; {seed}"),
        9 | 10 => {
            let (before, after) =
                (QUOTE_WORDS[rng.below(QUOTE_WORDS.len())], QUOTE_WORDS[rng.below(QUOTE_WORDS.len())]);
            return Candidate { pattern, command: format!("echo {before} ; {fragment} ; echo {after}"), class: 2 };
        }
        _ => {
            let other = &seeds[rng.below(seeds.len())];
            let head = &seed[..cut(rng, seed)];
            let tail = &other[cut(rng, other)..];
            return Candidate { pattern, command: format!("{head} ; {fragment} ; {tail}"), class: 2 };
        }
    };
    Candidate { pattern, command, class }
}

/// A random char boundary of `text`.
fn cut(rng: &mut Rng, text: &str) -> usize {
    let mut at = rng.below(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

/// What the analyser says of a candidate in `cwd`.
fn verdict(candidate: &Candidate, project: &Path, home: &Path) -> Verdict {
    let anchors = PathAnchors::new(project).with_home(home.to_path_buf());
    parse(candidate.pattern, &anchors).map_or(Verdict::Uncertain, |predicate| {
        let input = json!({ "command": candidate.command });
        predicate.verdict(&Call::new("Bash", &input).in_dir(Some(project)))
    })
}

/// Whether the candidate fails: the analyser said no match and a run did what the rule denies.
pub(crate) fn fails(sandbox: &Sandbox, n: usize, candidate: &Candidate) -> bool {
    let Some(rule) = Rule::read(candidate.pattern) else { return false };
    for shell in ["bash", "sh"] {
        let dir = sandbox.case_dir(&format!("s{n}-{shell}"));
        let project = dir.join("proj");
        if verdict(candidate, &project, &dir.join("home")) != Verdict::NoMatch {
            let _ = std::fs::remove_dir_all(&dir);
            return false;
        }
        let outcome = sandbox.run(&dir, &project, shell, &candidate.command, rule.traced());
        let denied = outcome.calls.iter().any(|call| rule.denies_call(call))
            || outcome.trace.as_deref().is_some_and(|trace| rule.denies_trace(trace, &project, &project));
        let _ = std::fs::remove_dir_all(&dir);
        if denied {
            return true;
        }
    }
    false
}

/// Drops words (and then `;`-separated parts) while the candidate still fails.
pub(crate) fn minimise(sandbox: &Sandbox, n: usize, candidate: &Candidate) -> Candidate {
    let mut best = candidate.clone();
    for separator in ["; ", " "] {
        let mut i = 0;
        loop {
            let parts: Vec<&str> = best.command.split(separator).collect();
            if i >= parts.len() || parts.len() < 2 {
                break;
            }
            let shorter = Candidate {
                command: parts
                    .iter()
                    .enumerate()
                    .filter(|(j, _)| *j != i)
                    .map(|(_, p)| *p)
                    .collect::<Vec<_>>()
                    .join(separator),
                ..best.clone()
            };
            if fails(sandbox, n, &shorter) {
                best = shorter;
            } else {
                i += 1;
            }
        }
    }
    best
}

/// What a search found.
pub(crate) struct Found {
    pub(crate) run: usize,
    pub(crate) failures: Vec<Candidate>,
}

/// Searches from `seeds` with `seed` until `budget` runs out.
pub(crate) fn search(sandbox: &Sandbox, seeds: &[String], seed: u64, budget: Duration) -> Found {
    let start = Instant::now();
    let mut rng = Rng::new(seed);
    let mut found = Found { run: 0, failures: Vec::new() };
    while start.elapsed() < budget {
        let seed_command = &seeds[rng.below(seeds.len())];
        let candidate = mutate(&mut rng, seed_command, seeds);
        found.run += 1;
        if fails(sandbox, found.run, &candidate) {
            let small = minimise(sandbox, found.run, &candidate);
            if !found.failures.iter().any(|f| f.command == small.command && f.pattern == small.pattern) {
                println!(
                    "search: class {} | {} | {:?} | expected true | got false",
                    small.class, small.pattern, small.command
                );
                found.failures.push(small);
            }
        }
    }
    found
}
