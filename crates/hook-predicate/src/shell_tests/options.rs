//! Equivalent spellings of a rule's options, one case per line: (rule, command, verdict).

use serde_json::json;

use crate::predicate::Verdict::{self, Match as M, NoMatch as N, Uncertain as U};
use crate::{Call, PathAnchors, parse};

/// Checks every `(rule, command, verdict)` and reports all that differ at once.
pub(crate) fn check(cases: &[(&str, &str, Verdict)]) {
    let anchors = PathAnchors::new("/proj");
    let wrong: Vec<String> = cases
        .iter()
        .filter_map(|(rule, command, want)| {
            let predicate = parse(&format!("Bash({rule})"), &anchors).expect(rule);
            let input = json!({ "command": command });
            let got = predicate.verdict(&Call::new("Bash", &input));
            (got != *want).then(|| format!("Bash({rule}) on {command:?}: {got:?}, expected {want:?}"))
        })
        .collect();
    assert!(wrong.is_empty(), "{} of {} cases differ:\n{}", wrong.len(), cases.len(), wrong.join("\n"));
}

#[test]
fn rm_options_match_in_every_spelling_and_position() {
    check(&[
        ("rm -rf:*", "rm -rf x", M),
        ("rm -rf:*", "rm -fr x", M),
        ("rm -rf:*", "rm -r -f x", M),
        ("rm -rf:*", "rm -R -f x", M),
        ("rm -rf:*", "rm --recursive --force x", M),
        ("rm -rf:*", "rm -f -r -- x", M),
        ("rm -rf:*", "rm x -rf", M),
        ("rm -rf:*", "rm x -r y -f", M),
        ("rm -rf:*", "rm --rec --for x", M),
        ("rm -rf:*", "rm -rfv x", M),
        ("rm -rf:*", "rm -Rf", M),
        ("rm -rf:*", "sudo rm -Rf /", M),
        ("rm -rf:*", "/bin/rm --force -R x", M),
        ("rm -rf:*", "cd / && rm -r -f home", M),
        ("rm -rf:*", "rm -r x", N),
        ("rm -rf:*", "rm -f x", N),
        ("rm -rf:*", "rm -- -rf", N),
        ("rm -rf:*", "rm -r -- -f", N),
        ("rm -rf:*", "echo rm -rf", N),
        ("rm -rf:*", "rmdir -p x", N),
        ("rm -rf:*", "rm -r $X y", U),
        ("rm -rf:*", "rm -f \"$file\"", U),
        ("rm -rf:*", "rm -f -- \"$file\" $more", N),
        ("rm -rf:*", "rm -rf -- \"$file\"", M),
        ("rm -rf /tmp/x", "rm -rf -- $X", U),
        ("rm -rf:*", "rm -rf $X", M),
        // What xargs appends is unknown, unless `echo` printed it.
        ("rm -rf:*", "cat f | xargs rm -r", U),
        ("rm -rf:*", "echo a | xargs rm -r", N),
        ("rm -rf:*", "echo a | xargs rm -rf", M),
        ("git push:*", "cat f | xargs git", U),
        ("git push:*", "echo push | xargs git", M),
        ("git push:*", "echo -f | xargs git status", N),
        ("rm -rf /tmp/*", "rm -fr /tmp/cache", M),
        ("rm -rf /tmp/*", "rm -fr /etc", N),
        ("rm -r", "rm -R", M),
        ("rm -r", "rm --recursive", M),
        ("rm -r", "rm -rf", N),
        ("rm -r x", "rm x -R", M),
        ("rm -r x", "rm -r x y", N),
        ("rmdir -p:*", "rmdir --parents a/b", M),
    ]);
}

#[test]
fn file_programs_read_their_own_options() {
    check(&[
        ("cp -r:*", "cp -R a b", M),
        ("cp -r:*", "cp -a a b", M),
        ("cp -r:*", "cp --archive a b", M),
        ("cp -r:*", "cp -p a b", N),
        ("cp -r:*", "cp -t -r a", N),
        ("mv -f:*", "mv --force a b", M),
        ("mv -f:*", "mv a b", N),
        ("chmod -R 777:*", "chmod 777 -R /", M),
        ("chmod -R:*", "chmod --recursive u+x d", M),
        ("chmod -R:*", "chmod -x file", N),
        ("chmod -R:*", "chmod -rwx file", N),
        ("chmod 777:*", "chmod --recursive 777 x", M),
        ("chmod -x:*", "chmod -x file", M),
        ("chown -R:*", "chown --recursive u x", M),
        ("chgrp -R:*", "chgrp -Rh g x", M),
        ("ln -sf:*", "ln --symbolic --force a b", M),
        ("ln -sf:*", "ln -s a b", N),
        ("find -delete:*", "find . -name x -delete", M),
        ("find -delete:*", "find / -type f -mtime +3 -delete", M),
        ("find -delete:*", "find . -name -delete", N),
        ("find -delete:*", "find . -name x -print", N),
        ("sed -i:*", "sed --in-place s/a/b/ f", M),
        ("sed -i:*", "sed -i.bak s/a/b/ f", M),
        ("sed -i:*", "sed -n -i p f", M),
        ("sed -i:*", "sed -n p f", N),
        ("sed -i:*", "sed -e s/x/-i/ f", N),
        ("tar -x:*", "tar xzf a.tgz", M),
        ("tar -x:*", "tar -xzf a.tgz", M),
        ("tar -x:*", "tar --extract --file=a.tar", M),
        ("tar -xf:*", "tar --get -f a.tar", M),
        ("tar -x:*", "tar -c dir", N),
        ("tar -x:*", "tar -cf -x dir", N),
        ("dd of=/dev/sda:*", "dd bs=1M of=/dev/sda if=x", M),
        ("dd of=/dev/sda:*", "dd if=/dev/sda of=x", N),
    ]);
}

