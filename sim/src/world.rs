//! The simulated world: two cards joined by a full-duplex Ethernet link, with a capture of
//! every frame on the wire.
//!
//! The link serializes each frame at its rate with the preamble (8 bytes) and inter-frame gap
//! (12 bytes) accounted, so back-to-back frames arrive as fast as a real 100 GbE link carries
//! them, not as fast as the 512-bit datapath could (64 bytes per cycle = 128 Gb/s). The sending
//! MAC holds `tx_ready` low while more than `mac_buffer_cycles` of wire time is queued, as a
//! MAC's transmit FIFO fills; the receiving MAC hands a frame over once all of it has arrived,
//! a beat per cycle. Both cards run in lock step on one clock.

use crate::axis::{beats, Beat};
use crate::bench::CLOCK_MHZ;
use crate::nic::NicSim;
use crate::SimError;
use std::collections::VecDeque;

/// Bytes a frame costs on the wire beyond its own: preamble + SFD and the inter-frame gap.
pub const WIRE_OVERHEAD: usize = 8 + 12;
/// Cycles of quiet after which a frame held back for reordering is let go.
const REORDER_WAIT: u64 = 1000;

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConfig {
    /// Line rate in Gb/s.
    pub gbps: f64,
    /// Cycles from a frame's last bit leaving one card to arriving at the other.
    pub propagation_cycles: u64,
    /// Wire time the sending MAC buffers before it holds `tx_ready` low.
    pub mac_buffer_cycles: f64,
    pub faults: Faults,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig { gbps: 100.0, propagation_cycles: 0, mac_buffer_cycles: 100.0, faults: Faults::default() }
    }
}

/// What the network does to frames, each with a per-frame probability in percent, drawn from
/// a seeded generator so a run repeats exactly. The capture records frames as sent.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Faults {
    pub seed: u64,
    /// The frame never arrives.
    pub loss: f64,
    /// One random bit of the frame flips (the receiver's FCS check catches it).
    pub corrupt: f64,
    /// The frame arrives twice.
    pub duplicate: f64,
    /// The frame arrives after the next one.
    pub reorder: f64,
    /// A switch marks the ECN field Congestion Experienced (ECT frames only), fixing the IPv4
    /// checksum and the FCS as a switch does; the ICRC stays valid.
    pub ce_mark: f64,
}

/// What the link did, per kind of fault.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct FaultCounts {
    pub lost: u64,
    pub corrupted: u64,
    pub duplicated: u64,
    pub reordered: u64,
    pub ce_marked: u64,
}

/// One direction of the link.
#[derive(Default)]
struct Direction {
    /// When the wire is free again, in (fractional) cycles.
    busy_until: f64,
    /// Frames on the wire: (cycle their last bit arrives, frame).
    flying: VecDeque<(u64, Vec<u8>)>,
    /// Beats of the frame being handed to the receiving card.
    handing: VecDeque<Beat>,
    /// A frame held back to arrive after the next one.
    held: Option<Vec<u8>>,
}

/// A test's pick of frames to lose: (sender, frame) → lose it.
type DropPick = Box<dyn FnMut(usize, &[u8]) -> bool>;

pub struct World {
    pub nics: [NicSim; 2],
    link: [Direction; 2],
    cfg: LinkConfig,
    cycle: u64,
    /// Every frame on the wire, in order of leaving its card: (ns of its first bit, sender,
    /// frame without FCS), as a capture stores it.
    capture: Vec<(u64, usize, Vec<u8>)>,
    /// Frames that are carrying an FCS (the cards' soft-MAC mode, the default).
    fcs: bool,
    rng: crate::xorshift::XorShift,
    pub faults: FaultCounts,
    /// A test's own losses: frames (sender, frame as sent) for which this says true never
    /// arrive (counted as lost), whatever the seeded faults draw.
    drop_if: Option<DropPick>,
}

impl World {
    pub fn new(cfg: LinkConfig) -> Result<World, SimError> {
        World::with_host(cfg, crate::host::HostTiming::default())
    }

