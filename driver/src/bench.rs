//! `rnic sim bench`: benchmark tables from the simulator, in clock cycles with µs at 250 MHz.

use rnic_sim::bench::{rx_line_rate, tx_line_rate, RxBench, TxBench, CLOCK_MHZ, RX_SIZES, TX_PAYLOADS};
use serde_json::json;
use std::fmt::Write as _;

/// One benchmark row and how fast the simulator ran it.
pub struct Row {
    pub bench: RxBench,
    /// Simulated cycles per second of wall time.
    pub sim_cycles_per_s: f64,
}

pub fn rx(frames: usize) -> Vec<Row> {
    RX_SIZES
        .iter()
        .map(|&size| {
            let bench = rx_line_rate(size, frames);
            let sim_cycles_per_s = bench.cycles as f64 / bench.sim_seconds;
            Row { bench, sim_cycles_per_s }
        })
        .collect()
}

pub fn rx_table(rows: &[Row]) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "{:>6} {:>6} {:>6} {:<16} {:>8} {:>7} {:>7} {:>16} {:>16} {:>7} {:>9}",
        "target", "frame", "frames", "verdict", "beats", "B/cycle", "Gb/s", "first beat→rec", "last beat→rec", "backlog", "sim c/s"
    )
    .expect("string");
    for r in rows {
        let b = &r.bench;
        let verdict = b.verdict.map_or("accepted", |d| d.name());
        writeln!(
            out,
            "{:>6} {:>6} {:>6} {:<16} {:>8} {:>7.2} {:>7.1} {:>5} ({:>6.3} µs) {:>5} ({:>6.3} µs) {:>7} {:>8.2}M",
            b.target_size,
            b.frame_size,
            b.frames,
            verdict,
            b.beats,
            b.bytes_per_cycle(),
            b.bytes_per_cycle() * 8.0 * CLOCK_MHZ / 1000.0,
            b.latency_first_beat,
            b.latency_first_beat as f64 / CLOCK_MHZ,
            b.latency_last_beat,
            b.latency_last_beat as f64 / CLOCK_MHZ,
            b.backlog(),
            r.sim_cycles_per_s / 1e6
        )
        .expect("string");
    }
    writeln!(
        out,
        "\nFrames back to back at one 64-byte beat per cycle ({CLOCK_MHZ} MHz), FCS checked. B/cycle counts frame \
         bytes (a frame's last beat is partly empty; RoCE frames are 2 mod 4 bytes long). Latencies run from a \
         frame's first / last beat in to its header record out; backlog is how much later the last frame's record \
         came than the first's (0: the pipeline keeps up). 9000-byte frames exceed PMTU 4096 and are dropped, \
         at line rate."
    )
    .expect("string");
    out
}

pub fn rx_json(rows: &[Row]) -> String {
    let mut out = String::new();
    for r in rows {
        let b = &r.bench;
        let line = json!({
            "target_size": b.target_size,
            "frame_size": b.frame_size,
            "frames": b.frames,
            "verdict": b.verdict.map_or("accepted", |d| d.name()),
            "beats": b.beats,
            "cycles": b.cycles,
            "backlog_cycles": b.backlog(),
            "bytes_per_cycle": b.bytes_per_cycle(),
            "latency_first_beat_cycles": b.latency_first_beat,
            "latency_last_beat_cycles": b.latency_last_beat,
            "latency_last_beat_final_cycles": b.latency_last_beat_final,
            "payload_bytes": b.payload_bytes,
            "sim_cycles_per_s": r.sim_cycles_per_s,
        });
        writeln!(out, "{line}").expect("string");
    }
    out
}

pub fn tx(frames: usize) -> Vec<TxBench> {
    TX_PAYLOADS.iter().map(|&p| tx_line_rate(p, frames)).collect()
}

pub fn tx_table(rows: &[TxBench]) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "{:>7} {:>6} {:>6} {:>8} {:>11} {:>7} {:>7} {:>7} {:>18} {:>9}",
        "payload", "frame", "frames", "beats", "beats/cycle", "B/cycle", "Gb/s", "Mpps", "latency", "sim c/s"
    )
    .expect("string");
    for b in rows {
        let mpps = CLOCK_MHZ * b.beats_per_cycle() / b.frame_size.div_ceil(64) as f64;
        writeln!(
            out,
            "{:>7} {:>6} {:>6} {:>8} {:>11.3} {:>7.2} {:>7.1} {:>7.1} {:>5} ({:>6.3} µs) {:>8.2}M",
            b.payload,
            b.frame_size,
            b.frames,
            b.beats,
            b.beats_per_cycle(),
            b.bytes_per_cycle(),
            b.bytes_per_cycle() * 8.0 * CLOCK_MHZ / 1000.0,
            mpps,
            b.latency,
            b.latency as f64 / CLOCK_MHZ,
            b.cycles as f64 / b.sim_seconds / 1e6
        )
        .expect("string");
    }
    writeln!(
        out,
        "\nRDMA WRITE Only over IPv4 with FCS, descriptors and payload always available, the consumer always ready, \
         {CLOCK_MHZ} MHz. Gb/s counts frame bytes at the engine's output (the 100 GbE wire adds preamble and gap and \
         is the tighter limit). Latency: first descriptor in to the first frame's last beat out; the engine buffers a \
         whole frame before sending it, so a MAC never underruns."
    )
    .expect("string");
    out
}

