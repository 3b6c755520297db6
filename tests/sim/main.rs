//! The simulator's own tests, through raw signed HTTP (no `opsapi::Client`): its protocol as
//! the API documents it, one module per resource or concern.
//!
//! `digest`, `paging` (links, limits, envelope, pretty), `listings` (every resource's list and
//! entity), `global_alerts`, `project_alerts`, `access_list`, `headroom` (the seeded capacity
//! findings), `roles` (the hosts' roles in the world), `measurements`, `errors` (codes and
//! roles), `faults`, `request_log`, `shutdown`,
//! `atlas` (the Atlas and Cloud Manager flavours), and `binary` (the standalone `opsapi-sim`
//! command).
//! Helpers (a tiny Digest signer on top of reqwest) live in `common`.

#![cfg(feature = "sim")] // against the simulator

mod common;

mod access_list;
mod atlas;
mod binary;
mod digest;
mod errors;
mod faults;
mod global_alerts;
mod headroom;
mod listings;
mod measurements;
mod paging;
mod project_alerts;
mod request_log;
mod roles;
mod shutdown;
