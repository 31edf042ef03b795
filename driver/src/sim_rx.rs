//! `rnic sim rx`: replay a capture into the RTL receive pipeline and report per frame.

use rnic_sim::rx::{RxCounters, RxRecord};
use rnic_spec::wire::Opcode;
use serde_json::json;
use std::fmt::Write as _;
use std::path::Path;

/// Why `rnic sim rx` could not run.
#[derive(Debug)]
pub enum SimRxError {
    Read { path: String, err: std::io::Error },
    Capture { path: String, err: rnic_sim::pcap::PcapError },
    EmptyFrame { path: String, index: usize },
    Sim(rnic_sim::SimError),
    Config { path: String, err: String },
    Card(String),
}

impl std::fmt::Display for SimRxError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            SimRxError::Read { path, err } => {
                write!(f, "cannot read {path}: {err} (give an existing pcap or pcapng file with --pcap)")
            }
            SimRxError::Capture { path, err } => write!(f, "{path}: {err}"),
            SimRxError::EmptyFrame { path, index } => {
                write!(f, "{path}: frame {index} is empty; a MAC delivers no empty frames (remove it from the capture)")
            }
            SimRxError::Sim(e) => write!(f, "simulator: {e}"),
            SimRxError::Config { path, err } => write!(f, "{path}: {err}"),
            SimRxError::Card(e) => write!(f, "simulated card: {e}"),
        }
    }
}

impl std::error::Error for SimRxError {}

/// The outcome of a replay.
#[derive(Debug)]
pub struct Report {
    pub records: Vec<RxRecord>,
    pub counters: RxCounters,
    /// Simulated clock cycles the replay took.
    pub cycles: u64,
}

/// The frames of a capture file, none empty.
pub fn read_capture(pcap: &Path) -> Result<Vec<Vec<u8>>, SimRxError> {
    let path = pcap.display().to_string();
    let bytes = std::fs::read(pcap).map_err(|err| SimRxError::Read { path: path.clone(), err })?;
    let frames = rnic_sim::pcap::read(&bytes).map_err(|err| SimRxError::Capture { path: path.clone(), err })?;
    if let Some(index) = frames.iter().position(|f| f.is_empty()) {
        return Err(SimRxError::EmptyFrame { path, index });
    }
    Ok(frames)
}

/// Read `pcap` and replay it; `fcs` says the frames end with their Ethernet FCS; `trace` names
/// a VCD file for the waveform.
pub fn run(pcap: &Path, fcs: bool, trace: Option<&Path>) -> Result<Report, SimRxError> {
    let frames = read_capture(pcap)?;
    let trace = trace.map(|t| t.display().to_string());
    let (records, counters) = rnic_sim::rx::replay(&frames, fcs, trace.as_deref()).map_err(SimRxError::Sim)?;
    let cycles = records.last().map_or(0, |r| r.cycle);
    Ok(Report { records, counters, cycles })
}

fn verdict(r: &RxRecord) -> (&'static str, &'static str) {
    match r.drop {
        None => ("accepted", "-"),
        Some(reason) => ("dropped", reason.name()),
    }
}

/// Opcode, destination QP and PSN mean something once the BTH was reached.
fn has_bth(r: &RxRecord) -> bool {
    use rnic_spec::wire::rx::DropReason as D;
    !matches!(
        r.drop,
        Some(D::Runt | D::NotRoce | D::Ipv4Checksum | D::Ipv4Options | D::Ipv4Fragment | D::IpLength | D::UdpLength | D::BthTruncated)
    )
}

impl Report {
    pub fn accepted(&self) -> usize {
        self.records.iter().filter(|r| r.drop.is_none()).count()
    }

    pub fn summary_line(&self) -> String {
        format!("{} accepted, {} dropped", self.accepted(), self.records.len() - self.accepted())
    }

    /// One JSON object per frame per line, then the summary object.
    pub fn json_lines(&self) -> String {
        let mut out = String::new();
        for (i, r) in self.records.iter().enumerate() {
            let (v, reason) = verdict(r);
            let bth = has_bth(r);
            let line = json!({
                "index": i,
                "verdict": v,
                "reason": if r.drop.is_some() { json!(reason) } else { json!(null) },
                "opcode": if bth { json!(r.opcode) } else { json!(null) },
                "dest_qp": if bth { json!(r.dest_qp) } else { json!(null) },
                "psn": if bth { json!(r.psn) } else { json!(null) },
            });
            writeln!(out, "{line}").expect("string");
        }
        let mut dropped = serde_json::Map::new();
        for (reason, n) in &self.counters.dropped {
            dropped.insert(reason.name().to_string(), json!(n));
        }
        let summary = json!({
            "summary": {
                "frames": self.records.len(),
                "accepted": self.accepted(),
                "dropped": self.records.len() - self.accepted(),
                "counters": { "accepted": self.counters.accepted, "dropped": dropped },
                "cycles": self.cycles,
            }
        });
        writeln!(out, "{summary}").expect("string");
        out
    }

