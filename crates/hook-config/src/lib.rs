//! hook-config (placeholder)
