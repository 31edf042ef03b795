//! Driving the RTL receive pipeline (`rnic_rx`, hdl/src/roce/rx.rs) in Verilator: frames in,
//! one [`RxRecord`] per frame out, with the payload the pipeline delivered and its counters.

use crate::axis::beats;
use crate::model::{Model, Port, SimError};
use rnic_spec::wire::rx::DropReason;

/// Counters of the receive pipeline: accepted frames and one per drop reason.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RxCounters {
    pub accepted: u64,
    /// `(reason, count)` for every reason, in code order.
    pub dropped: Vec<(DropReason, u64)>,
    /// Accepted frames lost because the receive buffer was full.
    pub no_buffer: u64,
}

/// What the pipeline reported for one frame.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RxRecord {
    /// `None` when accepted.
    pub drop: Option<DropReason>,
    /// Raw reason code, kept for codes that the spec does not know (a hardware bug).
    pub reason_code: u8,
    pub frame_len: usize,
    pub vlan: bool,
    pub vlan_tci: u16,
    pub eth_dst: [u8; 6],
    pub eth_src: [u8; 6],
    pub ipv6: bool,
    pub dscp: u8,
    pub ecn: u8,
    pub ttl: u8,
    pub ip_src: u128,
    pub ip_dst: u128,
    pub udp_src_port: u16,
    pub opcode: u8,
    pub bth_flags: u8,
    pub pkey: u16,
    pub fecn: bool,
    pub becn: bool,
    pub dest_qp: u32,
    pub ack_req: bool,
    pub psn: u32,
    pub va: u64,
    pub rkey: u32,
    pub dma_len: u32,
    pub swap_add: u64,
    pub compare: u64,
    pub aeth_syndrome: u8,
    pub aeth_msn: u32,
    pub atomic_ack: u64,
    pub imm: u32,
    pub ieth_rkey: u32,
    pub qkey: u32,
    pub src_qp: u32,
    pub payload_len: usize,
    /// The frame went out on the host path (not RoCE by its headers).
    pub host_sent: bool,
    /// That frame as the host path delivered it, and whether it was marked bad.
    pub host: Option<(Vec<u8>, bool)>,
    /// Cycle at which the record came out.
    pub cycle: u64,
}

