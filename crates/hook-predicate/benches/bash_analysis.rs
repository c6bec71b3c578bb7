//! The cost of a Bash predicate (R-PRED-6, issue 23: "a Bash predicate's evaluation stays within 2×
//! today's"), with a baseline measured in the same run.
//!
//! (a) The benign corpus (`tests/fixtures/benign-commands.txt`, real command lines of the shell
//! scripts the machine image ships) through `Bash(git push:*)`, `Bash(rm -rf:*)` and `Bash(curl:*)`:
//! ns per evaluation, matches, the matches on lines that do not name the rule's program, and the
//! uncertain share (lines matched only because the analyser could not show otherwise, ÷ all lines).
//! Each rule walks the whole corpus in turn, so consecutive commands differ and the per-thread memo
//! of the last analysis never answers.
//!
//! (b) About twenty representative commands (short ones, `cd x && git push`, pipes, `bash -c`, a
//! here-document, interpreter code, 2 KB commands) against `Bash(git push:*)`: ns per call, each
//! command alternating with a copy of itself plus a trailing space (a distinct string the analyser
//! reads the same way, so the memo never answers), against `serde_json::from_str` of the same
//! payloads in the same run (the parse every hook call pays before any predicate runs). The ratio
//! predicate/parse is the figure to compare across commits: the machine is noisy.
//!
//! (c) `Bash & @read-only` (the pack `aimon/read-only`) over the same corpus, against
//! `Bash(git push:*)` and `Read(./.env)` in the same run: its cost is to stay within a Bash deny
//! rule's.
//!
//! Criterion reports both sets; `main` then measures them again, interleaved, and prints the table.
//! Quick by default (well under a minute); `AIMON_BENCH_ROUNDS=N` takes N rounds instead of 5.

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::Criterion;
use hook_predicate::{Call, PathAnchors, ToolInputPredicate, Verdict, parse};
use serde_json::{Value, json};

const CORPUS: &str = include_str!("../tests/fixtures/benign-commands.txt");

/// The corpus rules and the program a line must name before the rule could match it.
const RULES: [(&str, &str); 3] = [("Bash(git push:*)", "git"), ("Bash(rm -rf:*)", "rm"), ("Bash(curl:*)", "curl")];

fn corpus() -> Vec<&'static str> {
    CORPUS.lines().filter(|l| !l.starts_with('#') && !l.is_empty()).collect()
}

/// Whether the predicate matches the command, and whether only because it was uncertain.
fn answer(predicate: &dyn ToolInputPredicate, input: &Value) -> (bool, bool) {
    match predicate.verdict(&Call::new("Bash", input)) {
        Verdict::NoMatch => (false, false),
        Verdict::Match => (true, false),
        Verdict::Uncertain => (true, true),
    }
}

/// The representative commands of part (b), with a name for the table.
fn commands() -> Vec<(&'static str, String)> {
    let message = "Refactor the loader so that a borrowed tree is read once; ".repeat(34);
    let long_commit = format!("git add -A && git commit -m \"{}\"", message.trim_end());
    let long_pipeline = (0..60).map(|i| format!("grep -c x{i} f{i}.log")).collect::<Vec<_>>().join(" | tee -a out && ");
    let mut commands: Vec<(&str, String)> = [
        ("ls", "ls -la"),
        ("git status", "git status --short"),
        ("git push", "git push origin main"),
        ("cd && git push", "cd app && git push"),
        ("npm test", "npm test -- --watch=false"),
        ("build | tail", "cargo build --release 2>&1 | tail -n 20"),
        ("pipeline", "grep -rn \"TODO\" src | sort | uniq -c | sort -rn | head -n 5"),
        ("bash -c", "bash -c 'git push origin HEAD'"),
        ("sh -c rm", "sh -c \"cd /tmp && rm -rf build\""),
        ("env wrappers", "FOO=1 BAR=2 env -i PATH=/usr/bin make check"),
        ("sudo timeout git", "sudo -u deploy timeout 30 git fetch --all"),
        ("git -C -c log", "git -C repo -c core.pager=cat log --oneline -n 5"),
        ("here-document", "cat <<'EOF' > notes.txt\nline one $HOME\nline two `date`\nEOF\nwc -l notes.txt"),
        ("python -c", "python3 -c 'import os; os.system(\"git status\")'"),
        ("for loop", "for f in src/*.rs; do rustfmt --check \"$f\" || echo \"$f\"; done"),
        ("if source", "if [ -f .env ]; then . ./.env; fi && echo \"$HOME\""),
        ("find -exec", "find . -name '*.tmp' -exec rm -f {} \\;"),
        ("curl | sh", "curl -fsSL https://example.com/install.sh | sh"),
        ("substitutions", "echo \"$(date +%s) $(git rev-parse HEAD)\" >> log.txt"),
    ]
    .into_iter()
    .map(|(name, command)| (name, command.to_owned()))
    .collect();
    commands.push(("2 KB commit", long_commit));
    commands.push(("2 KB pipeline", long_pipeline));
    commands
}

