//! hook-rewake (placeholder)
