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

#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LinkConfig {
    /// Line rate in Gb/s.
    pub gbps: f64,
    /// Cycles from a frame's last bit leaving one card to arriving at the other.
    pub propagation_cycles: u64,
    /// Wire time the sending MAC buffers before it holds `tx_ready` low.
    pub mac_buffer_cycles: f64,
}

impl Default for LinkConfig {
    fn default() -> Self {
        LinkConfig { gbps: 100.0, propagation_cycles: 0, mac_buffer_cycles: 100.0 }
    }
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
}

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
}

impl World {
    pub fn new(cfg: LinkConfig) -> Result<World, SimError> {
        Ok(World {
            nics: [NicSim::new()?, NicSim::new()?],
            link: Default::default(),
            cfg,
            cycle: 0,
            capture: Vec::new(),
            fcs: true,
        })
    }

    pub fn cycles(&self) -> u64 {
        self.cycle
    }

    /// Wire time of a frame of `len` bytes (FCS included), in cycles.
    pub fn wire_cycles(&self, len: usize) -> f64 {
        ((len + WIRE_OVERHEAD) * 8) as f64 / self.cfg.gbps * CLOCK_MHZ / 1000.0
    }

    /// One clock cycle of both cards and the link.
    pub fn step(&mut self) {
        let now = self.cycle;
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
                d.flying.push_back((d.busy_until.ceil() as u64 + self.cfg.propagation_cycles, frame.clone()));
                let mut captured = frame;
                if self.fcs {
                    captured.truncate(captured.len().saturating_sub(4));
                }
                self.capture.push(((start * 1000.0 / CLOCK_MHZ) as u64, to, captured));
            }
        }
        self.cycle += 1;
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

    /// Nothing queued, on the wire, or being handed over.
    pub fn link_idle(&self) -> bool {
        self.link.iter().all(|d| d.flying.is_empty() && d.handing.is_empty())
    }

    /// Frames on the wire so far: (ns, sending card, frame without FCS).
    pub fn capture(&self) -> &[(u64, usize, Vec<u8>)] {
        &self.capture
    }

    /// The capture as a pcap file.
    pub fn pcap(&self) -> Vec<u8> {
        let frames: Vec<(u64, Vec<u8>)> = self.capture.iter().map(|(ns, _, f)| (*ns, f.clone())).collect();
        crate::pcap::write(&frames)
    }
}
