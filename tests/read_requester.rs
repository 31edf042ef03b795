//! RDMA READ, the requester's side, end to end through the driver: card 0 posts READs of card
//! 1's memory. Each READ request on the wire is the reference model's
//! (`rnic_spec::qp::QpContext::request`: one packet, the RETH, ceil(len / PMTU) PSNs); its
//! responses land byte for byte in the local buffer and nowhere else; the WQE completes (op
//! Read, its length) only after its last response is placed. A lost response — FIRST, MIDDLE,
//! LAST or ONLY — is recovered by an implied NAK (a later response arrives ahead of it) or by
//! the local ACK timeout, each response placed exactly once; `max_rd_atomic` bounds the READs
//! on the wire; a local buffer without LOCAL_WRITE, or a remote one without REMOTE_READ, fails
//! the READ with the right status and writes nothing. A peer's random mix of responses —
//! in order, duplicated, ahead of a gap, with a wrong opcode or length, ACKs past a READ — is
//! placed, dropped and NAKed exactly as the model (`rnic_spec::reads::ReadPlacer`) says.
//! Atomics, which share the READ machinery: COMPARE & SWAP (hit, miss) and FETCH & ADD (also
//! wrapping) return the original value into the 8-byte local buffer and change card 1's word;
//! a lost ATOMIC Acknowledge is answered again from the saved result, never executed twice;
//! a misaligned word, a region without REMOTE_ATOMIC or a local buffer without LOCAL_WRITE
//! fail the WQE with the right status and write nothing.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::sim_pair::{path, port, qp_pair, run_for_completions, two_cards, Card, PathKind};
use rnic_driver::verbs::{Cq, DmaBuf, Mr, Qp, QpAttr, QpCaps, QpState, SendWr, VerbsError};
use rnic_sim::world::{LinkConfig, World};
use rnic_spec::desc::{send_wqe, CqOp, CqStatus, SendOp, SendWqe};
use rnic_spec::mr::access;
use rnic_spec::qp::packet_count;
use rnic_spec::reads::{PendingRead, ReadArrival, ReadPlacer};
use rnic_spec::responder::{
    aeth, ReadReply, ReadResponse, Response, OP_ACK, OP_ATOMIC_ACK, OP_FETCH_ADD, OP_READ_REQUEST, OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_LAST,
    OP_READ_RESPONSE_MIDDLE, OP_READ_RESPONSE_ONLY,
};
use rnic_spec::wire::ib::{Aeth, Ext, Reth};
use rnic_spec::wire::packet::RocePacket;
use rnic_spec::wire::rx::{classify, RxConfig};
use rnic_spec::wire::tx::AtomicArgs;
use std::cell::RefCell;
use std::rc::Rc;

/// Local ACK timeout of the tests' QPs: 4.096 µs × 2^3 = 32.8 µs (8192 cycles).
const TIMEOUT: u8 = 3;
const SIZE: usize = 1 << 16;

struct Pair {
    world: Rc<RefCell<World>>,
    a: Card,
    b: Card,
    /// Card 0's buffer the READs land in, and card 1's they read.
    local: DmaBuf,
    remote: DmaBuf,
    lmr: Mr,
    rmr: Mr,
    cqa: Cq,
    qa: Qp,
    qb: Qp,
}

fn pattern(seed: u32) -> Vec<u8> {
    (0..SIZE as u32).map(|i| (i.wrapping_add(seed).wrapping_mul(2654435761) >> 13) as u8).collect()
}

/// Card 0's QP connected to card 1's at `pmtu`; card 1's 64 KiB hold one pattern, card 0's
/// another; the regions allow `local_access` and `remote_access`.
fn pair(pmtu: u32, max_rd_atomic: u8, local_access: u8, remote_access: u8) -> Pair {
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let local = a.alloc_buf(SIZE, 4096).unwrap();
    a.write_buf(local.iova, &pattern(1)).unwrap();
    let remote = b.alloc_buf(SIZE, 4096).unwrap();
    b.write_buf(remote.iova, &pattern(2)).unwrap();
    let lmr = a.reg_mr(pa, local.iova, SIZE as u32, local_access).unwrap();
    let rmr = b.reg_mr(pb, remote.iova, SIZE as u32, remote_access).unwrap();
    let (cqa, cqb) = (a.create_cq(64).unwrap(), b.create_cq(64).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu };
    let (mut qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, QpCaps { sq_entries: 16, rq_entries: 16 }, (0, 0)).unwrap();
    let attr = QpAttr { timeout: Some(TIMEOUT), retry_cnt: Some(7), max_rd_atomic: Some(max_rd_atomic), ..Default::default() };
    a.modify_qp(&mut qa, QpState::Rts, &attr).unwrap();
    Pair { world, a, b, local, remote, lmr, rmr, cqa, qa, qb }
}

impl Pair {
    /// A READ of `len` bytes at offset `roff` of card 1's buffer into offset `loff` of card 0's.
    fn read(&self, id: u64, loff: u64, roff: u64, len: u32) -> SendWr {
        SendWr {
            wr_id: id,
            op: SendOp::Read,
            flags: 0,
            local_addr: self.local.iova + loff,
            length: len,
            lkey: self.lmr.key(),
            remote_addr: self.remote.iova + roff,
            rkey: self.rmr.key(),
            imm: 0,
            atomic: Default::default(),
        }
    }

