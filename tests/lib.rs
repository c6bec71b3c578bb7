//! Workspace-level integration tests: scenarios that cross crates (hooks.json on disk → predicates
//! → real shell processes → chains → rewake). The tests are in `workspace.rs`; this library is empty.
