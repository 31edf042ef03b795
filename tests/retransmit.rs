//! Retransmission end to end (go-back-N, IBTA Vol 1 §9.7.5): a lost request packet — FIRST,
//! MIDDLE, LAST or ONLY — is sent again after the responder's sequence NAK, or after the local
//! ACK timeout when nothing follows it, starting mid-message at the lost PSN, byte for byte as
//! the first time; a lost ACK is answered by a resend the responder re-acknowledges without
//! writing again; exhausted retries and RNR retries complete the WQE in error and flush the
//! rest; an RNR NAK waits its timer and succeeds once a receive is posted. Every test checks
//! the completions, the destination memory and the counters, and the frames on the wire.

use rnic_driver::sim_pair::{qp_pair, two_cards, Card, PathKind};
use rnic_driver::verbs::{Cq, DmaBuf, Mr, Qp, QpAttr, QpCaps, QpState, RecvWr, SendWr};
use rnic_sim::world::{LinkConfig, World};
use rnic_spec::desc::{CqStatus, SendOp};
use rnic_spec::mr::access;
use rnic_spec::responder::aeth;
use rnic_spec::wire::packet::RocePacket;
use rnic_spec::wire::rx::{classify, RxConfig};
use std::cell::RefCell;
use std::rc::Rc;

/// Local ACK timeout of the tests' QPs: 4.096 µs × 2^3 = 32.8 µs (8192 cycles).
const TIMEOUT: u8 = 3;

struct Pair {
    world: Rc<RefCell<World>>,
    a: Card,
    b: Card,
    src: DmaBuf,
    dst: DmaBuf,
    lmr: Mr,
    rmr: Mr,
    cqa: Cq,
    cqb: Cq,
    qa: Qp,
    qb: Qp,
}

/// Card 0's QP connected to card 1's at PMTU 1024, with the given retry counts; 64 KiB of
/// random bytes to send from, 64 KiB to write into.
fn pair(retry_cnt: u8, rnr_retry: u8) -> Pair {
    pair_from(retry_cnt, rnr_retry, 0)
}

