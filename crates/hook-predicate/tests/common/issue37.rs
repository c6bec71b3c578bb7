//! The cases of issue 37 at parse time: the dynamic loader run by hand runs its first operand
//! (its options read by their grammar), and git's push plumbing is a push.

use super::{Case, c};

const TOUCH: &str = "Bash(touch:*)";
const PUSH: &str = "Bash(git push:*)";
const FORCE_PUSH: &str = "Bash(git push --force:*)";

/// Every case of the issue (one section: numbered 37, apart from issue 23's and 38's classes).
#[rustfmt::skip]
pub(super) fn cases() -> Vec<Case> {
    vec![
        // The loader runs its first operand, under `--argv0`'s name too.
        c(PUSH, "/lib64/ld-linux-x86-64.so.2 /usr/bin/git push ../remote.git main", true),
        c(PUSH, "ld.so --library-path /lib /usr/bin/git push ../remote.git", true),
        c(PUSH, "ld.so --inhibit-cache -- /usr/bin/git push ../remote.git", true),
        c(PUSH, "ld-musl-x86_64.so.1 /usr/bin/git push ../remote.git", true),
        c(PUSH, "ld.so /usr/lib/git-core/git-push ../remote.git main", true),
        c(PUSH, "ld.so \"$(git --exec-path)\"/git-push ../remote.git main", true),
        c(PUSH, "ld.so --argv0 git-push /usr/bin/git ../remote.git main", true),
        c(PUSH, "ld.so --argv0 git /dev/fd/3 push ../remote.git main 3</usr/bin/git", true),
        c(PUSH, "ld.so /dev/fd/3 status 3</usr/bin/git", true),
        c(PUSH, "ld.so $OPTS /usr/bin/git push ../remote.git", true),
        c(TOUCH, "ld.so --argv0 touch /bin/busybox x", true),
        c(PUSH, "ld.so /usr/bin/git status", false),
        c(PUSH, "ld.so --list /usr/bin/git", false),
        c(PUSH, "ld.so --argv0 git /usr/bin/git log --grep push", false),
        c(TOUCH, "ld.so --preload touch /bin/ls x", false),
        c(TOUCH, "/lib64/ld-linux-x86-64.so.2 /bin/ls -l touch", false),
        // git's push plumbing is a push, its options read as push's.
        c(PUSH, "git send-pack ../remote.git main", true),
        c(PUSH, "git -C . send-pack ../remote.git main", true),
        c(PUSH, "git http-push https://example.invalid/r.git main", true),
        c(PUSH, "git-send-pack ../remote.git main", true),
        c(PUSH, "/usr/lib/git-core/git-http-push https://example.invalid/r.git main", true),
        c(FORCE_PUSH, "git send-pack --force ../remote.git main", true),
        c(FORCE_PUSH, "git send-pack ../remote.git +main", true),
        c(FORCE_PUSH, "git send-pack --mirror ../remote.git", true),
        c(FORCE_PUSH, "git send-pack --stdin ../remote.git", true),
        c(FORCE_PUSH, "git http-push -D https://example.invalid/r.git main", true),
        c(FORCE_PUSH, "git send-pack --remote origin ../remote.git main", false),
        c(PUSH, "git fetch-pack ../remote.git main", false),
        c(PUSH, "git receive-pack ../remote.git", false),
    ]
}