struct Ports {
    fcs_enable: Port,
    in_valid: Port,
    in_data: Port,
    in_keep: Port,
    in_last: Port,
    in_user: Port,
    counter_sel: Port,
    counter: Port,
    rec: Vec<(&'static str, Port)>,
    rec_valid: Port,
    out_rec_valid: Port,
    out_rec_ready: Port,
    out_rec_word0: Port,
    out_rec_word1: Port,
    out_pl_valid: Port,
    out_pl_ready: Port,
    out_pl_data: Port,
    out_pl_keep: Port,
    out_pl_last: Port,
    fault: Port,
    host_valid: Port,
    host_data: Port,
    host_keep: Port,
    host_last: Port,
    host_user: Port,
}

const RECORD_PORTS: &[&str] = &[
    "rec_reason", "rec_frame_len", "rec_vlan", "rec_vlan_tci", "rec_eth_dst", "rec_eth_src", "rec_ipv6",
    "rec_dscp", "rec_ecn", "rec_ttl", "rec_ip_src", "rec_ip_dst", "rec_udp_src_port", "rec_opcode",
    "rec_bth_flags", "rec_pkey", "rec_fecn", "rec_becn", "rec_dest_qp", "rec_ack_req", "rec_psn", "rec_va",
    "rec_rkey", "rec_dma_len", "rec_swap_add", "rec_compare", "rec_aeth_syndrome", "rec_aeth_msn",
    "rec_atomic_ack", "rec_imm", "rec_ieth_rkey", "rec_qkey", "rec_src_qp", "rec_payload_len",
    "rec_host_sent",
];

/// The receive pipeline in Verilator.
pub struct RxSim {
    m: Model,
    p: Ports,
    records: Vec<RxRecord>,
    /// Accepted frames as the buffered outputs delivered them: record, then payload.
    delivered: Vec<(RxRecord, Vec<u8>)>,
    /// Delivered records still waiting for their payload, and payload bytes so far.
    awaiting: std::collections::VecDeque<RxRecord>,
    payloads: std::collections::VecDeque<Vec<u8>>,
    partial: Vec<u8>,
    /// Percent of cycles the consumer holds ready low on each output, and its RNG state.
    backpressure: u32,
    rng: crate::xorshift::XorShift,
    /// The same for the host path.
    host_frames: std::collections::VecDeque<(Vec<u8>, bool)>,
    host_partial: Vec<u8>,
    /// Indices of records whose host frame has not arrived yet.
    awaiting_host: std::collections::VecDeque<usize>,
    /// Cycle of the first beat of every frame fed, to measure latency.
    pub first_beat_cycles: Vec<u64>,
}

/// A buffered record, decoded with the spec's layout.
pub(crate) fn unpack_record(words: &[Vec<u8>; 2], cycle: u64) -> RxRecord {
    let field = |name: &str| -> u128 {
        let (w, at, bits) = rnic_spec::wire::rx::record_field(name).expect("record field");
        let mut v = 0u128;
        for i in 0..bits {
            let bit = at + i;
            if words[w][bit / 8] >> (bit % 8) & 1 == 1 {
                v |= 1 << i;
            }
        }
        v
    };
    let mac = field("eth_src") as u64;
    RxRecord {
        drop: None,
        reason_code: 0,
        vlan: field("vlan") == 1,
        vlan_tci: field("vlan_tci") as u16,
        eth_src: mac.to_be_bytes()[2..8].try_into().expect("6"),
        ipv6: field("ipv6") == 1,
        dscp: field("dscp") as u8,
        ecn: field("ecn") as u8,
        ttl: field("ttl") as u8,
        ip_src: field("ip_src"),
        ip_dst: field("ip_dst"),
        udp_src_port: field("udp_src_port") as u16,
        opcode: field("opcode") as u8,
        bth_flags: field("bth_flags") as u8,
        pkey: field("pkey") as u16,
        fecn: field("fecn") == 1,
        becn: field("becn") == 1,
        dest_qp: field("dest_qp") as u32,
        ack_req: field("ack_req") == 1,
        psn: field("psn") as u32,
        va: field("va") as u64,
        rkey: field("rkey") as u32,
        dma_len: field("dma_len") as u32,
        swap_add: field("swap_add") as u64,
        compare: field("compare") as u64,
        aeth_syndrome: field("aeth_syndrome") as u8,
        aeth_msn: field("aeth_msn") as u32,
        atomic_ack: field("atomic_ack") as u64,
        imm: field("imm") as u32,
        ieth_rkey: field("ieth_rkey") as u32,
        qkey: field("qkey") as u32,
        src_qp: field("src_qp") as u32,
        payload_len: field("payload_len") as usize,
        cycle,
        ..Default::default()
    }
}

fn bytes_to_u128(b: &[u8]) -> u128 {
    b.iter().rev().fold(0u128, |acc, &x| (acc << 8) | x as u128)
}

impl RxSim {
    pub fn new(fcs: bool) -> Result<RxSim, SimError> {
        let mut m = Model::new("rnic_rx")?;
        let p = Ports {
            fcs_enable: m.port("fcs_enable")?,
            in_valid: m.port("in_valid")?,
            in_data: m.port("in_data")?,
            in_keep: m.port("in_keep")?,
            in_last: m.port("in_last")?,
            in_user: m.port("in_user")?,
            counter_sel: m.port("counter_sel")?,
            counter: m.port("counter")?,
            rec: RECORD_PORTS.iter().map(|n| Ok((*n, m.port(n)?))).collect::<Result<_, SimError>>()?,
            rec_valid: m.port("rec_valid")?,
            out_rec_valid: m.port("out_rec_valid")?,
            out_rec_ready: m.port("out_rec_ready")?,
            out_rec_word0: m.port("out_rec_word0")?,
            out_rec_word1: m.port("out_rec_word1")?,
            out_pl_valid: m.port("out_pl_valid")?,
            out_pl_ready: m.port("out_pl_ready")?,
            out_pl_data: m.port("out_pl_data")?,
            out_pl_keep: m.port("out_pl_keep")?,
            out_pl_last: m.port("out_pl_last")?,
            fault: m.port("fault")?,
            host_valid: m.port("host_valid")?,
            host_data: m.port("host_data")?,
            host_keep: m.port("host_keep")?,
            host_last: m.port("host_last")?,
            host_user: m.port("host_user")?,
        };
        m.set(p.fcs_enable, fcs as u64);
        Ok(RxSim { m, p, records: Vec::new(),
            delivered: Vec::new(),
            awaiting: Default::default(),
            payloads: Default::default(),
            partial: Vec::new(),
            backpressure: 0,
            rng: crate::xorshift::XorShift::new(0x9E37_79B9_7F4A_7C15),
            host_frames: Default::default(),
            host_partial: Vec::new(),
            awaiting_host: Default::default(),
            first_beat_cycles: Vec::new(),
        })
    }

    pub fn model(&mut self) -> &mut Model {
        &mut self.m
    }

    pub fn cycles(&self) -> u64 {
        self.m.cycles
    }

