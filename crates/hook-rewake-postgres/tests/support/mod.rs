//! What the tests and the benchmark share: the throwaway cluster (`cluster.rs`, also used by
//! hook-cli's daemon tests), envelopes and mails (`fixtures`), and a leasing worker (`worker`).

#![allow(dead_code, unreachable_pub)]

mod cluster;
pub mod fixtures;
pub mod worker;

pub use cluster::*;
