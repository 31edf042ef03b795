//! `rnic-driver`: the host side of the rnic NIC: the bus trait (BAR0, DMA memory, waiting) and
//! its simulated implementations, opening a card through its BAR0 block chain, the verbs-shaped
//! API (`verbs`), and the `rnic` CLI's commands. A real card is reached through VFIO (`vfio`).

pub mod bench;
pub mod bus;
pub mod demo;
pub mod device;
pub mod exchange;
pub mod live_link;
pub mod perftest;
pub mod pingpong;
pub mod sim_bus;
pub mod sim_pair;
pub mod sim_rx;
pub mod sim_tx;
pub mod verbs;
pub mod vfio;
