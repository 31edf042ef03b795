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

/// Read `pcap` and replay it; `fcs` says the frames end with their Ethernet FCS; `trace` names
/// a VCD file for the waveform.
pub fn run(pcap: &Path, fcs: bool, trace: Option<&Path>) -> Result<Report, SimRxError> {
    let path = pcap.display().to_string();
    let bytes = std::fs::read(pcap).map_err(|err| SimRxError::Read { path: path.clone(), err })?;
    let frames = rnic_sim::pcap::read(&bytes).map_err(|err| SimRxError::Capture { path: path.clone(), err })?;
    if let Some(index) = frames.iter().position(|f| f.is_empty()) {
        return Err(SimRxError::EmptyFrame { path, index });
    }
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
