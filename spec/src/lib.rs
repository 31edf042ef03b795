//! `rnic-spec`: the hardware/software contract of the rnic RoCE v2 NIC.
//!
//! Everything that both the RTL (`rnic-hdl`) and the software (driver, simulator, tests) need to
//! agree on is written here once: wire formats and the opcode table, the CRC functions behind
//! the FCS and the ICRC, PSN arithmetic, the receive-path verdicts with their drop reasons, the
//! transmit descriptor, the BAR0 register map, the host-memory queue formats, and the memory-region access check.
//! This crate has no rust-hdl dependency so the driver can use it on any host.

pub mod completer;
pub mod config;
pub mod desc;
pub mod mr;
pub mod qp;
pub mod reads;
pub mod regs;
pub mod responder;
pub mod retry;
pub mod wire;
