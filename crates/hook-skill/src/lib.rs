//! hook-skill (placeholder)