pub fn tx_json(rows: &[TxBench]) -> String {
    let mut out = String::new();
    for b in rows {
        let line = json!({
            "payload": b.payload,
            "frame_size": b.frame_size,
            "frames": b.frames,
            "beats": b.beats,
            "beats_per_cycle": b.beats_per_cycle(),
            "bytes_per_cycle": b.bytes_per_cycle(),
            "latency_cycles": b.latency,
            "sim_cycles_per_s": b.cycles as f64 / b.sim_seconds,
        });
        writeln!(out, "{line}").expect("string");
    }
    out
}

/// One goodput run through the driver: two simulated cards, `qps` connected QP pairs,
/// `messages` RDMA WRITEs or SENDs (into receive buffers posted before) of `size` bytes posted
/// round-robin and rung one doorbell each.
#[derive(Debug, Clone)]
pub struct WriteBench {
    pub op: &'static str,
    pub size: usize,
    pub pmtu: u32,
    pub qps: usize,
    pub messages: usize,
    pub packets: usize,
    /// Packets the receiving card placed in memory (each once, however often it was sent).
    pub placed: usize,
    /// Messages completed (all, unless the cycle budget ran out).
    pub completed: usize,
    /// Packets sent again (go-back-N after a loss on the link or a drop by the receiver).
    pub resent: usize,
    /// Cycles the receiving card's responder waited for a receive WQE (`rq_wait_cycles`).
    pub rq_wait_cycles: u32,
    /// Cycles from the first doorbell to the first frame's first bit on the wire.
    pub first_frame_cycles: f64,
    /// Cycles from the first frame's first bit to the last frame's last bit.
    pub cycles: f64,
    /// The same run as perftest's bandwidth tools reduce it: from each message's post to its
    /// send completion (`BwResult::from_times`).
    pub perftest: crate::perftest::BwResult,
    pub payload_bytes: u64,
    /// Bytes the data frames took on the wire: frames, FCS, preamble and inter-frame gap.
    pub wire_bytes: u64,
    pub link_gbps: f64,
    pub sim_seconds: f64,
}

impl WriteBench {
    pub fn gbps(&self) -> f64 {
        self.payload_bytes as f64 * 8.0 / (self.cycles / CLOCK_MHZ * 1000.0)
    }
    /// The goodput the link allows for these frames.
    pub fn limit_gbps(&self) -> f64 {
        self.link_gbps * self.payload_bytes as f64 / self.wire_bytes as f64
    }
    pub fn fraction(&self) -> f64 {
        self.gbps() / self.limit_gbps()
    }
    /// Messages per second, in millions.
    pub fn mmsgs(&self) -> f64 {
        self.messages as f64 / (self.cycles / CLOCK_MHZ)
    }
    /// The message rate the link allows for these frames, in millions per second.
    pub fn msg_limit(&self) -> f64 {
        self.limit_gbps() * 1e3 / (8.0 * self.size as f64)
    }
}

/// Message sizes of the WRITE benchmark: 64 B to 1 MiB in powers of 4.
pub const WRITE_SIZES: [usize; 8] = [64, 256, 1 << 10, 4 << 10, 16 << 10, 64 << 10, 256 << 10, 1 << 20];

/// Simulated cycles a goodput row may take.
pub const BENCH_BUDGET_CYCLES: u64 = 5_000_000;

/// Run one goodput measurement of `op` (WRITE, SEND or READ; SENDs go into receive buffers
/// posted before the first; READs read card 1's memory into card 0's) moving about `bytes`
/// (at least 64 messages, at most 512).
pub fn goodput(op: rnic_spec::desc::SendOp, size: usize, pmtu: u32, qps: usize, bytes: usize) -> Result<WriteBench, String> {
    goodput_over(op, size, pmtu, qps, bytes, rnic_sim::world::Faults::default())
}

