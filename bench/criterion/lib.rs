//! Criterion benchmarks of opsapi (`decode.rs`, `fleet.rs`); nothing to link against. Run with
//! `cargo bench --manifest-path bench/criterion/Cargo.toml --bench decode`.
