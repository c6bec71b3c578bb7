//! hook-predicate (placeholder)
