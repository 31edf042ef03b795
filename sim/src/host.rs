//! Host memory behind the card's AXI4 master port: sparse byte-addressable memory and an AXI4
//! slave model for it with PCIe-like latency and optional backpressure.
//!
//! The slave also checks the master's side of the protocol and records every violation
//! (a burst crossing 4 KiB, WLAST in the wrong place, a beat size other than 64 bytes is not
//! expressible here), so tests can require that there were none.

use crate::bench::CLOCK_MHZ;
use crate::{Model, Port, SimError};
use std::collections::{HashMap, VecDeque};

const PAGE: u64 = 4096;

/// Sparse host memory: bytes never written read as `fill`.
#[derive(Debug, Clone)]
pub struct HostMemory {
    pages: HashMap<u64, Box<[u8; PAGE as usize]>>,
    fill: u8,
}

impl HostMemory {
    pub fn new(fill: u8) -> HostMemory {
        HostMemory { pages: HashMap::new(), fill }
    }

    pub fn read(&self, addr: u64, len: usize) -> Vec<u8> {
        (0..len as u64).map(|i| self.byte(addr + i)).collect()
    }

    pub fn byte(&self, addr: u64) -> u8 {
        self.pages.get(&(addr / PAGE)).map_or(self.fill, |p| p[(addr % PAGE) as usize])
    }

    pub fn write(&mut self, addr: u64, data: &[u8]) {
        for (i, &b) in data.iter().enumerate() {
            let a = addr + i as u64;
            let fill = self.fill;
            self.pages.entry(a / PAGE).or_insert_with(|| Box::new([fill; PAGE as usize]))[(a % PAGE) as usize] = b;
        }
    }

    /// Make `[addr, addr + len)` read as `fill` again, as memory never written (freed memory
    /// handed out again looks new).
    pub fn forget(&mut self, addr: u64, len: usize) {
        let end = addr + len as u64;
        let mut a = addr;
        while a < end {
            let page_end = (a / PAGE + 1) * PAGE;
            let upto = page_end.min(end);
            if a.is_multiple_of(PAGE) && upto == page_end {
                self.pages.remove(&(a / PAGE));
            } else if let Some(p) = self.pages.get_mut(&(a / PAGE)) {
                p[(a % PAGE) as usize..(upto - (a / PAGE) * PAGE) as usize].fill(self.fill);
            }
            a = upto;
        }
    }

    /// Write the bytes of a 64-byte beat at `addr` (64-byte aligned) whose strobe bit is set.
    pub fn write_beat(&mut self, addr: u64, data: &[u8], strb: u64) {
        for (i, &b) in data.iter().enumerate().take(64) {
            if strb >> i & 1 == 1 {
                self.write(addr + i as u64, &[b]);
            }
        }
    }
}

/// Latencies of the host side, in cycles of the 250 MHz core clock.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HostTiming {
    /// From a read request to its first data beat (PCIe Gen3 x16: about 800 ns).
    pub read_cycles: u64,
    /// From a write burst's last beat to its response (about 400 ns).
    pub write_cycles: u64,
    /// Percent of cycles on which the slave holds a ready low.
    pub backpressure: u32,
}

impl Default for HostTiming {
    fn default() -> Self {
        let ns = |t: f64| (t * CLOCK_MHZ / 1000.0) as u64;
        HostTiming { read_cycles: ns(800.0), write_cycles: ns(400.0), backpressure: 0 }
    }
}

struct WritePorts {
    awvalid: Port,
    awready: Port,
    awaddr: Port,
    awlen: Port,
    wvalid: Port,
    wready: Port,
    wdata: Port,
    wstrb: Port,
    wlast: Port,
    bvalid: Port,
    bready: Port,
    bresp: Port,
}

