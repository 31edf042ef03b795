//! Driving the transmit engine (`rnic_tx`): packet descriptors and payload in, frames out.

use crate::axis::{gather, BEAT_BYTES};
use crate::{Model, Port, SimError};
use rand::rngs::SmallRng;
use rand::Rng;
use rnic_spec::wire::eth::Vlan;
use rnic_spec::wire::ib::{Aeth, Reth};
use rnic_spec::wire::opcode::Opcode;
use rnic_spec::wire::tx::{tx_opcodes, AtomicArgs, IpPair, TxDescriptor};
use std::collections::VecDeque;

/// The ports of a transmit engine, wherever it sits: alone (`rnic_tx`: `hdr_*`, `pl_*`,
/// `out_*`) or inside the NIC top (`txd_*`, `txp_*`, `tx_*`).
pub(crate) struct Ports {
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
    /// The descriptor ports, in the order of `DESCRIPTOR_FIELDS`, then the two IP addresses.
    desc: Vec<Port>,
    ip_src: Port,
    ip_dst: Port,
}

/// Descriptor port names after their prefix (`hdr_` / `txd_`); `valid` last, set with them.
const DESCRIPTOR_FIELDS: [&str; 26] = [
    "eth_dst", "eth_src", "vlan", "vlan_tci", "ipv6", "dscp", "ecn", "ttl", "flow_label", "udp_src_port", "opcode",
    "se", "pkey", "dest_qp", "ack_req", "psn", "va", "rkey", "dma_len", "imm", "aeth_syndrome", "aeth_msn",
    "atomic_value", "atomic_compare", "payload_len", "valid",
];

/// Queues of descriptors and payload beats in front of a transmit engine, and the frames that
/// came out of it.
pub(crate) struct TxQueues {
    p: Ports,
    descs: VecDeque<TxDescriptor>,
    payload: VecDeque<[u8; BEAT_BYTES]>,
    partial: Vec<u8>,
    pub(crate) frames: Vec<(u64, Vec<u8>)>,
    underruns: u64,
}

impl TxQueues {
    /// `hdr`, `pl`, `out`: the port name prefixes of descriptors, payload and frames.
    pub(crate) fn new(m: &Model, hdr: &str, pl: &str, out: &str) -> Result<TxQueues, SimError> {
        let name = |prefix: &str, n: &str| format!("{prefix}{n}");
        let p = Ports {
            hdr_valid: m.port(&name(hdr, "valid"))?,
            hdr_ready: m.port(&name(hdr, "ready"))?,
            pl_valid: m.port(&name(pl, "valid"))?,
            pl_ready: m.port(&name(pl, "ready"))?,
            pl_data: m.port(&name(pl, "data"))?,
            out_valid: m.port(&name(out, "valid"))?,
            out_ready: m.port(&name(out, "ready"))?,
            out_data: m.port(&name(out, "data"))?,
            out_keep: m.port(&name(out, "keep"))?,
            out_last: m.port(&name(out, "last"))?,
            desc: DESCRIPTOR_FIELDS.iter().map(|n| m.port(&name(hdr, n))).collect::<Result<_, _>>()?,
            ip_src: m.port(&name(hdr, "ip_src"))?,
            ip_dst: m.port(&name(hdr, "ip_dst"))?,
        };
        Ok(TxQueues { p, descs: VecDeque::new(), payload: VecDeque::new(), partial: Vec::new(), frames: Vec::new(), underruns: 0 })
    }

    /// Queue one packet: its descriptor and its payload (`desc.payload_len` bytes).
    pub(crate) fn queue(&mut self, desc: TxDescriptor, payload: &[u8]) {
        assert_eq!(payload.len(), desc.payload_len as usize, "payload length must match the descriptor");
        self.descs.push_back(desc);
        for chunk in payload.chunks(BEAT_BYTES) {
            let mut beat = [0u8; BEAT_BYTES];
            beat[..chunk.len()].copy_from_slice(chunk);
            self.payload.push_back(beat);
        }
    }

    /// Set the inputs for the coming edge: the queues' heads unless held back, and `ready`.
    pub(crate) fn drive(&mut self, m: &mut Model, hold_desc: bool, hold_payload: bool, ready: bool) {
        match self.descs.front().copied() {
            Some(d) if !hold_desc => self.drive_descriptor(m, &d),
            _ => m.set(self.p.hdr_valid, 0),
        }
        match self.payload.front() {
            Some(beat) if !hold_payload => {
                m.set_bytes(self.p.pl_data, beat);
                m.set(self.p.pl_valid, 1);
            }
            _ => m.set(self.p.pl_valid, 0),
        }
        m.set(self.p.out_ready, ready as u64);
    }

