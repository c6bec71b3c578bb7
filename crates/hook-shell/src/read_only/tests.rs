use super::*;

/// `(command, shown read-only)`: what the column says, one line each.
#[rustfmt::skip]
const CASES: &[(&str, bool)] = &[
    // Plain reading programs, any options.
    ("ls", true), ("ls -la src", true), ("cat README.md", true), ("head -n 5 a.txt", true), ("tail -f log", true),
    ("wc -l src/*.rs", true), ("grep -rn TODO .", true), ("pwd", true), ("echo hello", true),
    ("cat a | grep x | sort | uniq -c | head", true), ("cd src && ls", true), ("ls >/dev/null 2>&1", true),
    ("echo $(git log -1 --format=%H)", true), ("LC_ALL=C sort a", true), ("diff <(ls a) <(ls b)", true),
    ("find . -name '*.rs' | xargs grep -l fn", true), ("xargs -0 -n1 wc -l", true), ("for f in *.md; do wc -l \"$f\"; done", true),
    ("if grep -q x a; then echo y; fi", true), ("for f in a b; do echo $f; done", true), ("timeout 5 ls", true),
    ("command -v cargo", true), ("hash git", true), ("hash -t git", true), ("hash -p /tmp/x ls", false), ("find . -name '*.rs' -type f", true), ("rg -n foo src", true),
    ("sed -n 1,20p a.txt", true), ("sed 's/a/b/g' a.txt", true), ("sed -e '/x/d' -e 's|a|b|' a", true),
    ("sort -k2 -n a", true), ("awk '{print $1}' a", true), ("jq .name package.json", true), ("date +%s", true),
    ("/usr/bin/ls -l", true), ("uniq -c a", true), ("[ -f a ] && echo yes", true), ("[[ -d src ]]", true),
    // System state read by name, version probes.
    ("ip addr", true), ("ip -br addr show", true), ("ip --json route show", true), ("ip route get 1.1.1.1", true),
    ("lsof -i :8080", true), ("ss -tlnp", true), ("pstree -p", true), ("findmnt", true), ("netstat -rn", true),
    ("node -v", true), ("python3 --version", true),
    ("bash --version", true), ("git check-ignore -v a", true), ("git fsck", true),
    ("ip addr add 10.0.0.1/24 dev eth0", false), ("ip netns exec x ls", false), ("ip -batch f", false),
    ("ip -r route", false), ("ip link set eth0 down", false), ("ip link show", false), ("ip route show $x", false), ("ss -K dst 1.2.3.4", false),
    ("ss -D f", false), ("apt-cache policy git", false), ("node -e 1", false), ("node app.js", false), ("node", false),
    ("python3 -V -c 1", false), ("git fsck --lost-found", false),
    // git: reading subcommands, listings.
    ("git log --oneline -3", true), ("git status", true), ("git diff HEAD~1 -- src", true), ("git show HEAD:a", true),
    ("git branch", true), ("git branch -a", true), ("git branch --list 'feat*'", true), ("git -C sub log", true),
    ("git --no-pager diff --stat", true), ("git tag -l", true), ("git remote -v", true), ("git stash list", true),
    ("git config --get user.name", true), ("git config user.name", true), ("git --version", true), ("git", true),
    ("git -c color.ui=never log", true), ("egrep -n x a", true), ("x=1; echo $x", true), ("set -e; ls", true),
    ("find . -name '*.rs' -exec wc -l {} +", true), ("find . -type f -exec grep -l x {} \\;", true),
    ("read -r line", true), ("env LC_ALL=C ls", true), ("env", true), ("git rev-parse --show-toplevel", true), ("git ls-files", true),
    // Options that write, delete or run.
    ("git log --output=f", false), ("git log --output f", false), ("git diff --ext-diff", false),
    ("find . -delete", false), ("find . -exec rm {} ;", false), ("find . -fprint out", false),
    // find's -exec runs a command that is judged as one of its own.
    ("find . -exec rm {} \\;", false), ("find . -name '*.md' -exec rm {} +", false), ("find . -exec {} \\;", false),
    ("find . -execdir ./x {} \\;", false), ("find . -exec sh -c 'rm x' \\;", false), ("find . -exec cat {} \\; -delete", false),
    ("sed -i s/a/b/ f", false), ("sed -i.bak s/a/b/ f", false), ("sed --in-place s/a/b/ f", false),
    ("sed 's/a/b/w out' f", false), ("sed '1e date' f", false), ("sed -f script f", false), ("sed 'w out' f", false),
    ("sort -o f a", false), ("sort --out=f a", false), ("sort -no f a", false), ("uniq a b", false),
    ("rg --pre cat x", false), ("rg -z x", false), ("tree -o f", false), ("printf -v PATH x", false),
    ("awk '{print > \"f\"}' a", false), ("awk 'BEGIN{system(\"rm x\")}'", false), ("date -s now", false),
    ("sed -ne 's/a/b/w out' -e p f", false), ("sed --exp='w out' f", false), ("sed -ne p f", false),
    ("awk '@load \"x\"' a", false), ("git tag -v v1", false), ("git log --show-signature", false),
    ("git log --format=%G? -1", false), ("path=/tmp; ls", false), ("for path in /tmp; do ls; done", false),
    ("hostname evil", false), ("xxd a b", false), ("file -C -m m", false),
    // git subcommands that write, and listings turned into writes.
    ("git commit -m x", false), ("git push", false), ("git branch new", false), ("git branch -D old", false),
    ("git tag v1", false), ("git remote add o u", false), ("git stash", false), ("git config user.name x", false), ("read PATH", false), ("X=1", false), ("env FOO=1 ls", false),
    ("FOO=1 echo hi", true), ("IFS=, GIT_DIR=/x printf %s y", true), ("PATH=/tmp [ -f a ]", true), ("FOO=1 :", false),
    ("LD_PRELOAD=/tmp/x.so /bin/echo hi", false), ("env FOO=1 echo hi", false), ("FOO=1 printf -v x y", false), ("FOO=1 \"$x\" hi", false),
    ("git -c core.pager=evil log", false), ("git -p log", false), ("git fetch", false), ("git lg", false),
    // Writes through the shell, deletes, the network, unmodelled programs.
    ("ls > out", false), ("echo x >> out", false), ("cat a | tee b", false), ("rm -r x", false),
    ("curl https://example.com", false), ("cat < /dev/tcp/example.com/80", false), ("make", false),
    ("./ls", false), ("src/ls -l", false), ("PATH=/tmp ls", false), ("GIT_PAGER=x git log", false),
    ("for PATH in /tmp; do ls; done", false), ("sudo ls", false), ("ls | xargs rm", false),
    ("echo $(rm x)", false), ("bash -c ls", false), ("eval ls", false), ("python3 -c 'print(1)'", false),
    ("env ls", true), ("$X", false), ("ls $(make)", false), ("cat $F > /dev/null; echo < $G", false), ("cat $F > /dev/null", true),
    ("sort $OPTS a", false), ("cat < $F", false), ("cat < \"$F\"; echo", false),
    ("find . | xargs sed -i s/a/b/", false), ("xargs -p cat", false), ("xargs", true), ("echo ok | xargs -n1", true), ("xargs -0", true), ("xargs -p", false), ("find $DIR -name x", false), ("find * -name x", false), ("echo \"unterminated", false),
];

