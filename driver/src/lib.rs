//! `rnic-driver`: the host side of the rnic NIC. Today it holds the `rnic` CLI's commands for
//! the simulated card; the bus trait, the VFIO backend and the verbs API come with the DMA
//! engine (see the README's status table).

pub mod bench;
pub mod sim_rx;
pub mod sim_tx;