    /// After the inputs settled, before the edge: take what transfers. Returns a frame whose
    /// last beat transfers now.
    pub(crate) fn sample(&mut self, m: &Model) -> Option<Vec<u8>> {
        if m.get(self.p.hdr_valid) == 1 && m.get(self.p.hdr_ready) == 1 {
            self.descs.pop_front();
        }
        if m.get(self.p.pl_valid) == 1 && m.get(self.p.pl_ready) == 1 {
            self.payload.pop_front();
        }
        let out_valid = m.get(self.p.out_valid) == 1;
        if !out_valid && !self.partial.is_empty() {
            self.underruns += 1;
        }
        if out_valid && m.get(self.p.out_ready) == 1 {
            let (data, keep, last) = (self.p.out_data, self.p.out_keep, self.p.out_last);
            if let Some(frame) = gather(m, &mut self.partial, data, keep, last) {
                self.frames.push((m.cycles, frame.clone()));
                return Some(frame);
            }
        }
        None
    }

    /// Descriptors and payload beats not yet taken.
    pub(crate) fn pending(&self) -> (usize, usize) {
        (self.descs.len(), self.payload.len())
    }

    pub(crate) fn underruns(&self) -> u64 {
        self.underruns
    }

    fn drive_descriptor(&mut self, m: &mut Model, d: &TxDescriptor) {
        let mac = |b: [u8; 6]| b.iter().fold(0u64, |a, &x| a << 8 | x as u64);
        let (v6, src, dst) = match d.ip {
            IpPair::V4 { src, dst } => (false, u32::from_be_bytes(src) as u128, u32::from_be_bytes(dst) as u128),
            IpPair::V6 { src, dst } => (true, u128::from_be_bytes(src), u128::from_be_bytes(dst)),
        };
        let tci = d.vlan.map_or(0, |v| v.tci() as u64);
        let values: [u64; DESCRIPTOR_FIELDS.len()] = [
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
            d.atomic.value,
            d.atomic.compare,
            d.payload_len as u64,
            1,
        ];
        for (&p, v) in self.p.desc.iter().zip(values) {
            m.set(p, v);
        }
        m.set_bytes(self.p.ip_src, &src.to_le_bytes());
        m.set_bytes(self.p.ip_dst, &dst.to_le_bytes());
    }
}

/// The transmit engine alone (`rnic_tx`) with queues in front of it.
pub struct TxSim {
    m: Model,
    q: TxQueues,
    frames_port: Port,
    /// Percent of cycles on which the input queues hold back / the consumer is not ready.
    input_gaps: u32,
    backpressure: u32,
    rng: crate::xorshift::XorShift,
}

impl TxSim {
    pub fn new(fcs: bool) -> Result<TxSim, SimError> {
        let mut m = Model::new("rnic_tx")?;
        let q = TxQueues::new(&m, "hdr_", "pl_", "out_")?;
        let fcs_port = m.port("fcs_enable")?;
        m.set(fcs_port, fcs as u64);
        let frames_port = m.port("frames")?;
        Ok(TxSim { m, q, frames_port, input_gaps: 0, backpressure: 0, rng: crate::xorshift::XorShift::new(1) })
    }

    /// Queue one packet: its descriptor and its payload (`desc.payload_len` bytes).
    pub fn queue(&mut self, desc: TxDescriptor, payload: &[u8]) {
        self.q.queue(desc, payload);
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
        self.rng = crate::xorshift::XorShift::new(seed);
    }

    /// One clock cycle.
    pub fn tick(&mut self) {
        let (hold_desc, hold_payload) = (self.rng.percent(self.input_gaps), self.rng.percent(self.input_gaps));
        let ready = !self.rng.percent(self.backpressure);
        self.q.drive(&mut self.m, hold_desc, hold_payload, ready);
        // Sample the handshakes before the edge (ready may follow valid combinationally).
        self.m.settle();
        self.q.sample(&self.m);
        self.m.tick();
    }

    /// Run until `n` frames have come out in total, or `max` cycles have passed.
    pub fn run_until(&mut self, n: usize, max: u64) {
        let end = self.m.cycles + max;
        while self.q.frames.len() < n && self.m.cycles < end {
            self.tick();
        }
    }

    /// Frames out so far, with the cycle of their last beat.
    pub fn frames(&self) -> &[(u64, Vec<u8>)] {
        &self.q.frames
    }

    /// Cycles on which a started frame had no valid beat (a MAC would see an underrun).
    pub fn underruns(&self) -> u64 {
        self.q.underruns()
    }

    /// The engine's own count of frames sent.
    pub fn frame_counter(&self) -> u64 {
        self.m.get(self.frames_port)
    }

    /// Descriptors and payload beats not yet taken.
    pub fn pending(&self) -> (usize, usize) {
        self.q.pending()
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
        // RoCE v2 senders pick source ports from the dynamic range (A17.5.1.1): a well-known low
        // port would also make Wireshark decode the datagram as that protocol.
        udp_src_port: rng.gen_range(0xC000..=0xFFFF),
        opcode,
        se: rng.gen(),
        pkey: rng.gen(),
        dest_qp: rng.gen_range(0..1 << 24),
        ack_req: rng.gen(),
        psn: rng.gen_range(0..1 << 24),
        reth: Reth { va: rng.gen(), rkey: rng.gen(), dma_len: rng.gen() },
        imm: rng.gen(),
        aeth: Aeth { syndrome: rng.gen(), msn: rng.gen_range(0..1 << 24) },
        atomic: AtomicArgs { value: rng.gen(), compare: rng.gen() },
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
