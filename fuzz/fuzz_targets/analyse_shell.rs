#![no_main]
//! Fuzzes hook-shell on its own: the input (decoded lossily as UTF-8) is a command line, analysed
//! with its file model, read for read-only, split as a rule body, and analysed again as an exec's
//! whole argv. No input may panic, and these hold:
//!
//! - a command the analysis calls certain has views, and each view's text is its words joined by
//!   single spaces;
//! - `git push` on a line of its own before the input is always seen: some innermost view reads
//!   `git push`, or the command is uncertain;
//! - what is shown read-only is never uncertain, and `rm -rf x` on a line of its own makes the
//!   whole command not read-only;
//! - the per-thread memo never changes the answer: the same text analysed again reads the same.

use hook_shell::{Need, WholeArgv, read_only, split_words, with_analysis};
use libfuzzer_sys::fuzz_target;

/// What a caller reads of an analysis: uncertain, and each view's text.
fn reading(text: &str) -> (bool, Vec<String>) {
    with_analysis(text, Need::Files, |a| {
        for view in &a.views {
            let joined: Vec<&str> = view.words.iter().map(|w| w.text.as_str()).collect();
            assert_eq!(view.text, joined.join(" "), "a view's text is its words on {text:?}");
        }
        (a.uncertain, a.views.iter().filter(|v| v.innermost).map(|v| v.text.clone()).collect())
    })
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    let first = reading(&text);
    let _ = split_words(&text);

    let (uncertain, innermost) = reading(&format!("git push\n{text}"));
    assert!(uncertain || innermost.iter().any(|v| v == "git push"), "git push unseen before {text:?}");

    if read_only(&text).is_ok() {
        assert!(!first.0, "read-only but uncertain: {text:?}");
    }
    assert!(read_only(&format!("rm -rf x\n{text}")).is_err(), "rm -rf x read-only before {text:?}");

    {
        let _whole = WholeArgv::enter();
        let _ = reading(&text);
    }
    assert_eq!(reading(&text), first, "the memo changed the reading of {text:?}");
});