    /// One clock with the given beat on the input (or none), collecting outputs.
    fn step(&mut self, beat: Option<&crate::axis::Beat>) {
        match beat {
            Some(b) => {
                self.m.set(self.p.in_valid, 1);
                self.m.set_bytes(self.p.in_data, &b.data);
                self.m.set(self.p.in_keep, b.keep);
                self.m.set(self.p.in_last, b.last as u64);
                self.m.set(self.p.in_user, 0);
            }
            None => self.m.set(self.p.in_valid, 0),
        }
        let bp = self.backpressure;
        let (rec_held, pl_held) = (self.rng.percent(bp), self.rng.percent(bp));
        self.m.set(self.p.out_rec_ready, !rec_held as u64);
        self.m.set(self.p.out_pl_ready, !pl_held as u64);
        // A transfer happens at the coming edge where valid (a registered output) and ready
        // are both high: take it now, before the edge moves the output on.
        self.take_outputs();
        self.m.tick();
        self.collect();
    }

    /// Hold ready low on the record and payload outputs on about `percent` % of cycles.
    pub fn set_backpressure(&mut self, percent: u32, seed: u64) {
        self.backpressure = percent;
        self.rng = crate::xorshift::XorShift::new(seed);
    }

    fn take_outputs(&mut self) {
        if self.m.get(self.p.out_pl_valid) == 1 && self.m.get(self.p.out_pl_ready) == 1 {
            let (data, keep, last) = (self.p.out_pl_data, self.p.out_pl_keep, self.p.out_pl_last);
            if let Some(packet) = crate::axis::gather(&self.m, &mut self.partial, data, keep, last) {
                self.payloads.push_back(packet);
            }
        }
        if self.m.get(self.p.out_rec_valid) == 1 && self.m.get(self.p.out_rec_ready) == 1 {
            let words = [self.m.get_bytes(self.p.out_rec_word0), self.m.get_bytes(self.p.out_rec_word1)];
            self.awaiting.push_back(unpack_record(&words, self.m.cycles));
        }
        while let Some(r) = self.awaiting.front() {
            if r.payload_len == 0 {
                let r = self.awaiting.pop_front().expect("front");
                self.delivered.push((r, Vec::new()));
            } else if let Some(p) = self.payloads.pop_front() {
                let r = self.awaiting.pop_front().expect("front");
                self.delivered.push((r, p));
            } else {
                break;
            }
        }
    }

    fn collect(&mut self) {
        if self.m.get(self.p.host_valid) == 1 {
            let (data, keep, last) = (self.p.host_data, self.p.host_keep, self.p.host_last);
            if let Some(frame) = crate::axis::gather(&self.m, &mut self.host_partial, data, keep, last) {
                self.host_frames.push_back((frame, self.m.get(self.p.host_user) == 1));
            }
        }
        if self.m.get(self.p.rec_valid) == 1 {
            let mut r = RxRecord { cycle: self.m.cycles, ..Default::default() };
            for (name, port) in &self.p.rec {
                let v = self.m.get(*port);
                let b = || self.m.get_bytes(*port);
                match *name {
                    "rec_reason" => {
                        r.reason_code = v as u8;
                        r.drop = DropReason::from_code(v as u8);
                    }
                    "rec_frame_len" => r.frame_len = v as usize,
                    "rec_vlan" => r.vlan = v == 1,
                    "rec_vlan_tci" => r.vlan_tci = v as u16,
                    "rec_eth_dst" => r.eth_dst = (v.to_be_bytes()[2..8]).try_into().expect("6"),
                    "rec_eth_src" => r.eth_src = (v.to_be_bytes()[2..8]).try_into().expect("6"),
                    "rec_ipv6" => r.ipv6 = v == 1,
                    "rec_dscp" => r.dscp = v as u8,
                    "rec_ecn" => r.ecn = v as u8,
                    "rec_ttl" => r.ttl = v as u8,
                    "rec_ip_src" => r.ip_src = bytes_to_u128(&b()),
                    "rec_ip_dst" => r.ip_dst = bytes_to_u128(&b()),
                    "rec_udp_src_port" => r.udp_src_port = v as u16,
                    "rec_opcode" => r.opcode = v as u8,
                    "rec_bth_flags" => r.bth_flags = v as u8,
                    "rec_pkey" => r.pkey = v as u16,
                    "rec_fecn" => r.fecn = v == 1,
                    "rec_becn" => r.becn = v == 1,
                    "rec_dest_qp" => r.dest_qp = v as u32,
                    "rec_ack_req" => r.ack_req = v == 1,
                    "rec_psn" => r.psn = v as u32,
                    "rec_va" => r.va = v,
                    "rec_rkey" => r.rkey = v as u32,
                    "rec_dma_len" => r.dma_len = v as u32,
                    "rec_swap_add" => r.swap_add = v,
                    "rec_compare" => r.compare = v,
                    "rec_aeth_syndrome" => r.aeth_syndrome = v as u8,
                    "rec_aeth_msn" => r.aeth_msn = v as u32,
                    "rec_atomic_ack" => r.atomic_ack = v,
                    "rec_imm" => r.imm = v as u32,
                    "rec_ieth_rkey" => r.ieth_rkey = v as u32,
                    "rec_qkey" => r.qkey = v as u32,
                    "rec_src_qp" => r.src_qp = v as u32,
                    "rec_payload_len" => r.payload_len = v as usize,
                    "rec_host_sent" => r.host_sent = v == 1,
                    _ => unreachable!("record port {name}"),
                }
            }
            if r.host_sent {
                self.awaiting_host.push_back(self.records.len());
            }
            self.records.push(r);
        }
        // Records and host frames come in frame order; a record can lead the end of its host
        // frame by a cycle or two.
        while !self.awaiting_host.is_empty() && !self.host_frames.is_empty() {
            let i = self.awaiting_host.pop_front().expect("not empty");
            self.records[i].host = self.host_frames.pop_front();
        }
    }