/// [`goodput`] over a link with `faults` (percent per frame).
pub fn goodput_over(
    op: rnic_spec::desc::SendOp,
    size: usize,
    pmtu: u32,
    qps: usize,
    bytes: usize,
    faults: rnic_sim::world::Faults,
) -> Result<WriteBench, String> {
    use crate::sim_pair::{qp_pair, try_two_cards, PathKind};
    use crate::verbs::{QpCaps, RecvWr, SendWr};
    use rnic_spec::desc::SendOp;
    use rnic_spec::qp::packet_count;
    use rnic_sim::world::{LinkConfig, WIRE_OVERHEAD};
    let started = std::time::Instant::now();
    let link = LinkConfig { faults, ..LinkConfig::default() };
    let (world, mut a, mut b) = try_two_cards(link).map_err(|e| e.to_string())?;
    let e = |e: crate::verbs::VerbsError| e.to_string();
    let (pa, pb) = (a.alloc_pd().map_err(e)?, b.alloc_pd().map_err(e)?);
    let messages = (bytes / size).clamp(64, 512).div_ceil(qps) * qps;
    let per_qp = messages / qps;
    let src = a.alloc_buf(size, 4096).map_err(e)?;
    let dst = b.alloc_buf(size * qps, 4096).map_err(e)?;
    // A READ's data flows from card 1 to card 0: its responses are the data frames.
    let reading = op == SendOp::Read;
    use rnic_spec::mr::access::{LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE};
    let lmr = a.reg_mr(pa, src.iova, size as u32, if reading { LOCAL_WRITE } else { 0 }).map_err(e)?;
    let access = REMOTE_WRITE | LOCAL_WRITE | REMOTE_READ;
    let rmr = b.reg_mr(pb, dst.iova, (size * qps) as u32, access).map_err(e)?;
    let kind = PathKind { v6: false, vlan: None, pmtu };
    let cq_entries = (messages as u32).next_power_of_two();
    let (mut cqa, cqb) = (a.create_cq(cq_entries).map_err(e)?, b.create_cq(cq_entries).map_err(e)?);
    // Send queues hold at most 2^SQ_LOG_SIZE_MAX WQEs: more messages are posted as
    // completions free slots, as perftest keeps its tx depth topped up.
    let sq_entries = (per_qp.next_power_of_two() as u32).min(1 << rnic_spec::qp::SQ_LOG_SIZE_MAX);
    let mut pairs = (0..qps)
        .map(|_| {
            let entries = per_qp.next_power_of_two() as u32;
            qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, QpCaps { sq_entries, rq_entries: entries }, (0, 0))
        })
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)?;
    // A packet the receiving card drops with nothing behind it is resent within the row's budget.
    // A READ's timer runs while its responses wait behind the other READs' (16 QPs × 8 × 1 MiB
    // take milliseconds): its timeout covers twice the wire time of all READs outstanding.
    let timeout = match reading {
        true => {
            let wire_us = (qps * rnic_spec::qp::RD_SLOTS as usize * size) as f64 * 8.0 / (link.gbps * 1000.0);
            ((2.0 * wire_us / 4.096).log2().ceil() as u8).max(crate::sim_pair::LOSSY_LINK_TIMEOUT)
        }
        false => crate::sim_pair::LOSSY_LINK_TIMEOUT,
    };
    let attr = crate::verbs::QpAttr { timeout: Some(timeout), ..Default::default() };
    for (qa, _) in pairs.iter_mut() {
        a.modify_qp(qa, crate::verbs::QpState::Rts, &attr).map_err(e)?;
    }
    if op == SendOp::Send {
        for (i, (_, qb)) in pairs.iter_mut().enumerate() {
            let wr = RecvWr { wr_id: 0, addr: dst.iova + (i * size) as u64, length: size as u32, lkey: rmr.key() };
            b.post_recv(qb, &vec![wr; per_qp]).map_err(e)?;
        }
    }
    let start = world.borrow().cycles();
    // When each message was posted and when its send completion was written (card 0's CQE
    // writes into its ring), in the card's cycles.
    world.borrow_mut().nics[0].dma_write.log = Some(Vec::new());
    let mut post_cycles = Vec::with_capacity(messages);
    let mut posted = vec![0; qps];
    let mut completed = 0;
    // Post what the send queues take, run, poll; until every message has completed (a packet
    // the receiver dropped is sent again) or the cycle budget is spent.
    loop {
        for _ in 0..per_qp {
            for (i, (qa, _)) in pairs.iter_mut().enumerate() {
                if posted[i] == per_qp || a.sq_free(qa) == 0 {
                    continue;
                }
                let wr = SendWr {
                    wr_id: 0,
                    op,
                    flags: 0,
                    local_addr: src.iova,
                    length: size as u32,
                    lkey: lmr.key(),
                    remote_addr: dst.iova + (i * size) as u64,
                    rkey: rmr.key(),
                    imm: 0,
                    atomic: Default::default(),
                };
                a.post_send(qa, &wr).map_err(e)?;
                post_cycles.push(world.borrow().nics[0].cycles());
                posted[i] += 1;
            }
        }
        if completed == messages || world.borrow().cycles() - start > BENCH_BUDGET_CYCLES {
            break;
        }
        world.borrow_mut().run_until(2_000, |_| false);
        completed += a.poll_cq(&mut cqa, cq_entries as usize).map_err(e)?.len();
    }
    let packets = messages * packet_count(size as u32, pmtu.trailing_zeros() as u8) as usize;
    world.borrow_mut().run_until(2_000, |_| false);
    let placed = match reading {
        true => a.dev.read("responder", "read_placed"),
        false => b.dev.read("responder", "placed"),
    }
    .map_err(|e| e.to_string())? as usize;
    let rq_wait_cycles = b.dev.read("responder", "rq_wait_cycles").map_err(|e| e.to_string())?;
    let ring = cqa.ring();
    let done_cycles: Vec<u64> = world.borrow_mut().nics[0].dma_write.log.take().unwrap_or_default()
        .iter()
        .filter(|w| w.within(ring.iova, ring.len as u64))
        .flat_map(|w| std::iter::repeat_n(w.cycle, w.len as usize / rnic_spec::desc::CQE_LEN))
        .collect();
    let perftest = crate::perftest::BwResult::from_times(size as u32, &post_cycles, &done_cycles)
        .ok_or_else(|| format!("{op:?} of {size} bytes: no send completion was written"))?;
    let w = world.borrow();
    let frames: Vec<(u64, &Vec<u8>)> = w.sent_by(if reading { 1 } else { 0 }).collect();
    let wire_bytes: u64 = frames.iter().map(|f| (f.1.len() + 4 + WIRE_OVERHEAD) as u64).sum();
    let last = frames.last().expect("frames");
    let cycles_of = |ns: u64| ns as f64 * CLOCK_MHZ / 1000.0;
    let first = cycles_of(frames[0].0);
    let end = cycles_of(last.0) + w.wire_cycles(last.1.len() + 4);
    Ok(WriteBench {
        op: match op {
            SendOp::Send | SendOp::SendImm => "SEND",
            SendOp::Read => "READ",
            SendOp::Write | SendOp::WriteImm => "WRITE",
            SendOp::CmpSwap | SendOp::FetchAdd => "ATOMIC",
        },
        size,
        pmtu,
        qps,
        messages,
        packets,
        placed,
        completed,
        resent: frames.len().saturating_sub(packets),
        rq_wait_cycles,
        first_frame_cycles: first - start as f64,
        cycles: end - first,
        perftest,
        payload_bytes: (completed * size) as u64,
        wire_bytes,
        link_gbps: link.gbps,
        sim_seconds: started.elapsed().as_secs_f64(),
    })
}

