//! The requester's side of RDMA READ: which READ RESPONSE packets a QP's outstanding READs
//! take, and where their bytes go. The reference model of the responder's answer path (the
//! RTL's `P_RR` state and the `ReadTable`).
//!
//! A QP keeps its outstanding READs oldest first; only the oldest takes responses, each at
//! exactly the next PSN it expects, with the opcode and length that PSN must have (IBTA Vol 1
//! §9.7.5.1.2, C9-…: responses come in PSN order). A response behind that PSN is a duplicate; one
//! ahead of it means responses were lost: an implied NAK at the expected PSN, once until a
//! response is placed again (the requester then asks for the READ again). So is an ACK at or
//! past the oldest READ's first PSN: the responder finished the READ, its responses are
//! missing. Each placed response needs the rest of the buffer from its bytes on allowed by the
//! local key (LOCAL_WRITE) — the card checks that with the READ's first response and again after
//! any region changed — so a region deregistered meanwhile gets none; after the READ's last
//! response it completes and the next READ is the oldest.
//!
//! An atomic is kept the same way: one PSN, answered by one ATOMIC Acknowledge without payload
//! whose original value fills the 8-byte local buffer (a READ response for an atomic, or an
//! ATOMIC Acknowledge for a READ, is malformed).

use crate::mr::{self, AccessError, MemoryRegion};
use crate::responder::{OP_ATOMIC_ACK, OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_LAST, OP_READ_RESPONSE_MIDDLE, OP_READ_RESPONSE_ONLY};
use crate::wire::psn;
use std::collections::VecDeque;

/// An RDMA READ (or an atomic, `atomic`: `len` 8) the QP has sent and not yet seen all
/// responses of: `len` bytes into `laddr` under `lkey`, its responses from PSN `psn` on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PendingRead {
    pub laddr: u64,
    pub len: u32,
    pub lkey: u32,
    pub psn: u32,
    pub atomic: bool,
}

/// What one arriving response or ACK does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReadArrival {
    /// `len` bytes written at `addr`; `done`: the READ's last response (it completes).
    Placed { addr: u64, len: u32, done: bool },
    /// Behind the PSN the oldest READ expects: already placed.
    Duplicate,
    /// No READ outstanding.
    Unexpected,
    /// At the expected PSN with an opcode or a length that PSN cannot have.
    Malformed,
    /// Responses are missing before this one (or before this ACK): the requester asks again
    /// from `psn`.
    ImpliedNak { psn: u32 },
    /// Ahead again while the implied NAK is outstanding: dropped.
    Ignored,
    /// The local key does not allow the bytes: nothing written, the READ fails.
    Refused(AccessError),
    /// An ACK that says nothing about the READs (before the oldest one's PSN, or a NAK).
    Passed,
}

impl ReadArrival {
    /// The responder counter this arrival counts in: `read_placed`, `read_dropped` or
    /// `implied_naks` (an ACK passed on counts in none).
    pub fn counter(&self) -> Option<&'static str> {
        match self {
            ReadArrival::Placed { .. } => Some("read_placed"),
            ReadArrival::ImpliedNak { .. } => Some("implied_naks"),
            ReadArrival::Passed => None,
            _ => Some("read_dropped"),
        }
    }
}

/// One QP's outstanding READs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReadPlacer {
    pub pending: VecDeque<PendingRead>,
    /// Responses placed of the oldest READ.
    pub placed: u32,
    /// An implied NAK was sent since the last response placed.
    pub nak_sent: bool,
}

impl ReadPlacer {
    /// The PSN the oldest READ expects next.
    fn expected(&self, read: &PendingRead) -> u32 {
        psn::add(read.psn, self.placed)
    }

    fn implied(&mut self, at: u32) -> ReadArrival {
        if self.nak_sent {
            return ReadArrival::Ignored;
        }
        self.nak_sent = true;
        ReadArrival::ImpliedNak { psn: at }
    }

