//! One simulated card: the `rnic_nic` top (register file, receive pipeline, transmit engine)
//! with BAR0 reached through AXI4-Lite transactions, as a PCIe bridge would issue them.
//!
//! Until the DMA queue manager exists the harness stands in for it: accepted frames are taken
//! from the receive outputs as soon as they are offered, and nothing is transmitted.

use crate::axis::{beats, Beat};
use crate::{Model, Port, SimError};

/// A BAR0 access did not complete (a hardware bug: the register file always answers).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BarTimeout {
    pub offset: u32,
    pub write: bool,
}

struct Ports {
    awvalid: Port,
    awready: Port,
    awaddr: Port,
    wvalid: Port,
    wdata: Port,
    wstrb: Port,
    bvalid: Port,
    bready: Port,
    arvalid: Port,
    arready: Port,
    araddr: Port,
    rvalid: Port,
    rready: Port,
    rdata: Port,
    rx_valid: Port,
    rx_data: Port,
    rx_keep: Port,
    rx_last: Port,
    rx_user: Port,
}

pub struct NicSim {
    m: Model,
    p: Ports,
}

/// Cycles a BAR0 access may take before it counts as lost.
const BAR_TIMEOUT: u64 = 1000;

impl NicSim {
    pub fn new() -> Result<NicSim, SimError> {
        let mut m = Model::new("rnic_nic")?;
        let p = Ports {
            awvalid: m.port("bar_awvalid")?,
            awready: m.port("bar_awready")?,
            awaddr: m.port("bar_awaddr")?,
            wvalid: m.port("bar_wvalid")?,
            wdata: m.port("bar_wdata")?,
            wstrb: m.port("bar_wstrb")?,
            bvalid: m.port("bar_bvalid")?,
            bready: m.port("bar_bready")?,
            arvalid: m.port("bar_arvalid")?,
            arready: m.port("bar_arready")?,
            araddr: m.port("bar_araddr")?,
            rvalid: m.port("bar_rvalid")?,
            rready: m.port("bar_rready")?,
            rdata: m.port("bar_rdata")?,
            rx_valid: m.port("rx_valid")?,
            rx_data: m.port("rx_data")?,
            rx_keep: m.port("rx_keep")?,
            rx_last: m.port("rx_last")?,
            rx_user: m.port("rx_user")?,
        };
        // Stand-in for the queue manager: take every accepted frame, send nothing.
        for name in ["rxd_rec_ready", "rxd_pl_ready", "tx_ready"] {
            let port = m.port(name)?;
            m.set(port, 1);
        }
        Ok(NicSim { m, p })
    }

    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    pub fn cycles(&self) -> u64 {
        self.m.cycles
    }

    /// Read a BAR0 register.
    pub fn bar_read(&mut self, offset: u32) -> Result<u32, BarTimeout> {
        let timeout = BarTimeout { offset, write: false };
        self.m.set(self.p.araddr, offset as u64);
        self.m.set(self.p.arvalid, 1);
        self.wait_for(self.p.arready, &timeout)?;
        self.m.tick();
        self.m.set(self.p.arvalid, 0);
        self.m.set(self.p.rready, 1);
        self.wait_for(self.p.rvalid, &timeout)?;
        let value = self.m.get(self.p.rdata) as u32;
        self.m.tick();
        self.m.set(self.p.rready, 0);
        Ok(value)
    }

    /// Write a BAR0 register (all four bytes).
    pub fn bar_write(&mut self, offset: u32, value: u32) -> Result<(), BarTimeout> {
        let timeout = BarTimeout { offset, write: true };
        self.m.set(self.p.awaddr, offset as u64);
        self.m.set(self.p.wdata, value as u64);
        self.m.set(self.p.wstrb, 0xF);
        self.m.set(self.p.awvalid, 1);
        self.m.set(self.p.wvalid, 1);
        self.wait_for(self.p.awready, &timeout)?;
        self.m.tick();
        self.m.set(self.p.awvalid, 0);
        self.m.set(self.p.wvalid, 0);
        self.m.set(self.p.bready, 1);
        self.wait_for(self.p.bvalid, &timeout)?;
        self.m.tick();
        self.m.set(self.p.bready, 0);
        Ok(())
    }

    /// Tick until `port` reads 1 before an edge (inputs settled), within the timeout.
    fn wait_for(&mut self, port: Port, timeout: &BarTimeout) -> Result<(), BarTimeout> {
        for _ in 0..BAR_TIMEOUT {
            self.m.settle();
            if self.m.get(port) == 1 {
                return Ok(());
            }
            self.m.tick();
        }
        Err(timeout.clone())
    }

    /// Put one frame on the MAC receive port, a beat per cycle (the MAC's FCS mode is
    /// `port.control`).
    pub fn receive(&mut self, frame: &[u8]) {
        for b in beats(frame) {
            self.rx_beat(Some(&b));
        }
        self.rx_beat(None);
    }

    fn rx_beat(&mut self, beat: Option<&Beat>) {
        match beat {
            Some(b) => {
                self.m.set_bytes(self.p.rx_data, &b.data);
                self.m.set(self.p.rx_keep, b.keep);
                self.m.set(self.p.rx_last, b.last as u64);
                self.m.set(self.p.rx_valid, 1);
            }
            None => self.m.set(self.p.rx_valid, 0),
        }
        self.m.set(self.p.rx_user, 0);
        self.m.tick();
    }

    /// Let `n` cycles pass.
    pub fn idle(&mut self, n: u64) {
        for _ in 0..n {
            self.m.tick();
        }
    }
}
