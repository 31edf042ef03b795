//! The completer's reference model: which send completions an acknowledge produces, and
//! when the send queue must go back and send again.
//!
//! An ACK's MSN counts the messages the responder has finished; every sent WQE it now covers
//! completes successfully, oldest first, and the retry counts start again. Every NAK's MSN
//! acknowledges the same way before the NAK itself counts (IBTA Vol 1 §9.7.5.1.1: a NAK
//! also acknowledges the packets before its PSN). Acknowledges covering more than was sent,
//! and ghosts — acknowledges for a PSN at or past the end of what was sent (IBTA Vol 1
//! §9.7.5: an ACK for a packet not yet sent is invalid) — complete nothing and are
//! dropped.
//!
//! - Packets are acknowledged one by one too: an ACK for PSN p acknowledges every packet up to
//!   p, a sequence NAK for p every packet before p (also inside a message, whose packets ask
//!   for an ACK every `qp::ACK_REQ_EVERY` PSNs). The first PSN not yet acknowledged (`unacked`)
//!   moving on is progress: the retry counts start again and the ACK timer restarts. So is a
//!   sequence NAK for another PSN than the last one (an implied NAK inside a READ whose
//!   responses were placed meanwhile, after an ACK for a request behind the READ already moved
//!   `unacked` past it).
//! - A PSN sequence NAK rewinds the send queue (go-back-N): the requester resends from the
//!   oldest outstanding WQE, starting at the NAK's PSN, and one transport retry is used.
//! - A local ACK timeout (the QP's `timeout` passed with WQEs outstanding and no progress)
//!   rewinds the same way, from the first packet not yet acknowledged, and uses a retry —
//!   after starting the count again if READ responses were placed since the completer last
//!   armed the timer (they are progress too; the card keeps that mark on the QP's timer).
//! - An RNR NAK waits the NAK's timer, then rewinds; it uses an RNR retry (7: no limit).
//! - When a retry is wanted and none is left, the oldest WQE completes with RetryExceeded /
//!   RnrRetryExceeded and the queue breaks. A NAK for an invalid request, a remote access
//!   error or a remote operational error breaks it the same way with that error.
//!
//! A broken queue completes every outstanding WQE after the first with `Flushed`, in order,
//! stops the requester (its later WQEs are flushed), and takes no more acknowledges.
//!
//! WQEs the requester refuses (a bad local key, ...) take their place in the order too: the
//! first one's error, and `Flushed` for every WQE after it, complete as soon as every WQE
//! before the first has completed; the QP is broken from then on.
//!
//! Every completion takes its place in this order, but only some are written as CQEs:
//! [`writes_cqe`]. Software frees the slots of the silent ones when the next CQE of the
//! queue arrives (as verbs has it for unsignaled sends).

use crate::desc::CqStatus;

/// Whether a send completion is written as a CQE: always for an error (or a flush), for a
/// success only when its WQE asked for one (`send_flags::SIGNALED`).
pub fn writes_cqe(signaled: bool, status: CqStatus) -> bool {
    signaled || status != CqStatus::Success
}
use crate::responder::aeth;
use crate::wire::psn;

/// What the completer asks of the requester after an acknowledge or a timeout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Recovery {
    /// Nothing to do.
    None,
    /// Go back: resend from WQE `index`, skipping its packets before `psn` when given.
    Rewind { index: u16, psn: Option<u32> },
    /// Wait `ticks` timer ticks (`retry::TICK_CYCLES`), then resend from WQE `index`.
    RnrWait { index: u16, ticks: u32 },
    /// The queue broke: send nothing more, flush what is posted.
    Stop,
}

/// The completer's state of one QP's send queue.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SendCompletions {
    /// WQEs sent (their first packet out), since the QP's commit.
    pub sent: u16,
    /// WQEs completed: the next completion's send-queue index.
    pub done: u16,
    /// MSN covered so far.
    pub msn: u32,
    pub broken: bool,
    /// The first refused WQE: its send-queue index and error.
    pub first_error: Option<(u16, CqStatus)>,
    /// The QP's retry counts (`qp.retry`) and what is left of them.
    pub retry_cnt: u8,
    pub rnr_retry: u8,
    pub retry_left: u8,
    pub rnr_left: u8,
    /// The first PSN not yet acknowledged, once an acknowledge named one.
    pub unacked: Option<u32>,
    /// The PSN of the last sequence NAK.
    pub last_nak: Option<u32>,
    /// READ responses were placed since the timer was last armed by an acknowledge.
    pub responses_placed: bool,
    /// The PSN after the last packet of the WQEs sent (the QP's send PSN at its commit).
    pub next_psn: u32,
}

