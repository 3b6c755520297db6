//! opsapi: a client for the Deployment Operations Public API v1.0.

pub mod auth;

#[cfg(feature = "sim")]
pub mod sim;
