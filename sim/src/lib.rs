//! `rnic-sim`: the simulated world of the rnic NIC: capture files, and the Verilator models of
//! the RTL driven from Rust.

pub mod axis;
pub mod bench;
pub mod host;
pub mod live;
pub mod model;
pub mod nic;
pub mod pcap;
pub mod rx;
pub mod tx;
pub mod world;
mod xorshift;

pub use model::{Model, Port, SimError};