impl SendCompletions {
    /// A freshly committed send queue with these retry counts.
    pub fn new(retry_cnt: u8, rnr_retry: u8) -> SendCompletions {
        SendCompletions { retry_cnt, rnr_retry, retry_left: retry_cnt, rnr_left: rnr_retry, ..Default::default() }
    }

    /// A WQE was sent; its packets end before `end_psn`.
    pub fn sent_one(&mut self, end_psn: u32) {
        self.sent = self.sent.wrapping_add(1);
        self.next_psn = end_psn & psn::PSN_MASK;
    }

    /// WQEs sent and not completed (only those before the first refused one went out).
    pub fn outstanding(&self) -> u16 {
        self.first_error.map_or(self.sent, |(from, _)| from).wrapping_sub(self.done)
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

    /// The oldest outstanding WQE fails with `status`; everything after it is flushed.
    fn break_queue(&mut self, status: CqStatus) -> (Vec<(u16, CqStatus)>, Recovery) {
        self.first_error = Some((self.done, status));
        self.broken = true;
        (self.due_errors(), Recovery::Stop)
    }

    /// A retry is wanted: use one, or break the queue when none is left.
    fn retry(&mut self, rnr: bool, recovery: Recovery) -> (Vec<(u16, CqStatus)>, Recovery) {
        if rnr {
            if self.rnr_retry != crate::retry::RNR_RETRY_FOREVER {
                if self.rnr_left == 0 {
                    return self.break_queue(CqStatus::RnrRetryExceeded);
                }
                self.rnr_left -= 1;
            }
        } else {
            if self.retry_left == 0 {
                return self.break_queue(CqStatus::RetryExceeded);
            }
            self.retry_left -= 1;
        }
        (Vec::new(), recovery)
    }

    /// The completions (send-queue index, status) and the recovery an acknowledge with
    /// `syndrome`, `msn` and `psn` produces, or `None` if it is unexpected (counted, dropped).
    pub fn acknowledge(&mut self, syndrome: u8, msn: u32, psn: u32) -> Option<(Vec<(u16, CqStatus)>, Recovery)> {
        if psn::diff(psn, self.next_psn) >= 0 {
            return None;
        }
        let covered = psn::diff(msn, self.msn);
        if covered != 0 && (self.broken || covered < 0 || covered > self.outstanding() as i32) {
            return None;
        }
        if self.broken {
            return Some((Vec::new(), Recovery::None));
        }
        let mut out: Vec<_> = (0..covered as u16).map(|k| (self.done.wrapping_add(k), CqStatus::Success)).collect();
        self.done = self.done.wrapping_add(covered as u16);
        self.msn = msn;
        // An ACK acknowledges its PSN, a sequence NAK the packets before its PSN.
        let acked_to = match syndrome >> 5 & 3 {
            0 => Some(psn::add(psn, 1)),
            3 if syndrome == aeth::NAK_PSN_SEQUENCE => Some(psn),
            _ => None,
        };
        let newer = acked_to.is_some_and(|to| self.unacked.is_none_or(|u| psn::diff(to, u) > 0));
        if newer {
            self.unacked = acked_to;
        }
        let nak_moved = syndrome == aeth::NAK_PSN_SEQUENCE && self.last_nak.replace(psn) != Some(psn);
        let progress = covered > 0 || newer || nak_moved;
        if progress {
            self.retry_left = self.retry_cnt;
            self.rnr_left = self.rnr_retry;
        }
        out.extend(self.due_errors());
        let (more, recovery) = match syndrome >> 5 & 3 {
            _ if self.outstanding() == 0 || self.broken => (Vec::new(), Recovery::None),
            0 => (Vec::new(), Recovery::None),
            1 => self.retry(true, Recovery::RnrWait { index: self.done, ticks: crate::retry::rnr_ticks(syndrome & 31) }),
            3 if syndrome == aeth::NAK_PSN_SEQUENCE => self.retry(false, Recovery::Rewind { index: self.done, psn: Some(psn) }),
            3 if syndrome == aeth::NAK_INVALID_REQUEST => self.break_queue(CqStatus::RemoteInvalidRequest),
            3 if syndrome == aeth::NAK_REMOTE_ACCESS => self.break_queue(CqStatus::RemoteAccess),
            3 if syndrome == aeth::NAK_REMOTE_OPERATIONAL => self.break_queue(CqStatus::RemoteOperational),
            _ => (Vec::new(), Recovery::None),
        };
        out.extend(more);
        if progress || matches!(recovery, Recovery::Rewind { .. } | Recovery::RnrWait { .. }) {
            // The completer armed the timer afresh.
            self.responses_placed = false;
        }
        Some((out, recovery))
    }

    /// A READ response was placed (the card touches the QP's timer).
    pub fn response_placed(&mut self) {
        self.responses_placed = true;
    }

    /// The local ACK timer fired: with WQEs outstanding, go back to the oldest one, from the
    /// first packet not yet acknowledged (the requester starts at the WQE's first packet when
    /// that PSN is not one of the WQEs it resends).
    pub fn timeout(&mut self) -> (Vec<(u16, CqStatus)>, Recovery) {
        if self.broken || self.outstanding() == 0 {
            return (Vec::new(), Recovery::None);
        }
        if std::mem::take(&mut self.responses_placed) {
            self.retry_left = self.retry_cnt;
        }
        self.retry(false, Recovery::Rewind { index: self.done, psn: self.unacked })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CqStatus::*;

    fn ack(c: &mut SendCompletions, syndrome: u8, msn: u32) -> Option<Vec<(u16, CqStatus)>> {
        c.acknowledge(syndrome, msn, 0).map(|(v, _)| v)
    }

    #[test]
    fn acks_complete_what_they_cover_and_error_naks_break_the_queue() {
        let mut c = SendCompletions::new(7, 7);
        for _ in 0..3 {
            c.sent_one(100);
        }
        assert_eq!(ack(&mut c, aeth::ACK, 2), Some(vec![(0, Success), (1, Success)]));
        assert_eq!(ack(&mut c, aeth::ACK, 2), Some(vec![]), "a repeated ACK");
        assert_eq!(ack(&mut c, aeth::ACK, 5), None, "covers more than was sent");
        c.sent_one(100);
        assert_eq!(c.acknowledge(aeth::NAK_REMOTE_ACCESS, 2, 9), Some((vec![(2, RemoteAccess), (3, Flushed)], Recovery::Stop)));
        c.sent_one(100);
        assert_eq!(ack(&mut c, aeth::ACK, 3), None, "the queue is broken");
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 2, 9), Some((vec![], Recovery::None)), "nothing to go back to");
    }

