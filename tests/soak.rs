//! Soak: random WRITE, WRITE with immediate, SEND, SEND with immediate, RDMA READ messages of 0 B …
//! 256 KiB and atomics over 8 QPs, both directions at once, on a link that loses 1 % of frames, reorders
//! 1 %, duplicates 0.5 % and corrupts 0.1 % (seeded: the run repeats exactly). Every message
//! must complete exactly once, successfully and in posting order on its QP; every receive
//! completion must name its buffer, byte count and immediate; every destination byte must be
//! right (a READ's in the reader's own landing slot); each QP's atomics on a counter of its
//! own — FETCH & ADD +1, COMPARE & SWAP to +1 that hits or misses — return the values their
//! posting order says and leave the counter at the number of adds and hits: executed exactly
//! once each, whatever the link lost or duplicated; no QP may be left stuck. Side 1's sends ask for a completion only now and then
//! (about one in three, the last of each QP, and whenever the send queue is down to its last
//! slot): only those complete, and the silent ones' slots come back with them.
//! `RNIC_SOAK_MESSAGES=N` runs a longer soak (README).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::sim_pair::{qp_pair, try_two_cards, PathKind};
use rnic_driver::verbs::{Qp, QpAttr, QpCaps, QpState, RecvWr, SendWr, Wc};
use rnic_sim::world::{Faults, LinkConfig, World};
use rnic_spec::desc::{send_flags, CqOp, CqStatus, SendOp};
use rnic_spec::mr::access;
use rnic_spec::wire::tx::AtomicArgs;
use std::collections::VecDeque;

/// The longest message.
const MAX_LEN: u32 = 256 << 10;
const QPS_PER_SIDE: usize = 4;

/// One message: its QP (index into the side's list), operation, source offset and length,
/// its number, where its own destination bytes start (no two messages of a side share a
/// byte), immediate.
#[derive(Debug, Clone, Copy)]
struct Msg {
    qp: usize,
    op: SendOp,
    src_off: u64,
    len: u32,
    slot: u64,
    at: u64,
    imm: u32,
    /// An atomic's operands and the original value it must find.
    atomic: AtomicArgs,
    old: u64,
}

fn random_len(rng: &mut SmallRng) -> u32 {
    // Mostly small, multi-packet messages up to 16 KiB, a few long ones up to 256 KiB (past
    // the `qp::ACK_REQ_EVERY` packets after which a message asks for an ACK on the way), and
    // empty ones.
    match rng.gen_range(0..100) {
        0..=9 => 0,
        10..=59 => rng.gen_range(1..=1024),
        60..=96 => rng.gen_range(1025..=16 << 10),
        _ => rng.gen_range((16 << 10) + 1..=MAX_LEN),
    }
}

/// A message's bytes rounded up to whole 64-byte lines: the room it takes.
fn room_of(len: u32) -> u64 {
    (len as u64).div_ceil(64) * 64
}

/// A failing run's frames, for Wireshark, when `RNIC_SOAK_PCAP=FILE` asks for them.
fn save_pcap(world: &World) {
    if let Ok(path) = std::env::var("RNIC_SOAK_PCAP") {
        std::fs::write(&path, world.pcap()).unwrap();
    }
}

#[test]
fn random_messages_both_ways_over_a_faulty_link_complete_exactly_once() {
    let messages: usize = std::env::var("RNIC_SOAK_MESSAGES").ok().and_then(|v| v.parse().ok()).unwrap_or(10_000);
    soak(messages, 0x50a4);
}