pub fn write(bytes: usize) -> Result<Vec<WriteBench>, String> {
    let mut out = Vec::new();
    for qps in [1, 16] {
        for pmtu in [1024, 4096] {
            for size in WRITE_SIZES {
                out.push(goodput(rnic_spec::desc::SendOp::Write, size, pmtu, qps, bytes)?);
            }
        }
    }
    Ok(out)
}

/// 64 KiB WRITE goodput at PMTU 4096, 1 and 16 QPs, over a link losing `loss` percent of
/// frames in each direction (seed 1).
pub fn write_lossy(bytes: usize, loss: f64) -> Result<Vec<WriteBench>, String> {
    let faults = rnic_sim::world::Faults { seed: 1, loss, ..Default::default() };
    [1, 16].into_iter().map(|qps| goodput_over(rnic_spec::desc::SendOp::Write, 65536, 4096, qps, bytes, faults)).collect()
}

/// RDMA READ goodput: the sizes of `WRITE_SIZES`, PMTU 4096, 1 and 16 QPs (each QP with 8
/// READs outstanding at most, `max_rd_atomic`).
pub fn read(bytes: usize) -> Result<Vec<WriteBench>, String> {
    let mut out = Vec::new();
    for qps in [1, 16] {
        for size in WRITE_SIZES {
            out.push(goodput(rnic_spec::desc::SendOp::Read, size, 4096, qps, bytes)?);
        }
    }
    Ok(out)
}

/// SEND goodput: the sizes of `WRITE_SIZES`, PMTU 4096, 1 and 16 QPs.
pub fn send(bytes: usize) -> Result<Vec<WriteBench>, String> {
    let mut out = Vec::new();
    for qps in [1, 16] {
        for size in WRITE_SIZES {
            out.push(goodput(rnic_spec::desc::SendOp::Send, size, 4096, qps, bytes)?);
        }
    }
    Ok(out)
}

pub fn write_table(rows: &[WriteBench]) -> String {
    let mut out = String::new();
    writeln!(
        out,
        "{:<5} {:>8} {:>5} {:>4} {:>5} {:>6} {:>6} {:>9} {:>9} {:>7} {:>7} {:>6} {:>7} {:>16}",
        "op", "size", "pmtu", "qps", "msgs", "pkts", "placed", "cycles", "µs", "Gb/s", "limit", "of lim", "Mmsg/s", "first frame"
    )
    .expect("string");
    for r in rows {
        writeln!(
            out,
            "{:<5} {:>8} {:>5} {:>4} {:>5} {:>6} {:>6} {:>9.0} {:>9.2} {:>7.2} {:>7.2} {:>5.1}% {:>7.2} {:>5.0} ({:>5.2} µs)",
            r.op,
            r.size,
            r.pmtu,
            r.qps,
            r.messages,
            r.packets,
            r.placed,
            r.cycles,
            r.cycles / CLOCK_MHZ,
            r.gbps(),
            r.limit_gbps(),
            100.0 * r.fraction(),
            r.mmsgs(),
            r.first_frame_cycles,
            r.first_frame_cycles / CLOCK_MHZ
        )
        .expect("string");
        if r.completed < r.messages {
            writeln!(
                out,
                "      only {} of {} messages completed in {} M cycles: go-back-N resends what the receiving card drops, and it drops again",
                r.completed,
                r.messages,
                BENCH_BUDGET_CYCLES / 1_000_000
            )
            .expect("string");
        }
        if r.resent > 0 {
            writeln!(out, "      {} packets sent again: go-back-N from each gap (a packet lost on the link, or dropped by a full receive buffer)", r.resent)
                .expect("string");
        }
    }
    // perftest's own columns (`ib_write_bw --report_gbits`), beside the wire's limit.
    writeln!(
        out,
        "\n{:<5} {:>8} {:>5} {:>4} {:>11} {:>15} {:>18} {:>13} {:>11} {:>6}",
        "op", "#bytes", "pmtu", "qps", "#iterations", "BW peak[Gb/sec]", "BW average[Gb/sec]", "MsgRate[Mpps]", "limit[Gb/s]", "of lim"
    )
    .expect("string");
    for r in rows {
        let avg = crate::perftest::BwResult::gbps(r.perftest.avg_mbs);
        writeln!(
            out,
            "{:<5} {:>8} {:>5} {:>4} {:>11} {:>15.2} {:>18.2} {:>13.2} {:>11.2} {:>5.1}%",
            r.op,
            r.size,
            r.pmtu,
            r.qps,
            r.perftest.iters,
            crate::perftest::BwResult::gbps(r.perftest.peak_mbs),
            avg,
            r.perftest.msg_rate_mpps,
            r.limit_gbps(),
            100.0 * avg / r.limit_gbps()
        )
        .expect("string");
    }
    writeln!(
        out,
        "\nThrough the driver between two simulated cards on a {} Gb/s link (preamble and gap counted), IPv4, \
         host memory 800 ns read / 400 ns write away, {CLOCK_MHZ} MHz. Gb/s is payload sent over the time from the \
         first frame's first bit to the last frame's last bit, until every message has completed; limit is the \
         goodput the link allows for the same frames (resends included); placed: packets the receiving card wrote \
         to memory, each once; first frame: from the first doorbell to the first bit on the wire. The second table \
         reduces the same runs as perftest's bandwidth tools do: BW average from the first post to the last send \
         completion, BW peak over the best run of consecutive messages from post to completion, MsgRate the \
         average message rate (Gb is 10^9 bits, as --report_gbits).",
        rows.first().map_or(100.0, |r| r.link_gbps)
    )
    .expect("string");
    out
}