/// [`pair`] whose requests start at PSN `psn`.
fn pair_from(retry_cnt: u8, rnr_retry: u8, psn: u32) -> Pair {
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let src = a.alloc_buf(1 << 16, 4096).unwrap();
    let image: Vec<u8> = (0..1u32 << 16).map(|i| (i.wrapping_mul(2654435761) >> 13) as u8).collect();
    a.write_buf(src.iova, &image).unwrap();
    let dst = b.alloc_buf(1 << 16, 4096).unwrap();
    let lmr = a.reg_mr(pa, src.iova, 1 << 16, 0).unwrap();
    let rmr = b.reg_mr(pb, dst.iova, 1 << 16, access::REMOTE_WRITE | access::LOCAL_WRITE).unwrap();
    let (cqa, cqb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let (mut qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, QpCaps { sq_entries: 16, rq_entries: 16 }, (psn, 0)).unwrap();
    let attr = QpAttr { timeout: Some(TIMEOUT), retry_cnt: Some(retry_cnt), rnr_retry: Some(rnr_retry), ..Default::default() };
    a.modify_qp(&mut qa, QpState::Rts, &attr).unwrap();
    Pair { world, a, b, src, dst, lmr, rmr, cqa, cqb, qa, qb }
}

impl Pair {
    /// A WRITE (or SEND) of `len` bytes from offset `off` of the source to the same offset of
    /// the destination.
    fn wr(&self, id: u64, op: SendOp, off: u64, len: u32) -> SendWr {
        SendWr {
            wr_id: id,
            op,
            flags: 0,
            local_addr: self.src.iova + off,
            length: len,
            lkey: self.lmr.key(),
            remote_addr: self.dst.iova + off,
            rkey: self.rmr.key(),
            imm: 0,
            atomic: Default::default(),
        }
    }

    /// Run until card 0 has `n` send completions (or `max` cycles); return them all.
    fn completions(&mut self, n: usize, max: u64) -> Vec<(u64, CqStatus)> {
        let mut out = Vec::new();
        let step = 2_000;
        let mut ran = 0;
        while out.len() < n && ran < max {
            self.world.borrow_mut().run_until(step, |_| false);
            ran += step;
            out.extend(self.a.poll_cq(&mut self.cqa, 64).unwrap().iter().map(|w| (w.wr_id, w.status)));
        }
        out
    }

    fn counter(&mut self, card: usize, block: &'static str, reg: &str) -> u32 {
        let c = if card == 0 { &mut self.a } else { &mut self.b };
        c.dev.read(block, reg).unwrap()
    }

    /// Card `from`'s frames, parsed.
    fn sent(&self, from: usize) -> Vec<(RocePacket, Vec<u8>)> {
        let w = self.world.borrow();
        w.sent_by(from).map(|(_, f)| (classify(f, RxConfig { fcs: false }).packet.expect("a RoCE frame"), f.clone())).collect()
    }

    fn same_bytes(&mut self, off: u64, len: usize) -> bool {
        self.a.read_buf(self.src.iova + off, len).unwrap() == self.b.read_buf(self.dst.iova + off, len).unwrap()
    }
}

/// Lose the first frame card `from` sends that `pick` chooses, once.
fn drop_once(world: &Rc<RefCell<World>>, from: usize, pick: impl Fn(&RocePacket) -> bool + 'static) {
    let mut done = false;
    world.borrow_mut().set_drop(move |sender, frame| {
        if done || sender != from {
            return false;
        }
        let p = classify(frame, RxConfig { fcs: true }).packet;
        done = p.as_ref().is_some_and(&pick);
        done
    });
}

#[test]
fn a_lost_first_middle_last_or_only_packet_is_sent_again_from_its_psn() {
    // A 3-packet WRITE (PSNs 0, 1, 2) and a 1-packet WRITE (PSN 3); lose one of them.
    for (lost, resent, naks, timeouts) in [(0u32, vec![0, 1, 2, 3], 1, 0), (1, vec![1, 2, 3], 1, 0), (2, vec![2, 3], 1, 0), (3, vec![3], 0, 1)] {
        let mut p = pair(7, 7);
        drop_once(&p.world, 0, move |pkt| pkt.bth.psn == lost);
        let wrs = [p.wr(1, SendOp::Write, 0, 3000), p.wr(2, SendOp::Write, 4096, 500)];
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        let wcs = p.completions(2, 400_000);
        assert_eq!(wcs, [(1, CqStatus::Success), (2, CqStatus::Success)], "lost PSN {lost}");
        assert!(p.same_bytes(0, 3000) && p.same_bytes(4096, 500), "lost PSN {lost}: memory");
        let frames = p.sent(0);
        let psns: Vec<u32> = frames.iter().map(|f| f.0.bth.psn).collect();
        let want: Vec<u32> = (0..4).chain(resent.iter().copied()).collect();
        assert_eq!(psns, want, "lost PSN {lost}: the resend starts at the lost packet");
        // A resent packet is the same frame as the first time (payload re-read from memory).
        for (i, f) in frames.iter().enumerate().skip(4) {
            assert_eq!(f.1, frames[f.0.bth.psn as usize].1, "lost PSN {lost}: frame {i} equals its first send");
        }
        assert_eq!(p.counter(1, "responder", "placed"), 4, "lost PSN {lost}: every packet placed once");
        assert_eq!(p.counter(0, "completer", "naks_sequence"), naks, "lost PSN {lost}");
        assert_eq!(p.counter(0, "completer", "timeouts"), timeouts, "lost PSN {lost}");
        assert_eq!(p.counter(0, "completer", "rewinds"), 1, "lost PSN {lost}");
        assert_eq!(p.counter(0, "tx_counters", "resent") as usize, resent.len(), "lost PSN {lost}");
        assert_eq!(p.counter(0, "tx_counters", "wqes"), 2, "lost PSN {lost}: two WQEs sent (resends not counted)");
    }
}

#[test]
fn a_lost_ack_is_answered_by_a_resend_that_is_not_written_again() {
    let mut p = pair(7, 7);
    drop_once(&p.world, 1, |pkt| pkt.bth.opcode == rnic_spec::responder::OP_ACK);
    let wr = p.wr(7, SendOp::Write, 0, 3000);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    // The responder placed the WRITE and its ACK was lost: change the destination now; a
    // second placement would undo the change.
    assert!(p.world.borrow_mut().run_until(20_000, |w| w.sent_by(1).count() == 1));
    let marker = vec![0x5A; 3000];
    p.b.write_buf(p.dst.iova, &marker).unwrap();
    let wcs = p.completions(1, 200_000);
    assert_eq!(wcs, [(7, CqStatus::Success)]);
    assert_eq!(p.b.read_buf(p.dst.iova, 3000).unwrap(), marker, "the duplicate WRITE wrote nothing");
    assert_eq!(p.counter(1, "responder", "placed"), 3);
    assert_eq!(p.counter(1, "responder", "duplicates"), 3);
    assert_eq!(p.counter(0, "completer", "timeouts"), 1);
    let psns: Vec<u32> = p.sent(0).iter().map(|f| f.0.bth.psn).collect();
    assert_eq!(psns, [0, 1, 2, 0, 1, 2], "a timeout resends the WQE from its first packet");
}

#[test]
fn exhausted_retries_complete_the_wqe_with_retry_exceeded_and_flush_the_rest() {
    let mut p = pair(2, 7);
    p.world.borrow_mut().set_drop(|from, _| from == 0);
    let wrs = [p.wr(1, SendOp::Write, 0, 100), p.wr(2, SendOp::Write, 128, 100)];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    let wcs = p.completions(2, 400_000);
    assert_eq!(wcs, [(1, CqStatus::RetryExceeded), (2, CqStatus::Flushed)]);
    // The first send and two retries, of both WQEs.
    assert_eq!(p.sent(0).iter().map(|f| f.0.bth.psn).collect::<Vec<_>>(), [0, 1, 0, 1, 0, 1]);
    assert_eq!(p.counter(0, "completer", "timeouts"), 2);
    assert_eq!(p.counter(0, "completer", "retries_exceeded"), 1);
    assert_eq!(p.a.query_qp(&p.qa).unwrap(), QpState::Error, "the card put the QP in error");
    assert_eq!(p.b.query_qp(&p.qb).unwrap(), QpState::Rts, "its peer saw nothing");
    // The queue stays in error: a later WQE is flushed without being sent.
    let wr = p.wr(3, SendOp::Write, 0, 100);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert_eq!(p.completions(1, 100_000), [(3, CqStatus::Flushed)]);
    assert_eq!(p.sent(0).len(), 6);
    assert_eq!(p.counter(1, "responder", "placed"), 0);
}

#[test]
fn an_rnr_nak_waits_its_timer_and_the_send_succeeds_once_a_receive_is_posted() {
    // Two packets and no transport retries: the responder drops the packet behind the RNR'd
    // one silently (a sequence NAK for it would cut the wait short and use a transport retry).
    let mut p = pair(0, 7);
    let wr = p.wr(9, SendOp::Send, 0, 2000);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    // RNR NAKs come back, one per RNR wait (the card's NAK asks for 10 µs, 3 ticks).
    assert!(p.world.borrow_mut().run_until(100_000, |w| w.sent_by(1).count() >= 3));
    let rnr = |pkt: &RocePacket| {
        pkt.ext.iter().any(|e| matches!(e, rnic_spec::wire::ib::Ext::Aeth(a) if a.syndrome == aeth::RNR_NAK))
    };
    assert!(p.sent(1).iter().all(|f| rnr(&f.0)), "only RNR NAKs so far");
    let frames = p.sent(0);
    let gap = p.world.borrow().sent_by(0).nth(2).unwrap().0 - p.world.borrow().sent_by(0).next().unwrap().0;
    assert!(gap >= 3 * 4096, "the resend waits the RNR timer: {gap} ns");
    assert!(frames.iter().all(|f| f.0.bth.psn <= 1), "the SEND is sent again from its PSN");
    assert_eq!(p.counter(1, "responder", "naks_sequence"), 0, "the packet behind an RNR'd one is dropped silently");
    let recv = RecvWr { wr_id: 40, addr: p.dst.iova, length: 4096, lkey: p.rmr.key() };
    p.b.post_recv(&mut p.qb, &[recv]).unwrap();
    assert_eq!(p.completions(1, 200_000), [(9, CqStatus::Success)]);
    let rwc = p.b.poll_cq(&mut p.cqb, 4).unwrap();
    assert_eq!(rwc.iter().map(|w| (w.wr_id, w.status, w.byte_len)).collect::<Vec<_>>(), [(40, CqStatus::Success, 2000)]);
    assert!(p.same_bytes(0, 2000));
    let naks = p.counter(1, "responder", "naks_rnr");
    assert!(naks >= 3);
    assert_eq!(p.counter(0, "completer", "naks_rnr"), naks, "every RNR NAK was received");
    assert_eq!(p.counter(0, "completer", "timeouts"), 0, "RNR waits are not timeouts");
    assert_eq!(p.counter(0, "completer", "retries_exceeded"), 0, "rnr_retry 7 has no limit");
}

#[test]
fn exhausted_rnr_retries_complete_the_send_with_rnr_retry_exceeded() {
    let mut p = pair(7, 1);
    let wrs = [p.wr(5, SendOp::Send, 0, 100), p.wr(6, SendOp::Write, 0, 100)];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    assert_eq!(p.completions(2, 200_000), [(5, CqStatus::RnrRetryExceeded), (6, CqStatus::Flushed)]);
    assert_eq!(p.counter(1, "responder", "naks_rnr"), 2, "the first RNR NAK and one retry's");
    assert_eq!(p.counter(0, "completer", "retries_exceeded"), 1);
    // The WRITE behind the SEND arrived out of sequence each time: never placed.
    assert_eq!(p.counter(1, "responder", "placed"), 0);
}


#[test]
fn a_nak_stops_a_long_message_early_and_the_resend_starts_at_the_gap() {
    // A 64 KiB WRITE is 64 packets at PMTU 1024; lose its third.
    let mut p = pair(7, 7);
    drop_once(&p.world, 0, |pkt| pkt.bth.psn == 2);
    let wr = p.wr(1, SendOp::Write, 0, 65536);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert_eq!(p.completions(1, 400_000), [(1, CqStatus::Success)]);
    assert!(p.same_bytes(0, 65536));
    let psns: Vec<u32> = p.sent(0).iter().map(|f| f.0.bth.psn).collect();
    let resend_at = psns.iter().enumerate().filter(|(_, &x)| x == 2).nth(1).expect("PSN 2 sent again").0;
    assert_eq!(psns[..resend_at], (0..resend_at as u32).collect::<Vec<u32>>()[..], "the first round, in order");
    assert!(resend_at < 40, "the WQE stopped soon after the NAK: {resend_at} packets before the resend");
    assert_eq!(psns[resend_at..], (2..64).collect::<Vec<u32>>()[..], "resent from the gap to the end, once");
    assert_eq!(p.counter(1, "responder", "placed"), 64);
    assert_eq!(p.counter(0, "completer", "rewinds"), 1);
}

#[test]
fn a_timeout_inside_a_long_message_resends_from_the_first_unacknowledged_packet() {
    // A 64 KiB WRITE from PSN 40 is PSNs 40..=103; PSN 63 asks for an ACK on the way
    // (`qp::ACK_REQ_EVERY`). Lose the last packet: nothing follows it to draw a NAK, so the
    // timeout resends — from PSN 64, the first packet not acknowledged, not from PSN 40.
    let mut p = pair_from(7, 7, 40);
    drop_once(&p.world, 0, |pkt| pkt.bth.psn == 103);
    let wr = p.wr(1, SendOp::Write, 0, 65536);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert_eq!(p.completions(1, 400_000), [(1, CqStatus::Success)]);
    assert!(p.same_bytes(0, 65536));
    let frames = p.sent(0);
    let asks: Vec<u32> = frames.iter().filter(|f| f.0.bth.ack_req).map(|f| f.0.bth.psn).collect();
    assert_eq!(asks, [63, 103, 103], "AckReq on PSN 63 inside the message, and on the last packet both times");
    let psns: Vec<u32> = frames.iter().map(|f| f.0.bth.psn).collect();
    assert_eq!(psns, (40..104).chain(64..104).collect::<Vec<u32>>(), "the resend starts after the ACK for PSN 63");
    assert_eq!(p.counter(1, "responder", "placed"), 64);
    assert_eq!(p.counter(1, "responder", "duplicates"), 39, "PSNs 64..=102 arrived twice, placed once");
    assert_eq!(p.counter(0, "completer", "timeouts"), 1);
    assert_eq!(p.counter(0, "completer", "rewinds"), 1);
    assert_eq!(p.counter(0, "tx_counters", "resent"), 40);
}

#[test]
fn a_wqe_sent_before_a_locally_refused_one_is_still_resent() {
    // WQE 1 goes out and is lost; WQE 2 has a stale lkey: the queue breaks at WQE 2, but WQE 1
    // is outstanding and must be resent (by the timeout) and complete before WQE 2's error.
    let mut p = pair(7, 7);
    drop_once(&p.world, 0, |pkt| pkt.bth.psn == 0);
    let good = p.wr(1, SendOp::Write, 0, 500);
    let bad = SendWr { wr_id: 2, lkey: p.lmr.key() ^ 0x100, ..good };
    p.a.post_send_list(&mut p.qa, &[good, bad]).unwrap();
    assert_eq!(p.completions(2, 200_000), [(1, CqStatus::Success), (2, CqStatus::LocalProtection)]);
    assert!(p.same_bytes(0, 500));
    assert_eq!(p.sent(0).iter().map(|f| f.0.bth.psn).collect::<Vec<_>>(), [0, 0], "WQE 1 twice, WQE 2 never");
    assert_eq!(p.counter(0, "completer", "timeouts"), 1);
}

#[test]
fn ghost_and_stale_acks_change_nothing_and_are_counted() {
    let mut p = pair(7, 7);
    // Acknowledges from card 1's raw port that look exactly like its responder's (same path,
    // same QPs) but cover messages that were never sent, or were already acknowledged.
    let ack = |p: &mut Pair, msn: u32, psn: u32| {
        let d = rnic_spec::responder::Response { syndrome: aeth::ACK, psn, msn }.descriptor(&rnic_driver::sim_pair::port(1), p.qb.context());
        p.world.borrow_mut().nics[1].send(d, &[]);
    };
    // Nothing outstanding: a ghost for one message.
    ack(&mut p, 1, 0);
    p.world.borrow_mut().run_until(5_000, |_| false);
    assert_eq!(p.counter(0, "completer", "unexpected"), 1);
    assert_eq!(p.a.poll_cq(&mut p.cqa, 8).unwrap(), [], "no completion from a ghost");

    // One message outstanding: a ghost covering three, sent before the real ACK.
    let wr = p.wr(1, SendOp::Write, 0, 3000);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    ack(&mut p, 3, 2);
    assert_eq!(p.completions(1, 100_000), [(1, CqStatus::Success)], "completed once, by its own ACK");
    assert_eq!(p.counter(0, "completer", "unexpected"), 2);

    // A stale ACK (MSN behind) and a repeated one (MSN equal): nothing to complete.
    ack(&mut p, 0, 0);
    ack(&mut p, 1, 2);
    assert_eq!(p.completions(1, 20_000), [], "no completion from stale acknowledges");
    assert_eq!(p.counter(0, "completer", "unexpected"), 3, "the stale one counted; a repeat is harmless");

    // The QP goes on as before: the next WRITE completes alone, memory right, nothing resent.
    let wr = p.wr(2, SendOp::Write, 4096, 500);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert_eq!(p.completions(1, 100_000), [(2, CqStatus::Success)]);
    assert!(p.same_bytes(0, 3000) && p.same_bytes(4096, 500));
    assert_eq!(p.counter(0, "tx_counters", "resent"), 0);
    assert_eq!(p.counter(0, "completer", "cqes"), 2);

    // A ghost by PSN: WRITE 3 (PSN 4) loses its ACK; an acknowledge whose MSN would cover it
    // but whose PSN (5) was never sent completes nothing. The timeout's resend does.
    drop_once(&p.world, 1, |pkt| pkt.bth.opcode == rnic_spec::responder::OP_ACK);
    let before = p.world.borrow().sent_by(1).count();
    let wr = p.wr(3, SendOp::Write, 8192, 500);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert!(p.world.borrow_mut().run_until(20_000, |w| w.sent_by(1).count() == before + 1), "the ACK (lost)");
    ack(&mut p, 3, 5);
    p.world.borrow_mut().run_until(3_000, |_| false);
    assert_eq!(p.counter(0, "completer", "unexpected"), 4, "the ghost counted");
    assert_eq!(p.a.poll_cq(&mut p.cqa, 8).unwrap(), [], "no completion from a PSN never sent");
    assert_eq!(p.completions(1, 200_000), [(3, CqStatus::Success)], "completed by the resend's ACK");
    assert_eq!(p.counter(0, "completer", "timeouts"), 1);
    assert!(p.same_bytes(8192, 500));
}

#[test]
fn unsignaled_sends_complete_silently_and_errors_always_complete() {
    use rnic_spec::desc::send_flags::SIGNALED;
    let mut p = pair(7, 7);
    p.a.set_sq_sig_all(&p.qa, false).unwrap();
    // Eight WRITEs, every fourth SIGNALED: two CQEs, and all eight slots free again.
    let wrs: Vec<SendWr> =
        (0..8).map(|i| SendWr { flags: if i % 4 == 3 { SIGNALED } else { 0 }, ..p.wr(i, SendOp::Write, i * 1024, 1000) }).collect();
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    assert_eq!(p.completions(2, 200_000), [(3, CqStatus::Success), (7, CqStatus::Success)]);
    assert_eq!(p.completions(1, 20_000), [], "nothing more");
    assert!((0..8).all(|i| p.same_bytes(i * 1024, 1000)), "every WRITE placed");
    assert_eq!(p.counter(0, "completer", "cqes"), 2);
    assert_eq!(p.counter(0, "completer", "acks"), p.counter(1, "responder", "acks"));
    assert_eq!(p.a.sq_free(&p.qa), 16, "the silent ones' slots were freed by the signaled ones");

    // Unsignaled still completes an error, and the flush behind it: a good WRITE (silent), one
    // the responder refuses (bad rkey), and one behind it.
    let bad = SendWr { rkey: p.rmr.key() ^ 0x100, ..p.wr(9, SendOp::Write, 0, 100) };
    let wrs = [p.wr(8, SendOp::Write, 0, 100), bad, p.wr(10, SendOp::Write, 0, 100)];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    assert_eq!(p.completions(2, 200_000), [(9, CqStatus::RemoteAccess), (10, CqStatus::Flushed)]);
    assert_eq!(p.counter(0, "completer", "cqes"), 4);
    assert_eq!(p.a.sq_free(&p.qa), 16);
}

#[test]
fn a_message_across_the_psn_wrap_is_resent_from_the_lost_packet() {
    // A 3-packet WRITE on PSNs 0xFFFFFE, 0xFFFFFF, 0 and a 1-packet WRITE on PSN 1; lose the
    // packet after the wrap's edge (a sequence NAK for it, the resend crossing the wrap) or
    // the one after the wrap (the LAST: the NAK for it comes from the next WRITE).
    const EDGE: u32 = 0xFF_FFFE;
    for lost in [0xFF_FFFFu32, 0] {
        let mut p = pair_from(7, 7, EDGE);
        drop_once(&p.world, 0, move |pkt| pkt.bth.psn == lost);
        let wrs = [p.wr(1, SendOp::Write, 0, 3000), p.wr(2, SendOp::Write, 4096, 500)];
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        assert_eq!(p.completions(2, 400_000), [(1, CqStatus::Success), (2, CqStatus::Success)], "lost PSN {lost:#x}");
        assert!(p.same_bytes(0, 3000) && p.same_bytes(4096, 500), "lost PSN {lost:#x}: memory");
        let psns: Vec<u32> = p.sent(0).iter().map(|f| f.0.bth.psn).collect();
        let first = [EDGE, 0xFF_FFFF, 0, 1];
        let resent: Vec<u32> = first.iter().copied().skip_while(|&x| x != lost).collect();
        assert_eq!(psns, [first.to_vec(), resent].concat(), "lost PSN {lost:#x}: resent from the lost packet, across the wrap");
        assert_eq!(p.counter(1, "responder", "placed"), 4, "lost PSN {lost:#x}: every packet placed once");
        assert_eq!(p.counter(0, "completer", "naks_sequence"), 1, "lost PSN {lost:#x}");
    }
}
