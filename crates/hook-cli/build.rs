//! Links the `aimon-hooks` binary as a position-dependent executable on Linux.
//!
//! A position-independent executable of this size carries ~68,000 relative relocations; the
//! loader writes each one at start, copying ~1.7 MB of pages, which costs ~2 ms of CPU on every
//! process start. `claude` starts once per Claude Code hook call and must answer a forwarded
//! decision within 3 ms, so the binary is linked at a fixed address (docs/decisions.md, "Startup").

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var("CARGO_CFG_TARGET_OS").as_deref() == Ok("linux") {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