/// A DMA access the card made to host memory: `len` bytes at `addr` in `cycle`. For writes,
/// the bytes written, their beat taken in `cycle` (the burst's first byte run when runs are
/// joined); for reads, a whole burst (64-byte beats) as its address was taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HostAccess {
    pub cycle: u64,
    pub addr: u64,
    pub len: u32,
}

impl HostAccess {
    /// Every byte of the access lies in the `len` bytes from `base`.
    pub fn within(&self, base: u64, len: u64) -> bool {
        self.addr >= base && self.addr - base + self.len as u64 <= len
    }
}

/// The write half of an AXI4 slave in front of [`HostMemory`].
pub struct AxiWriteSlave {
    p: WritePorts,
    timing: HostTiming,
    /// Announced bursts: (address of the next beat, beats left, no beat taken yet).
    bursts: VecDeque<(u64, u32, bool)>,
    /// Responses due: cycle at which they may be given.
    responses: VecDeque<u64>,
    rng: crate::xorshift::XorShift,
    /// Protocol violations seen.
    pub violations: Vec<String>,
    pub bursts_seen: u64,
    pub beats_seen: u64,
    /// Every write, when logging: runs of strobed bytes, a run that continues the previous
    /// one joined to it.
    pub log: Option<Vec<HostAccess>>,
}

impl AxiWriteSlave {
    /// The slave on the ports named `{prefix}awvalid` and so on.
    pub fn new(m: &Model, prefix: &str, timing: HostTiming, seed: u64) -> Result<AxiWriteSlave, SimError> {
        let port = |n: &str| m.port(&format!("{prefix}{n}"));
        Ok(AxiWriteSlave {
            p: WritePorts {
                awvalid: port("awvalid")?,
                awready: port("awready")?,
                awaddr: port("awaddr")?,
                awlen: port("awlen")?,
                wvalid: port("wvalid")?,
                wready: port("wready")?,
                wdata: port("wdata")?,
                wstrb: port("wstrb")?,
                wlast: port("wlast")?,
                bvalid: port("bvalid")?,
                bready: port("bready")?,
                bresp: port("bresp")?,
            },
            timing,
            bursts: VecDeque::new(),
            responses: VecDeque::new(),
            rng: crate::xorshift::XorShift::new(seed),
            violations: Vec::new(),
            bursts_seen: 0,
            beats_seen: 0,
            log: None,
        })
    }

    fn stall(&mut self) -> bool {
        self.rng.percent(self.timing.backpressure)
    }

    /// Set the slave's outputs for the coming edge.
    pub fn drive(&mut self, m: &mut Model) {
        let now = m.cycles;
        let aw = !self.stall() && self.bursts.len() < 16;
        let w = !self.stall() && !self.bursts.is_empty();
        m.set(self.p.awready, aw as u64);
        m.set(self.p.wready, w as u64);
        let b = self.responses.front().is_some_and(|&t| t <= now);
        m.set(self.p.bvalid, b as u64);
        m.set(self.p.bresp, 0);
    }

    /// After the inputs settled, before the edge: take what transfers.
    pub fn sample(&mut self, m: &Model, mem: &mut HostMemory) {
        if m.get(self.p.bvalid) == 1 && m.get(self.p.bready) == 1 {
            self.responses.pop_front();
        }
        // A beat of an already announced burst goes first (the address of this cycle's
        // announcement is not known to the W channel until after the edge).
        if m.get(self.p.wvalid) == 1 && m.get(self.p.wready) == 1 {
            let last = m.get(self.p.wlast) == 1;
            match self.bursts.front_mut() {
                None => self.violations.push("write data before its address".into()),
                Some((addr, left, first)) => {
                    let data = m.get_bytes(self.p.wdata);
                    let strb = m.get(self.p.wstrb);
                    mem.write_beat(*addr, &data, strb);
                    if let Some(log) = self.log.as_mut() {
                        log_runs(log, m.cycles, *addr, strb, !*first);
                    }
                    *first = false;
                    self.beats_seen += 1;
                    *addr += 64;
                    *left -= 1;
                    if last != (*left == 0) {
                        self.violations.push(format!("WLAST {last} with {left} beats of the burst left"));
                    }
                    if *left == 0 {
                        self.bursts.pop_front();
                        self.responses.push_back(m.cycles + self.timing.write_cycles);
                    }
                }
            }
        }
        if m.get(self.p.awvalid) == 1 && m.get(self.p.awready) == 1 {
            let addr = m.get(self.p.awaddr);
            let beats = m.get(self.p.awlen) as u32 + 1;
            if !addr.is_multiple_of(64) {
                self.violations.push(format!("burst at {addr:#x} not 64-byte aligned"));
            }
            if addr / PAGE != (addr + 64 * beats as u64 - 1) / PAGE {
                self.violations.push(format!("burst at {addr:#x} of {beats} beats crosses 4 KiB"));
            }
            self.bursts.push_back((addr & !63, beats, true));
            self.bursts_seen += 1;
        }
    }

