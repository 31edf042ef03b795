//! Driving the transmit engine (`rnic_tx`): packet descriptors and payload in, frames out.

use crate::axis::{gather, BEAT_BYTES};
use crate::{Model, Port, SimError};
use rand::rngs::SmallRng;
use rand::Rng;
use rnic_spec::wire::eth::Vlan;
use rnic_spec::wire::ib::{Aeth, Reth};
use rnic_spec::wire::opcode::Opcode;
use rnic_spec::wire::tx::{tx_opcodes, IpPair, TxDescriptor};
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
    /// The descriptor ports, in the order of `DESCRIPTOR_PORTS`, then the two IP addresses.
    desc: Vec<Port>,
    ip_src: Port,
    ip_dst: Port,
}

const DESCRIPTOR_PORTS: [&str; 24] = [
    "hdr_eth_dst", "hdr_eth_src", "hdr_vlan", "hdr_vlan_tci", "hdr_ipv6", "hdr_dscp", "hdr_ecn", "hdr_ttl",
    "hdr_flow_label", "hdr_udp_src_port", "hdr_opcode", "hdr_se", "hdr_pkey", "hdr_dest_qp", "hdr_ack_req",
    "hdr_psn", "hdr_va", "hdr_rkey", "hdr_dma_len", "hdr_imm", "hdr_aeth_syndrome", "hdr_aeth_msn",
    "hdr_payload_len", "hdr_valid",
];

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
            desc: DESCRIPTOR_PORTS.iter().map(|n| m.port(n)).collect::<Result<_, _>>()?,
            ip_src: m.port("hdr_ip_src")?,
            ip_dst: m.port("hdr_ip_dst")?,
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
        let mac = |b: [u8; 6]| b.iter().fold(0u64, |a, &x| a << 8 | x as u64);
        let (v6, src, dst) = match d.ip {
            IpPair::V4 { src, dst } => (false, u32::from_be_bytes(src) as u128, u32::from_be_bytes(dst) as u128),
            IpPair::V6 { src, dst } => (true, u128::from_be_bytes(src), u128::from_be_bytes(dst)),
        };
        let tci = d.vlan.map_or(0, |v| (v.pcp as u64 & 7) << 13 | (v.dei as u64) << 12 | (v.vid as u64 & 0xFFF));
        let values: [u64; 24] = [
            mac(d.eth_dst),
            mac(d.eth_src),
            d.vlan.is_some() as u64,
            tci,
            v6 as u64,
            d.dscp as u64,
            d.ecn as u64,
            d.ttl as u64,
            d.flow_label as u64,
            d.udp_src_port as u64,
            d.opcode as u64,
            d.se as u64,
            d.pkey as u64,
            d.dest_qp as u64,
            d.ack_req as u64,
            d.psn as u64,
            d.reth.va,
            d.reth.rkey as u64,
            d.reth.dma_len as u64,
            d.imm as u64,
            d.aeth.syndrome as u64,
            d.aeth.msn as u64,
            d.payload_len as u64,
            1,
        ];
        for (&p, v) in self.p.desc.iter().zip(values) {
            self.m.set(p, v);
        }
        self.m.set_bytes(self.p.ip_src, &src.to_le_bytes());
        self.m.set_bytes(self.p.ip_dst, &dst.to_le_bytes());
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

/// A random descriptor: any opcode the engine builds, IPv4 or IPv6 between documentation
/// addresses (192.0.2.0/24, 198.51.100.0/24, 2001:db8::/32), locally administered MACs, VLAN
/// on 30 %, payloads of 0..=`max_payload` bytes biased to small sizes and beat edges (none
/// for opcodes without payload).
pub fn random_descriptor(rng: &mut SmallRng, max_payload: usize) -> TxDescriptor {
    let ops = tx_opcodes();
    let opcode = ops[rng.gen_range(0..ops.len())];
    let payload_len = if Opcode::lookup(opcode).expect("table").payload {
        match rng.gen_range(0..6) {
            0 => [0, 1, 2, 3, 4, 63, 64, 65, 127, 128, 4095, 4096][rng.gen_range(0..12)].min(max_payload),
            1 => rng.gen_range(0..=max_payload),
            _ => rng.gen_range(0..=300.min(max_payload)),
        }
    } else {
        0
    };
    TxDescriptor {
        eth_dst: local_mac(rng),
        eth_src: local_mac(rng),
        vlan: rng.gen_bool(0.3).then(|| Vlan { pcp: rng.gen_range(0..8), dei: rng.gen(), vid: rng.gen_range(0..4096) }),
        ip: if rng.gen() {
            IpPair::V6 { src: doc_ipv6(rng), dst: doc_ipv6(rng) }
        } else {
            IpPair::V4 { src: doc_ipv4(rng), dst: doc_ipv4(rng) }
        },
        dscp: rng.gen_range(0..64),
        ecn: rng.gen_range(0..4),
        ttl: rng.gen(),
        flow_label: rng.gen_range(0..1 << 20),
        udp_src_port: rng.gen(),
        opcode,
        se: rng.gen(),
        pkey: rng.gen(),
        dest_qp: rng.gen_range(0..1 << 24),
        ack_req: rng.gen(),
        psn: rng.gen_range(0..1 << 24),
        reth: Reth { va: rng.gen(), rkey: rng.gen(), dma_len: rng.gen() },
        imm: rng.gen(),
        aeth: Aeth { syndrome: rng.gen(), msn: rng.gen_range(0..1 << 24) },
        payload_len: payload_len as u16,
    }
}


/// A unicast, locally administered MAC address.
pub fn local_mac(rng: &mut SmallRng) -> [u8; 6] {
    let mut m: [u8; 6] = rng.gen();
    m[0] = (m[0] & 0xFC) | 0x02;
    m
}

/// An address in 192.0.2.0/24 or 198.51.100.0/24 (RFC 5737).
pub fn doc_ipv4(rng: &mut SmallRng) -> [u8; 4] {
    if rng.gen() {
        [192, 0, 2, rng.gen()]
    } else {
        [198, 51, 100, rng.gen()]
    }
}

/// An address in 2001:db8::/32 (RFC 3849).
pub fn doc_ipv6(rng: &mut SmallRng) -> [u8; 16] {
    let mut a: [u8; 16] = rng.gen();
    a[..4].copy_from_slice(&[0x20, 0x01, 0x0d, 0xb8]);
    a
}