    /// A table for people: one line per frame, the non-zero counters, the summary line.
    pub fn table(&self) -> String {
        let mut out = String::new();
        writeln!(out, "{:>5}  {:<8}  {:<16}  {:<40}  {:>8}  {:>8}", "frame", "verdict", "reason", "opcode", "dest_qp", "psn")
            .expect("string");
        for (i, r) in self.records.iter().enumerate() {
            let (v, reason) = verdict(r);
            let (op, qp, psn) = if has_bth(r) {
                let name = Opcode::lookup(r.opcode).map_or("unknown", |o| o.name);
                (format!("{name} ({:#04x})", r.opcode), format!("{:#08x}", r.dest_qp), format!("{:#08x}", r.psn))
            } else {
                ("-".into(), "-".into(), "-".into())
            };
            writeln!(out, "{i:>5}  {v:<8}  {reason:<16}  {op:<40}  {qp:>8}  {psn:>8}").expect("string");
        }
        writeln!(out, "\ncounters:").expect("string");
        writeln!(out, "  {:<18} {}", "accepted", self.counters.accepted).expect("string");
        for (reason, n) in &self.counters.dropped {
            if *n > 0 {
                writeln!(out, "  {:<18} {n}", reason.name()).expect("string");
            }
        }
        writeln!(out, "\n{} frames in {} cycles ({:.2} µs at 250 MHz)", self.records.len(), self.cycles, self.cycles as f64 / 250.0)
            .expect("string");
        writeln!(out, "{}", self.summary_line()).expect("string");
        out
    }
}

/// What a configured card did with a replayed capture: the frames it sent back (ACKs and
/// NAKs, without FCS) and all its counters.
#[derive(Debug)]
pub struct Responses {
    pub frames: Vec<Vec<u8>>,
    pub counters: Vec<(&'static str, &'static str, u32)>,
    /// Receive buffers in the configuration, and the receive completions the card wrote.
    pub recv_buffers: usize,
    pub receive_completions: Vec<rnic_spec::desc::Cqe>,
    /// Every write the card made to host memory, in order.
    pub dma_writes: Vec<DmaWrite>,
}

/// One write the card made to host memory (a run of bytes of one burst), and what it was for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DmaWrite {
    /// The card that wrote (0 for `rnic sim rx`).
    pub card: usize,
    pub cycle: u64,
    pub addr: u64,
    pub len: u32,
    pub target: DmaTarget,
}

/// Where a host write landed, by the configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DmaTarget {
    /// Inside the region of `key`: a WRITE's payload, or a SEND's in a [[recv]] buffer of QP
    /// `qpn`. `qpn` is None when neither a receive buffer nor a PD with a single QP names it.
    Region { key: u32, qpn: Option<u32> },
    /// A completion (CQE) in a completion ring, for QP `qpn` when known.
    Completion { qpn: Option<u32> },
    /// Outside every region and the ring: a card bug, never expected.
    Outside,
}

impl DmaWrite {
    pub fn json(&self) -> serde_json::Value {
        let (target, key, qpn) = match self.target {
            DmaTarget::Region { key, qpn } => ("region", Some(key), qpn),
            DmaTarget::Completion { qpn } => ("completion", None, qpn),
            DmaTarget::Outside => ("outside", None, None),
        };
        json!({ "card": self.card, "cycle": self.cycle, "addr": self.addr, "len": self.len, "target": target, "key": key, "qpn": qpn })
    }
}

