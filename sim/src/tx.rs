//! Driving the transmit engine (`rnic_tx`): packet descriptors and payload in, frames out.

use crate::axis::{gather, BEAT_BYTES};
use crate::{Model, Port, SimError};
use rnic_spec::wire::tx::{IpPair, TxDescriptor};
use std::collections::VecDeque;

struct Ports {
    fcs_enable: Port,
    hdr_valid: Port,
    hdr_ready: Port,
    pl_valid: Port,
    pl_ready: Port,
    pl_data: Port,
    out_valid: Port,
    out_ready: Port,
    out_data: Port,
    out_keep: Port,
    out_last: Port,
    frames: Port,
}

/// The transmit engine with queues of descriptors and payload beats in front of it.
pub struct TxSim {
    m: Model,
    p: Ports,
    descs: VecDeque<TxDescriptor>,
    payload: VecDeque<[u8; BEAT_BYTES]>,
    partial: Vec<u8>,
    frames: Vec<(u64, Vec<u8>)>,
    /// Percent of cycles on which the input queues hold back / the consumer is not ready.
    input_gaps: u32,
    backpressure: u32,
    rng: u64,
    underruns: u64,
}

impl TxSim {
    pub fn new(fcs: bool) -> Result<TxSim, SimError> {
        let mut m = Model::new("rnic_tx")?;
        let p = Ports {
            fcs_enable: m.port("fcs_enable")?,
            hdr_valid: m.port("hdr_valid")?,
            hdr_ready: m.port("hdr_ready")?,
            pl_valid: m.port("pl_valid")?,
            pl_ready: m.port("pl_ready")?,
            pl_data: m.port("pl_data")?,
            out_valid: m.port("out_valid")?,
            out_ready: m.port("out_ready")?,
            out_data: m.port("out_data")?,
            out_keep: m.port("out_keep")?,
            out_last: m.port("out_last")?,
            frames: m.port("frames")?,
        };
        m.set(p.fcs_enable, fcs as u64);
        Ok(TxSim {
            m,
            p,
            descs: VecDeque::new(),
            payload: VecDeque::new(),
            partial: Vec::new(),
            frames: Vec::new(),
            input_gaps: 0,
            backpressure: 0,
            rng: 1,
            underruns: 0,
        })
    }

    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    pub fn cycles(&self) -> u64 {
        self.m.cycles
    }

    /// Idle input cycles and consumer backpressure, each on about `percent` % of cycles.
    pub fn set_gaps(&mut self, input_gaps: u32, backpressure: u32, seed: u64) {
        self.input_gaps = input_gaps;
        self.backpressure = backpressure;
        self.rng = seed | 1;
    }

    /// Queue one packet: its descriptor and its payload (`desc.payload_len` bytes).
    pub fn queue(&mut self, desc: TxDescriptor, payload: &[u8]) {
        assert_eq!(payload.len(), desc.payload_len as usize, "payload length must match the descriptor");
        self.descs.push_back(desc);
        for chunk in payload.chunks(BEAT_BYTES) {
            let mut beat = [0u8; BEAT_BYTES];
            beat[..chunk.len()].copy_from_slice(chunk);
            self.payload.push_back(beat);
        }
    }

    fn roll(&mut self, percent: u32) -> bool {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        ((self.rng % 100) as u32) < percent
    }