/// One command's two spellings (alternated so the memo never answers) as Bash inputs, and the hook
/// payloads that carry them as JSON text.
struct Case {
    name: &'static str,
    inputs: [Value; 2],
    payloads: [String; 2],
}

fn cases() -> Vec<Case> {
    commands()
        .into_iter()
        .map(|(name, command)| {
            let spellings = [command.clone(), format!("{command} ")];
            let inputs = spellings.clone().map(|c| json!({ "command": c }));
            let payloads = spellings.map(|c| {
                json!({
                    "session_id": "bench", "hook_event_name": "PreToolUse", "cwd": "/proj",
                    "tool_name": "Bash", "tool_input": { "command": c, "description": "bench" },
                })
                .to_string()
            });
            Case { name, inputs, payloads }
        })
        .collect()
}

/// Evaluations of `predicate` over `inputs`: the number that matched.
fn evaluate(predicate: &dyn ToolInputPredicate, inputs: &[Value]) -> usize {
    inputs.iter().filter(|input| predicate.test("Bash", input)).count()
}

/// `repeat` alternating calls of the predicate on a case: the number that matched.
fn predicate_calls(predicate: &dyn ToolInputPredicate, case: &Case, repeat: usize) -> usize {
    (0..repeat).filter(|i| predicate.test("Bash", black_box(&case.inputs[i % 2]))).count()
}

/// `repeat` alternating parses of a case's payload: the number of objects read.
fn parse_calls(case: &Case, repeat: usize) -> usize {
    (0..repeat)
        .filter(|i| serde_json::from_str::<Value>(black_box(&case.payloads[i % 2])).is_ok_and(|v| v.is_object()))
        .count()
}

/// Median ns per operation of `f`, which performs `ops` operations per call.
fn per_op_ns(rounds: usize, ops: usize, mut f: impl FnMut() -> usize) -> f64 {
    let mut samples: Vec<f64> = (0..rounds.max(1))
        .map(|_| {
            let start = Instant::now();
            black_box(f());
            start.elapsed().as_nanos() as f64 / ops as f64
        })
        .collect();
    samples.sort_by(f64::total_cmp);
    samples[samples.len() / 2]
}

fn criterion_groups(c: &mut Criterion, rules: &[Box<dyn ToolInputPredicate>], inputs: &[Value], cases: &[Case]) {
    let mut group = c.benchmark_group("benign corpus");
    for ((pattern, _), predicate) in RULES.iter().zip(rules) {
        group.bench_function(*pattern, |b| b.iter(|| evaluate(predicate.as_ref(), black_box(inputs))));
    }
    group.finish();
    let mut group = c.benchmark_group("representative commands x 2 spellings");
    group.bench_function("Bash(git push:*)", |b| {
        b.iter(|| cases.iter().map(|case| predicate_calls(rules[0].as_ref(), case, 2)).sum::<usize>())
    });
    group.bench_function("serde_json::from_str of the payload", |b| {
        b.iter(|| cases.iter().map(|case| parse_calls(case, 2)).sum::<usize>())
    });
    group.finish();
}

