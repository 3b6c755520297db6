//! The built-in API simulator.
