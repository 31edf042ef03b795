//! The receive pipeline sustains one beat per cycle: frames of every benchmark size sent back to
//! back all get their record and payload, and the last frame's latency equals the first's (no
//! backlog builds up). Cycle counts, not wall time.

use rnic_sim::bench::{rx_line_rate, RX_SIZES};

#[test]
fn rx_accepts_one_beat_per_cycle_at_every_size() {
    for size in RX_SIZES {
        let frames = if size > 4096 { 40 } else { 200 };
        let b = rx_line_rate(size, frames);
        assert!(b.frame_size <= size && b.frame_size + 8 > size, "{b:?}");
        assert_eq!(b.beats, (b.frame_size.div_ceil(64) * frames) as u64, "input never waited: {b:?}");
        assert_eq!(b.latency_last_beat_final, b.latency_last_beat, "backlog: {b:?}");
        if b.verdict.is_none() {
            assert_eq!(b.payload_bytes, (b.payload * frames) as u64, "{b:?}");
        }
    }
}