    /// A READ RESPONSE or ATOMIC Acknowledge packet (`opcode`, `psn`, `len` payload bytes) for
    /// a QP in PD `pd` at path MTU 2^`pmtu_log2`, with the card's regions `mrs`. (A placed
    /// ATOMIC Acknowledge writes the 8 bytes of its original value.)
    pub fn response(&mut self, mrs: &[Option<MemoryRegion>], pd: u16, pmtu_log2: u8, opcode: u8, at: u32, len: u32) -> ReadArrival {
        let Some(read) = self.pending.front().copied() else {
            return ReadArrival::Unexpected;
        };
        let want = self.expected(&read);
        match psn::diff(at, want) {
            d if d < 0 => return ReadArrival::Duplicate,
            d if d > 0 => return self.implied(want),
            _ => {}
        }
        let pmtu = 1u32 << pmtu_log2;
        let packets = read.len.div_ceil(pmtu).max(1);
        let (first, last) = (self.placed == 0, self.placed + 1 == packets);
        let op_ok = opcode
            == match (first, last) {
                _ if read.atomic => OP_ATOMIC_ACK,
                (true, true) => OP_READ_RESPONSE_ONLY,
                (true, false) => OP_READ_RESPONSE_FIRST,
                (false, true) => OP_READ_RESPONSE_LAST,
                (false, false) => OP_READ_RESPONSE_MIDDLE,
            };
        let off = self.placed * pmtu;
        let len_ok = if read.atomic {
            len == 0
        } else if last {
            len == read.len - off
        } else {
            len == pmtu
        };
        let len = if read.atomic { read.len } else { len };
        if !op_ok || !len_ok {
            return ReadArrival::Malformed;
        }
        let addr = read.laddr.wrapping_add(off as u64);
        // (The rest of the buffer from here must be allowed: the card checks it with the READ's
        // first response and again after any region changed.)
        if let Err(e) = mr::check(mrs, read.lkey, pd, addr, read.len - off, mr::access::LOCAL_WRITE) {
            return ReadArrival::Refused(e);
        }
        self.nak_sent = false;
        self.placed += 1;
        if last {
            self.pending.pop_front();
            self.placed = 0;
        }
        ReadArrival::Placed { addr, len, done: last }
    }