/// Draws goodput and message rate against message size, one line per op, QP count and PMTU,
/// with the wire's limit for the same frames drawn dashed beside each: an SVG at `path`.
pub fn write_plot(rows: &[WriteBench], path: &std::path::Path) -> Result<(), String> {
    use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
    use plotters::prelude::*;
    type Groups<'a> = [(String, Vec<&'a WriteBench>)];
    /// A row's value and the wire's limit for it.
    type Measure = (fn(&WriteBench) -> f64, fn(&WriteBench) -> f64);

    /// One chart: a solid line per group of `y` and a dashed one of `limit`, the legend at
    /// `legend`.
    fn chart<Y: AsRangedCoord<Value = f64>>(
        area: &DrawingArea<SVGBackend, plotters::coord::Shift>,
        (caption, y_desc, legend): (&str, &str, SeriesLabelPosition),
        x: std::ops::Range<f64>,
        y_range: Y,
        groups: &Groups,
        (y, limit): Measure,
    ) -> Result<(), String>
    where
        Y::CoordDescType: ValueFormatter<f64>,
    {
        let e = |x: &dyn std::fmt::Display| x.to_string();
        // x is log2 of the size: a tick per power of two.
        let size_label = |v: &f64| match 2f64.powf(v.round()) as u64 {
            n if n >= 1 << 20 => format!("{} MiB", n >> 20),
            n if n >= 1 << 10 => format!("{} KiB", n >> 10),
            n => format!("{n} B"),
        };
        let ticks = (x.end - x.start) as usize + 1;
        let mut chart = ChartBuilder::on(area)
            .caption(caption, ("sans-serif", 20))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(60)
            .build_cartesian_2d(x, y_range)
            .map_err(|x| e(&x))?;
        chart.configure_mesh().x_desc("message size").y_desc(y_desc).x_labels(ticks).x_label_formatter(&size_label).draw().map_err(|x| e(&x))?;
        for (i, (name, g)) in groups.iter().enumerate() {
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series(LineSeries::new(g.iter().map(|r| ((r.size as f64).log2(), y(r))), color.stroke_width(2)))
                .map_err(|x| e(&x))?
                .label(name.clone())
                .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(2)));
            chart
                .draw_series(DashedLineSeries::new(g.iter().map(|r| ((r.size as f64).log2(), limit(r))), 6, 4, color.mix(0.5).stroke_width(1)))
                .map_err(|x| e(&x))?;
        }
        chart.configure_series_labels().position(legend).background_style(WHITE.mix(0.85)).border_style(BLACK).draw().map_err(|x| e(&x))
    }

    let mut groups: Vec<(String, Vec<&WriteBench>)> = Vec::new();
    for r in rows {
        let name = format!("{} {} QP{} PMTU {}", r.op, r.qps, if r.qps == 1 { "" } else { "s" }, r.pmtu);
        match groups.iter_mut().find(|g| g.0 == name) {
            Some(g) => g.1.push(r),
            None => groups.push((name, vec![r])),
        }
    }
    let (lo, hi) = rows.iter().fold((f64::MAX, 0f64), |(lo, hi), r| (lo.min(r.size as f64), hi.max(r.size as f64)));
    if lo >= hi {
        return Err(format!("{}: a plot needs rows of at least two message sizes", path.display()));
    }
    let rate_hi = rows.iter().map(|r| r.msg_limit().max(r.mmsgs())).fold(0f64, f64::max) * 2.0;
    let rate_lo = rows.iter().map(|r| r.mmsgs().min(r.msg_limit())).fold(f64::MAX, f64::min) / 2.0;
    let link = rows[0].link_gbps;
    let at = |x: String| format!("{}: {x}", path.display());
    let root = SVGBackend::new(path, (960, 900)).into_drawing_area();
    root.fill(&WHITE).map_err(|x| at(x.to_string()))?;
    let (top, bottom) = root.split_vertically(450);
    let caption = format!("Goodput between two simulated cards ({link} Gb/s link)");
    let gbps: Measure = (WriteBench::gbps, WriteBench::limit_gbps);
    chart(&top, (&caption, "Gb/s of payload (dashed: the wire's limit)", SeriesLabelPosition::LowerRight), lo.log2()..hi.log2(), 0f64..link, &groups, gbps).map_err(at)?;
    let rate: Measure = (WriteBench::mmsgs, WriteBench::msg_limit);
    let y = (rate_lo..rate_hi).log_scale();
    chart(&bottom, ("Message rate", "M messages/s (dashed: the wire's limit)", SeriesLabelPosition::UpperRight), lo.log2()..hi.log2(), y, &groups, rate).map_err(at)?;
    root.present().map_err(|x| at(x.to_string()))
}

