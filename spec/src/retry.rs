//! Retransmission timing: the local ACK timeout and the RNR NAK timer, in the card's timer
//! ticks.
//!
//! The card measures both in ticks of 4.096 µs (1024 cycles at 250 MHz), the unit of
//! `ibv_qp_attr.timeout` (IBTA Vol 1 §9.7.6.1.3: 4.096 µs × 2^timeout). A timer fires after
//! more than its tick count has passed, so a wait is at least as long as asked and at most
//! one tick longer.

/// Core clock cycles per timer tick (4.096 µs at 250 MHz).
pub const TICK_CYCLES: u64 = 1024;

/// RNR NAK timer codes (the AETH's low five bits on an RNR NAK; IBTA Vol 1 §9.7.5.2.8,
/// table 45) in units of 10 µs: code 0 is 655.36 ms, 1 is 0.01 ms, ... 31 is 491.52 ms.
pub const RNR_TIMER_10US: [u32; 32] = [
    65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144,
    8192, 12288, 16384, 24576, 32768, 49152,
];

/// Ticks to wait after an RNR NAK with timer `code`: the table's time rounded up to ticks.
pub const fn rnr_ticks(code: u8) -> u32 {
    let ns = RNR_TIMER_10US[(code & 31) as usize] as u64 * 10_000;
    let tick_ns = TICK_CYCLES * 4;
    ns.div_ceil(tick_ns) as u32
}

/// Ticks of the local ACK timeout `timeout` (0: the timer is off).
pub const fn ack_timeout_ticks(timeout: u8) -> Option<u64> {
    if timeout == 0 {
        None
    } else {
        Some(1u64 << (timeout & 31))
    }
}

/// The retry counts a send queue starts with and goes back to after progress.
pub const RNR_RETRY_FOREVER: u8 = 7;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rnr_codes_round_up_to_ticks() {
        // 10 µs is 2.44 ticks of 4.096 µs: three ticks.
        assert_eq!(rnr_ticks(1), 3);
        // 655.36 ms = 160000 ticks exactly.
        assert_eq!(rnr_ticks(0), 160_000);
        assert_eq!(rnr_ticks(31), 120_000);
        assert!(RNR_TIMER_10US[1..].windows(2).all(|w| w[0] < w[1]), "codes 1..31 grow");
        assert_eq!(ack_timeout_ticks(0), None);
        assert_eq!(ack_timeout_ticks(14), Some(16384), "timeout 14 = 67.1 ms");
    }
}