    /// Nothing announced or unanswered.
    pub fn idle(&self) -> bool {
        self.bursts.is_empty() && self.responses.is_empty()
    }
}

/// Append the runs of set bits of `strb` (the bytes of the beat at `addr`) to `log`; a run
/// that continues the last entry joins it when `join` (a later beat of the same burst).
fn log_runs(log: &mut Vec<HostAccess>, cycle: u64, addr: u64, strb: u64, join: bool) {
    let mut bits = strb;
    let mut join = join;
    while bits != 0 {
        let start = bits.trailing_zeros();
        let len = (bits >> start).trailing_ones();
        let at = addr + start as u64;
        match log.last_mut() {
            Some(w) if join && w.addr + w.len as u64 == at => w.len += len,
            _ => log.push(HostAccess { cycle, addr: at, len }),
        }
        join = true;
        bits &= if start + len >= 64 { 0 } else { !0u64 << (start + len) };
    }
}

struct ReadPorts {
    arvalid: Port,
    arready: Port,
    araddr: Port,
    arlen: Port,
    rvalid: Port,
    rready: Port,
    rdata: Port,
    rresp: Port,
}

/// The read half of an AXI4 slave in front of [`HostMemory`]: each burst's data starts
/// `read_cycles` after its address and comes a beat per cycle, in order, while RREADY allows.
pub struct AxiReadSlave {
    p: ReadPorts,
    timing: HostTiming,
    /// Accepted bursts: (cycle the data may start, next beat address, beats left).
    bursts: VecDeque<(u64, u64, u32)>,
    rng: crate::xorshift::XorShift,
    pub violations: Vec<String>,
    pub beats_served: u64,
    /// Respond SLVERR to reads of addresses at or above this (to test error paths).
    pub error_above: u64,
    /// When set, every read burst the card issues (cycle, first byte, bytes), for tests that
    /// check what host memory a card reads.
    pub log: Option<Vec<HostAccess>>,
}

impl AxiReadSlave {
    pub fn new(m: &Model, prefix: &str, timing: HostTiming, seed: u64) -> Result<AxiReadSlave, SimError> {
        let port = |n: &str| m.port(&format!("{prefix}{n}"));
        Ok(AxiReadSlave {
            p: ReadPorts {
                arvalid: port("arvalid")?,
                arready: port("arready")?,
                araddr: port("araddr")?,
                arlen: port("arlen")?,
                rvalid: port("rvalid")?,
                rready: port("rready")?,
                rdata: port("rdata")?,
                rresp: port("rresp")?,
            },
            timing,
            bursts: VecDeque::new(),
            rng: crate::xorshift::XorShift::new(seed),
            violations: Vec::new(),
            beats_served: 0,
            error_above: u64::MAX,
            log: None,
        })
    }

    fn stall(&mut self) -> bool {
        self.rng.percent(self.timing.backpressure)
    }