pub fn write_json(rows: &[WriteBench]) -> String {
    let mut out = String::new();
    for r in rows {
        let line = json!({
            "op": r.op,
            "size": r.size,
            "pmtu": r.pmtu,
            "qps": r.qps,
            "messages": r.messages,
            "packets": r.packets,
            "placed": r.placed,
            "resent": r.resent,
            "rq_wait_cycles": r.rq_wait_cycles,
            "completed": r.completed,
            "cycles": r.cycles,
            "gbps": r.gbps(),
            "limit_gbps": r.limit_gbps(),
            "fraction_of_limit": r.fraction(),
            "mmsgs_per_s": r.mmsgs(),
            "first_frame_cycles": r.first_frame_cycles,
            "bw_peak_gbps": crate::perftest::BwResult::gbps(r.perftest.peak_mbs),
            "bw_average_gbps": crate::perftest::BwResult::gbps(r.perftest.avg_mbs),
            "msg_rate_mpps": r.perftest.msg_rate_mpps,
            "sim_seconds": r.sim_seconds,
        });
        writeln!(out, "{line}").expect("string");
    }
    out
}

/// One latency row: `iters` round trips of `size` bytes between the two simulated cards, as
/// perftest's latency tools time them — WRITE and SEND ping-pong (each side answers the
/// other's message with its own; half the round trip, as `ib_write_lat` / `ib_send_lat`
/// report), READ one request at a time (the whole round trip, as `ib_read_lat`).
#[derive(Debug, Clone)]
pub struct LatBench {
    pub op: &'static str,
    /// Sent inline (`send_flags::INLINE`, perftest's `-I`): the payload in the WQE.
    pub inline: bool,
    pub size: usize,
    pub result: crate::perftest::LatResult,
    /// Simulated cycles the row ran, and the wall time it took.
    pub cycles: u64,
    pub sim_seconds: f64,
}

/// Message sizes of the latency benchmark.
pub const LAT_SIZES: [usize; 3] = [8, 64, 4 << 10];

/// Simulated cycles one message may take to arrive.
const LAT_BUDGET_CYCLES: u64 = 1_000_000;

/// One side of a latency run: a card, its QP and CQ, and a buffer of two halves in one region
/// (the first sent from, the second the peer writes or reads).
struct LatEnd {
    ctx: crate::sim_pair::Card,
    card: usize,
    qp: crate::verbs::Qp,
    cq: crate::verbs::Cq,
    mr: crate::verbs::Mr,
    base: u64,
}

