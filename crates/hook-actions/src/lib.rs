//! hook-actions (placeholder)
