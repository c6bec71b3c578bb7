//! A program file named on a command line (awk's or sed's `-f FILE`): where its text comes from.

use crate::lex::Stdin;

/// A program file (awk's or sed's `-f FILE`): a file is not part of the command (module doc);
/// standard input and a process substitution are, and are harmless only when their text is known
/// and `runs_nothing` says so.
pub(crate) fn program_file_is_harmless(
    name: &str,
    known: bool,
    stdin: &Stdin,
    runs_nothing: impl Fn(&str) -> bool,
) -> bool {
    if !known {
        return !(name.starts_with("<(") || name.starts_with(">("));
    }
    match name {
        "-" | "/dev/stdin" | "/proc/self/fd/0" | "/dev/fd/0" => match stdin {
            Stdin::Text(text) => runs_nothing(text),
            Stdin::File => true,
            Stdin::Inherited | Stdin::Pipe | Stdin::Listing(_) | Stdin::Unknown | Stdin::Pending(_) => false,
        },
        _ => !(name.starts_with("/dev/fd/") || name.starts_with("/proc/")),
    }
}