    /// Feed one frame, with `gap(i)` idle cycles before beat i.
    pub fn send(&mut self, frame: &[u8], mut gap: impl FnMut(usize) -> usize) {
        self.first_beat_cycles.push(self.m.cycles);
        for (i, b) in beats(frame).iter().enumerate() {
            for _ in 0..gap(i) {
                self.step(None);
            }
            if i == 0 {
                *self.first_beat_cycles.last_mut().expect("pushed") = self.m.cycles;
            }
            self.step(Some(b));
        }
    }

    /// Idle until every frame fed so far has its record (or `max` cycles pass).
    /// Idle until every frame fed so far has its record and the buffered outputs are empty
    /// (or `max` cycles pass).
    pub fn drain(&mut self, frames: usize, max: u64) {
        let start = self.m.cycles;
        let mut quiet = 0;
        while (self.records.len() < frames || quiet < 16) && self.m.cycles - start < max {
            self.step(None);
            let busy = self.m.get(self.p.out_rec_valid) == 1 || self.m.get(self.p.out_pl_valid) == 1;
            quiet = if busy { 0 } else { quiet + 1 };
        }
    }

    pub fn records(&self) -> &[RxRecord] {
        &self.records
    }

    pub fn take_records(&mut self) -> Vec<RxRecord> {
        std::mem::take(&mut self.records)
    }

    /// An internal assumption of the pipeline broke (it latches; never expected).
    pub fn fault(&self) -> bool {
        self.m.get(self.p.fault) == 1
    }

    /// Accepted frames delivered on the buffered outputs so far: record and payload.
    pub fn delivered(&self) -> &[(RxRecord, Vec<u8>)] {
        &self.delivered
    }

    pub fn counters(&mut self) -> RxCounters {
        let mut c = RxCounters::default();
        self.m.set(self.p.counter_sel, 0);
        self.step(None);
        c.accepted = self.m.get(self.p.counter);
        for r in DropReason::ALL {
            self.m.set(self.p.counter_sel, r.code() as u64);
            self.step(None);
            c.dropped.push((r, self.m.get(self.p.counter)));
        }
        self.m.set(self.p.counter_sel, 16);
        self.step(None);
        c.no_buffer = self.m.get(self.p.counter);
        c
    }
}

/// Replay captured frames into a fresh receive pipeline, back to back, and return one record
/// per frame plus the counters. Frames without FCS are padded to the Ethernet minimum first, as
/// the sending MAC would have (`rnic_spec::wire::as_on_wire`).
///
/// With `trace`, every signal of the pipeline is dumped as a VCD waveform to that path.
pub fn replay(frames: &[Vec<u8>], fcs: bool, trace: Option<&str>) -> Result<(Vec<RxRecord>, RxCounters), SimError> {
    let mut rx = RxSim::new(fcs)?;
    if let Some(path) = trace {
        rx.model().trace(path)?;
    }
    for f in frames {
        rx.send(&rnic_spec::wire::as_on_wire(f, fcs), |_| 0);
    }
    rx.drain(frames.len(), 1_000_000);
    let counters = rx.counters();
    let records = rx.take_records();
    if records.len() != frames.len() {
        return Err(SimError::MissingRecords { frames: frames.len(), records: records.len() });
    }
    Ok((records, counters))
}