#[test]
fn signals_match_by_name_number_and_option() {
    check(&[
        ("kill -9:*", "kill -9 1", M),
        ("kill -9:*", "kill -KILL 1", M),
        ("kill -9:*", "kill -SIGKILL 1", M),
        ("kill -9:*", "kill -s KILL 1", M),
        ("kill -9:*", "kill -s kill 1", M),
        ("kill -9:*", "kill --signal KILL 1", M),
        ("kill -9:*", "kill --signal=SIGKILL 1", M),
        ("kill -9:*", "kill -n 9 1", M),
        ("kill -KILL:*", "kill -9 1", M),
        ("kill -9:*", "kill 1", N),
        ("kill -9:*", "kill -TERM 1", N),
        ("kill -9:*", "kill -s $SIG 1", U),
        ("kill -TERM:*", "kill 1", M),
        ("kill -TERM:*", "kill -15 1", M),
        ("pkill -9:*", "pkill -KILL node", M),
        ("pkill -9:*", "pkill -f node", N),
        ("killall -9:*", "killall -s SIGKILL node", M),
    ]);
}

#[test]
fn network_tools_read_values_as_values() {
    check(&[
        ("curl -X POST:*", "curl -X POST https://x", M),
        ("curl -X POST:*", "curl --request=POST https://x", M),
        ("curl -X POST:*", "curl --request POST https://x", M),
        ("curl -X POST:*", "curl -XPOST https://x", M),
        ("curl -X POST:*", "curl -sX post https://x", M),
        ("curl -X POST:*", "curl https://x -X POST", M),
        ("curl -X POST:*", "curl -X GET x", N),
        ("curl -X POST:*", "curl -H 'X: -X POST' x", N),
        ("curl -d:*", "curl --data-binary @f x", M),
        ("curl -d:*", "curl --data-urlencode a=b x", M),
        ("curl -d:*", "curl --json {} x", M),
        ("curl -d:*", "curl -sd a=b x", M),
        ("curl -d:*", "curl -H -d x", N),
        ("curl -T:*", "curl --upload-file f x", M),
        ("curl -o:*", "curl --output f x", M),
        ("curl -o:*", "curl -O x", N),
        ("curl -O:*", "curl --remote-name x", M),
        ("wget -O:*", "wget --output-document=f x", M),
        ("wget --post-data:*", "wget --post-data=a x", M),
        ("wget -r:*", "wget -m x", M),
        ("wget -r:*", "wget -O -r x", N),
    ]);
}

