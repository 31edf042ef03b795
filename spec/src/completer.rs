//! The completer's reference model: which send completions an acknowledge produces.
//!
//! An ACK's MSN counts the messages the responder has finished; every sent WQE it now covers
//! completes successfully, oldest first. A NAK for an invalid request or a remote access error
//! completes the oldest outstanding WQE with that error and breaks the QP: later acknowledges
//! complete nothing. Acknowledges covering more than was sent complete nothing either. PSN
//! sequence NAKs and RNR NAKs complete nothing (they ask for retransmission).

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
}

impl SendCompletions {
    pub fn sent_one(&mut self) {
        self.sent = self.sent.wrapping_add(1);
    }

    /// The completions (send-queue index, status) an acknowledge with `syndrome` and `msn`
    /// produces, or `None` if it is unexpected (counted, dropped).
    pub fn acknowledge(&mut self, syndrome: u8, msn: u32) -> Option<Vec<(u16, CqStatus)>> {
        let outstanding = self.sent.wrapping_sub(self.done);
        match syndrome >> 5 & 3 {
            0 => {
                let covered = psn::diff(msn, self.msn);
                if covered == 0 {
                    return Some(Vec::new());
                }
                if self.broken || covered < 0 || covered > outstanding as i32 {
                    return None;
                }
                let out = (0..covered as u16).map(|k| (self.done.wrapping_add(k), CqStatus::Success)).collect();
                self.done = self.done.wrapping_add(covered as u16);
                self.msn = msn;
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
}
