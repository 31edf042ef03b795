//! One simulated card: the `rnic_nic` top (register file, receive pipeline, transmit engine)
//! with BAR0 reached through AXI4-Lite transactions, as a PCIe bridge would issue them.
//!
//! Until the DMA queue manager exists the harness stands in for it on the card's inner ports:
//! it queues transmit descriptors and payload (`send`), and takes accepted frames from the
//! receive outputs as soon as they are offered (`delivered`).

use crate::axis::{beats, gather, Beat};
use crate::rx::{unpack_record, RxRecord};
use crate::tx::TxQueues;
use crate::{Model, Port, SimError};
use rnic_spec::wire::tx::TxDescriptor;

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
    rxd_rec_valid: Port,
    rxd_rec_word0: Port,
    rxd_rec_word1: Port,
    rxd_pl_valid: Port,
    rxd_pl_data: Port,
    rxd_pl_keep: Port,
    rxd_pl_last: Port,
}

pub struct NicSim {
    m: Model,
    p: Ports,
    tx: TxQueues,
    records: Vec<RxRecord>,
    payloads: Vec<Vec<u8>>,
    partial: Vec<u8>,
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
            rxd_rec_valid: m.port("rxd_rec_valid")?,
            rxd_rec_word0: m.port("rxd_rec_word0")?,
            rxd_rec_word1: m.port("rxd_rec_word1")?,
            rxd_pl_valid: m.port("rxd_pl_valid")?,
            rxd_pl_data: m.port("rxd_pl_data")?,
            rxd_pl_keep: m.port("rxd_pl_keep")?,
            rxd_pl_last: m.port("rxd_pl_last")?,
        };
        // Stand-in for the queue manager: take every accepted frame as it is offered.
        for name in ["rxd_rec_ready", "rxd_pl_ready"] {
            let port = m.port(name)?;
            m.set(port, 1);
        }
        let tx = TxQueues::new(&m, "txd_", "txp_", "tx_")?;
        Ok(NicSim { m, p, tx, records: Vec::new(), payloads: Vec::new(), partial: Vec::new() })
    }

    /// Queue a packet for the transmit engine (standing in for the queue manager).
    pub fn send(&mut self, desc: TxDescriptor, payload: &[u8]) {
        self.tx.queue(desc, payload);
    }

    /// Frames the card has sent, with the cycle of their last beat.
    pub fn sent(&self) -> &[(u64, Vec<u8>)] {
        &self.tx.frames
    }

    /// Descriptors and payload beats the transmit engine has not taken yet.
    pub fn tx_pending(&self) -> (usize, usize) {
        self.tx.pending()
    }

    /// One clock cycle: `rx` on the MAC receive port, `tx_ready` from the MAC transmit side.
    /// Returns the frame whose last beat left on the transmit port in this cycle.
    pub fn step(&mut self, rx: Option<&Beat>, tx_ready: bool) -> Option<Vec<u8>> {
        match rx {
            Some(b) => {
                self.m.set_bytes(self.p.rx_data, &b.data);
                self.m.set(self.p.rx_keep, b.keep);
                self.m.set(self.p.rx_last, b.last as u64);
                self.m.set(self.p.rx_valid, 1);
            }
            None => self.m.set(self.p.rx_valid, 0),
        }
        self.m.set(self.p.rx_user, 0);
        self.tx.drive(&mut self.m, false, false, tx_ready);
        self.m.settle();
        let sent = self.tx.sample(&self.m);
        if self.m.get(self.p.rxd_rec_valid) == 1 {
            let words = [self.m.get_bytes(self.p.rxd_rec_word0), self.m.get_bytes(self.p.rxd_rec_word1)];
            self.records.push(unpack_record(&words, self.m.cycles));
        }
        if self.m.get(self.p.rxd_pl_valid) == 1 {
            let (data, keep, last) = (self.p.rxd_pl_data, self.p.rxd_pl_keep, self.p.rxd_pl_last);
            if let Some(p) = gather(&self.m, &mut self.partial, data, keep, last) {
                self.payloads.push(p);
            }
        }
        self.m.tick();
        sent
    }

    /// Accepted frames as the receive outputs delivered them: record and payload; a record whose
    /// payload is still coming is not listed yet.
    pub fn delivered(&self) -> Vec<(RxRecord, Vec<u8>)> {
        let mut payloads = self.payloads.iter();
        let mut out = Vec::new();
        for r in &self.records {
            let p = if r.payload_len > 0 {
                match payloads.next() {
                    Some(p) => p.clone(),
                    None => break,
                }
            } else {
                Vec::new()
            };
            out.push((r.clone(), p));
        }
        out
    }

    /// How many accepted frames `delivered` lists, without copying them.
    pub fn delivered_count(&self) -> usize {
        let mut payloads = self.payloads.len();
        let mut n = 0;
        for r in &self.records {
            if r.payload_len > 0 {
                if payloads == 0 {
                    break;
                }
                payloads -= 1;
            }
            n += 1;
        }
        n
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
        self.bar_tick();
        self.m.set(self.p.arvalid, 0);
        self.m.set(self.p.rready, 1);
        self.wait_for(self.p.rvalid, &timeout)?;
        let value = self.m.get(self.p.rdata) as u32;
        self.bar_tick();
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
        self.bar_tick();
        self.m.set(self.p.awvalid, 0);
        self.m.set(self.p.wvalid, 0);
        self.m.set(self.p.bready, 1);
        self.wait_for(self.p.bvalid, &timeout)?;
        self.bar_tick();
        self.m.set(self.p.bready, 0);
        Ok(())
    }

    /// A cycle of a BAR0 access: the card runs, its receive port idle and its transmit port
    /// held (a BAR access advances this card alone; frames wait in its FIFO).
    fn bar_tick(&mut self) {
        let sent = self.step(None, false);
        debug_assert!(sent.is_none(), "nothing leaves while tx_ready is low");
    }

    /// Tick until `port` reads 1 before an edge (inputs settled), within the timeout.
    fn wait_for(&mut self, port: Port, timeout: &BarTimeout) -> Result<(), BarTimeout> {
        for _ in 0..BAR_TIMEOUT {
            self.m.settle();
            if self.m.get(port) == 1 {
                return Ok(());
            }
            self.bar_tick();
        }
        Err(timeout.clone())
    }

    /// Put one frame on the MAC receive port, a beat per cycle (the MAC's FCS mode is
    /// `port.control`).
    pub fn receive(&mut self, frame: &[u8]) {
        for b in beats(frame) {
            self.step(Some(&b), true);
        }
    }

    /// Let `n` cycles pass.
    pub fn idle(&mut self, n: u64) {
        for _ in 0..n {
            self.step(None, true);
        }
    }
}
