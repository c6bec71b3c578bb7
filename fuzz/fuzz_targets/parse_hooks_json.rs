#![no_main]
// Filled in by the crate that owns this parser.
libfuzzer_sys::fuzz_target!(|data: &[u8]| { let _ = data; });
