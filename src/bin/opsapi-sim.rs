//! `opsapi-sim`: the built-in API simulator as a standalone server. The flags and the output
//! are [`opsapi::sim::cli`]'s, shared with the Python launcher (`opsapi sim`).

use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    ExitCode::from(opsapi::sim::cli::run(&args))
}
