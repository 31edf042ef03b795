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
