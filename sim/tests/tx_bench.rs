//! The transmit engine keeps up with its datapath: one beat per cycle, frames back to back.

use rnic_sim::bench::{tx_line_rate, TX_PAYLOADS};

#[test]
fn tx_sends_one_beat_per_cycle() {
    for payload in TX_PAYLOADS {
        let b = tx_line_rate(payload, 200);
        assert!(b.beats_per_cycle() > 0.999, "{payload} B: {:.3} beats/cycle", b.beats_per_cycle());
        // The frame is buffered whole before it goes out: its beats in, its beats out, and the
        // header and CRC pipelines.
        let beats = b.frame_size.div_ceil(64) as u64;
        eprintln!("{payload} B: frame {} B, {:.3} beats/cycle, latency {} cycles", b.frame_size, b.beats_per_cycle(), b.latency);
        assert!(b.latency <= 2 * beats + 30, "{payload} B: first frame after {} cycles", b.latency);
    }
}
