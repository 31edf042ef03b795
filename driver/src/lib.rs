//! `rnic-driver`: the host side of the rnic NIC: the bus trait and its simulated
//! implementation, opening a card through its BAR0 block chain, and the `rnic` CLI's commands.
//! The VFIO backend, DMA buffers and the verbs API come with the DMA engine (see the README's
//! status table).

pub mod bench;
pub mod bus;
pub mod device;
pub mod sim_bus;
pub mod sim_rx;
pub mod sim_tx;