    /// Run until card 0 has `n` send completions (or `max` cycles); return them all.
    fn completions(&mut self, n: usize, max: u64) -> Vec<(u64, CqStatus, CqOp, u32)> {
        let wcs = run_for_completions(&self.world, &mut self.a, &mut self.cqa, n, 2_000, max).unwrap();
        wcs.iter().map(|w| (w.wr_id, w.status, w.op, w.byte_len)).collect()
    }

    fn counter(&mut self, card: usize, block: &'static str, reg: &str) -> u32 {
        let c = if card == 0 { &mut self.a } else { &mut self.b };
        c.dev.read(block, reg).unwrap()
    }

    /// Every frame on the wire in order: (sender, parsed, bytes).
    fn wire(&self) -> Vec<(usize, RocePacket, Vec<u8>)> {
        let w = self.world.borrow();
        w.capture()
            .iter()
            .map(|(_, from, f)| (*from, classify(f, RxConfig { fcs: false }).packet.expect("a RoCE frame"), f.clone()))
            .collect()
    }

    /// Card 0's buffer is its pattern with each (local offset, remote offset, length) copied
    /// from card 1's.
    fn assert_local(&mut self, reads: &[(u64, u64, u32)], what: &str) {
        let mut want = pattern(1);
        let remote = pattern(2);
        for &(l, r, n) in reads {
            want[l as usize..(l + n as u64) as usize].copy_from_slice(&remote[r as usize..(r + n as u64) as usize]);
        }
        let got = self.a.read_buf(self.local.iova, SIZE).unwrap();
        let diff = got.iter().zip(&want).position(|(g, w)| g != w);
        assert_eq!(diff, None, "{what}: card 0's buffer differs first at this offset");
    }
}

#[test]
fn reads_land_byte_exact_and_their_requests_are_the_models() {
    for pmtu in [256u32, 1024, 4096] {
        let mut p = pair(pmtu, 8, access::LOCAL_WRITE, access::REMOTE_READ);
        let lens = [0u32, 1, 63, pmtu - 1, pmtu, pmtu + 1, 3 * pmtu + 17, 20_000];
        let mut reads = Vec::new();
        let mut wrs = Vec::new();
        let (mut loff, mut roff) = (8u64, 4096 + 3u64);
        for (i, &n) in lens.iter().enumerate() {
            reads.push((loff, roff, n));
            wrs.push(p.read(i as u64, loff, roff, n));
            loff += n as u64 + 40;
            roff += n as u64 + 11;
        }
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        let wcs = p.completions(lens.len(), 600_000);
        let want: Vec<_> = lens.iter().enumerate().map(|(i, &n)| (i as u64, CqStatus::Success, CqOp::Read, n)).collect();
        assert_eq!(wcs, want, "PMTU {pmtu}: every READ completes in order with its length");
        p.assert_local(&reads, &format!("PMTU {pmtu}"));

        // The requests are the model's, PSNs advancing by each READ's response count.
        let ctx = *p.qa.context();
        let regions = p.a.regions().to_vec();
        let mut psn = ctx.sq_psn;
        let mut want_frames = Vec::new();
        for wr in &wrs {
            let wqe = SendWqe {
                wr_id: wr.wr_id,
                op: wr.op as u8,
                length: wr.length,
                lkey: wr.lkey,
                local_addr: wr.local_addr,
                remote_addr: wr.remote_addr,
                rkey: wr.rkey,
                ..Default::default()
            };
            let pkts = ctx.request(p.a.port(), &regions, &wqe, psn).expect("the model sends it");
            want_frames.extend(pkts.iter().map(|q| q.desc.packet(&[]).unwrap().frame()));
            psn = (psn + packet_count(wr.length, ctx.pmtu_log2)) & 0xFF_FFFF;
        }
        let wire = p.wire();
        let requests: Vec<Vec<u8>> = wire.iter().filter(|f| f.0 == 0).map(|f| f.2.clone()).collect();
        assert_eq!(requests, want_frames, "PMTU {pmtu}: card 0 sent exactly the model's READ requests");
        let responses: u32 = lens.iter().map(|&n| packet_count(n, ctx.pmtu_log2)).sum();
        assert!(wire.iter().filter(|f| f.0 == 1).all(|f| (OP_READ_RESPONSE_FIRST..=OP_READ_RESPONSE_ONLY).contains(&f.1.bth.opcode)));
        assert_eq!(p.counter(1, "responder", "read_responses"), responses, "PMTU {pmtu}");
        assert_eq!(p.counter(0, "responder", "read_placed"), responses, "PMTU {pmtu}: every response placed");
        for name in ["read_dropped", "implied_naks"] {
            assert_eq!(p.counter(0, "responder", name), 0, "PMTU {pmtu}: {name}");
        }
        assert_eq!(p.counter(0, "completer", "unexpected"), 0, "PMTU {pmtu}");
    }
}

