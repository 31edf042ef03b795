//! `rnic-hdl`: the RTL of the rnic RoCE v2 NIC, written in rust-hdl.
//!
//! Every block here becomes synthesizable Verilog (`rnic-gen` writes it to `target/verilog/`).
//! Constants such as field offsets, opcodes and CRC matrices come from `rnic-spec`.

pub mod crc;
pub mod gen;
pub mod mac;
pub mod roce;
pub mod stream;
