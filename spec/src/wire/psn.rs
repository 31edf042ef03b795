//! 24-bit packet sequence number arithmetic (IBTA Vol 1 §9.7.1): PSNs wrap modulo 2^24 and are
//! compared within a window of half the space.

pub const PSN_MASK: u32 = 0x00FF_FFFF;

/// `psn + n` modulo 2^24.
pub fn add(psn: u32, n: u32) -> u32 {
    psn.wrapping_add(n) & PSN_MASK
}

/// Signed distance from `a` to `b` in the 24-bit circle, in `-2^23 ..= 2^23 - 1`.
pub fn diff(b: u32, a: u32) -> i32 {
    let d = b.wrapping_sub(a) & PSN_MASK;
    ((d << 8) as i32) >> 8
}

/// Where a received PSN lies relative to the expected one.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PsnOrder {
    /// The expected PSN.
    Expected,
    /// Ahead of the expected PSN: packets were lost (responder NAKs with PSN sequence error).
    Ahead,
    /// Behind: a duplicate (responder re-ACKs or re-executes a READ).
    Duplicate,
}

/// Classify `psn` against `expected`.
pub fn order(psn: u32, expected: u32) -> PsnOrder {
    match diff(psn, expected) {
        0 => PsnOrder::Expected,
        d if d > 0 => PsnOrder::Ahead,
        _ => PsnOrder::Duplicate,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wraps() {
        assert_eq!(add(PSN_MASK, 1), 0);
        assert_eq!(add(PSN_MASK - 1, 5), 3);
        assert_eq!(diff(3, PSN_MASK - 1), 5);
        assert_eq!(diff(PSN_MASK - 1, 3), -5);
        assert_eq!(order(0, PSN_MASK), PsnOrder::Ahead);
        assert_eq!(order(PSN_MASK, 0), PsnOrder::Duplicate);
        assert_eq!(order(7, 7), PsnOrder::Expected);
        assert_eq!(diff(0x80_0000, 0), -0x80_0000);
    }
}