    /// Two cards whose hosts answer DMA with `host` (latencies, backpressure).
    pub fn with_host(cfg: LinkConfig, host: crate::host::HostTiming) -> Result<World, SimError> {
        Ok(World {
            nics: [NicSim::with_timing(host, cfg.faults.seed ^ 1)?, NicSim::with_timing(host, cfg.faults.seed ^ 2)?],
            link: Default::default(),
            cfg,
            cycle: 0,
            capture: Vec::new(),
            fcs: true,
            rng: crate::xorshift::XorShift::new(cfg.faults.seed),
            faults: FaultCounts::default(),
            drop_if: None,
        })
    }

    /// Lose exactly the frames `drop` picks (sender, frame with its FCS when the cards append
    /// one): a test's way to lose one given packet.
    pub fn set_drop(&mut self, drop: impl FnMut(usize, &[u8]) -> bool + 'static) {
        self.drop_if = Some(Box::new(drop));
    }

    /// True with probability `percent` %.
    fn roll(&mut self, percent: f64) -> bool {
        if percent <= 0.0 {
            return false;
        }
        ((self.rng.next() % 1_000_000) as f64) < percent * 10_000.0
    }

    /// The network's effect on a frame leaving a card: the frames that arrive, in order.
    fn through_network(&mut self, from: usize, mut frame: Vec<u8>) -> Vec<Vec<u8>> {
        let f = self.cfg.faults;
        let picked = self.drop_if.as_mut().is_some_and(|d| d(from, &frame));
        if self.roll(f.loss) || picked {
            self.faults.lost += 1;
            return Vec::new();
        }
        if self.roll(f.ce_mark) && mark_ce(&mut frame, self.fcs) {
            self.faults.ce_marked += 1;
        }
        if self.roll(f.corrupt) {
            let bit = (self.rng.next() % (8 * frame.len() as u64)) as usize;
            frame[bit / 8] ^= 1 << (bit % 8);
            self.faults.corrupted += 1;
        }
        let mut out = vec![frame];
        if self.roll(f.duplicate) {
            out.push(out[0].clone());
            self.faults.duplicated += 1;
        }
        let d = &mut self.link[from];
        if let Some(held) = d.held.take() {
            out.push(held);
        } else if self.roll(f.reorder) {
            self.faults.reordered += 1;
            self.link[from].held = out.pop();
        }
        out
    }

    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// Wire time of a frame of `len` bytes (FCS included), in cycles.
    pub fn wire_cycles(&self, len: usize) -> f64 {
        wire_cycles(len, self.cfg.gbps)
    }

    /// One clock cycle of both cards and the link.
    pub fn step(&mut self) {
        let now = self.cycle;
        for d in &mut self.link {
            // A frame held back for reordering goes once its direction has been quiet a while.
            if d.busy_until + (REORDER_WAIT as f64) < now as f64 {
                if let Some(f) = d.held.take() {
                    d.flying.push_back((now, f));
                }
            }
        }
        for from in 0..2 {
            let to = 1 - from;
            let d = &mut self.link[from];
            while d.handing.is_empty() && d.flying.front().is_some_and(|(at, _)| *at <= now) {
                let (_, frame) = d.flying.pop_front().expect("front");
                d.handing.extend(beats(&frame));
            }
            let rx = self.link[from].handing.pop_front();
            let tx_ready = self.link[to].busy_until - (now as f64) < self.cfg.mac_buffer_cycles;
            if let Some(frame) = self.nics[to].step(rx.as_ref(), tx_ready) {
                let wire = self.wire_cycles(frame.len() + if self.fcs { 0 } else { 4 });
                let d = &mut self.link[to];
                let start = d.busy_until.max(now as f64);
                d.busy_until = start + wire;
                let arrival = d.busy_until.ceil() as u64 + self.cfg.propagation_cycles;
                for f in self.through_network(to, frame.clone()) {
                    self.link[to].flying.push_back((arrival, f));
                }
                let mut captured = frame;
                if self.fcs {
                    captured.truncate(captured.len().saturating_sub(4));
                }
                self.capture.push((crate::bench::ns_of(start), to, captured));
            }
        }
        self.cycle += 1;
    }

