//! Replays, on stable and in seconds, every input that ever made a fuzz target find something
//! (`fuzz/regressions/<target>/`), through the same checks the targets run
//! (`opsapi::fuzzing`). A target with no finding replays its seeds instead, so that no target
//! goes untested here.

use std::path::{Path, PathBuf};

fn files(dir: &Path) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = entries
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

#[test]
fn every_fuzz_finding_stays_fixed() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut replayed = 0;
    for (target, check) in opsapi::fuzzing::TARGETS {
        let mut inputs = files(&root.join("fuzz/regressions").join(target));
        if inputs.is_empty() {
            inputs = files(&root.join("fuzz/seeds").join(target));
            inputs.extend(files(&root.join("tests/fixtures")));
        }
        for input in &inputs {
            let data = std::fs::read(input).unwrap();
            let run = std::panic::catch_unwind(|| check(&data));
            assert!(run.is_ok(), "{target} fails on {}", input.display());
            replayed += 1;
        }
        assert!(!inputs.is_empty(), "{target} has nothing to replay");
    }
    assert!(replayed >= opsapi::fuzzing::TARGETS.len());
}
