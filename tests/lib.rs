//! Workspace-level integration tests: see workspace.rs.