    fn drive_descriptor(&mut self, d: &TxDescriptor) {
        let m = &mut self.m;
        let port = |m: &Model, n: &str| m.port(n).expect("rnic_tx descriptor port");
        let mac = |b: [u8; 6]| b.iter().fold(0u64, |a, &x| a << 8 | x as u64);
        let (v6, src, dst) = match d.ip {
            IpPair::V4 { src, dst } => (false, u32::from_be_bytes(src) as u128, u32::from_be_bytes(dst) as u128),
            IpPair::V6 { src, dst } => (true, u128::from_be_bytes(src), u128::from_be_bytes(dst)),
        };
        let tci = d.vlan.map_or(0, |v| (v.pcp as u64 & 7) << 13 | (v.dei as u64) << 12 | (v.vid as u64 & 0xFFF));
        let fields: [(&str, u64); 24] = [
            ("hdr_eth_dst", mac(d.eth_dst)),
            ("hdr_eth_src", mac(d.eth_src)),
            ("hdr_vlan", d.vlan.is_some() as u64),
            ("hdr_vlan_tci", tci),
            ("hdr_ipv6", v6 as u64),
            ("hdr_dscp", d.dscp as u64),
            ("hdr_ecn", d.ecn as u64),
            ("hdr_ttl", d.ttl as u64),
            ("hdr_flow_label", d.flow_label as u64),
            ("hdr_udp_src_port", d.udp_src_port as u64),
            ("hdr_opcode", d.opcode as u64),
            ("hdr_se", d.se as u64),
            ("hdr_pkey", d.pkey as u64),
            ("hdr_dest_qp", d.dest_qp as u64),
            ("hdr_ack_req", d.ack_req as u64),
            ("hdr_psn", d.psn as u64),
            ("hdr_va", d.reth.va),
            ("hdr_rkey", d.reth.rkey as u64),
            ("hdr_dma_len", d.reth.dma_len as u64),
            ("hdr_imm", d.imm as u64),
            ("hdr_aeth_syndrome", d.aeth.syndrome as u64),
            ("hdr_aeth_msn", d.aeth.msn as u64),
            ("hdr_payload_len", d.payload_len as u64),
            ("hdr_valid", 1),
        ];
        for (name, v) in fields {
            let p = port(m, name);
            m.set(p, v);
        }
        let (ps, pd) = (port(m, "hdr_ip_src"), port(m, "hdr_ip_dst"));
        m.set_bytes(ps, &src.to_le_bytes());
        m.set_bytes(pd, &dst.to_le_bytes());
    }

    /// One clock cycle.
    pub fn tick(&mut self) {
        let desc_gap = self.roll(self.input_gaps);
        match self.descs.front().copied() {
            Some(d) if !desc_gap => self.drive_descriptor(&d),
            _ => self.m.set(self.p.hdr_valid, 0),
        }
        let pl_gap = self.roll(self.input_gaps);
        match self.payload.front() {
            Some(beat) if !pl_gap => {
                let beat = *beat;
                self.m.set_bytes(self.p.pl_data, &beat);
                self.m.set(self.p.pl_valid, 1);
            }
            _ => self.m.set(self.p.pl_valid, 0),
        }
        let ready = !self.roll(self.backpressure);
        self.m.set(self.p.out_ready, ready as u64);
        // Sample the handshakes before the edge (ready may follow valid combinationally).
        self.m.settle();
        if self.m.get(self.p.hdr_valid) == 1 && self.m.get(self.p.hdr_ready) == 1 {
            self.descs.pop_front();
        }
        if self.m.get(self.p.pl_valid) == 1 && self.m.get(self.p.pl_ready) == 1 {
            self.payload.pop_front();
        }
        let out_valid = self.m.get(self.p.out_valid) == 1;
        if !out_valid && !self.partial.is_empty() {
            self.underruns += 1;
        }
        if out_valid && ready {
            let (data, keep, last) = (self.p.out_data, self.p.out_keep, self.p.out_last);
            if let Some(frame) = gather(&self.m, &mut self.partial, data, keep, last) {
                self.frames.push((self.m.cycles, frame));
            }
        }
        self.m.tick();
    }

    /// Run until `n` frames have come out in total, or `max` cycles have passed.
    pub fn run_until(&mut self, n: usize, max: u64) {
        let end = self.m.cycles + max;
        while self.frames.len() < n && self.m.cycles < end {
            self.tick();
        }
    }

    /// Frames out so far, with the cycle of their last beat.
    pub fn frames(&self) -> &[(u64, Vec<u8>)] {
        &self.frames
    }

    /// Cycles on which a started frame had no valid beat (a MAC would see an underrun).
    pub fn underruns(&self) -> u64 {
        self.underruns
    }

    /// The engine's own count of frames sent.
    pub fn frame_counter(&self) -> u64 {
        self.m.get(self.p.frames)
    }

    /// Descriptors and payload beats not yet taken.
    pub fn pending(&self) -> (usize, usize) {
        (self.descs.len(), self.payload.len())
    }
}
