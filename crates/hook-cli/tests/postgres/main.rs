//! `aimon-hooks serve` daemons sharing one PostgreSQL database (R-RW-10, R-RW-11, R-SRV-4): real
//! `serve` processes of the built binary, real shell hooks, a real PostgreSQL server — the
//! throwaway cluster of hook-rewake-postgres's tests (its `tests/support/cluster.rs`, included
//! here with `#[path]`: initdb in a temporary directory as `nobody`, or `AIMON_TEST_PG_URL`).
//!
//! The hooks count their own fires: when woken (`AIMON_REWAKE_ID` set) the shell hook appends
//! `<rewake id> <attempt> <daemon pid>` to a file, so the tests see every fire, which daemon ran
//! it, and any repeat of an `(id, attempt)`.
//!
//! - `fires`: 10,000 envelopes fire once each with two daemons; a daemon killed with SIGKILL and
//!   the database restarted under load lose nothing, and repeat only fires that were in flight.
//! - `mail`: a session's mail scheduled through one daemon is delivered through the other;
//!   `run` and `rewake list|cancel` use the store named by `AIMON_REWAKE_STORE`; a database
//!   that is down when `serve` starts: decisions served, rewake refused loudly, then running.
//!
//! Leases last the hook's budget (at least 30 s) + 35 s and are never renewed, so a fire in
//! flight in a killed daemon is taken over about 65 s later: the kill/restart test takes that
//! long, by design.

#[path = "../../../hook-rewake-postgres/tests/support/cluster.rs"]
mod cluster;
mod fires;
mod mail;
#[path = "../common/serve_process.rs"]
mod serve_process;
mod support;