/// Replay `frames` into a whole simulated card configured by `config` (`rnic_spec::config`),
/// paced as a 100 Gb/s link delivers them, and collect what the card sends in response.
pub fn respond(frames: &[Vec<u8>], config_path: &Path, fcs: bool) -> Result<Responses, SimRxError> {
    use crate::device::Device;
    use crate::sim_bus::SimCard;
    use rnic_spec::config::NicConfig;
    let path = config_path.display().to_string();
    let text = std::fs::read_to_string(config_path).map_err(|e| SimRxError::Config {
        path: path.clone(),
        err: format!("cannot read it: {e} (give a TOML file as documented in spec/src/config.rs)"),
    })?;
    let config = NicConfig::parse(&text).map_err(|e| SimRxError::Config { path: path.clone(), err: e.to_string() })?;
    let fcs = fcs || config.port.fcs;
    let card_err = |e: crate::device::DeviceError| SimRxError::Card(e.to_string());
    let nic = rnic_sim::nic::NicSim::new().map_err(SimRxError::Sim)?;
    let mut dev = Device::open(SimCard::new(nic)).map_err(card_err)?;
    dev.set_soft_fcs(fcs).map_err(card_err)?;
    dev.write_port(&config.port().map_err(|e| SimRxError::Config { path: path.clone(), err: e.to_string() })?).map_err(card_err)?;
    // The receive buffers: a ring per QP in this host's memory, and one CQ (CQ 0) for all
    // their completions.
    use crate::bus::Bus;
    use rnic_spec::desc::{doorbell, Cqe, RecvWqe, CQE_LEN, RECV_WQE_LEN};
    let bus_err = |e: crate::bus::BusError| SimRxError::Card(e.to_string());
    let cq_entries = config.recv.len().next_power_of_two();
    let cq_ring = dev.bus().dma_alloc(cq_entries * CQE_LEN, 4096).map_err(bus_err)?;
    dev.write_cq(0, cq_ring, cq_entries.trailing_zeros() as u8).map_err(card_err)?;
    let qps = config.qps().map_err(|e| SimRxError::Config { path: path.clone(), err: e.to_string() })?;
    for &(qpn, mut ctx) in &qps {
        let mine: Vec<_> = config.recv.iter().filter(|r| r.qpn == qpn).collect();
        let entries = mine.len().next_power_of_two();
        ctx.rq_base = dev.bus().dma_alloc(entries * RECV_WQE_LEN, 4096).map_err(bus_err)?;
        ctx.rq_log_size = entries.trailing_zeros() as u8;
        dev.write_qp(qpn, &ctx).map_err(card_err)?;
        for (i, r) in mine.iter().enumerate() {
            let wqe = RecvWqe { wr_id: i as u64, addr: r.addr, length: r.length, lkey: r.lkey };
            dev.bus().dma_write(ctx.rq_base + (i * RECV_WQE_LEN) as u64, &wqe.pack()).map_err(bus_err)?;
        }
        if !mine.is_empty() {
            dev.write("doorbell", "rq", doorbell(qpn as u16, mine.len() as u16)).map_err(card_err)?;
        }
    }
    let regions = config.regions().map_err(|e| SimRxError::Config { path: path.clone(), err: e.to_string() })?;
    for mr in &regions {
        dev.write_mr(mr).map_err(card_err)?;
    }
    let nic = &mut dev.bus().nic;
    nic.dma_write.log = Some(Vec::new());
    let before = nic.sent().len();
    // A 100 Gb/s link: each frame starts when the one before has had its wire time (preamble,
    // gap and FCS counted; fractions of a cycle carried over, so 64-byte requests come at the
    // wire's full rate and not rounded down to one per whole cycles).
    let start = nic.cycles();
    let mut due = 0.0;
    for f in frames {
        let frame = rnic_spec::wire::as_on_wire(f, fcs);
        let at = start + due as u64;
        if nic.cycles() < at {
            nic.idle(at - nic.cycles());
        }
        nic.receive(&frame);
        let with_fcs = frame.len() + if fcs { 0 } else { 4 };
        due += rnic_sim::world::wire_cycles(with_fcs, rnic_sim::world::LinkConfig::default().gbps);
    }
    // Then until the card has been quiet for 2,000 cycles: nothing sent and no DMA in flight
    // (an atomic's read-modify-write or a READ's host reads may still be running).
    let mut quiet = 0;
    for _ in 0..1_000 {
        let (frames, busy) = (nic.sent().len(), !(nic.dma_write.idle() && nic.dma_read.idle()));
        nic.idle(200);
        quiet = if busy || nic.sent().len() != frames { 0 } else { quiet + 200 };
        if quiet >= 2_000 {
            break;
        }
    }
    let sent: Vec<Vec<u8>> = nic.sent()[before..]
        .iter()
        .map(|(_, f)| if fcs { f[..f.len().saturating_sub(4)].to_vec() } else { f.clone() })
        .collect();
    let counters = dev.stats().map_err(card_err)?;
    let ring = dev.bus().dma_read(cq_ring, cq_entries * CQE_LEN).map_err(bus_err)?;
    let cqes: Vec<Cqe> = ring.chunks(CQE_LEN).map(|c| Cqe::parse(c.try_into().expect("a CQE"))).collect();
    let log = dev.bus().nic.dma_write.log.take().unwrap_or_default();
    let dma_writes = log
        .iter()
        .map(|w| {
            let target = if w.within(cq_ring, (cq_entries * CQE_LEN) as u64) {
                DmaTarget::Completion { qpn: Some(cqes[((w.addr - cq_ring) / CQE_LEN as u64) as usize].qpn) }
            } else if let Some(r) = regions.iter().find(|r| w.within(r.base, r.length as u64)) {
                let by_buffer = config.recv.iter().find(|b| b.lkey == r.key && w.within(b.addr, b.length as u64)).map(|b| b.qpn);
                let in_pd: Vec<u32> = qps.iter().filter(|(_, c)| c.pd == r.pd).map(|(n, _)| *n).collect();
                let only_in_pd = match in_pd[..] {
                    [only] => Some(only),
                    _ => None,
                };
                DmaTarget::Region { key: r.key, qpn: by_buffer.or(only_in_pd) }
            } else {
                DmaTarget::Outside
            };
            DmaWrite { card: 0, cycle: w.cycle, addr: w.addr, len: w.len, target }
        })
        .collect();
    let receive_completions = cqes.into_iter().filter(|c| c.owner == 1).collect();
    Ok(Responses { frames: sent, counters, recv_buffers: config.recv.len(), receive_completions, dma_writes })
}

