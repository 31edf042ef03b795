//! Verilog generation: every top-level block, with a real module name.

use rust_hdl::prelude::*;

/// The tops `rnic-gen` writes, by module name.
pub const TOPS: &[&str] = &["rnic_crc32_check", "rnic_mac_rx", "rnic_icrc_check", "rnic_rx", "rnic_tx", "rnic_nic", "rnic_dma_write", "rnic_dma_read", "rnic_mr_table"];

/// rust-hdl names the top module `top` and its children `top$child`; give them `name`.
pub fn rename_top(verilog: &str, name: &str) -> String {
    verilog.replace("module top(", &format!("module {name}(")).replace("top$", &format!("{name}$"))
}

/// Verilog of a connected block under the module name `name`.
pub fn verilog_of<B: Block>(mut uut: B, name: &str) -> String {
    uut.connect_all();
    rename_top(&generate_verilog(&uut), name)
}

/// Verilog of the top called `name` (one of [`TOPS`]), built on a thread with a stack large
/// enough for rust-hdl's 512-bit data structures.
pub fn verilog(name: &str) -> Option<String> {
    let name = name.to_string();
    std::thread::Builder::new()
        .stack_size(1 << 30)
        .spawn(move || match name.as_str() {
            "rnic_crc32_check" => Some(verilog_of(crate::crc::Crc32Check::default(), &name)),
            "rnic_mac_rx" => Some(verilog_of(crate::mac::rx::MacRx::default(), &name)),
            "rnic_icrc_check" => Some(verilog_of(crate::roce::icrc::IcrcCheck::default(), &name)),
            "rnic_rx" => Some(verilog_of(crate::roce::rx::RoceRx::default(), &name)),
            "rnic_tx" => Some(verilog_of(crate::roce::tx::RoceTx::default(), &name)),
            "rnic_nic" => Some(verilog_of(crate::nic::Nic::default(), &name)),
            "rnic_dma_write" => Some(verilog_of(crate::dma::write::DmaWrite::default(), &name)),
            "rnic_dma_read" => Some(verilog_of(crate::dma::read::DmaRead::default(), &name)),
            "rnic_mr_table" => Some(verilog_of(crate::dma::mr_table::MrTable::default(), &name)),
            _ => None,
        })
        .expect("spawn generator thread")
        .join()
        .expect("generator thread")
}