fn soak(messages: usize, seed: u64) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let faults = Faults { seed, loss: 1.0, reorder: 1.0, duplicate: 0.5, corrupt: 0.1, ce_mark: 0.0 };
    let (world, a, b) = try_two_cards(LinkConfig { faults, ..LinkConfig::default() }).unwrap();
    let mut cards = [a, b];
    let per_side = messages / 2;
    let src_len = 1 << 20;
    // The messages each side sends, and the receives its peer posts for them (in order per QP).
    let ops = [SendOp::Write, SendOp::WriteImm, SendOp::Send, SendOp::SendImm, SendOp::Read, SendOp::FetchAdd, SendOp::CmpSwap];
    let mut plan: Vec<VecDeque<Msg>> = vec![VecDeque::new(), VecDeque::new()];
    // Each side's QPs' counters as their atomics, in posting order, leave them.
    let mut counters = [[0u64; QPS_PER_SIDE]; 2];
    let mut rooms = [0u64; 2];
    for ((p, counter), room) in plan.iter_mut().zip(counters.iter_mut()).zip(rooms.iter_mut()) {
        for i in 0..per_side {
            let op = ops[rng.gen_range(0..ops.len())];
            let qp = rng.gen_range(0..QPS_PER_SIDE);
            let len = if op.is_atomic() { 8 } else { random_len(&mut rng) };
            let (atomic, old) = match op {
                SendOp::FetchAdd => (AtomicArgs { value: 1, compare: 0 }, counter[qp]),
                SendOp::CmpSwap => {
                    let compare = if rng.gen() { counter[qp] } else { counter[qp] + 1000 };
                    (AtomicArgs { value: counter[qp] + 1, compare }, counter[qp])
                }
                _ => (AtomicArgs::default(), 0),
            };
            if op == SendOp::FetchAdd || op == SendOp::CmpSwap && atomic.compare == old {
                counter[qp] += 1;
            }
            let msg = Msg { qp, op, src_off: rng.gen_range(0..=(src_len as u64 - len as u64)), len, slot: i as u64, at: *room, imm: rng.gen(), atomic, old };
            *room += room_of(len);
            p.push_back(msg);
        }
    }
    // The destination (and landing) bytes a side's messages take; the counters follow.
    let room = *rooms.iter().max().unwrap();
    // Per side: source bytes, destination slots, regions, CQs.
    let mut side = Vec::new();
    for card in cards.iter_mut() {
        let pd = card.alloc_pd().unwrap();
        let src = card.alloc_buf(src_len, 4096).unwrap();
        let image: Vec<u8> = (0..src_len).map(|_| rng.gen()).collect();
        card.write_buf(src.iova, &image).unwrap();
        // The destination bytes, then the counters of the peer's atomics.
        let dst = card.alloc_buf(room as usize + 64, 4096).unwrap();
        card.write_buf(dst.iova + room, &[0; 8 * QPS_PER_SIDE]).unwrap();
        // (The source is what the peer's READs read; a side's READs land in its own `land`.)
        let lmr = card.reg_mr(pd, src.iova, src_len as u32, access::REMOTE_READ).unwrap();
        let rmr = card.reg_mr(pd, dst.iova, room as u32 + 64, access::REMOTE_WRITE | access::LOCAL_WRITE | access::REMOTE_ATOMIC).unwrap();
        let cq = card.create_cq(4096).unwrap();
        let land = card.alloc_buf(room as usize, 4096).unwrap();
        let land_mr = card.reg_mr(pd, land.iova, room as u32, access::LOCAL_WRITE).unwrap();
        side.push((pd, src, image, dst, lmr, rmr, cq, land, land_mr));
    }
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let caps = QpCaps { sq_entries: 32, rq_entries: 4096 };
    // Local ACK timeout 5 (131 µs): a 256 KiB READ's answer may wait behind others in the
    // peer's response queue. (At timeout 3, 32.8 µs, long READs on this link can end in
    // RetryExceeded: every duplicate READ is answered whole again, and the answers overrun the
    // receiving card — README, status.)
    let attr = QpAttr { timeout: Some(std::env::var("RNIC_SOAK_TIMEOUT").ok().and_then(|v| v.parse().ok()).unwrap_or(5)), retry_cnt: Some(7), rnr_retry: Some(7), ..Default::default() };
    // qps[s][k]: side s's k-th QP (the requester, on card s) and its peer on the other card.
    let mut qps: Vec<Vec<(Qp, Qp)>> = vec![Vec::new(), Vec::new()];
    for s in 0..2 {
        for k in 0..QPS_PER_SIDE {
            let [c0, c1] = &mut cards;
            let (q0, q1) = qp_pair(c0, c1, (side[0].0, side[1].0), (&side[0].6, &side[1].6), kind, caps, (k as u32 * 77_777, 0xFF_FF00)).unwrap();
            let (mut q, peer) = if s == 0 { (q0, q1) } else { (q1, q0) };
            cards[s].modify_qp(&mut q, QpState::Rts, &attr).unwrap();
            cards[s].set_sq_sig_all(&q, s == 0).unwrap();
            qps[s].push((q, peer));
        }
    }
    for s in 0..2 {
        let peer_side = 1 - s;
        for (k, (_, peer)) in qps[s].iter_mut().enumerate() {
            let recvs: Vec<RecvWr> = plan[s]
                .iter()
                .filter(|m| m.qp == k && !matches!(m.op, SendOp::Write | SendOp::Read | SendOp::FetchAdd | SendOp::CmpSwap))
                .map(|m| RecvWr { wr_id: m.slot, addr: side[peer_side].3.iova + m.at, length: room_of(m.len) as u32, lkey: side[peer_side].5.key() })
                .collect();
            cards[peer_side].post_recv(peer, &recvs).unwrap();
        }
    }
    let all: Vec<Vec<Msg>> = plan.iter().map(|p| p.iter().copied().collect()).collect();
    // Side 1's last message of each QP asks for a completion, so every slot comes back.
    let last: Vec<u64> = (0..QPS_PER_SIDE).filter_map(|k| all[1].iter().rev().find(|m| m.qp == k).map(|m| m.slot)).collect();
    // The sends that ask for a completion, per side and QP, in posting order.
    let mut signaled: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); QPS_PER_SIDE]; 2];
    // Post as send queues allow; poll both CQs; stop when everything completed or time is up.
    let mut send_done: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); QPS_PER_SIDE]; 2];
    // Receive completions with the card they came from.
    let mut recv_done: Vec<(usize, Wc)> = Vec::new();
    let mut other: Vec<Wc> = Vec::new();
    let start = world.borrow().cycles();
    let limit = 2_000 * messages as u64 + 2_000_000;
    let mut posted = [0usize; 2];
    let mut blocked = [false; 2];
    loop {
        for s in 0..2 {
            blocked[s] = false;
            while let Some(m) = plan[s].front().copied() {
                let q = &mut qps[s][m.qp].0;
                if cards[s].sq_free(q) == 0 {
                    blocked[s] = true;
                    break;
                }
                let (mut src, mut lkey) = (side[s].1.iova + m.src_off, side[s].4.key());
                let (mut dst, mut rkey) = (side[1 - s].3.iova + m.at, side[1 - s].5.key());
                if m.op == SendOp::Read {
                    // From the peer's source into this side's landing slot.
                    (src, lkey) = (side[s].7.iova + m.at, side[s].8.key());
                    (dst, rkey) = (side[1 - s].1.iova + m.src_off, side[1 - s].4.key());
                }
                if m.op.is_atomic() {
                    // On the QP's counter past the peer's slots; the old value into this
                    // side's landing slot.
                    (src, lkey) = (side[s].7.iova + m.at, side[s].8.key());
                    dst = side[1 - s].3.iova + room + 8 * m.qp as u64;
                }
                let signal = s == 0 || m.imm % 3 == 0 || cards[s].sq_free(q) == 1 || last.contains(&m.slot);
                if signal {
                    signaled[s][m.qp].push(m.slot);
                }
                let wr = SendWr {
                    wr_id: m.slot,
                    op: m.op,
                    flags: if signal { send_flags::SIGNALED } else { 0 },
                    local_addr: src,
                    length: m.len,
                    lkey,
                    remote_addr: dst,
                    rkey,
                    imm: m.imm,
                    atomic: m.atomic,
                };
                cards[s].post_send(q, &wr).unwrap();
                plan[s].pop_front();
                posted[s] += 1;
            }
        }
        world.borrow_mut().run_until(1_000, |_| false);
        for s in 0..2 {
            let cq = &mut side[s].6;
            for wc in cards[s].poll_cq(cq, 4096).unwrap() {
                match wc.op {
                    CqOp::Recv | CqOp::RecvRdmaImm => recv_done.push((s, wc)),
                    _ => {
                        let k = qps[s].iter().position(|(q, _)| q.qpn == wc.qpn);
                        match (k, wc.status) {
                            (Some(k), CqStatus::Success) => send_done[s][k].push(wc.wr_id),
                            _ => other.push(wc),
                        }
                    }
                }
            }
        }
        let sends: usize = send_done.iter().flatten().map(|v| v.len()).sum();
        let expected: usize = signaled.iter().flatten().map(|v| v.len()).sum();
        if sends + other.len() == expected && plan.iter().all(|p| p.is_empty()) {
            break;
        }
        let now = world.borrow().cycles() - start;
        if now >= limit {
            save_pcap(&world.borrow());
            eprintln!("not successful: {} {:?}", other.len(), &other[..other.len().min(4)]);
            for (i, card) in cards.iter_mut().enumerate() {
                eprintln!("card {i}: {}", card.dev.nonzero_stats().unwrap());
            }
            for s in 0..2 {
                for (k, done) in send_done[s].iter().enumerate() {
                    eprintln!("side {s} QP {k} (qpn {}): {} of {} signaled done, last {:?}", qps[s][k].0.qpn, done.len(), signaled[s][k].len(), done.last());
                }
            }
        }
        assert!(now < limit, "stuck after {now} cycles: {sends} of {messages} sends complete, posted {posted:?}, send queues full {blocked:?}");
    }
    let cycles = world.borrow().cycles() - start;
    if !other.is_empty() {
        save_pcap(&world.borrow());
        for (i, card) in cards.iter_mut().enumerate() {
            eprintln!("card {i}: {}", card.dev.nonzero_stats().unwrap());
        }
    }
    assert!(other.is_empty(), "every send completes successfully; {} did not, the first: {:?}", other.len(), &other[..other.len().min(3)]);
    // Exactly once, in posting order, per QP.
    for s in 0..2 {
        for (k, done) in send_done[s].iter().enumerate() {
            assert_eq!(*done, signaled[s][k], "side {s} QP {k}: completions in order, once each, for the signaled sends");
            assert_eq!(cards[s].sq_free(&qps[s][k].0), caps.sq_entries, "side {s} QP {k}: every slot back");
        }
    }
    let silent = messages - signaled.iter().flatten().map(|v| v.len()).sum::<usize>();
    assert!(silent > messages / 4, "side 1 sent silently: {silent}");
    // Receives: one per SEND and WRITE with immediate, with the message's length and immediate.
    world.borrow_mut().run_until(5_000, |_| false);
    for s in 0..2 {
        let late = cards[s].poll_cq(&mut side[s].6, 4096).unwrap();
        assert!(late.iter().all(|w| matches!(w.op, CqOp::Recv | CqOp::RecvRdmaImm)), "no send completes twice");
        recv_done.extend(late.into_iter().map(|w| (s, w)));
    }
    // (receiving card, QPN, wr_id = slot, bytes, immediate)
    type Seen = (usize, u32, u64, u32, Option<u32>);
    let mut got_recv: Vec<Seen> = recv_done.iter().map(|(c, w)| (*c, w.qpn, w.wr_id, w.byte_len, w.imm)).collect();
    let mut want_recv: Vec<Seen> = Vec::new();
    for s in 0..2 {
        for m in all[s].iter().filter(|m| !matches!(m.op, SendOp::Write | SendOp::Read | SendOp::FetchAdd | SendOp::CmpSwap)) {
            let imm = matches!(m.op, SendOp::WriteImm | SendOp::SendImm).then_some(m.imm);
            want_recv.push((1 - s, qps[s][m.qp].1.qpn, m.slot, m.len, imm));
        }
    }
    assert!(recv_done.iter().all(|(_, w)| w.status == CqStatus::Success), "receive completions succeed");
    want_recv.sort_unstable();
    got_recv.sort_unstable();
    assert_eq!(got_recv.len(), want_recv.len(), "one receive completion per SEND and WRITE with immediate");
    let diff: Vec<_> = got_recv.iter().zip(&want_recv).filter(|(g, w)| g != w).take(4).collect();
    assert!(diff.is_empty(), "receive completions name their buffer, length and immediate: (got, want) {diff:?}");
    // Memory: every message's bytes in its slot (a READ's: the peer's bytes in its own).
    for s in 0..2 {
        let d = 1 - s;
        for m in all[s].iter().filter(|m| !m.op.is_atomic()) {
            let (card, at, image) = match m.op {
                SendOp::Read => (s, side[s].7.iova, &side[d].2),
                _ => (d, side[d].3.iova, &side[s].2),
            };
            let got = cards[card].read_buf(at + m.at, m.len as usize).unwrap();
            let want = &image[m.src_off as usize..m.src_off as usize + m.len as usize];
            assert!(got == want, "side {s} message {} ({:?}, {} B): destination bytes", m.slot, m.op, m.len);
        }
    }
    // Atomics: per QP the original values their posting order says, the counter at the adds
    // and the hits.
    let mut adds = 0;
    for s in 0..2 {
        for (k, &counter) in counters[s].iter().enumerate() {
            let mine: Vec<&Msg> = all[s].iter().filter(|m| m.qp == k && m.op.is_atomic()).collect();
            let old: Vec<u64> = mine.iter().map(|m| u64::from_le_bytes(cards[s].read_buf(side[s].7.iova + m.at, 8).unwrap().try_into().unwrap())).collect();
            let want: Vec<u64> = mine.iter().map(|m| m.old).collect();
            assert_eq!(old, want, "side {s} QP {k}: each atomic saw the ones before it, once each");
            let now = cards[1 - s].read_buf(side[1 - s].3.iova + room + 8 * k as u64, 8).unwrap();
            assert_eq!(u64::from_le_bytes(now.try_into().unwrap()), counter, "side {s} QP {k}: the counter");
            adds += mine.len();
        }
    }
    assert!(adds > messages / 10, "atomics in the mix: {adds}");
    let long = all.iter().flatten().filter(|m| m.len > 64 << 10).count();
    assert!(long > messages / 200, "long messages in the mix: {long}");
    let (mut recovered, mut replays) = (0, 0);
    for card in cards.iter_mut() {
        recovered += card.dev.read("completer", "rewinds").unwrap();
        replays += card.dev.read("responder", "atomic_replays").unwrap();
    }
    let f = world.borrow().faults;
    eprintln!(
        "soak: {messages} messages ({silent} unsignaled) in {cycles} cycles ({:.1} ms at 250 MHz); link lost {}, corrupted {}, duplicated {}, reordered {}; {recovered} rewinds; {adds} atomics, {replays} answered again from the saved result",
        cycles as f64 / 250_000.0,
        f.lost,
        f.corrupted,
        f.duplicated,
        f.reordered
    );
    assert!(f.lost > 0 && f.reordered > 0 && f.duplicated > 0, "the link did its faults");
    assert!(recovered > 0, "the cards recovered from them");
    assert!(replays > 0, "lost atomic acknowledges were answered from the saved results");
}