impl Responses {
    pub fn table(&self) -> String {
        let mut out = String::from("\nconfigured card:\n");
        // (The receive pipeline's verdicts are the table above; the card's own buffer drops are
        // not: a frame the pipeline accepted may still find the receive buffer full.)
        for (b, n, v) in self.counters.iter().filter(|c| c.2 != 0 && (c.0 != "rx_counters" || c.1 == "no_buffer")) {
            writeln!(out, "  {:<28} {v}", format!("{b}.{n}")).expect("string");
        }
        if let Some(&(_, _, lost)) = self.counters.iter().find(|c| c.0 == "rx_counters" && c.1 == "no_buffer" && c.2 != 0) {
            writeln!(out, "  {lost} accepted frames were lost for lack of receive buffer: the responder fell behind the link (a peer resends them after a NAK or timeout)")
                .expect("string");
        }
        writeln!(out, "  {} frames sent in response", self.frames.len()).expect("string");
        for c in &self.receive_completions {
            let status = rnic_spec::desc::CqStatus::from_code(c.status).map_or(format!("status {}", c.status), |s| format!("{s:?}"));
            let imm = if c.flags & rnic_spec::desc::cqe_flags::IMM != 0 { format!(", immediate {:#010x}", c.imm) } else { String::new() };
            writeln!(out, "  receive completion: QP {:#x} buffer {} of its [[recv]] entries, {} bytes, {status}{imm}", c.qpn, c.wqe_index, c.byte_len)
                .expect("string");
        }
        writeln!(out, "  {} of {} receive buffers used", self.receive_completions.len(), self.recv_buffers).expect("string");
        let bytes = |f: fn(&DmaTarget) -> bool| self.dma_writes.iter().filter(|w| f(&w.target)).map(|w| w.len as u64).sum::<u64>();
        writeln!(
            out,
            "  host writes: {} bytes into regions, {} bytes of completions, {} bytes outside both",
            bytes(|t| matches!(t, DmaTarget::Region { .. })),
            bytes(|t| matches!(t, DmaTarget::Completion { .. })),
            bytes(|t| matches!(t, DmaTarget::Outside)),
        )
        .expect("string");
        out
    }

    /// The host write log: one JSON object per write per line.
    pub fn dma_log(&self) -> String {
        self.dma_writes.iter().map(|w| format!("{}\n", w.json())).collect()
    }

    pub fn json(&self) -> serde_json::Value {
        let mut m = serde_json::Map::new();
        for (b, n, v) in &self.counters {
            m.insert(format!("{b}.{n}"), json!(v));
        }
        let receives: Vec<_> = self
            .receive_completions
            .iter()
            .map(|c| json!({ "qpn": c.qpn, "recv_index": c.wqe_index, "byte_len": c.byte_len, "status": c.status, "imm": c.imm, "flags": c.flags }))
            .collect();
        json!({ "responses": self.frames.len(), "counters": m, "receive_completions": receives, "host_writes": self.dma_writes.len() })
    }
}