    /// Set the slave's outputs for the coming edge. Once RVALID is high it stays high with the
    /// same beat until taken (AXI).
    pub fn drive(&mut self, m: &mut Model, mem: &HostMemory) {
        let now = m.cycles;
        let ar = !self.stall() && self.bursts.len() < 32;
        m.set(self.p.arready, ar as u64);
        let holding = m.get(self.p.rvalid) == 1;
        let ready_beat = self.bursts.front().filter(|b| b.0 <= now).map(|b| b.1);
        match ready_beat {
            Some(addr) if holding || !self.stall() => {
                m.set_bytes(self.p.rdata, &mem.read(addr, 64));
                m.set(self.p.rresp, if addr >= self.error_above { 2 } else { 0 });
                m.set(self.p.rvalid, 1);
            }
            _ => m.set(self.p.rvalid, 0),
        }
    }

    /// After the inputs settled, before the edge: take what transfers.
    pub fn sample(&mut self, m: &Model) {
        if m.get(self.p.rvalid) == 1 && m.get(self.p.rready) == 1 {
            let b = self.bursts.front_mut().expect("a beat was offered");
            b.1 += 64;
            b.2 -= 1;
            self.beats_served += 1;
            if b.2 == 0 {
                self.bursts.pop_front();
            }
        }
        if m.get(self.p.arvalid) == 1 && m.get(self.p.arready) == 1 {
            let addr = m.get(self.p.araddr);
            let beats = m.get(self.p.arlen) as u32 + 1;
            if !addr.is_multiple_of(64) {
                self.violations.push(format!("read burst at {addr:#x} not 64-byte aligned"));
            }
            if addr / PAGE != (addr + 64 * beats as u64 - 1) / PAGE {
                self.violations.push(format!("read burst at {addr:#x} of {beats} beats crosses 4 KiB"));
            }
            self.bursts.push_back((m.cycles + self.timing.read_cycles, addr & !63, beats));
            if let Some(log) = self.log.as_mut() {
                log.push(HostAccess { cycle: m.cycles, addr: addr & !63, len: 64 * beats });
            }
        }
    }

    pub fn idle(&self) -> bool {
        self.bursts.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn forgotten_memory_reads_as_fill_and_nothing_beside_it_changes() {
        let mut m = HostMemory::new(0xEE);
        m.write(0x1000 - 8, &[1; 2 * PAGE as usize + 16]);
        m.forget(0x1000 - 4, PAGE as usize + 8);
        assert_eq!(m.read(0x1000 - 8, 4), vec![1; 4]);
        assert_eq!(m.read(0x1000 - 4, PAGE as usize + 8), vec![0xEE; PAGE as usize + 8]);
        assert_eq!(m.read(0x2000 + 4, PAGE as usize), vec![1; PAGE as usize]);
        assert!(!m.pages.contains_key(&1), "a whole page forgotten is dropped");
    }

    #[test]
    fn write_log_holds_strobed_runs_joined_across_beats() {
        let mut log = Vec::new();
        // Bytes 4..8 and 60..64 of one beat, then the whole next beat and 3 bytes of the third.
        log_runs(&mut log, 7, 0x1000, 0xF << 4 | 0xF << 60, false);
        log_runs(&mut log, 8, 0x1040, !0, true);
        log_runs(&mut log, 9, 0x1080, 0b111, true);
        let runs: Vec<(u64, u64, u32)> = log.iter().map(|w| (w.cycle, w.addr, w.len)).collect();
        assert_eq!(runs, [(7, 0x1004, 4), (7, 0x103C, 4 + 64 + 3)]);
        log_runs(&mut log, 10, 0x2000, 0, true);
        assert_eq!(log.len(), 2, "an empty strobe writes nothing");
        log_runs(&mut log, 11, 0x1083, 1, false);
        assert_eq!(log.len(), 3, "another burst's write stays its own entry, contiguous or not");
    }
}