#[test]
fn a_lost_read_response_is_recovered_and_each_response_placed_once() {
    // A READ of 3000 bytes at PMTU 1024 (responses FIRST 0, MIDDLE 1, LAST 2) and one of 100
    // (ONLY 3). A lost FIRST, MIDDLE or LAST is noticed when the next response arrives ahead
    // of it (an implied NAK); the lost ONLY has nothing behind it (the ACK timeout).
    for (lost, implied, timeouts) in [(0u32, 1, 0), (1, 1, 0), (2, 1, 0), (3, 0, 1)] {
        let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_READ);
        let mut done = false;
        p.world.borrow_mut().set_drop(move |sender, frame| {
            if done || sender != 1 {
                return false;
            }
            done = classify(frame, RxConfig { fcs: true }).packet.is_some_and(|q| q.bth.psn == lost);
            done
        });
        let reads = [(0u64, 100u64, 3000u32), (8192, 9000, 100)];
        let wrs: Vec<SendWr> = reads.iter().enumerate().map(|(i, r)| p.read(i as u64, r.0, r.1, r.2)).collect();
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        let wcs = p.completions(2, 600_000);
        assert_eq!(wcs, [(0, CqStatus::Success, CqOp::Read, 3000), (1, CqStatus::Success, CqOp::Read, 100)], "lost PSN {lost}");
        p.assert_local(&reads, &format!("lost PSN {lost}"));
        assert_eq!(p.counter(0, "responder", "read_placed"), 4, "lost PSN {lost}: every response placed once");
        assert_eq!(p.counter(0, "responder", "implied_naks"), implied, "lost PSN {lost}");
        assert_eq!(p.counter(0, "completer", "timeouts"), timeouts, "lost PSN {lost}");
        assert!(p.counter(0, "completer", "rewinds") >= 1, "lost PSN {lost}: the READ was sent again");
        // The resend asks again for what is missing of the oldest READ: from the lost response
        // on, its address and length moved on by the responses placed (IBTA Vol 1 §9.7.5.1.2);
        // card 1 answers it from the middle (MIDDLE / LAST), as the first answer went on.
        let wire = p.wire();
        let requests: Vec<(u32, Reth)> = wire
            .iter()
            .filter(|f| f.0 == 0 && f.1.bth.opcode == OP_READ_REQUEST)
            .map(|f| (f.1.bth.psn, f.1.ext.iter().find_map(|e| if let Ext::Reth(r) = e { Some(*r) } else { None }).expect("a RETH")))
            .collect();
        let psns: Vec<u32> = requests.iter().map(|r| r.0).collect();
        assert!(psns.len() > 2 && psns[..2] == [0, 3], "lost PSN {lost}: requests {psns:?}");
        let remote = p.remote.iova;
        let (from, va, len) = if lost == 3 { (3, remote + 9000, 100) } else { (lost, remote + 100 + lost as u64 * 1024, 3000 - lost * 1024) };
        assert_eq!(requests[2], (from, Reth { va, rkey: p.rmr.key(), dma_len: len }), "lost PSN {lost}: the rest of the oldest READ missing a response is asked for");
        let answers: Vec<(u32, u8)> = wire.iter().filter(|f| f.0 == 1 && f.1.bth.opcode != OP_ACK).map(|f| (f.1.bth.psn, f.1.bth.opcode)).collect();
        let first_again = if lost == 3 { OP_READ_RESPONSE_ONLY } else if lost == 0 { OP_READ_RESPONSE_FIRST } else if lost == 1 { OP_READ_RESPONSE_MIDDLE } else { OP_READ_RESPONSE_LAST };
        assert!(answers[answers.len().min(4)..].contains(&(from, first_again)), "lost PSN {lost}: answered again from {from} with {first_again:#x}: {answers:?}");
        assert!(p.counter(1, "responder", "duplicates") >= 1, "lost PSN {lost}");
    }
}

#[test]
fn max_rd_atomic_bounds_the_reads_on_the_wire() {
    // READs and atomics count alike: FETCH & ADDs between the READs (each one's original value
    // is card 1's 8 bytes, as an 8-byte READ would bring).
    let mut p = pair(1024, 1, access::LOCAL_WRITE, access::REMOTE_READ | access::REMOTE_ATOMIC);
    let reads: Vec<(u64, u64, u32)> = (0..6u64).map(|i| (i * 4096, i * 4096 + 512, if i % 2 == 1 { 8 } else { 2000 })).collect();
    let wrs: Vec<SendWr> = reads
        .iter()
        .enumerate()
        .map(|(i, r)| if r.2 == 8 { p.atomic(i as u64, SendOp::FetchAdd, r.0, r.1, 0, 0) } else { p.read(i as u64, r.0, r.1, r.2) })
        .collect();
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    let wcs = p.completions(6, 600_000);
    assert_eq!(wcs.len(), 6);
    assert!(wcs.iter().all(|w| w.1 == CqStatus::Success));
    p.assert_local(&reads, "max_rd_atomic 1");
    // With one READ or atomic outstanding at a time, each request follows the previous one's
    // last response.
    let wire = p.wire();
    let mut outstanding = 0;
    for (from, pkt, _) in &wire {
        match (*from, pkt.bth.opcode) {
            (0, OP_READ_REQUEST | OP_FETCH_ADD) => {
                outstanding += 1;
                assert_eq!(outstanding, 1, "a second READ or atomic went out before the first's last response");
            }
            (1, OP_READ_RESPONSE_LAST | OP_READ_RESPONSE_ONLY | OP_ATOMIC_ACK) => outstanding -= 1,
            _ => {}
        }
    }
    assert_eq!(outstanding, 0);
}

