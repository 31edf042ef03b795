//! Benchmarks of the RTL in simulated clock cycles (250 MHz core clock).

use crate::rx::RxSim;
use rnic_spec::wire::eth::EthHeader;
use rnic_spec::wire::ib::{Bth, Ext, Reth};
use rnic_spec::wire::ip::Ipv4Header;
use rnic_spec::wire::packet::{IpHeader, RocePacket};
use rnic_spec::wire::rx::DropReason;

/// Core clock of the datapath.
pub const CLOCK_MHZ: f64 = 250.0;

/// Nanoseconds at [`CLOCK_MHZ`] of a (fractional) cycle count, as captures stamp frames.
pub fn ns_of(cycles: f64) -> u64 {
    (cycles * 1000.0 / CLOCK_MHZ) as u64
}

/// One row of the receive benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct RxBench {
    /// Wire frame size asked for, FCS included.
    pub target_size: usize,
    /// Size of the frames sent (FCS included): RoCE frames are 2 mod 4 bytes long, so the
    /// largest RoCE frame not above the target.
    pub frame_size: usize,
    pub frames: usize,
    /// Verdict of every frame (all equal).
    pub verdict: Option<DropReason>,
    /// Input beats, sent back to back: one per cycle.
    pub beats: u64,
    /// Cycles from the first beat in to the last record out.
    pub cycles: u64,
    /// Cycles from a frame's first beat in to its record out (first frame, pipeline empty).
    pub latency_first_beat: u64,
    /// Cycles from a frame's last beat in to its record out.
    pub latency_last_beat: u64,
    /// The same for the last frame: equal to the first when nothing backs up.
    pub latency_last_beat_final: u64,
    /// Wall-clock seconds the simulation took (for the simulator's speed, not the NIC's).
    pub sim_seconds: f64,
    /// Payload bytes per frame.
    pub payload: usize,
    /// Payload bytes delivered on the buffered payload output, all frames.
    pub payload_bytes: u64,
}

impl RxBench {
    /// Frame bytes accepted per cycle while frames arrive back to back.
    pub fn bytes_per_cycle(&self) -> f64 {
        (self.frame_size * self.frames) as f64 / self.beats as f64
    }
    /// How many cycles later the last frame's record came than the first's, relative to their
    /// last beats: 0 when the pipeline keeps up with one beat per cycle.
    pub fn backlog(&self) -> i64 {
        self.latency_last_beat_final as i64 - self.latency_last_beat as i64
    }
}

/// A RoCE v2 frame over IPv4 of `size` bytes with FCS, or the largest below it, and its
/// payload length: an RDMA WRITE Only, or a SEND Only where a RETH does not fit. Frames larger
/// than PMTU 4096 allows are built all the same and get dropped as too long.
pub fn roce_frame(size: usize, seq: u32) -> (Vec<u8>, usize) {
    const BASE: usize = 14 + 20 + 8 + 12 + 4 + 4; // Eth, IPv4, UDP, BTH, ICRC, FCS
    let write = size >= BASE + 16;
    let (opcode, ext_len) = if write { (0x0A, 16) } else { (0x04, 0) };
    let payload = size.saturating_sub(BASE + ext_len) & !3;
    let ip = IpHeader::V4(Ipv4Header { src: [192, 0, 2, 1], dst: [192, 0, 2, 2], ..Default::default() });
    let eth = EthHeader { dst: [2, 0, 0, 0, 0, 0xb], src: [2, 0, 0, 0, 0, 0xa], ..Default::default() };
    let bth = Bth { opcode, dest_qp: 0x11, psn: seq & 0xFF_FFFF, ..Default::default() };
    let ext = if write { vec![Ext::Reth(Reth { va: 0x1000, rkey: 0x77, dma_len: payload as u32 })] } else { vec![] };
    let p = RocePacket::new(eth, ip, bth, ext, (0..payload).map(|i| i as u8).collect());
    (p.frame_with_fcs(), payload)
}

