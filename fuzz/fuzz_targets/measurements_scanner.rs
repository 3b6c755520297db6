#![no_main]

// The property lives in opsapi::fuzzing, shared with tests/promises/fuzz_regressions.rs.
libfuzzer_sys::fuzz_target!(|data: &[u8]| opsapi::fuzzing::measurements_scanner(data));