#[test]
fn a_read_refused_locally_or_remotely_fails_and_writes_nothing() {
    // The local buffer does not allow LOCAL_WRITE: the card refuses the WQE, sends nothing.
    let mut p = pair(1024, 8, 0, access::REMOTE_READ);
    let wr = p.read(7, 0, 0, 500);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    let wcs = p.completions(1, 100_000);
    assert_eq!(wcs, [(7, CqStatus::LocalProtection, CqOp::Read, 0)]);
    assert!(p.wire().is_empty(), "nothing on the wire");
    p.assert_local(&[], "no LOCAL_WRITE");

    // The remote region does not allow REMOTE_READ: card 1 NAKs, the READ fails.
    let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_WRITE);
    let wrs = [p.read(8, 0, 0, 500), p.read(9, 1024, 0, 500)];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    let wcs = p.completions(2, 200_000);
    assert_eq!(wcs, [(8, CqStatus::RemoteAccess, CqOp::Read, 0), (9, CqStatus::Flushed, CqOp::Read, 0)]);
    p.assert_local(&[], "no REMOTE_READ");
    assert_eq!(p.counter(1, "responder", "naks_access"), 1);
    assert_eq!(p.counter(0, "responder", "read_placed"), 0);
}

#[test]
fn a_qp_with_max_dest_rd_atomic_0_refuses_reads_and_atomics() {
    // Card 1's QP set up again with max_dest_rd_atomic 0 (an RTR attribute): a READ or an
    // atomic there is an invalid request (NAK, the QP to error, as rxe); nothing is read or
    // written on either side and the WQE behind is flushed.
    for first in [SendOp::Read, SendOp::FetchAdd] {
        let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_READ | access::REMOTE_ATOMIC);
        let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
        let rtr = |n| QpAttr {
            path: Some(path(0, kind, 7)),
            pmtu: Some(1024),
            dest_qpn: Some(p.qa.qpn),
            rq_psn: Some(0),
            max_dest_rd_atomic: Some(n),
            ..Default::default()
        };
        p.b.modify_qp(&mut p.qb, QpState::Reset, &QpAttr::default()).unwrap();
        p.b.modify_qp(&mut p.qb, QpState::Init, &QpAttr::default()).unwrap();
        let e = p.b.modify_qp(&mut p.qb, QpState::Rtr, &rtr(9)).unwrap_err();
        assert!(e.to_string().contains("max_dest_rd_atomic") && e.to_string().contains("9 is more than 8"), "{e}");
        p.b.modify_qp(&mut p.qb, QpState::Rtr, &rtr(0)).unwrap();
        let rts = QpAttr { sq_psn: Some(0), ..Default::default() };
        let e = p.b.modify_qp(&mut p.qb, QpState::Rts, &QpAttr { max_dest_rd_atomic: Some(1), ..rts }).unwrap_err();
        assert!(e.to_string().contains("is set on the way to Rtr"), "{e}");
        p.b.modify_qp(&mut p.qb, QpState::Rts, &rts).unwrap();
        let read = p.read(1, 0, 0, 500);
        let atomic = p.atomic(1, SendOp::FetchAdd, 0, 8, 1, 0);
        let wrs = if first == SendOp::Read { [read, SendWr { wr_id: 2, ..atomic }] } else { [atomic, SendWr { wr_id: 2, ..read }] };
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        let wcs = p.completions(2, 200_000);
        let second = if first == SendOp::Read { CqOp::FetchAdd } else { CqOp::Read };
        let first_op = if first == SendOp::Read { CqOp::Read } else { CqOp::FetchAdd };
        assert_eq!(wcs, [(1, CqStatus::RemoteInvalidRequest, first_op, 0), (2, CqStatus::Flushed, second, 0)], "{first:?} first");
        assert_eq!(p.counter(1, "responder", "naks_invalid"), 1);
        assert_eq!(p.counter(1, "responder", "read_responses") + p.counter(1, "responder", "atomics"), 0);
        assert_eq!(p.b.query_qp(&p.qb).unwrap(), QpState::Error);
        p.assert_local(&[], "refused");
        assert_eq!(p.b.read_buf(p.remote.iova, SIZE).unwrap(), pattern(2), "card 1's memory unchanged");
    }
}