    /// A BAR0 access to card `card` (`Some(value)` writes), the whole world running meanwhile.
    pub fn bar(&mut self, card: usize, offset: u32, write: Option<u32>) -> Result<u32, crate::nic::BarTimeout> {
        self.nics[card].start_bar(offset, write);
        loop {
            if let Some(r) = self.nics[card].bar_result() {
                return r;
            }
            self.step();
        }
    }

    /// Step until `done(self)` or `max` cycles pass; true if `done`.
    pub fn run_until(&mut self, max: u64, mut done: impl FnMut(&World) -> bool) -> bool {
        let end = self.cycle + max;
        while self.cycle < end {
            if done(self) {
                return true;
            }
            self.step();
        }
        done(self)
    }

    /// Nothing on the wire, held back, or being handed over.
    pub fn link_idle(&self) -> bool {
        self.link.iter().all(|d| d.flying.is_empty() && d.handing.is_empty() && d.held.is_none())
    }

    /// Frames on the wire so far: (ns, sending card, frame without FCS).
    pub fn capture(&self) -> &[(u64, usize, Vec<u8>)] {
        &self.capture
    }

    /// The frames card `from` has put on the wire so far: (ns of the first bit, frame).
    pub fn sent_by(&self, from: usize) -> impl Iterator<Item = (u64, &Vec<u8>)> {
        self.capture.iter().filter(move |c| c.1 == from).map(|c| (c.0, &c.2))
    }

    /// The capture as a pcap file.
    pub fn pcap(&self) -> Vec<u8> {
        let frames: Vec<(u64, Vec<u8>)> = self.capture.iter().map(|(ns, _, f)| (*ns, f.clone())).collect();
        crate::pcap::write(&frames)
    }
}

/// Wire time, in cycles, of a frame of `len` bytes (FCS included) on a `gbps` link: preamble
/// and inter-frame gap counted.
pub fn wire_cycles(len: usize, gbps: f64) -> f64 {
    ((len + WIRE_OVERHEAD) * 8) as f64 / gbps * CLOCK_MHZ / 1000.0
}

/// Set the ECN field of an ECT frame to CE (11), as a congested switch does: the IPv4 header
/// checksum and the FCS are recomputed, the ICRC is not (it does not cover ECN). Returns false,
/// leaving the frame alone, for frames that are not IP or not ECN-capable.
pub fn mark_ce(frame: &mut [u8], fcs: bool) -> bool {
    use rnic_spec::wire::eth::{EthHeader, ETHERTYPE_IPV4, ETHERTYPE_IPV6};
    use rnic_spec::wire::ip::{Ipv4Header, IPV4_LEN, IPV4_TOS_OFF};
    let Ok((eth, l2)) = EthHeader::parse(frame) else { return false };
    match eth.ethertype {
        ETHERTYPE_IPV4 if frame.len() >= l2 + IPV4_LEN => {
            if frame[l2 + IPV4_TOS_OFF] & 3 == 0 {
                return false;
            }
            frame[l2 + IPV4_TOS_OFF] |= 3;
            let Ok((h, _)) = Ipv4Header::parse(&frame[l2..]) else { return false };
            let mut fixed = Vec::with_capacity(IPV4_LEN);
            h.with_checksum().pack(&mut fixed);
            frame[l2..l2 + IPV4_LEN].copy_from_slice(&fixed);
        }
        // The traffic class straddles the first two bytes; ECN is its low two bits.
        ETHERTYPE_IPV6 if frame.len() >= l2 + 2 => {
            if frame[l2 + 1] & 0x30 == 0 {
                return false;
            }
            frame[l2 + 1] |= 0x30;
        }
        _ => return false,
    }
    if fcs && frame.len() >= 4 {
        let n = frame.len() - 4;
        let crc = rnic_spec::wire::fcs(&frame[..n]);
        frame[n..].copy_from_slice(&crc.to_le_bytes());
    }
    true
}
