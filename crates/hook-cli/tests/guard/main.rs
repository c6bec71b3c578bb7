//! `aimon-hooks guard` end to end: the real binary tracing real processes, with stub programs on
//! `PATH` that record the argv they receive.
//!
//! - `table` — commands that build a denied argv at run time: the stub never receives it, and
//!   the command exits as its own program decides; benign commands run byte-identical with and
//!   without the guard;
//! - `escapes` — a listener of the command's own, an exec from a thread, a daemonising
//!   grandchild, a tracer of the command's own: each checked or refused; the guard's listener out
//!   of the command's reach; a path rule read in the exec's own directory;
//! - `files` — ways to read a Read-denied file and to write an Edit-denied one (builtins,
//!   redirections, interpreters, copies, links, renames, new namespaces, mounts): the secret never
//!   shows and the file never changes under the guard, as root and as `nobody`; the policy files
//!   are read-only; benign builds, tests and git run byte-identical;
//! - `identity` — git under another name (a copy, a hard link, a memfd, a bind mount), through
//!   the dynamic loader (by path, by exec-path name, by descriptor) and its push plumbing
//!   (`send-pack`): each pushes to a bare repository without the guard and nothing under it;
//! - `reason` — the refusal's reason reaches the refused command's own stderr (a pipe, a socket);
//! - `signals` — a signal sent to the guard reaches the command;
//! - `unavailable` — where the kernel refuses the mechanism, or the rules cannot be read, the
//!   guard runs nothing and exits 126 with a sentence.

mod escapes;
mod files;
mod identity;
mod reason;
mod sandbox;
mod signals;
mod table;
mod unavailable;
