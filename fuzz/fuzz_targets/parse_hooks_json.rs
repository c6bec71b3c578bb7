#![no_main]
//! REL-1: no bytes make the hooks.json loader panic. Valid UTF-8 goes to `parse_config` as is;
//! anything else is decoded lossily first (the loader reads files the same way).

use std::path::Path;

use hook_config::{Tier, parse_config};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Ok((file, diagnostics)) = parse_config(&text, Path::new("hooks.json"), Tier::Project) {
        for d in &diagnostics {
            let _ = d.to_string();
        }
        let _ = hook_config::LoadedConfig::from_files(vec![file]).render();
    }
});