#[test]
fn a_peers_random_responses_are_placed_as_the_model_says() {
    for seed in 0..3u64 {
        let mut rng = SmallRng::seed_from_u64(0x3ead_0000 + seed);
        let mut p = pair(256, 8, access::LOCAL_WRITE, access::REMOTE_READ);
        // Card 1 is played by the test: card 0's requests never reach it, and no timer runs.
        // READs and FETCH & ADDs (answered by an ATOMIC Acknowledge with the word's value).
        let attr = QpAttr { timeout: Some(0), ..Default::default() };
        p.a.modify_qp(&mut p.qa, QpState::Rts, &attr).unwrap();
        p.world.borrow_mut().set_drop(|sender, _| sender == 0);
        let ctx = *p.qa.context();
        let peer = *p.qb.context();
        let mut model = ReadPlacer::default();
        let mut reads = Vec::new();
        let mut wrs = Vec::new();
        let mut flat: Vec<ReadResponse> = Vec::new();
        let (mut loff, mut psn) = (0u64, ctx.sq_psn);
        for k in 0..6u32 {
            let atomic = k == 4 || rng.gen_bool(0.25);
            let len = if atomic { 8 } else if k == 2 { 0 } else { rng.gen_range(1..3000) };
            let roff = rng.gen_range(0..(SIZE as u64 - 4096)) & !7;
            reads.push((loff, roff, len, atomic));
            wrs.push(if atomic { p.atomic(k as u64, SendOp::FetchAdd, loff, roff, 1, 0) } else { p.read(k as u64, loff, roff, len) });
            model.pending.push_back(PendingRead { laddr: p.local.iova + loff, len, lkey: p.lmr.key(), psn, atomic });
            if atomic {
                let aeth = Some(Aeth { syndrome: aeth::ACK, msn: k + 1 });
                flat.push(ReadResponse { opcode: OP_ATOMIC_ACK, psn, aeth, va: p.remote.iova + roff, len: 0 });
            } else {
                flat.extend(ReadReply { psn, va: p.remote.iova + roff, len, msn: k + 1, mid: false, slot: None }.responses(ctx.pmtu_log2));
            }
            psn = (psn + packet_count(len, ctx.pmtu_log2)) & 0xFF_FFFF;
            loff += len as u64 + 100;
        }
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        p.world.borrow_mut().run_until(5_000, |_| false);

        // The peer's stream: mostly the next response, with duplicates, gaps (a later response
        // first), wrong opcodes and lengths, and ACKs.
        let remote = pattern(2);
        let mut counts = std::collections::HashMap::<&str, u32>::new();
        let mut done = 0;
        let mut i = 0;
        let mut sent = 0;
        while i < flat.len() {
            let mut r = flat[i];
            let mut next = false;
            match rng.gen_range(0..100) {
                0..=7 => r = flat[rng.gen_range(0..=i)],
                8..=12 if i + 1 < flat.len() => r = flat[rng.gen_range(i + 1..flat.len().min(i + 4))],
                13..=15 => {
                    r.opcode = [OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_MIDDLE, OP_READ_RESPONSE_LAST, OP_READ_RESPONSE_ONLY, OP_ATOMIC_ACK][rng.gen_range(0..5)]
                }
                16..=18 if r.len > 0 => r.len -= 1,
                19..=21 => {
                    // An ACK, or an error NAK for a request after the oldest READ (retried
                    // first: never blamed on the READ).
                    let (syndrome, at) = match (rng.gen_bool(0.5), model.pending.front()) {
                        (true, Some(head)) => (aeth::NAK_REMOTE_ACCESS, (head.psn + packet_count(head.len, ctx.pmtu_log2) + rng.gen_range(0..2)) & 0xFF_FFFF),
                        _ => (aeth::ACK, (r.psn + rng.gen_range(0..3)) & 0xFF_FFFF),
                    };
                    let d = Response { syndrome, psn: at, msn: done }.descriptor(&port(1), &peer);
                    if let Some(c) = model.ack(syndrome, at, ctx.pmtu_log2).counter() {
                        *counts.entry(c).or_default() += 1;
                    }
                    assert_eq!(d.opcode, OP_ACK);
                    p.world.borrow_mut().nics[1].send(d, &[]);
                    sent += 1;
                    continue;
                }
                _ => next = true,
            }
            let at = (r.va - p.remote.iova) as usize;
            let bytes = &remote[at..at + r.len as usize];
            if r.opcode == OP_ATOMIC_ACK && r.len > 0 {
                // An opcode without payload carrying some: the receive pipeline drops it.
                *counts.entry("pad_length").or_default() += 1;
                let d = r.descriptor(&port(1), &peer);
                p.world.borrow_mut().nics[1].send(d, bytes);
                sent += 1;
                continue;
            }
            let arrival = model.response(p.a.regions(), ctx.pd, ctx.pmtu_log2, r.opcode, r.psn, r.len);
            if let ReadArrival::Placed { done: true, .. } = arrival {
                done += 1;
            }
            *counts.entry(arrival.counter().unwrap()).or_default() += 1;
            let mut d = r.descriptor(&port(1), &peer);
            d.atomic.value = word_at(&remote, at as u64);
            p.world.borrow_mut().nics[1].send(d, bytes);
            sent += 1;
            // (An in-order response the model placed moves the stream on.)
            if next || matches!(arrival, ReadArrival::Placed { .. }) && r == flat[i] {
                i += 1;
            }
            if sent % 8 == 0 {
                p.world.borrow_mut().run_until(3_000, |_| false);
            }
        }
        assert_eq!(done, 6, "seed {seed}: the stream completes every READ");
        let wcs = p.completions(6, 200_000);
        let op = |atomic| if atomic { CqOp::FetchAdd } else { CqOp::Read };
        let want: Vec<_> = reads.iter().enumerate().map(|(k, r)| (k as u64, CqStatus::Success, op(r.3), r.2)).collect();
        assert_eq!(wcs, want, "seed {seed}");
        let reads: Vec<(u64, u64, u32)> = reads.iter().map(|r| (r.0, r.1, r.2)).collect();
        p.assert_local(&reads, &format!("seed {seed}"));
        for name in ["read_placed", "read_dropped", "implied_naks"] {
            assert_eq!(p.counter(0, "responder", name), counts.get(name).copied().unwrap_or(0), "seed {seed}: {name}");
        }
        assert_eq!(p.counter(0, "rx_counters", "pad_length"), counts.get("pad_length").copied().unwrap_or(0), "seed {seed}");
        assert!(counts.get("read_dropped").is_some_and(|&n| n > 0) && counts.get("implied_naks").is_some_and(|&n| n > 0), "seed {seed}: {counts:?}");
        assert_eq!(p.counter(0, "completer", "retries_exceeded"), 0, "seed {seed}");
    }
}

