//! One simulated card: the `rnic_nic` top (register file, receive pipeline, requester,
//! transmit engine) with BAR0 reached through AXI4-Lite transactions, as a PCIe bridge would
//! issue them, and its host memory behind an AXI4 read slave on the card's DMA port.
//!
//! A BAR0 access is a small state machine advanced by [`NicSim::step`], so a card inside a
//! [`crate::world::World`] keeps its link and DMA running while software talks to it. The
//! harness can also put packets on the card's second transmit source (`send`), and sees the
//! accepted frames the responder takes (`delivered`).

use crate::axis::{beats, gather, Beat};
use crate::host::{AxiReadSlave, AxiWriteSlave, HostMemory, HostTiming};
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

/// A BAR0 access in progress.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum BarPhase {
    /// Address (and data) offered, waiting for AWREADY / ARREADY.
    Request,
    /// Waiting for BVALID / RVALID.
    Response,
    /// Answered (the read value).
    Done(u32),
}

#[derive(Debug, Clone, Copy)]
struct BarOp {
    offset: u32,
    value: u32,
    write: bool,
    phase: BarPhase,
    cycles: u64,
}

pub struct NicSim {
    m: Model,
    p: Ports,
    tx: TxQueues,
    records: Vec<RxRecord>,
    payloads: Vec<Vec<u8>>,
    partial: Vec<u8>,
    bar: Option<BarOp>,
    /// The card's host memory (device addresses = IOVAs).
    pub mem: HostMemory,
    /// The host side of the card's DMA reads and writes.
    pub dma_read: AxiReadSlave,
    pub dma_write: AxiWriteSlave,
}

/// Cycles a BAR0 access may take before it counts as lost.
const BAR_TIMEOUT: u64 = 1000;

impl NicSim {
    pub fn new() -> Result<NicSim, SimError> {
        NicSim::with_timing(HostTiming::default(), 1)
    }

    /// A card whose host answers DMA with `timing`; `seed` drives its backpressure.
    pub fn with_timing(timing: HostTiming, seed: u64) -> Result<NicSim, SimError> {
        let m = Model::new("rnic_nic")?;
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
        let tx = TxQueues::new(&m, "txd_", "txp_", "tx_")?;
        let dma_read = AxiReadSlave::new(&m, "dma_", timing, seed)?;
        let dma_write = AxiWriteSlave::new(&m, "dma_", timing, seed ^ 0x5A5A)?;
        Ok(NicSim {
            m,
            p,
            tx,
            records: Vec::new(),
            payloads: Vec::new(),
            partial: Vec::new(),
            bar: None,
            mem: HostMemory::new(0),
            dma_read,
            dma_write,
        })
    }

    /// Queue a packet on the card's second transmit source (any packet, for tests).
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
        self.drive_bar();
        self.dma_read.drive(&mut self.m, &self.mem);
        self.dma_write.drive(&mut self.m);
        self.m.settle();
        let sent = self.tx.sample(&self.m);
        self.dma_read.sample(&self.m);
        self.dma_write.sample(&self.m, &mut self.mem);
        self.sample_bar();
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

    /// Accepted frames as the responder took them: record and payload; a record whose payload
    /// is still coming is not listed yet.
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

    /// Start a BAR0 access; [`NicSim::step`] carries it out. One at a time.
    pub fn start_bar(&mut self, offset: u32, write: Option<u32>) {
        assert!(self.bar.is_none_or(|b| matches!(b.phase, BarPhase::Done(_))), "one BAR0 access at a time");
        self.bar = Some(BarOp { offset, value: write.unwrap_or(0), write: write.is_some(), phase: BarPhase::Request, cycles: 0 });
    }

    /// The finished access's read value (0 for a write), or `None` while it runs; an access
    /// that takes longer than the register file ever does is an error.
    pub fn bar_result(&mut self) -> Option<Result<u32, BarTimeout>> {
        let op = self.bar?;
        if let BarPhase::Done(v) = op.phase {
            self.bar = None;
            return Some(Ok(v));
        }
        if op.cycles > BAR_TIMEOUT {
            self.bar = None;
            self.idle_bar();
            return Some(Err(BarTimeout { offset: op.offset, write: op.write }));
        }
        None
    }

    fn idle_bar(&mut self) {
        for p in [self.p.awvalid, self.p.wvalid, self.p.bready, self.p.arvalid, self.p.rready] {
            self.m.set(p, 0);
        }
    }

    fn drive_bar(&mut self) {
        self.idle_bar();
        let Some(op) = self.bar else { return };
        match (op.phase, op.write) {
            (BarPhase::Request, true) => {
                self.m.set(self.p.awaddr, op.offset as u64);
                self.m.set(self.p.wdata, op.value as u64);
                self.m.set(self.p.wstrb, 0xF);
                self.m.set(self.p.awvalid, 1);
                self.m.set(self.p.wvalid, 1);
            }
            (BarPhase::Request, false) => {
                self.m.set(self.p.araddr, op.offset as u64);
                self.m.set(self.p.arvalid, 1);
            }
            (BarPhase::Response, true) => self.m.set(self.p.bready, 1),
            (BarPhase::Response, false) => self.m.set(self.p.rready, 1),
            (BarPhase::Done(_), _) => {}
        }
    }

    fn sample_bar(&mut self) {
        let Some(op) = self.bar.as_mut() else { return };
        op.cycles += 1;
        let high = |port| self.m.get(port) == 1;
        op.phase = match (op.phase, op.write) {
            (BarPhase::Request, true) if high(self.p.awready) => BarPhase::Response,
            (BarPhase::Request, false) if high(self.p.arready) => BarPhase::Response,
            (BarPhase::Response, true) if high(self.p.bvalid) => BarPhase::Done(0),
            (BarPhase::Response, false) if high(self.p.rvalid) => BarPhase::Done(self.m.get(self.p.rdata) as u32),
            (phase, _) => phase,
        };
    }

    /// Read a BAR0 register, this card alone running (its transmit port held).
    pub fn bar_read(&mut self, offset: u32) -> Result<u32, BarTimeout> {
        self.start_bar(offset, None);
        self.finish_bar()
    }

    /// Write a BAR0 register (all four bytes), this card alone running.
    pub fn bar_write(&mut self, offset: u32, value: u32) -> Result<(), BarTimeout> {
        self.start_bar(offset, Some(value));
        self.finish_bar().map(|_| ())
    }

    fn finish_bar(&mut self) -> Result<u32, BarTimeout> {
        loop {
            if let Some(r) = self.bar_result() {
                return r;
            }
            // A BAR access advances this card alone; frames wait in its FIFO.
            let sent = self.step(None, false);
            debug_assert!(sent.is_none(), "nothing leaves while tx_ready is low");
        }
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