/// Send `frames` frames of about `size` bytes back to back (one beat per cycle, no idle) into
/// the receive pipeline with FCS checking on, and measure.
pub fn rx_line_rate(size: usize, frames: usize) -> RxBench {
    let mut rx = RxSim::new(true).expect("rnic_rx model");
    let (frame, payload) = roce_frame(size, 0);
    let all: Vec<Vec<u8>> = (0..frames).map(|i| roce_frame(size, i as u32).0).collect();
    let wall = std::time::Instant::now();
    let start = rx.cycles();
    for f in &all {
        rx.send(f, |_| 0);
    }
    let beats = rx.cycles() - start;
    let last_in = rx.cycles();
    rx.drain(frames, 100_000);
    let sim_seconds = wall.elapsed().as_secs_f64();
    let records = rx.records();
    assert_eq!(records.len(), frames, "one record per frame");
    let verdict = records[0].drop;
    assert!(records.iter().all(|r| r.drop == verdict), "all frames alike");
    let beats_per_frame = frame.len().div_ceil(64) as u64;
    let first = &records[0];
    let last = records.last().expect("records");
    RxBench {
        target_size: size,
        frame_size: frame.len(),
        frames,
        verdict,
        beats,
        cycles: last.cycle - start,
        latency_first_beat: first.cycle - rx.first_beat_cycles[0],
        latency_last_beat: first.cycle - (rx.first_beat_cycles[0] + beats_per_frame - 1),
        latency_last_beat_final: last.cycle - (last_in - 1),
        sim_seconds,
        payload,
        payload_bytes: rx.delivered().iter().map(|(_, p)| p.len() as u64).sum(),
    }
}

/// The benchmark's frame sizes (wire bytes with FCS).
pub const RX_SIZES: [usize; 6] = [64, 128, 256, 1024, 4096, 9000];

/// One row of the transmit benchmark.
#[derive(Debug, Clone, PartialEq)]
pub struct TxBench {
    pub payload: usize,
    /// Frame bytes, FCS included.
    pub frame_size: usize,
    pub frames: usize,
    /// Beats out, all frames.
    pub beats: u64,
    /// Cycles from the first frame's last beat to the last frame's last beat.
    pub steady_cycles: u64,
    /// Cycles from the first descriptor offered to the first frame's last beat out (empty
    /// engine; the whole frame is buffered before it goes out).
    pub latency: u64,
    pub sim_seconds: f64,
    pub cycles: u64,
}

impl TxBench {
    /// Output beats per cycle once frames flow (1.0 = the datapath's limit).
    pub fn beats_per_cycle(&self) -> f64 {
        let per_frame = self.frame_size.div_ceil(64) as f64;
        per_frame * (self.frames - 1) as f64 / self.steady_cycles as f64
    }
    /// Frame bytes per cycle once frames flow.
    pub fn bytes_per_cycle(&self) -> f64 {
        (self.frame_size * (self.frames - 1)) as f64 / self.steady_cycles as f64
    }
}

/// A packet between 192.0.2.1 and 192.0.2.2 (IPv4, no VLAN) to QP 0x11 with `opcode`, `psn`
/// and `payload_len` bytes; its RETH (used by the opcodes that carry one) covers the payload.
pub fn bench_descriptor(opcode: u8, psn: u32, payload_len: u16) -> rnic_spec::wire::tx::TxDescriptor {
    use rnic_spec::wire::tx::{IpPair, TxDescriptor};
    TxDescriptor {
        eth_dst: [2, 0, 0, 0, 0, 0xb],
        eth_src: [2, 0, 0, 0, 0, 0xa],
        vlan: None,
        ip: IpPair::V4 { src: [192, 0, 2, 1], dst: [192, 0, 2, 2] },
        dscp: 26,
        ecn: 2,
        ttl: 64,
        flow_label: 0,
        udp_src_port: 0xC011,
        opcode,
        se: false,
        pkey: 0xFFFF,
        dest_qp: 0x11,
        ack_req: true,
        psn,
        reth: Reth { va: 0x1000, rkey: 0x77, dma_len: payload_len as u32 },
        imm: 0,
        aeth: Default::default(),
        atomic: Default::default(),
        payload_len,
    }
}

/// RDMA WRITE Only packets over IPv4 with `payload` bytes each, FCS on, back to back with the
/// consumer always ready.
pub fn tx_line_rate(payload: usize, frames: usize) -> TxBench {
    use crate::tx::TxSim;
    assert!(frames >= 2, "the steady state needs two frames");
    let mut tx = TxSim::new(true).expect("rnic_tx model");
    let data: Vec<u8> = (0..payload).map(|i| i as u8).collect();
    for i in 0..frames {
        tx.queue(bench_descriptor(0x0A, i as u32, payload as u16), &data);
    }
    let wall = std::time::Instant::now();
    tx.run_until(frames, 100 * frames as u64 * (payload as u64 / 64 + 4));
    let sim_seconds = wall.elapsed().as_secs_f64();
    let out = tx.frames();
    assert_eq!(out.len(), frames, "every frame out");
    let frame_size = out[0].1.len();
    TxBench {
        payload,
        frame_size,
        frames,
        beats: out.iter().map(|(_, f)| f.len().div_ceil(64) as u64).sum(),
        steady_cycles: out[frames - 1].0 - out[0].0,
        latency: out[0].0,
        sim_seconds,
        cycles: tx.cycles(),
    }
}

/// Payload sizes of the transmit benchmark.
pub const TX_PAYLOADS: [usize; 6] = [0, 64, 256, 1024, 2048, 4096];