#[test]
fn responses_for_a_deregistered_buffer_are_refused_and_the_read_fails() {
    // The local region goes away while the READ's responses are on their way (cleared on the
    // card directly: the driver's `dereg_mr` refuses while a posted WQE uses it): not a byte
    // of them lands, the READ completes with LocalProtection, the next WQE is flushed.
    let mut p = pair(256, 8, access::LOCAL_WRITE, access::REMOTE_READ);
    let attr = QpAttr { timeout: Some(0), ..Default::default() };
    p.a.modify_qp(&mut p.qa, QpState::Rts, &attr).unwrap();
    p.world.borrow_mut().set_drop(|sender, _| sender == 0);
    let (ctx, peer) = (*p.qa.context(), *p.qb.context());
    let wrs = [p.read(1, 0, 0, 700), p.read(2, 1024, 0, 100)];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    p.world.borrow_mut().run_until(5_000, |_| false);
    p.a.dev.clear_mr(p.lmr.key()).unwrap();
    let remote = pattern(2);
    for r in (ReadReply { psn: ctx.sq_psn, va: p.remote.iova, len: 700, msn: 1, mid: false, slot: None }).responses(ctx.pmtu_log2) {
        let at = (r.va - p.remote.iova) as usize;
        p.world.borrow_mut().nics[1].send(r.descriptor(&port(1), &peer), &remote[at..at + r.len as usize]);
    }
    let wcs = p.completions(2, 100_000);
    assert_eq!(wcs, [(1, CqStatus::LocalProtection, CqOp::Read, 0), (2, CqStatus::Flushed, CqOp::Read, 0)]);
    p.assert_local(&[], "deregistered");
    assert_eq!(p.counter(0, "responder", "read_placed"), 0);
    // The FIRST is refused (nothing placed, so the MIDDLE behind it is ahead: an implied NAK,
    // and the LAST is dropped with it), as the model has it.
    assert_eq!(p.counter(0, "responder", "read_dropped"), 2);
    assert_eq!(p.counter(0, "responder", "implied_naks"), 1);
}

/// Card 0's QP played against by the test (its requests go nowhere), with `timeout` and
/// `retry_cnt`, one READ of `len` bytes at PMTU 256 posted; the responses that READ expects.
fn raw_peer(timeout: u8, retry_cnt: u8, len: u32) -> (Pair, Vec<(rnic_spec::wire::tx::TxDescriptor, Vec<u8>)>) {
    let mut p = pair(256, 8, access::LOCAL_WRITE, access::REMOTE_READ);
    let attr = QpAttr { timeout: Some(timeout), retry_cnt: Some(retry_cnt), ..Default::default() };
    p.a.modify_qp(&mut p.qa, QpState::Rts, &attr).unwrap();
    p.world.borrow_mut().set_drop(|sender, _| sender == 0);
    let (ctx, peer) = (*p.qa.context(), *p.qb.context());
    let wr = p.read(1, 0, 0, len);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    p.world.borrow_mut().run_until(3_000, |_| false);
    let remote = pattern(2);
    let frames = (ReadReply { psn: ctx.sq_psn, va: p.remote.iova, len, msn: 1, mid: false, slot: None })
        .responses(ctx.pmtu_log2)
        .iter()
        .map(|r| {
            let at = (r.va - p.remote.iova) as usize;
            (r.descriptor(&port(1), &peer), remote[at..at + r.len as usize].to_vec())
        })
        .collect();
    (p, frames)
}

#[test]
fn a_read_progressing_slower_than_the_timeout_is_not_timed_out() {
    // Timeout 32.8 µs (8192 cycles); four responses 6000 cycles apart: each one placed starts
    // the READ's timer again, so the READ completes without a timeout or a resend.
    let (mut p, frames) = raw_peer(TIMEOUT, 7, 1000);
    for (d, bytes) in frames {
        p.world.borrow_mut().nics[1].send(d, &bytes);
        p.world.borrow_mut().run_until(6_000, |_| false);
    }
    let wcs = p.completions(1, 50_000);
    assert_eq!(wcs, [(1, CqStatus::Success, CqOp::Read, 1000)]);
    p.assert_local(&[(0, 0, 1000)], "slow responses");
    assert_eq!(p.counter(0, "completer", "timeouts"), 0, "the timer restarted with each response");
    assert_eq!(p.counter(0, "responder", "read_placed"), 4);
}