#[test]
fn each_command_is_read_only_exactly_when_the_column_says_so() {
    let wrong: Vec<String> = CASES
        .iter()
        .filter_map(|(cmd, expect)| {
            let got = read_only(cmd);
            (got.is_ok() != *expect).then(|| format!("{cmd:?}: expected {expect}, got {got:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

#[test]
fn an_approved_command_names_the_programs_it_runs() {
    assert_eq!(read_only("cd src && git log | head -3").unwrap(), ["cd", "git", "head"]);
    assert_eq!(read_only("timeout 5 /usr/bin/ls").unwrap(), ["timeout", "ls"]);
    assert_eq!(read_only("egrep x a").unwrap(), ["egrep", "grep"]);
    assert_eq!(read_only("ls | xargs -n1").unwrap(), ["ls", "xargs", "echo"]);
    assert_eq!(read_only("ls | xargs wc -l").unwrap(), ["ls", "xargs", "wc"]);
}

#[test]
fn a_refusal_says_why_in_a_stable_category() {
    let categories: Vec<&str> = ["make", "rg --pre cat x", "ls > out", "PATH=/tmp ls", "python3 -c 'print(1)'"]
        .iter()
        .map(|cmd| read_only(cmd).unwrap_err().category)
        .collect();
    assert_eq!(
        categories,
        [
            "a program not modelled read-only",
            "an option that writes or runs",
            "writes a file",
            "assigns a variable",
            "interpreter code"
        ]
    );
}
