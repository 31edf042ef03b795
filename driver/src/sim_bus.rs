//! The simulated card as a [`Bus`]: every register access is an AXI4-Lite transaction on the
//! `rnic_nic` RTL, advancing simulated time.

use crate::bus::{check_offset, Bus, BusError};
use rnic_sim::nic::NicSim;

impl Bus for NicSim {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        check_offset(offset)?;
        self.bar_read(offset).map_err(|t| BusError::Timeout { offset: t.offset, write: false })
    }

    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        check_offset(offset)?;
        self.bar_write(offset, value).map_err(|t| BusError::Timeout { offset: t.offset, write: true })
    }
}