#[test]
fn responses_after_the_read_failed_are_not_placed() {
    // No retry: the READ's timeout fails it (RetryExceeded) and puts the QP in error; the
    // responses that come after are dropped — its buffer is the application's again.
    let (mut p, frames) = raw_peer(TIMEOUT, 0, 600);
    let wcs = p.completions(1, 100_000);
    assert_eq!(wcs, [(1, CqStatus::RetryExceeded, CqOp::Read, 0)]);
    assert_eq!(p.a.query_qp(&p.qa).unwrap(), QpState::Error);
    let n = frames.len() as u32;
    for (d, bytes) in frames {
        p.world.borrow_mut().nics[1].send(d, &bytes);
    }
    p.world.borrow_mut().run_until(20_000, |_| false);
    p.assert_local(&[], "after the failure");
    assert_eq!(p.counter(0, "responder", "read_placed"), 0);
    assert_eq!(p.counter(0, "responder", "read_dropped"), n);
}

// Atomics, the requester's side: they share the READ machinery (one request, an entry in the
// READ table, completion once the answer is placed), so they live beside the READs.

impl Pair {
    /// An atomic on the 8-byte word at offset `roff` of card 1's buffer, its original value
    /// into offset `loff` of card 0's.
    fn atomic(&self, id: u64, op: SendOp, loff: u64, roff: u64, value: u64, compare: u64) -> SendWr {
        SendWr { op, length: 8, atomic: AtomicArgs { value, compare }, ..self.read(id, loff, roff, 8) }
    }
}

fn word_at(b: &[u8], at: u64) -> u64 {
    u64::from_le_bytes(b[at as usize..at as usize + 8].try_into().unwrap())
}

#[test]
fn atomics_return_the_original_value_and_change_the_remote_word() {
    let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_ATOMIC | access::REMOTE_READ);
    let remote = pattern(2);
    let (w0, w1) = (64u64, 4096 + 8u64);
    let (o0, o1) = (word_at(&remote, w0), word_at(&remote, w1));
    // FETCH & ADD, a COMPARE & SWAP that hits (it compares with the sum), one that misses, a
    // FETCH & ADD that wraps, and a READ behind them that sees their results.
    let wrs = [
        p.atomic(1, SendOp::FetchAdd, 0, w0, 5, 0),
        p.atomic(2, SendOp::CmpSwap, 8, w0, 0xABCD, o0.wrapping_add(5)),
        p.atomic(3, SendOp::CmpSwap, 16, w0, 0x1234, 0x1234),
        p.atomic(4, SendOp::FetchAdd, 24, w1, u64::MAX - 1, 0),
        p.read(5, 64, w0, 8),
    ];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    let wcs = p.completions(5, 300_000);
    assert_eq!(
        wcs,
        [
            (1, CqStatus::Success, CqOp::FetchAdd, 8),
            (2, CqStatus::Success, CqOp::CmpSwap, 8),
            (3, CqStatus::Success, CqOp::CmpSwap, 8),
            (4, CqStatus::Success, CqOp::FetchAdd, 8),
            (5, CqStatus::Success, CqOp::Read, 8)
        ]
    );
    let local = p.a.read_buf(p.local.iova, SIZE).unwrap();
    let got: Vec<u64> = [0, 8, 16, 24, 64].iter().map(|&at| word_at(&local, at)).collect();
    assert_eq!(got, [o0, o0.wrapping_add(5), 0xABCD, o1, 0xABCD], "original values, then the READ");
    let mut want = pattern(1);
    want[..32].copy_from_slice(&local[..32]);
    want[64..72].copy_from_slice(&local[64..72]);
    assert!(local == want, "nothing else of card 0's buffer changed");
    let rbuf = p.b.read_buf(p.remote.iova, SIZE).unwrap();
    assert_eq!((word_at(&rbuf, w0), word_at(&rbuf, w1)), (0xABCD, o1.wrapping_add(u64::MAX - 1)));
    assert_eq!(p.counter(1, "responder", "atomics"), 4);
    assert_eq!(p.counter(0, "responder", "read_placed"), 5, "four ATOMIC Acknowledges and a READ response placed");
    // The requests on the wire are the model's, byte for byte.
    let (ctx, port0) = (*p.qa.context(), *p.a.port());
    let wire = p.wire();
    let sent: Vec<&Vec<u8>> = wire.iter().filter(|f| f.0 == 0).map(|f| &f.2).collect();
    for (k, wr) in wrs.iter().enumerate() {
        let want = ctx.request(&port0, p.a.regions(), &wr.wqe(), ctx.sq_psn + k as u32).expect("the model sends it");
        assert_eq!(want.len(), 1);
        assert_eq!(sent[k], &want[0].desc.packet(&[]).unwrap().frame(), "request {k}");
    }
}