fn main() {
    let rounds = std::env::var("AIMON_BENCH_ROUNDS").ok().and_then(|r| r.parse().ok()).unwrap_or(5);
    let anchors = PathAnchors::new("/proj").with_home("/home/u");
    let rules: Vec<Box<dyn ToolInputPredicate>> =
        RULES.iter().map(|(p, _)| parse(p, &anchors).expect("bench rules parse")).collect();
    let lines = corpus();
    let inputs: Vec<Value> = lines.iter().map(|l| json!({ "command": l })).collect();
    let cases = cases();
    assert!(lines.len() >= 5_000, "the corpus holds {} lines", lines.len());
    assert!(predicate_calls(rules[0].as_ref(), &cases[2], 2) == 2, "git push matches Bash(git push:*)");

    let mut criterion = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .configure_from_args();
    criterion_groups(&mut criterion, &rules, &inputs, &cases);
    criterion.final_summary();

    println!("(a) benign corpus: {} lines, {rounds} rounds", lines.len());
    for ((pattern, program), predicate) in RULES.iter().zip(&rules) {
        let ns = per_op_ns(rounds, inputs.len(), || evaluate(predicate.as_ref(), &inputs));
        let (mut matches, mut uncertain, mut without_program) = (0, 0, 0);
        for (line, input) in lines.iter().zip(&inputs) {
            let (hit, unsure) = answer(predicate.as_ref(), input);
            matches += usize::from(hit);
            uncertain += usize::from(unsure);
            without_program += usize::from(hit && !line.contains(program));
        }
        let share = 100.0 * uncertain as f64 / lines.len() as f64;
        println!(
            "  {pattern:<18} {ns:>8.0} ns per evaluation  {matches:>5} matches ({without_program} without `{program}`)  \
             {uncertain:>5} uncertain = {share:.2} %"
        );
    }

    println!("(b) representative commands against Bash(git push:*), memo defeated, {rounds} rounds");
    println!("  {:<18} {:>10} {:>12} {:>7}", "command", "predicate", "json parse", "ratio");
    let repeat = 200;
    let (mut total_predicate, mut total_parse) = (0.0, 0.0);
    for case in &cases {
        let (mut predicate, mut baseline) = (Vec::new(), Vec::new());
        for _ in 0..rounds.max(1) {
            predicate.push(per_op_ns(3, repeat, || predicate_calls(rules[0].as_ref(), case, repeat)));
            baseline.push(per_op_ns(3, repeat, || parse_calls(case, repeat)));
        }
        predicate.sort_by(f64::total_cmp);
        baseline.sort_by(f64::total_cmp);
        let (p, j) = (predicate[predicate.len() / 2], baseline[baseline.len() / 2]);
        total_predicate += p;
        total_parse += j;
        println!("  {:<18} {p:>7.0} ns {j:>9.0} ns {:>6.2}x", case.name, p / j);
    }
    let n = cases.len() as f64;
    println!(
        "  {:<18} {:>7.0} ns {:>9.0} ns {:>6.2}x  (mean over {} commands; ratio of the means)",
        "all",
        total_predicate / n,
        total_parse / n,
        total_predicate / total_parse,
        cases.len()
    );
    read_only_row(rounds, &anchors, &inputs);
}

/// (c) The read-only pack's matcher over the corpus, against a Bash deny rule in the same run:
/// `Bash(git push:*)` (measured first, while no rule that needs the file model is alive) and
/// `Read(./.env)` (a deny rule that covers Bash reads, so it reads the file model as `@read-only` does).
fn read_only_row(rounds: usize, anchors: &PathAnchors, inputs: &[Value]) {
    println!("(c) the read-only pack's matcher over the benign corpus, {rounds} rounds");
    let push = parse("Bash(git push:*)", anchors).expect("parses");
    let push_ns = per_op_ns(rounds, inputs.len(), || evaluate(push.as_ref(), inputs));
    let env = parse("Read(./.env)", anchors).expect("parses");
    let env_ns = per_op_ns(rounds, inputs.len(), || evaluate(env.as_ref(), inputs));
    let read_only = parse("Bash & @read-only", anchors).expect("parses");
    let ro_ns = per_op_ns(rounds, inputs.len(), || evaluate(read_only.as_ref(), inputs));
    let approved = inputs.iter().filter(|i| read_only.verdict(&Call::new("Bash", i)) == Verdict::Match).count();
    println!("  {:<18} {push_ns:>8.0} ns per evaluation", "Bash(git push:*)");
    println!("  {:<18} {env_ns:>8.0} ns per evaluation", "Read(./.env)");
    println!(
        "  {:<18} {ro_ns:>8.0} ns per evaluation  {approved} approved  {:.2}x Bash(git push:*), {:.2}x Read(./.env)",
        "Bash & @read-only",
        ro_ns / push_ns,
        ro_ns / env_ns
    );
}
