//! Tables of rules on commands, read through the matcher: the analyser's stance and the option
//! and git spellings it must read as the programs do (hook-shell's own tests check it alone).

mod git;
mod options;
mod stance;
