//! `rnic-hdl`: the RTL of the rnic RoCE v2 NIC, written in rust-hdl.
//!
//! Every block here becomes synthesizable Verilog (`rnic-gen` writes it to `target/verilog/`).
//! Constants such as field offsets, opcodes and CRC matrices come from `rnic-spec`.

/// Declares a rust-hdl block and its `Default`: fields with `= expr` start from that value
/// (constants must), the others from `Default::default()`. Saves restating every field.
#[macro_export]
macro_rules! hdl_block {
    (
        $(#[$meta:meta])*
        pub struct $name:ident {
            $( $(#[$fmeta:meta])* $vis:vis $field:ident : $ty:ty $(= $init:expr)? ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        #[derive(LogicBlock)]
        pub struct $name {
            $( $(#[$fmeta])* $vis $field: $ty ),*
        }

        impl Default for $name {
            fn default() -> Self {
                Self { $( $field: $crate::hdl_block!(@init $($init)?) ),* }
            }
        }
    };
    (@init $e:expr) => { $e };
    (@init) => { Default::default() };
}

pub mod crc;
pub mod crc_insert;
pub mod csr;
pub mod dma;
pub mod gen;
pub mod mac;
pub mod nic;
pub mod pack;
pub mod ram_fifo;
pub mod roce;
pub mod stream;