#[test]
fn git_options_match_in_every_spelling() {
    check(&[
        ("git push --force:*", "git push -f", M),
        ("git push --force:*", "git push origin main --force", M),
        ("git push --force:*", "git push -fu origin main", M),
        ("git push --force:*", "git push --for origin", M),
        ("git push --force:*", "git push origin +main", M),
        ("git push --force:*", "git push --mirror", M),
        ("git push --force:*", "git -C repo push -f", M),
        ("git push --force:*", "git push --force-with-lease", N),
        ("git push --force:*", "git push origin", N),
        ("git push --force:*", "git push -o -f origin", N),
        ("git push --force:*", "git commit -m \"push -f\"", N),
        ("git push --force:*", "git push -- -f", N),
        ("git push -f origin main", "git push origin main --force", M),
        ("git push -f origin main", "git push origin +main", M),
        ("git push -f origin main", "git push origin main", N),
        ("git push --delete:*", "git push origin :main", M),
        ("git push --delete:*", "git push -d origin x", M),
        ("git push --delete:*", "git push --prune origin", M),
        ("git push --delete:*", "git push origin main", N),
        ("git push --force-with-lease:*", "git push --force-with-lease=main origin", M),
        ("git push --tags:*", "git push --tags", M),
        ("git push --all:*", "git push --branches", M),
        ("git clean -fdx:*", "git clean -x -d -f", M),
        ("git clean -fdx:*", "git clean --force -dx", M),
        ("git clean -fdx:*", "git clean -f", N),
        ("git clean -f:*", "git clean -e -f", N),
        ("git reset --hard:*", "git reset --hard HEAD~1", M),
        ("git reset --hard:*", "git reset --ha HEAD~1", M),
        ("git reset --hard:*", "git reset HEAD~1 --hard", M),
        ("git reset --hard:*", "git reset --soft", N),
        ("git branch -D:*", "git branch -d -f x", M),
        ("git branch -D:*", "git branch --delete --force x", M),
        ("git branch -D:*", "git branch -df x", M),
        ("git branch -D:*", "git branch -d x", N),
        ("git branch -d -f:*", "git branch -D x", M),
        ("git branch -M:*", "git branch --move --force a b", M),
        ("git checkout -f:*", "git checkout --force main", M),
        ("git checkout -f:*", "git checkout -b -f", N),
        ("git switch -f:*", "git switch --discard-changes x", M),
        ("git switch -f:*", "git switch -C x", M),
        ("git restore --staged:*", "git restore -S f", M),
        ("git commit --amend:*", "git commit -a --amend -m x", M),
        ("git commit --amend:*", "git commit --am", M),
        ("git commit --amend:*", "git commit -m --amend", N),
        ("git commit -a:*", "git commit --all -m x", M),
        ("git commit -a:*", "git commit -am x", M),
        ("git commit -a:*", "git commit -m -a", N),
        ("git commit --no-verify:*", "git commit -n -m x", M),
        ("git tag -d:*", "git tag --delete v1", M),
        ("git rm -r:*", "git rm -rf --cached d", M),
        ("git push:*", "git log --grep push", N),
        ("git push:*", "git status", N),
    ]);
}

#[test]
fn package_managers_and_container_tools_read_subcommand_aliases() {
    check(&[
        ("npm install:*", "npm i lodash", M),
        ("npm install:*", "npm add lodash", M),
        ("npm install:*", "npm isntall lodash", M),
        ("npm install:*", "npm --global install x", M),
        ("npm install:*", "npm init", N),
        ("npm install -g:*", "npm i --global x", M),
        ("npm install -g:*", "npm i x -g", M),
        ("npm install -g:*", "npm i x", N),
        ("npm uninstall:*", "npm rm x", M),
        ("npm uninstall:*", "npm r x", M),
        ("npm run:*", "npm run-script build", M),
        ("npm run build", "npm run-script build", M),
        ("npm run build", "npm run test", N),
        ("npm test", "npm t", M),
        ("npm publish:*", "npm publish --dry-run", M),
        ("npm exec:*", "npm x cowsay", M),
        ("pnpm install:*", "pnpm i", M),
        ("pnpm remove:*", "pnpm rm x", M),
        ("yarn add:*", "yarn add x", M),
        ("docker rm -f:*", "docker container rm --force x", M),
        ("docker rm -f:*", "docker rm -vf x", M),
        ("docker rm -f:*", "docker rm x", N),
        ("docker rmi:*", "docker image rm x", M),
        ("docker run --privileged:*", "docker container run --privileged img", M),
        ("docker run --privileged:*", "docker run -it --rm --privileged img sh", M),
        ("docker run --privileged:*", "docker run -e --privileged img", N),
        ("docker system prune -a:*", "docker system prune --all --force", M),
        ("docker system prune -a:*", "docker system prune -af", M),
        ("docker system prune -a:*", "docker system prune", N),
        ("docker system prune -a:*", "docker image prune -a", N),
        ("docker kill -s KILL:*", "docker kill --signal=9 c", M),
        ("podman rm -f:*", "podman container rm --force x", M),
        ("kubectl delete -A:*", "kubectl delete pods --all-namespaces --all", M),
        ("kubectl delete --all:*", "kubectl -n prod delete pods --all", M),
        ("kubectl delete -n prod:*", "kubectl delete pod x --namespace=prod", M),
        ("kubectl delete -n prod:*", "kubectl delete pod x -nprod", M),
        ("kubectl delete -n prod:*", "kubectl delete pod x -n dev", N),
        ("kubectl delete:*", "kubectl get pods", N),
    ]);
}

#[test]
fn unmodelled_programs_get_their_short_clusters_split() {
    check(&[
        ("foo -ab:*", "foo -b -a", M),
        ("foo -ab:*", "foo x -ba", M),
        ("foo -ab:*", "foo -a", N),
        ("foo --long:*", "foo x --long=1", M),
        ("foo --long:*", "foo -- --long", N),
        ("foo -x bar", "foo bar -x", M),
        ("foo -x bar", "foo bar", N),
    ]);
}