/// Time `iters` round trips of `op` (WRITE, SEND or READ) of `size` bytes, PMTU 4096. A
/// WRITE's arrival is seen when its last byte — the iteration's count — lands in host memory
/// (the receiver polls memory, as `ib_write_lat` does); a SEND's and a READ's when its
/// completion does (as `ib_send_lat` and `ib_read_lat` poll their CQ). Each interval starts
/// before the driver posts (the doorbell's MMIO write is in it). `inline`: the payload goes in
/// the WQE (SEND and WRITE of at most `desc::INLINE_MAX` bytes).
pub fn latency(op: rnic_spec::desc::SendOp, size: usize, iters: usize, inline: bool) -> Result<LatBench, String> {
    use crate::sim_pair::{qp_pair, try_two_cards, PathKind};
    use crate::verbs::{QpCaps, RecvWr, SendWr};
    use rnic_spec::desc::{send_flags, CqOp, CqStatus, SendOp};
    use rnic_spec::mr::access::{LOCAL_WRITE, REMOTE_READ, REMOTE_WRITE};
    let started = std::time::Instant::now();
    let (world, mut a, mut b) = try_two_cards(rnic_sim::world::LinkConfig::default()).map_err(|e| e.to_string())?;
    let e = |e: crate::verbs::VerbsError| e.to_string();
    let half = size as u64;
    let (pa, pb) = (a.alloc_pd().map_err(e)?, b.alloc_pd().map_err(e)?);
    let (ca, cb) = (a.create_cq(64).map_err(e)?, b.create_cq(64).map_err(e)?);
    let kind = PathKind { v6: false, vlan: None, pmtu: 4096 };
    let (qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&ca, &cb), kind, QpCaps { sq_entries: 16, rq_entries: 16 }, (0, 0)).map_err(e)?;
    let mut ends = Vec::new();
    for (card, (mut ctx, pd, qp, cq)) in [(a, pa, qa, ca), (b, pb, qb, cb)].into_iter().enumerate() {
        let buf = ctx.alloc_buf(2 * size, 4096).map_err(e)?;
        ctx.write_buf(buf.iova, &vec![0; 2 * size]).map_err(e)?;
        let mr = ctx.reg_mr(pd, buf.iova, 2 * size as u32, LOCAL_WRITE | REMOTE_WRITE | REMOTE_READ).map_err(e)?;
        ends.push(LatEnd { ctx, card, qp, cq, mr, base: buf.iova });
    }
    let [mut a, mut b]: [LatEnd; 2] = ends.try_into().map_err(|_| "two ends")?;
    if op == SendOp::Send {
        for end in [&mut a, &mut b] {
            let wr = RecvWr { wr_id: 0, addr: end.base + half, length: size as u32, lkey: end.mr.key() };
            end.ctx.post_recv(&mut end.qp, &[wr; 8]).map_err(e)?;
        }
    }
    // The n-th message from `from` to `to`'s advertised half (for a READ, from it): its last
    // byte is n. Returns once it has arrived as the receiver sees it.
    let one = |from: &mut LatEnd, to: &mut LatEnd, n: usize| -> Result<(), String> {
        from.ctx.write_buf(from.base + half - 1, &[n as u8]).map_err(e)?;
        let local = if op == SendOp::Read { from.base + half } else { from.base };
        let flags = send_flags::SIGNALED | if inline { send_flags::INLINE } else { 0 };
        let wr = SendWr { wr_id: n as u64, op, flags, local_addr: local, length: size as u32, lkey: from.mr.key(), remote_addr: to.base + half, rkey: to.mr.key(), imm: 0, atomic: Default::default() };
        from.ctx.post_send(&mut from.qp, &wr).map_err(e)?;
        let arrived = match op {
            SendOp::Write => {
                let (card, at) = (to.card, to.base + 2 * half - 1);
                world.borrow_mut().run_until(LAT_BUDGET_CYCLES, |w| w.nics[card].mem.byte(at) == n as u8)
            }
            // (The receiver's CQ — the requester's own for a READ — polled every cycle.)
            _ => {
                // (Its own SENDs complete on the same CQ: those are not what it waits for.)
                let (end, want) = if op == SendOp::Read { (&mut *from, CqOp::Read) } else { (&mut *to, CqOp::Recv) };
                let mut got = false;
                for _ in 0..LAT_BUDGET_CYCLES {
                    world.borrow_mut().step();
                    for wc in end.ctx.poll_cq(&mut end.cq, 4).map_err(e)? {
                        if wc.status != CqStatus::Success {
                            return Err(format!("{:?} completed {:?} in {op:?} {n} of {size} bytes", wc.op, wc.status));
                        }
                        got |= wc.op == want;
                    }
                    if got {
                        break;
                    }
                }
                got
            }
        };
        if !arrived {
            return Err(format!("{op:?} {n} of {size} bytes did not arrive in {LAT_BUDGET_CYCLES} cycles"));
        }
        if op == SendOp::Send {
            let wr = RecvWr { wr_id: 0, addr: to.base + half, length: size as u32, lkey: to.mr.key() };
            to.ctx.post_recv(&mut to.qp, &[wr]).map_err(e)?;
        }
        Ok(())
    };
    let first = world.borrow().cycles();
    let mut samples = Vec::with_capacity(iters);
    for n in 1..=iters {
        let start = world.borrow().cycles();
        one(&mut a, &mut b, n)?;
        if op != SendOp::Read {
            one(&mut b, &mut a, n)?;
        }
        let took = (world.borrow().cycles() - start) as f64 / CLOCK_MHZ;
        samples.push(if op == SendOp::Read { took } else { took / 2.0 });
        // (The senders' own completions, taken off their CQs.)
        for end in [&mut a, &mut b] {
            if op != SendOp::Read {
                end.ctx.poll_cq(&mut end.cq, 16).map_err(e)?;
            }
        }
    }
    let result = crate::perftest::LatResult::from_samples(size as u32, iters as u64, samples).ok_or("no iteration")?;
    let op = match op {
        SendOp::Read => "READ",
        SendOp::Send | SendOp::SendImm => "SEND",
        _ => "WRITE",
    };
    let cycles = world.borrow().cycles() - first;
    Ok(LatBench { op, inline, size, result, cycles, sim_seconds: started.elapsed().as_secs_f64() })
}

