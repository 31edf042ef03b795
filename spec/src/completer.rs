//! The completer's reference model: which send completions an acknowledge produces.
//!
//! An ACK's MSN counts the messages the responder has finished; every sent WQE it now covers
//! completes successfully, oldest first. A NAK for an invalid request or a remote access error
//! completes the oldest outstanding WQE with that error and breaks the QP: later acknowledges
//! complete nothing. Acknowledges covering more than was sent complete nothing either. PSN
//! sequence NAKs and RNR NAKs complete nothing (they ask for retransmission).
//!
//! WQEs the requester refuses (a bad local key, ...) take their place in the order too: the
//! first one's error, and `Flushed` for every WQE after it, complete as soon as every WQE
//! before the first has completed; the QP is broken from then on.

use crate::desc::CqStatus;
use crate::responder::aeth;
use crate::wire::psn;

/// The completer's state of one QP's send queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SendCompletions {
    /// WQEs sent (their last packet out), since the QP's commit.
    pub sent: u16,
    /// WQEs completed: the next completion's send-queue index.
    pub done: u16,
    /// MSN covered so far.
    pub msn: u32,
    pub broken: bool,
    /// The first refused WQE: its send-queue index and error.
    pub first_error: Option<(u16, CqStatus)>,
}

impl SendCompletions {
    pub fn sent_one(&mut self) {
        self.sent = self.sent.wrapping_add(1);
    }

    /// The requester refused (or flushed) the next WQE: the completions that are due now.
    pub fn refused(&mut self, status: CqStatus) -> Vec<(u16, CqStatus)> {
        let index = self.sent;
        self.sent = self.sent.wrapping_add(1);
        self.first_error.get_or_insert((index, status));
        self.due_errors()
    }

    /// Refused WQEs whose turn has come: every WQE before the first has completed.
    fn due_errors(&mut self) -> Vec<(u16, CqStatus)> {
        let Some((from, status)) = self.first_error else { return Vec::new() };
        let mut out = Vec::new();
        while self.done.wrapping_sub(from) < 0x8000 && self.done != self.sent {
            out.push((self.done, if self.done == from { status } else { CqStatus::Flushed }));
            self.done = self.done.wrapping_add(1);
            self.broken = true;
        }
        out
    }

    /// The completions (send-queue index, status) an acknowledge with `syndrome` and `msn`
    /// produces, or `None` if it is unexpected (counted, dropped).
    pub fn acknowledge(&mut self, syndrome: u8, msn: u32) -> Option<Vec<(u16, CqStatus)>> {
        // Only WQEs before the first refused one went out: an ACK can cover no more.
        let outstanding = self.first_error.map_or(self.sent, |(from, _)| from).wrapping_sub(self.done);
        match syndrome >> 5 & 3 {
            0 => {
                let covered = psn::diff(msn, self.msn);
                if covered == 0 {
                    return Some(Vec::new());
                }
                if self.broken || covered < 0 || covered > outstanding as i32 {
                    return None;
                }
                let mut out: Vec<_> = (0..covered as u16).map(|k| (self.done.wrapping_add(k), CqStatus::Success)).collect();
                self.done = self.done.wrapping_add(covered as u16);
                self.msn = msn;
                out.extend(self.due_errors());
                Some(out)
            }
            3 if (syndrome == aeth::NAK_INVALID_REQUEST || syndrome == aeth::NAK_REMOTE_ACCESS) && !self.broken && outstanding > 0 => {
                let status = if syndrome == aeth::NAK_REMOTE_ACCESS { CqStatus::RemoteAccess } else { CqStatus::RemoteInvalidRequest };
                let out = vec![(self.done, status)];
                self.done = self.done.wrapping_add(1);
                self.broken = true;
                Some(out)
            }
            _ => Some(Vec::new()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acks_complete_what_they_cover_and_naks_break_the_queue() {
        let mut c = SendCompletions::default();
        for _ in 0..3 {
            c.sent_one();
        }
        assert_eq!(c.acknowledge(aeth::ACK, 2), Some(vec![(0, CqStatus::Success), (1, CqStatus::Success)]));
        assert_eq!(c.acknowledge(aeth::ACK, 2), Some(vec![]), "a repeated ACK");
        assert_eq!(c.acknowledge(aeth::ACK, 5), None, "covers more than was sent");
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 2), Some(vec![]));
        assert_eq!(c.acknowledge(aeth::NAK_REMOTE_ACCESS, 2), Some(vec![(2, CqStatus::RemoteAccess)]));
        c.sent_one();
        assert_eq!(c.acknowledge(aeth::ACK, 3), None, "the queue is broken");
    }

    #[test]
    fn refused_wqes_complete_in_order_after_the_ones_sent_before() {
        let mut c = SendCompletions::default();
        c.sent_one();
        assert_eq!(c.refused(CqStatus::LocalProtection), vec![], "WQE 0 is still outstanding");
        assert_eq!(c.refused(CqStatus::Flushed), vec![]);
        assert_eq!(c.acknowledge(aeth::ACK, 2), None, "an ACK cannot cover refused WQEs");
        let all = vec![(0, CqStatus::Success), (1, CqStatus::LocalProtection), (2, CqStatus::Flushed)];
        assert_eq!(c.acknowledge(aeth::ACK, 1), Some(all));
        assert_eq!(c.refused(CqStatus::LocalLength), vec![(3, CqStatus::Flushed)], "after the first error all are flushed");
        assert!(c.broken);
    }
}