#[test]
fn a_lost_atomic_acknowledge_is_answered_again_never_executed_twice() {
    let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_ATOMIC);
    let mut dropped = false;
    p.world.borrow_mut().set_drop(move |sender, frame| {
        let hit = !dropped && sender == 1 && classify(frame, RxConfig { fcs: true }).packet.is_some_and(|q| q.bth.opcode == OP_ATOMIC_ACK);
        dropped |= hit;
        hit
    });
    let o = word_at(&pattern(2), 128);
    let wr = p.atomic(1, SendOp::FetchAdd, 40, 128, 7, 0);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    let wcs = p.completions(1, 300_000);
    assert_eq!(wcs, [(1, CqStatus::Success, CqOp::FetchAdd, 8)]);
    assert_eq!(word_at(&p.a.read_buf(p.local.iova, SIZE).unwrap(), 40), o, "the saved original value, not the sum");
    assert_eq!(word_at(&p.b.read_buf(p.remote.iova, SIZE).unwrap(), 128), o + 7, "added once");
    assert_eq!(p.counter(0, "completer", "timeouts"), 1);
    assert_eq!((p.counter(1, "responder", "atomics"), p.counter(1, "responder", "atomic_replays")), (1, 1));
    let requests = p.wire().iter().filter(|f| f.0 == 0 && f.1.bth.opcode == OP_FETCH_ADD).count();
    assert_eq!(requests, 2, "sent, and sent again after the timeout");
}

#[test]
fn refused_atomics_fail_with_the_right_status_and_write_nothing() {
    // A misaligned remote word: card 1 NAKs an invalid request; the WQE behind is flushed.
    let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_ATOMIC);
    let wrs = [p.atomic(1, SendOp::FetchAdd, 0, 12, 1, 0), p.atomic(2, SendOp::FetchAdd, 8, 16, 1, 0)];
    p.a.post_send_list(&mut p.qa, &wrs).unwrap();
    let wcs = p.completions(2, 200_000);
    assert_eq!(wcs, [(1, CqStatus::RemoteInvalidRequest, CqOp::FetchAdd, 0), (2, CqStatus::Flushed, CqOp::FetchAdd, 0)]);
    assert_eq!(p.counter(1, "responder", "naks_invalid"), 1);
    p.assert_local(&[], "misaligned");
    assert_eq!(p.b.read_buf(p.remote.iova, SIZE).unwrap(), pattern(2), "card 1's memory unchanged");

    // No REMOTE_ATOMIC on card 1's region: a remote access error.
    let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_READ | access::REMOTE_WRITE);
    let wr = p.atomic(3, SendOp::CmpSwap, 0, 8, 1, 0);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert_eq!(p.completions(1, 200_000), [(3, CqStatus::RemoteAccess, CqOp::CmpSwap, 0)]);
    p.assert_local(&[], "no REMOTE_ATOMIC");

    // No LOCAL_WRITE on card 0's buffer: refused by card 0, nothing on the wire.
    let mut p = pair(1024, 8, 0, access::REMOTE_ATOMIC);
    let wr = p.atomic(4, SendOp::FetchAdd, 0, 8, 1, 0);
    p.a.post_send(&mut p.qa, &wr).unwrap();
    assert_eq!(p.completions(1, 100_000), [(4, CqStatus::LocalProtection, CqOp::FetchAdd, 0)]);
    assert!(p.wire().is_empty(), "nothing on the wire");

    // Not 8 bytes: the driver refuses it before the card sees it.
    let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_ATOMIC);
    let wr = SendWr { length: 16, ..p.atomic(5, SendOp::FetchAdd, 0, 8, 1, 0) };
    assert_eq!(p.a.post_send(&mut p.qa, &wr), Err(VerbsError::AtomicLength(16)));
}

#[test]
fn the_card_checks_an_atomic_wqe_itself() {
    // WQEs the driver would refuse, written into the ring behind its back (right after the
    // doorbell, before the card reads them): an atomic of 16 bytes → LocalLength, an opcode
    // past the last → LocalQpOperation; nothing on the wire, the QP's later WQEs flushed.
    for (at, byte, status) in [(send_wqe::LENGTH, 16u8, CqStatus::LocalLength), (send_wqe::OP, 7, CqStatus::LocalQpOperation)] {
        let mut p = pair(1024, 8, access::LOCAL_WRITE, access::REMOTE_ATOMIC);
        let base = p.qa.context().sq_base;
        let wrs = [p.atomic(1, SendOp::FetchAdd, 0, 8, 1, 0), p.atomic(2, SendOp::FetchAdd, 8, 16, 1, 0)];
        p.a.post_send_list(&mut p.qa, &wrs).unwrap();
        p.a.write_buf(base + at as u64, &[byte]).unwrap();
        let wcs = p.completions(2, 200_000);
        assert_eq!(wcs, [(1, status, CqOp::FetchAdd, 0), (2, CqStatus::Flushed, CqOp::FetchAdd, 0)], "{status:?}");
        assert!(p.wire().is_empty(), "{status:?}: nothing on the wire");
        assert_eq!(p.counter(0, "tx_counters", "wqe_errors"), 2);
        p.assert_local(&[], "refused");
    }
}
