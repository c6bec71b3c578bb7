//! The figures of `benches/reload.rs` with the allocator `aimon-hooks serve` runs on (jemalloc),
//! measured by the same code: `cargo bench -p hook-config --bench reload_jemalloc`. The loader
//! frees and allocates many small values while it reads a document; glibc's allocator spends a
//! third of a 1 MB load coalescing them, jemalloc does not (docs/decisions.md).

#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

#[path = "reload.rs"]
mod reload;

fn main() {
    reload::main();
}
