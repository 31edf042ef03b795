//! DMA to host memory over the card's AXI4 master port (512-bit, device addresses = IOVAs).

pub mod mr_table;
pub mod read;
pub mod write;
pub mod write_queue;