    /// An acknowledge with AETH `syndrome` for PSN `at` at path MTU 2^`pmtu_log2`: passed on
    /// to the completer, unless it says the oldest READ's responses are missing — an ACK at
    /// or past its first PSN, or a NAK for a request after it (retried first, as rxe does, so
    /// an error NAK for a later request is not blamed on the READ): then an implied NAK, or,
    /// while one is out, a NAK is dropped (the resend brings it again).
    pub fn ack(&mut self, syndrome: u8, at: u32, pmtu_log2: u8) -> ReadArrival {
        let Some(read) = self.pending.front().copied() else {
            return ReadArrival::Passed;
        };
        let end = psn::add(read.psn, read.len.div_ceil(1 << pmtu_log2).max(1));
        let is_ack = (syndrome >> 5) & 3 == 0;
        let past = if is_ack { psn::diff(at, read.psn) >= 0 } else { psn::diff(at, end) >= 0 };
        match (past, self.nak_sent, is_ack) {
            (true, false, _) => {
                let want = self.expected(&read);
                self.implied(want)
            }
            (true, true, false) => ReadArrival::Ignored,
            _ => ReadArrival::Passed,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placer() -> (ReadPlacer, Vec<Option<MemoryRegion>>) {
        let mut mrs = vec![None; 4];
        mrs[1] = Some(MemoryRegion { key: 0x101, base: 0x1000, length: 0x10000, access: mr::access::LOCAL_WRITE, pd: 1 });
        let mut p = ReadPlacer::default();
        p.pending.push_back(PendingRead { laddr: 0x2000, len: 600, lkey: 0x101, psn: 0xFF_FFFF, atomic: false });
        p.pending.push_back(PendingRead { laddr: 0x4000, len: 0, lkey: 0x101, psn: 2, atomic: false });
        (p, mrs)
    }

    #[test]
    fn responses_in_order_are_placed_and_complete_their_read() {
        let (mut p, mrs) = placer();
        // 600 bytes at PMTU 256: FIRST, MIDDLE, LAST (PSNs wrap); then a READ of length 0.
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_FIRST, 0xFF_FFFF, 256), ReadArrival::Placed { addr: 0x2000, len: 256, done: false });
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_FIRST, 0xFF_FFFF, 256), ReadArrival::Duplicate);
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_LAST, 0, 256), ReadArrival::Malformed, "a MIDDLE is due");
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_MIDDLE, 0, 255), ReadArrival::Malformed, "a full PMTU is due");
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_MIDDLE, 0, 256), ReadArrival::Placed { addr: 0x2100, len: 256, done: false });
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_LAST, 1, 88), ReadArrival::Placed { addr: 0x2200, len: 88, done: true });
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_ONLY, 2, 0), ReadArrival::Placed { addr: 0x4000, len: 0, done: true });
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_ONLY, 3, 0), ReadArrival::Unexpected);
        assert!(p.pending.is_empty());
    }

    #[test]
    fn an_atomic_takes_one_atomic_acknowledge_without_payload() {
        let (mut p, mrs) = placer();
        p.pending.push_front(PendingRead { laddr: 0x3000, len: 8, lkey: 0x101, psn: 0xFF_FFFE, atomic: true });
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_ONLY, 0xFF_FFFE, 8), ReadArrival::Malformed, "a READ response for an atomic");
        assert_eq!(p.response(&mrs, 1, 8, OP_ATOMIC_ACK, 0xFF_FFFE, 8), ReadArrival::Malformed, "an acknowledge with payload");
        assert_eq!(p.response(&mrs, 1, 8, OP_ATOMIC_ACK, 0xFF_FFFE, 0), ReadArrival::Placed { addr: 0x3000, len: 8, done: true });
        assert_eq!(p.response(&mrs, 1, 8, OP_ATOMIC_ACK, 0xFF_FFFE, 0), ReadArrival::Duplicate);
        assert_eq!(p.response(&mrs, 1, 8, OP_ATOMIC_ACK, 0xFF_FFFF, 0), ReadArrival::Malformed, "an ATOMIC Acknowledge for a READ");
        assert_eq!(p.pending.len(), 2);
    }

    #[test]
    fn gaps_are_implied_naks_once_and_refused_bytes_are_not_placed() {
        let (mut p, mut mrs) = placer();
        assert_eq!(p.ack(0, 0xFF_FFFE, 8), ReadArrival::Passed, "an ACK before the READ");
        assert_eq!(p.ack(0x60, 1, 8), ReadArrival::Passed, "a NAK inside the READ's PSNs");
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_MIDDLE, 0, 256), ReadArrival::ImpliedNak { psn: 0xFF_FFFF });
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_LAST, 1, 88), ReadArrival::Ignored);
        assert_eq!(p.ack(0, 3, 8), ReadArrival::Passed, "the implied NAK is out already");
        assert_eq!(p.ack(0x62, 3, 8), ReadArrival::Ignored, "an error NAK past the READ waits for its retry");
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_FIRST, 0xFF_FFFF, 256), ReadArrival::Placed { addr: 0x2000, len: 256, done: false });
        assert_eq!(p.ack(0x62, 2, 8), ReadArrival::ImpliedNak { psn: 0 }, "an error NAK past the READ: its responses are missing");
        mrs[1] = None;
        assert_eq!(p.response(&mrs, 1, 8, OP_READ_RESPONSE_MIDDLE, 0, 256), ReadArrival::Refused(AccessError::UnknownKey));
        assert_eq!(p.placed, 1, "nothing placed");
    }
}
