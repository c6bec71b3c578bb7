//! git's indirections, one case per line: (rule, command, verdict).

use super::options::check;
use crate::predicate::Verdict::{Match as M, NoMatch as N, Uncertain as U};

#[test]
fn exec_path_names_and_global_options_are_git_itself() {
    check(&[
        ("git push:*", "git-push origin", M),
        ("git push:*", "/usr/lib/git-core/git-push -f", M),
        ("git push --force:*", "git-push -f", M),
        ("git push:*", "git-status", N),
        ("git push:*", "git-pushy", N),
        ("git push:*", "git -C repo push", M),
        ("git push:*", "git -c user.name=x push", M),
        ("git push:*", "git --git-dir=.git push", M),
        ("git push:*", "git --exec-path=/x push", M),
        ("git push:*", "git --exec-path push", M),
        ("git push:*", "git -P push", M),
        ("git push:*", "git --config-env=user.name=NAME push", M),
        ("git push:*", "git --config-env=core.sshCommand=CMD push", U),
        ("git push:*", "git -c \"$SETTING\" status", U),
    ]);
}

#[test]
fn a_subcommand_git_does_not_ship_is_uncertain_and_a_builtin_is_certain() {
    check(&[
        ("git push:*", "git pushy", U),
        ("git push:*", "git psuh", U),
        ("git push:*", "git p origin", U),
        ("git push:*", "git status", N),
        ("git push:*", "git log --grep push", N),
        ("git push:*", "git commit -m \"push -f\"", N),
        ("git status", "git st", U),
        ("git status", "git status", M),
        ("rm -rf:*", "git pushy", N),
    ]);
}

#[test]
fn aliases_visible_in_the_command_resolve() {
    check(&[
        ("git push:*", "git -c alias.p=push p", M),
        ("git push:*", "git -c alias.p=push p origin", M),
        ("git push:*", "git -c Alias.P=push p", M),
        ("git push --force:*", "git -c alias.p='push --force' p", M),
        ("git push --force:*", "git -c alias.p=push p -f", M),
        ("git push --force:*", "git -c alias.p=push p", N),
        ("git push:*", "git -c alias.q=push -c alias.p=q p", M),
        ("git push:*", "git -c alias.l=log l", N),
        ("git push:*", "git -c alias.p=push status", N),
        ("git push:*", "git -c alias.push=log push", M),
        ("git push:*", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.p GIT_CONFIG_VALUE_0=push git p", M),
        ("git push:*", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=alias.l GIT_CONFIG_VALUE_0=log git l", N),
        ("git push:*", "GIT_CONFIG_PARAMETERS=\"'alias.p'='push'\" git p", M),
        ("git push:*", "env GIT_CONFIG_PARAMETERS=\"'alias.p=push'\" git p", M),
        ("git push:*", "GIT_CONFIG_COUNT=$N git p", U),
        ("git push:*", "GIT_CONFIG_PARAMETERS=$P git p", U),
        ("rm:*", "GIT_CONFIG_PARAMETERS=$P git log", U),
        ("git push:*", "GIT_CONFIG_GLOBAL=/tmp/x git p", U),
        ("git push:*", "git --config-env=alias.p=X p", U),
        ("git push:*", "git config alias.p push && git p", M),
        ("git push:*", "git config --global alias.p push; git p -f", M),
        ("git push:*", "git config set alias.p push && git p", M),
        ("git push:*", "git config alias.l log && git l", U),
        ("git push:*", "git config alias.p push && git status", N),
    ]);
}

#[test]
fn shell_aliases_are_analysed_as_command_lines() {
    check(&[
        ("git push:*", "git -c alias.p='!git push' p", M),
        ("git push --force:*", "git -c alias.p='!git push' p -f", M),
        ("rm -rf:*", "git -c alias.x='!rm -rf /' x", M),
        ("rm -rf:*", "git config alias.x '!rm -fr /' && git x", M),
        ("rm -rf:*", "git -c alias.x='!ls' x", N),
        ("git push:*", "git -c alias.x='!ls' x \"$A\"", U),
    ]);
}

#[test]
fn commands_that_git_runs_from_its_options_are_analysed() {
    check(&[
        ("git push:*", "git rebase --exec 'git push' main", M),
        ("git push:*", "git rebase -x 'git push' main", M),
        ("git push:*", "git rebase --exec='git push' main", M),
        ("git push:*", "git rebase -ix'git push' main", M),
        ("git push:*", "git rebase --exec \"$CMD\" main", U),
        ("git push:*", "git rebase -i main", N),
        ("git push:*", "git bisect run git push", M),
        ("git push:*", "git bisect run make test", N),
        ("git push:*", "git submodule foreach git push", M),
        ("git push:*", "git submodule foreach --recursive 'git push'", M),
        ("git push:*", "git filter-branch --tree-filter 'git push' HEAD", M),
        ("git push:*", "git filter-branch --env-filter='git push' HEAD", M),
        ("git push:*", "git difftool -x 'git push'", M),
        ("git push:*", "git difftool --extcmd='git push'", M),
        ("git push:*", "git for-each-repo --config=maintenance.repo push", M),
        ("git push:*", "git-rebase --exec 'git push' main", M),
        ("rm -rf:*", "git -c core.pager='rm -rf /' log", M),
        ("rm -rf:*", "GIT_PAGER='rm -rf /' git log", M),
        ("rm -rf:*", "GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=core.pager GIT_CONFIG_VALUE_0='rm -rf /' git log", M),
        ("rm -rf:*", "git config core.pager 'rm -rf /' && git log", M),
        ("rm -rf:*", "git grep -O'rm -rf' x", M),
        ("rm:*", "git fetch --upload-pack='rm -rf /' .", M),
        ("rm:*", "git clone -u 'rm x' ./repo", M),
        ("rm -rf:*", "git log", N),
    ]);
}

/// Found by the `analyse_bash` fuzz target: a setting key whose seventh byte falls inside a
/// multi-byte character was sliced there, and the walk panicked.
#[test]
fn a_setting_key_with_a_multibyte_character_where_alias_dot_ends_does_not_panic() {
    check(&[
        ("git push:*", "git -c abcdeé=x a", U),
        ("git push:*", "git -c aliasé=push é", U),
        ("git push:*", "git -c alias.é=push é", M),
        ("git push:*", "files=$(git -c coteP\u{FFFD}\0\0\0\0\0\0\0\u{17}p -p -vO$\u{FFFD}e_s)t\nates\n", U),
    ]);
}