/// Every latency row: WRITE, SEND and READ at [`LAT_SIZES`], then WRITE and SEND of 8 bytes
/// inline.
pub fn latencies(iters: usize) -> Result<Vec<LatBench>, String> {
    use rnic_spec::desc::SendOp;
    let mut rows = Vec::new();
    for op in [SendOp::Write, SendOp::Send, SendOp::Read] {
        for size in LAT_SIZES {
            rows.push(latency(op, size, iters, false)?);
        }
    }
    for op in [SendOp::Write, SendOp::Send] {
        rows.push(latency(op, 8, iters, true)?);
    }
    Ok(rows)
}

/// The rows in perftest's latency columns (µs at 250 MHz), with the cycles beside.
pub fn lat_table(rows: &[LatBench]) -> String {
    let mut out = String::new();
    writeln!(out, "{:<8} {:>7} {:>11} {:>11} {:>11} {:>15} {:>11} {:>13} {:>20} {:>22} {:>15} {:>12}", "op", "#bytes", "#iterations", "t_min[usec]", "t_max[usec]", "t_typical[usec]", "t_avg[usec]", "t_stdev[usec]", "99% percentile[usec]", "99.9% percentile[usec]", "typical cycles", "sim cycles/s").expect("string");
    for r in rows {
        let l = &r.result;
        writeln!(
            out,
            "{:<8} {:>7} {:>11} {:>11.3} {:>11.3} {:>15.3} {:>11.3} {:>13.3} {:>20.3} {:>22.3} {:>15.0} {:>12.0}",
            format!("{}{}", r.op, if r.inline { " -I" } else { "" }),
            l.size, l.iters, l.min, l.max, l.typical, l.avg, l.stdev, l.p99, l.p999, l.typical * CLOCK_MHZ, r.cycles as f64 / r.sim_seconds
        )
        .expect("string");
    }
    writeln!(
        out,
        "\nTwo simulated cards through the driver, PMTU 4096, host memory 800 ns read / 400 ns write away, {CLOCK_MHZ} MHz. \
         WRITE and SEND: half the ping-pong round trip (each side answers the other's message), the WRITE seen when its last \
         byte lands in host memory, the SEND when its receive completion does; READ: the whole round trip to its completion. \
         Each interval starts before the driver posts, so the doorbell's MMIO write is in it. -I: sent inline (perftest's \
         -I; the payload copied into the WQE at post time, so the card reads no payload)."
    )
    .expect("string");
    out
}

pub fn lat_json(rows: &[LatBench]) -> String {
    let mut out = String::new();
    for r in rows {
        let l = &r.result;
        let j = serde_json::json!({
            "op": r.op, "inline": r.inline, "bytes": l.size, "iterations": l.iters, "t_min_us": l.min, "t_max_us": l.max, "t_typical_us": l.typical,
            "t_avg_us": l.avg, "t_stdev_us": l.stdev, "p99_us": l.p99, "p999_us": l.p999, "typical_cycles": l.typical * CLOCK_MHZ,
            "half_round_trip": r.op != "READ", "sim_cycles": r.cycles, "sim_seconds": r.sim_seconds,
        });
        writeln!(out, "{j}").expect("string");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(size: usize, qps: usize, mmsgs: f64) -> WriteBench {
        let messages = 512;
        let wire_bytes = (messages * (size + 98)) as u64;
        WriteBench {
            op: "WRITE",
            size,
            pmtu: 4096,
            qps,
            messages,
            packets: messages,
            placed: messages,
            completed: messages,
            resent: 0,
            rq_wait_cycles: 0,
            first_frame_cycles: 450.0,
            cycles: messages as f64 / mmsgs * CLOCK_MHZ,
            perftest: crate::perftest::BwResult::from_cycles(size as u32, messages as u32, (messages as f64 / mmsgs * CLOCK_MHZ) as u64),
            payload_bytes: (messages * size) as u64,
            wire_bytes,
            link_gbps: 100.0,
            sim_seconds: 1.0,
        }
    }

    #[test]
    fn the_plot_draws_a_line_and_a_dashed_limit_per_group_in_both_charts() {
        let rows: Vec<WriteBench> = [1, 16].iter().flat_map(|&q| WRITE_SIZES.map(|s| row(s, q, 9.5f64.min(90.0 / s as f64 * 1e3 / 8.0)))).collect();
        let path = std::env::temp_dir().join(format!("rnic-plot-{}.svg", std::process::id()));
        write_plot(&rows, &path).unwrap();
        let svg = std::fs::read_to_string(&path).unwrap();
        std::fs::remove_file(&path).unwrap();
        for name in ["WRITE 1 QP PMTU 4096", "WRITE 16 QPs PMTU 4096", "Message rate", "64 B", "1 MiB", "(dashed: the wire"] {
            assert!(svg.contains(name), "{name} in the plot");
        }
        // Two groups × two charts: a solid line of 8 points each (dashed limits are many
        // short segments).
        let lines = svg.matches("<polyline").count();
        assert!(lines >= 4, "{lines} polylines");
        assert_eq!(svg.matches("WRITE 16 QPs PMTU 4096").count(), 2, "a legend entry per chart");
    }

    #[test]
    fn a_plot_of_one_size_is_refused_with_the_reason() {
        let path = std::env::temp_dir().join("rnic-plot-never-written.svg");
        let err = write_plot(&[row(65536, 1, 0.18)], &path).unwrap_err();
        assert!(err.contains("at least two message sizes"), "{err}");
    }
}