    #[test]
    fn refused_wqes_complete_in_order_after_the_ones_sent_before() {
        let mut c = SendCompletions::new(7, 7);
        c.sent_one(100);
        assert_eq!(c.refused(LocalProtection), vec![], "WQE 0 is still outstanding");
        assert_eq!(c.refused(Flushed), vec![]);
        assert_eq!(ack(&mut c, aeth::ACK, 2), None, "an ACK cannot cover refused WQEs");
        let all = vec![(0, Success), (1, LocalProtection), (2, Flushed)];
        assert_eq!(ack(&mut c, aeth::ACK, 1), Some(all));
        assert_eq!(c.refused(LocalLength), vec![(3, Flushed)], "after the first error all are flushed");
        assert!(c.broken);
    }

    #[test]
    fn sequence_naks_and_timeouts_rewind_until_the_retries_are_used() {
        let mut c = SendCompletions::new(2, 7);
        for _ in 0..3 {
            c.sent_one(100);
        }
        // The NAK acknowledges WQE 0 (MSN 1) and asks for PSN 40 inside WQE 1.
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 1, 40), Some((vec![(0, Success)], Recovery::Rewind { index: 1, psn: Some(40) })));
        assert_eq!(c.retry_left, 1, "progress restored the count, the NAK used one");
        assert_eq!(c.timeout(), (vec![], Recovery::Rewind { index: 1, psn: Some(40) }), "from the first packet not acknowledged");
        assert_eq!(c.timeout(), (vec![(1, RetryExceeded), (2, Flushed)], Recovery::Stop));
        assert_eq!(c.timeout(), (vec![], Recovery::None), "a broken queue waits for nothing");
        assert_eq!(c.refused(Flushed), vec![(3, Flushed)]);
        // Nothing outstanding: a timeout changes nothing.
        let mut idle = SendCompletions::new(0, 0);
        assert_eq!(idle.timeout(), (vec![], Recovery::None));
    }

    #[test]
    fn a_sequence_nak_for_a_new_psn_is_progress() {
        let mut c = SendCompletions::new(1, 7);
        c.sent_one(100);
        let rewind = |psn| Some((vec![], Recovery::Rewind { index: 0, psn: Some(psn) }));
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 0, 10), rewind(10));
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 0, 20), rewind(20), "a later gap: retries restored");
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 0, 20), Some((vec![(0, RetryExceeded)], Recovery::Stop)), "the same gap again");
    }

    #[test]
    fn acks_inside_a_message_are_progress_and_timeouts_resume_after_them() {
        let mut c = SendCompletions::new(1, 7);
        c.sent_one(200);
        assert_eq!(c.timeout(), (vec![], Recovery::Rewind { index: 0, psn: None }), "nothing acknowledged yet");
        assert_eq!(c.retry_left, 0);
        // An ACK for PSN 63 inside the message completes nothing but restores the retries.
        assert_eq!(c.acknowledge(aeth::ACK, 0, 63), Some((vec![], Recovery::None)));
        assert_eq!((c.retry_left, c.unacked), (1, Some(64)));
        assert_eq!(c.timeout(), (vec![], Recovery::Rewind { index: 0, psn: Some(64) }));
        // Older acknowledges move nothing back and are no progress.
        assert_eq!(c.acknowledge(aeth::ACK, 0, 10), Some((vec![], Recovery::None)));
        assert_eq!(c.retry_left, 0, "an older ACK is no progress");
        // A NAK behind `unacked` moves nothing back, but a NAK for a new PSN restores the count
        // (an implied NAK inside a READ, after an ACK for a later request).
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 0, 30), Some((vec![], Recovery::Rewind { index: 0, psn: Some(30) })));
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 0, 30), Some((vec![(0, RetryExceeded)], Recovery::Stop)), "the same NAK again uses the last retry");
        assert_eq!(c.unacked, Some(64));
    }

    #[test]
    fn placed_read_responses_start_the_retry_count_again_before_a_timeout() {
        let mut c = SendCompletions::new(1, 7);
        c.sent_one(300);
        assert_eq!(c.timeout(), (vec![], Recovery::Rewind { index: 0, psn: None }));
        c.response_placed();
        assert_eq!(c.timeout(), (vec![], Recovery::Rewind { index: 0, psn: None }), "responses arrived: the count started again");
        assert_eq!(c.timeout(), (vec![(0, RetryExceeded)], Recovery::Stop), "none since");
    }

    #[test]
    fn rnr_naks_wait_their_timer_and_seven_is_without_limit() {
        let mut c = SendCompletions::new(7, 1);
        c.sent_one(100);
        let wait = Recovery::RnrWait { index: 0, ticks: crate::retry::rnr_ticks(1) };
        assert_eq!(c.acknowledge(aeth::RNR_NAK, 0, 5), Some((vec![], wait)));
        assert_eq!(c.acknowledge(aeth::RNR_NAK, 0, 5), Some((vec![(0, RnrRetryExceeded)], Recovery::Stop)));
        let mut forever = SendCompletions::new(0, 7);
        forever.sent_one(100);
        for _ in 0..100 {
            assert_eq!(forever.acknowledge(aeth::RNR_NAK, 0, 5), Some((vec![], wait)));
        }
        assert_eq!(ack(&mut forever, aeth::ACK, 1), Some(vec![(0, Success)]));
    }

    #[test]
    fn acknowledges_for_psns_never_sent_are_ghosts() {
        let mut c = SendCompletions::new(7, 7);
        c.next_psn = 0xFF_FFFE;
        c.sent_one(0xFF_FFFE + 3);
        assert_eq!(c.next_psn, 1, "PSNs wrap at 2^24");
        assert_eq!(c.acknowledge(aeth::ACK, 1, 1), None, "the PSN after the last one sent");
        assert_eq!(c.acknowledge(aeth::ACK, 1, 0x40_0000), None, "far ahead");
        assert_eq!(c.acknowledge(aeth::NAK_PSN_SEQUENCE, 0, 2), None, "a NAK too");
        assert_eq!(c.done, 0, "ghosts complete nothing");
        assert_eq!(c.acknowledge(aeth::ACK, 1, 0), Some((vec![(0, Success)], Recovery::None)), "the last PSN sent");
        assert_eq!(c.acknowledge(aeth::ACK, 1, 0xFF_FFFE), Some((vec![], Recovery::None)), "an older one: a repeat");
    }
}
