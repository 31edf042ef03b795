//! The responder end to end: RDMA WRITEs posted on card 0 land in card 1's host memory,
//! byte-exact and nowhere else; card 1 answers every message with the ACK the reference model
//! (`rnic_spec::responder`) gives; and requests the model refuses — bad rkey, out of bounds,
//! no remote-write access, another PD, PSN gaps, duplicates, FIRST/MIDDLE/LAST out of order,
//! wrong lengths — get the model's NAK or ACK and write not one byte.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::verbs::{Qp, SendWr};
use rnic_driver::sim_pair::{port, qp_pair, try_two_cards_with_host, two_cards, PathKind};
use rnic_sim::host::HostTiming;
use rnic_sim::world::{LinkConfig, World};
use rnic_spec::desc::SendOp;
use rnic_spec::mr::access;
use rnic_spec::qp::QpContext;
use rnic_spec::responder::{aeth, Outcome, Response, RspState, OP_ACK};
use rnic_spec::wire::ib::Reth;
use rnic_spec::wire::packet::RocePacket;
use rnic_spec::wire::rx::{classify, RxConfig};
use rnic_spec::wire::tx::TxDescriptor;
use std::collections::HashMap;

/// How many frames card `from` has sent.
fn count(world: &World, from: usize) -> usize {
    world.sent_by(from).count()
}

/// Frames card `from` sent, parsed.
fn sent(world: &World, from: usize) -> Vec<RocePacket> {
    world
        .sent_by(from)
        .map(|(_, frame)| {
            let r = classify(frame, RxConfig { fcs: false });
            assert_eq!(r.verdict, Ok(()), "card {from} sends valid RoCE v2 frames");
            r.packet.expect("parsed")
        })
        .collect()
}

fn assert_frame(got: &[u8], want: &[u8], what: &str) {
    let first_diff = got.iter().zip(want).position(|(x, y)| x != y);
    assert!(got == want, "{what}: {} bytes sent, {} expected, first difference at {first_diff:?}", got.len(), want.len());
}

#[test]
fn writes_land_in_remote_memory_and_are_acknowledged() {
    writes_through(0xa11ce, HostTiming::default());
}

#[test]
fn writes_land_the_same_when_both_hosts_hold_their_ready_low_40_percent_of_cycles() {
    writes_through(0xb0b, HostTiming { backpressure: 40, ..HostTiming::default() });
}

fn writes_through(seed: u64, host: HostTiming) {
    let mut rng = SmallRng::seed_from_u64(seed);
    let (world, mut a, mut b) = try_two_cards_with_host(LinkConfig::default(), host).unwrap();
    let (pa, pb) = (a.alloc_pd(), b.alloc_pd());
    let len = 1 << 20;
    let src = a.alloc_buf(len, 4096).unwrap();
    let dst = b.alloc_buf(len, 4096).unwrap();
    let image: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    a.write_buf(src.iova, &image).unwrap();
    let before: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(dst.iova, &before).unwrap();
    let lmr = a.reg_mr(pa, src.iova, len as u32, 0).unwrap();
    let rmr = b.reg_mr(pb, dst.iova, len as u32, access::REMOTE_WRITE | access::LOCAL_WRITE).unwrap();
    let (mut cqa, cqb) = (a.create_cq(128).unwrap(), b.create_cq(1).unwrap());

    let kinds = [
        PathKind { v6: false, vlan: None, pmtu: 1024 },
        PathKind { v6: true, vlan: None, pmtu: 4096 },
        PathKind { v6: false, vlan: Some(7), pmtu: 256 },
        PathKind { v6: true, vlan: Some(42), pmtu: 2048 },
    ];
    let mut pairs: Vec<(Qp, Qp)> = (0..16)
        .map(|i| {
            let psn = if i % 5 == 0 { 0xFF_FFF8 } else { rng.gen_range(0..0x100_0000) };
            qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kinds[i % kinds.len()], 64, (psn, rng.gen_range(0..0x100_0000))).unwrap()
        })
        .collect();

    // Disjoint destinations, random sizes and source offsets; WRITE and WRITE with immediate.
    let mut expect = before.clone();
    let mut next_dst = 0usize;
    let mut messages = vec![0u32; pairs.len()];
    let mut posted_ids: Vec<(u32, u64)> = Vec::new();
    for round in 0..4 {
        for (i, (qa, _)) in pairs.iter_mut().enumerate() {
            let n = match rng.gen_range(0..8) {
                0 => 0,
                1 | 2 => rng.gen_range(1..=64),
                _ => rng.gen_range(65..=9000),
            };
            let off = next_dst + rng.gen_range(0..64);
            next_dst = off + n;
            assert!(next_dst <= len);
            let from = rng.gen_range(0..len - n);
            expect[off..off + n].copy_from_slice(&image[from..from + n]);
            let wr = SendWr {
                wr_id: (i * 10 + round) as u64,
                op: if rng.gen() { SendOp::Write } else { SendOp::WriteImm },
                flags: 0,
                local_addr: src.iova + from as u64,
                length: n as u32,
                lkey: lmr.key(),
                remote_addr: dst.iova + off as u64,
                rkey: rmr.key(),
                imm: rng.gen(),
            };
            a.post_send(qa, &wr).unwrap();
            posted_ids.push((qa.qpn, wr.wr_id));
            messages[i] += 1;
        }
    }
    let total_messages: u32 = messages.iter().sum();
    let done = world.borrow_mut().run_until(4_000_000, |w| {
        w.link_idle() && count(w, 1) == total_messages as usize && w.nics.iter().all(|n| n.tx_pending() == (0, 0))
    });
    assert!(done, "card 1 sent {} of {total_messages} ACKs", count(&world.borrow(), 1));
    let got = b.read_buf(dst.iova, len).unwrap();
    if let Some(at) = got.iter().zip(&expect).position(|(x, y)| x != y) {
        panic!("card 1's memory differs from the expected image first at byte {at} of {len}");
    }

    // Every packet to card 1 through the reference responder: the ACKs it gives are the ones
    // card 1 sent, in order per QP.
    let ctxs: HashMap<u32, QpContext> = pairs.iter().map(|(_, qb)| (qb.qpn, *qb.context())).collect();
    let mut states: HashMap<u32, RspState> = ctxs.iter().map(|(q, c)| (*q, RspState::new(c.rq_psn))).collect();
    let mut want: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    for p in sent(&world.borrow(), 0) {
        let q = p.bth.dest_qp;
        let (outcome, resp) = states.get_mut(&q).expect("a QP of card 1").receive(ctxs.get(&q), b.regions(), &p);
        assert!(matches!(outcome, Outcome::Placed { .. }), "{outcome:?}");
        if let Some(r) = resp {
            want.entry(q).or_default().push(r.descriptor(b.port(), &ctxs[&q]).packet(&[]).unwrap().frame());
        }
    }
    let mut got_acks: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    let back: HashMap<u32, u32> = pairs.iter().map(|(qa, qb)| (qa.qpn, qb.qpn)).collect();
    for (_, frame) in world.borrow().sent_by(1) {
        let to = classify(frame, RxConfig { fcs: false }).packet.expect("parsed").bth.dest_qp;
        got_acks.entry(back[&to]).or_default().push(frame.clone());
    }
    for (q, frames) in &want {
        let g = &got_acks[q];
        assert_eq!(g.len(), frames.len(), "ACKs from QP {q}");
        for (k, (x, y)) in g.iter().zip(frames).enumerate() {
            assert_frame(x, y, &format!("ACK {k} of QP {q}"));
        }
    }
    assert_eq!(want.values().map(Vec::len).sum::<usize>(), total_messages as usize, "one ACK per message");
    let placed = b.dev.read("responder", "placed").unwrap();
    assert_eq!(placed as usize, sent(&world.borrow(), 0).len());
    for name in ["naks_sequence", "naks_invalid", "naks_access", "duplicates", "bad_qp"] {
        assert_eq!(b.dev.read("responder", name).unwrap(), 0, "{name}");
    }
    // The ACKs complete card 0's work requests: one successful completion each, in posting
    // order per QP.
    assert_eq!(a.dev.read("completer", "acks").unwrap(), total_messages);
    let wcs = a.poll_cq(&mut cqa, 1000).unwrap();
    assert_eq!(wcs.len(), total_messages as usize);
    for (qa, _) in &pairs {
        let mine: Vec<u64> = wcs.iter().filter(|w| w.qpn == qa.qpn).map(|w| w.wr_id).collect();
        let want: Vec<u64> = posted_ids.iter().filter(|(q, _)| *q == qa.qpn).map(|(_, id)| *id).collect();
        assert_eq!(mine, want, "completions of QP {}", qa.qpn);
    }
    assert!(wcs.iter().all(|w| w.status == rnic_spec::desc::CqStatus::Success && w.op == rnic_spec::desc::CqOp::Write));
    assert!(a.poll_cq(&mut cqa, 10).unwrap().is_empty(), "nothing more");
    assert_eq!(a.dev.read("completer", "unexpected").unwrap(), 0);
    let w = world.borrow();
    assert!(w.nics.iter().all(|n| n.dma_write.violations.is_empty() && n.dma_read.violations.is_empty()));
}

/// A request case: opcode, PSN, RETH, payload length, AckReq.
type Case = (u8, u32, Reth, u16, bool);

/// A raw request packet to card 1's QP, as card 0's second packet source sends it.
fn request(port0: &rnic_spec::qp::PortAddress, to: &QpContext, to_qpn: u32, &(opcode, psn, reth, payload_len, ack_req): &Case) -> TxDescriptor {
    // The reverse of card 1's path: card 0 sends to card 1 over the same kind of path.
    let mut d = Response { syndrome: 0, psn, msn: 0 }.descriptor(port0, to);
    let card1 = port(1);
    d.eth_dst = card1.mac;
    d.ip = match d.ip {
        rnic_spec::wire::tx::IpPair::V4 { src, .. } => rnic_spec::wire::tx::IpPair::V4 { src, dst: card1.ipv4 },
        rnic_spec::wire::tx::IpPair::V6 { src, .. } => rnic_spec::wire::tx::IpPair::V6 { src, dst: card1.ipv6 },
    };
    TxDescriptor { opcode, dest_qp: to_qpn, ack_req, reth, payload_len, aeth: Default::default(), ..d }
}

#[test]
fn refused_requests_get_the_models_answer_and_write_nothing() {
    let mut rng = SmallRng::seed_from_u64(0xbad);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd(), b.alloc_pd());
    let other_pd = b.alloc_pd();
    let len = 64 << 10;
    let dst = b.alloc_buf(len, 4096).unwrap();
    let before: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(dst.iova, &before).unwrap();
    let base = dst.iova;
    let half = (len / 2) as u32;
    let writable = b.reg_mr(pb, base, half, access::REMOTE_WRITE).unwrap();
    let read_only = b.reg_mr(pb, base + half as u64, half, access::REMOTE_READ | access::LOCAL_WRITE).unwrap();
    let foreign = b.reg_mr(other_pd, base, half, access::REMOTE_WRITE).unwrap();
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let (cqa, cqb) = (a.create_cq(1).unwrap(), b.create_cq(1).unwrap());
    let (_qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, 64, (100, 0)).unwrap();
    let ctx = *qb.context();
    let p0 = port(0);
    let reth = |va: u64, rkey: u32, dma_len: u32| Reth { va, rkey, dma_len };
    let ok = writable.key();

    // (opcode, PSN, RETH, payload length, AckReq): each refused, or a duplicate.
    let cases: Vec<Case> = vec![
        (0x0A, 100, reth(base, ok ^ 0x100, 64), 64, true),                         // stale rkey
        (0x0A, 100, reth(base, 0xDEAD_0000 | 77, 64), 64, true),                   // unknown rkey
        (0x0A, 100, reth(base + half as u64 - 8, ok, 16), 16, true),               // past the end
        (0x0A, 100, reth(base - 1, ok, 16), 16, true),                             // before the start
        (0x0A, 100, reth(base + half as u64, read_only.key(), 64), 64, true),      // no remote write
        (0x0A, 100, reth(base, foreign.key(), 64), 64, true),                      // other PD
        (0x07, 100, Reth::default(), 1024, false),                                 // MIDDLE without FIRST
        (0x0A, 100, reth(base, ok, 100), 64, true),                                // length != RETH
        (0x06, 100, reth(base, ok, 1000), 1000, false),                            // FIRST shorter than PMTU
        (0x0A, 105, reth(base, ok, 64), 64, true),                                 // PSN ahead: NAK once
        (0x0A, 106, reth(base, ok, 64), 64, true),                                 // still ahead: silent
        (0x0A, 99, reth(base, ok, 64), 64, true),                                  // behind: duplicate, ACK
        (0x0A, 98, reth(base, ok, 64), 64, false),                                 // duplicate, no AckReq
    ];
    let mut state = RspState::new(ctx.rq_psn);
    let mut want = Vec::new();
    for case in &cases {
        let (opcode, psn, _, n, _) = *case;
        let d = request(&p0, &ctx, qb.qpn, case);
        let payload: Vec<u8> = (0..n).map(|_| rng.gen()).collect();
        let (outcome, resp) = state.receive(Some(&ctx), b.regions(), &d.packet(&payload).unwrap());
        assert!(!matches!(outcome, Outcome::Placed { .. }), "case {opcode:#x} PSN {psn} is refused by the model");
        if let Some(r) = resp {
            want.push(r.descriptor(b.port(), &ctx).packet(&[]).unwrap().frame());
        }
        world.borrow_mut().nics[0].send(d, &payload);
    }
    let expected_naks = want.iter().filter(|f| aeth::is_nak(f[f.len() - 8])).count();
    assert!(expected_naks >= 9, "the cases exercise every NAK");
    let done = world.borrow_mut().run_until(200_000, |w| w.link_idle() && w.nics[0].tx_pending() == (0, 0) && count(w, 1) == want.len());
    assert!(done, "card 1 answered {} of {}", count(&world.borrow(), 1), want.len());
    world.borrow_mut().run_until(2_000, |_| false);
    let w = world.borrow();
    let answers: Vec<&Vec<u8>> = w.sent_by(1).map(|(_, f)| f).collect();
    assert_eq!(answers.len(), want.len());
    for (k, (g, e)) in answers.iter().zip(&want).enumerate() {
        assert_eq!(g[g.len() - 8 - 12], OP_ACK, "answer {k} is an acknowledge packet");
        assert_frame(g, e, &format!("answer {k}"));
    }
    drop(w);
    assert_eq!(b.read_buf(dst.iova, len).unwrap(), before, "not one byte written");
    assert_eq!(b.dev.read("responder", "placed").unwrap(), 0);
    assert_eq!(b.dev.read("responder", "naks_access").unwrap(), 6);
    assert_eq!(b.dev.read("responder", "naks_invalid").unwrap(), 3);
    assert_eq!(b.dev.read("responder", "naks_sequence").unwrap(), 1);
    assert_eq!(b.dev.read("responder", "duplicates").unwrap(), 2);
}

#[test]
fn a_lost_packet_is_nakked_once_and_the_resent_tail_completes_the_message() {
    // What go-back-N retransmission will rely on: after a gap the responder NAKs the expected
    // PSN once, places nothing out of order, and accepts the message again from that PSN.
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd(), b.alloc_pd());
    let dst = b.alloc_buf(4096, 4096).unwrap();
    b.write_buf(dst.iova, &[0xEE; 4096]).unwrap();
    let mr = b.reg_mr(pb, dst.iova, 4096, access::REMOTE_WRITE).unwrap();
    let kind = PathKind { v6: true, vlan: Some(9), pmtu: 1024 };
    let (cqa, cqb) = (a.create_cq(1).unwrap(), b.create_cq(1).unwrap());
    let (_qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, 64, (0xFF_FFFF, 0)).unwrap();
    let ctx = *qb.context();
    let p0 = port(0);
    let message: Vec<u8> = (0..3000u32).map(|i| (i * 7 + 3) as u8).collect();
    let reth = Reth { va: dst.iova + 100, rkey: mr.key(), dma_len: 3000 };
    let psn = |k: u32| (0xFF_FFFF + k) & 0xFF_FFFF;
    // FIRST, (MIDDLE lost), LAST; then the MIDDLE and LAST resent.
    let sends: [(u8, u32, Reth, usize, usize, bool); 4] = [
        (0x06, psn(0), reth, 0, 1024, false),
        (0x08, psn(2), Reth::default(), 2048, 952, true),
        (0x07, psn(1), Reth::default(), 1024, 1024, false),
        (0x08, psn(2), Reth::default(), 2048, 952, true),
    ];
    let mut state = RspState::new(ctx.rq_psn);
    let mut want = Vec::new();
    for (opcode, p, r, off, n, ack_req) in sends {
        let d = request(&p0, &ctx, qb.qpn, &(opcode, p, r, n as u16, ack_req));
        let payload = &message[off..off + n];
        if let (_, Some(resp)) = state.receive(Some(&ctx), b.regions(), &d.packet(payload).unwrap()) {
            want.push(resp);
        }
        world.borrow_mut().nics[0].send(d, payload);
    }
    assert_eq!(want.iter().map(|r| (r.syndrome, r.psn)).collect::<Vec<_>>(), [(aeth::NAK_PSN_SEQUENCE, psn(1)), (aeth::ACK, psn(2))]);
    let done = world.borrow_mut().run_until(100_000, |w| w.link_idle() && w.nics[0].tx_pending() == (0, 0) && count(w, 1) == 2);
    assert!(done, "card 1 answered {} times", count(&world.borrow(), 1));
    world.borrow_mut().run_until(500, |_| false);
    let answers: Vec<Vec<u8>> = world.borrow().sent_by(1).map(|(_, f)| f.clone()).collect();
    for (k, (g, r)) in answers.iter().zip(&want).enumerate() {
        assert_frame(g, &r.descriptor(b.port(), &ctx).packet(&[]).unwrap().frame(), &format!("answer {k}"));
    }
    let mut expect = vec![0xEE; 4096];
    expect[100..3100].copy_from_slice(&message);
    assert_eq!(b.read_buf(dst.iova, 4096).unwrap(), expect, "the whole message, in place, once");
    assert_eq!(b.dev.read("responder", "placed").unwrap(), 3);
    assert_eq!(b.dev.read("responder", "naks_sequence").unwrap(), 1);
}

#[test]
fn refused_writes_complete_in_error_on_the_requester_and_write_nothing() {
    use rnic_spec::completer::SendCompletions;
    use rnic_spec::desc::CqStatus;
    let mut rng = SmallRng::seed_from_u64(0xe770);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd(), b.alloc_pd());
    let other_pd = b.alloc_pd();
    let src = a.alloc_buf(8192, 4096).unwrap();
    a.write_buf(src.iova, &(0..8192).map(|_| rng.gen()).collect::<Vec<u8>>()).unwrap();
    let lmr = a.reg_mr(pa, src.iova, 8192, 0).unwrap();
    let dst = b.alloc_buf(16384, 4096).unwrap();
    let before: Vec<u8> = (0..16384).map(|_| rng.gen()).collect();
    b.write_buf(dst.iova, &before).unwrap();
    let ok = b.reg_mr(pb, dst.iova, 8192, access::REMOTE_WRITE).unwrap();
    let read_only = b.reg_mr(pb, dst.iova + 8192, 8192, access::REMOTE_READ).unwrap();
    let foreign = b.reg_mr(other_pd, dst.iova, 8192, access::REMOTE_WRITE).unwrap();
    let (mut cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(1).unwrap());
    // One QP pair per refusal: the first error breaks the QP.
    let cases: [(&str, u64, u32, u32); 5] = [
        ("bad rkey", dst.iova, ok.key() ^ 0x300, 64),
        ("past the end", dst.iova + 8192 - 32, ok.key(), 64),
        ("no remote write", dst.iova + 8192, read_only.key(), 64),
        ("other PD", dst.iova, foreign.key(), 64),
        ("a multi-packet write past the end", dst.iova + 4096, ok.key(), 6000),
    ];
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let mut qps = Vec::new();
    for (i, (_, raddr, rkey, len)) in cases.iter().enumerate() {
        let (mut qa, _qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, 4, (i as u32 * 1000, 0)).unwrap();
        let wr = SendWr { wr_id: 100 + i as u64, op: SendOp::Write, flags: 0, local_addr: src.iova, length: *len, lkey: lmr.key(), remote_addr: *raddr, rkey: *rkey, imm: 0 };
        a.post_send(&mut qa, &wr).unwrap();
        qps.push(qa);
    }
    // Five remote access NAKs, and one sequence NAK: the rest of the refused multi-packet write
    // was already on its way and arrives ahead of the PSN the responder still expects.
    let done = world.borrow_mut().run_until(200_000, |w| w.link_idle() && count(w, 1) == cases.len() + 1);
    assert!(done, "card 1 answered {} times", count(&world.borrow(), 1));
    world.borrow_mut().run_until(1_000, |_| false);
    assert_eq!(b.dev.read("responder", "naks_sequence").unwrap(), 1);
    let wcs = a.poll_cq(&mut cqa, 16).unwrap();
    assert_eq!(wcs.len(), cases.len(), "one completion per refused write");
    for (i, (what, ..)) in cases.iter().enumerate() {
        let wc = wcs.iter().find(|w| w.qpn == qps[i].qpn).unwrap_or_else(|| panic!("{what}: no completion"));
        // The model, fed what the card received: one WQE sent, the NAK it got.
        let mut model = SendCompletions::default();
        model.sent_one();
        assert_eq!(model.acknowledge(aeth::NAK_REMOTE_ACCESS, 0), Some(vec![(0, CqStatus::RemoteAccess)]));
        assert_eq!((wc.wr_id, wc.status, wc.byte_len), (100 + i as u64, CqStatus::RemoteAccess, 0), "{what}");
    }
    assert_eq!(b.read_buf(dst.iova, 16384).unwrap(), before, "not one byte written");
    assert_eq!(b.dev.read("responder", "naks_access").unwrap(), cases.len() as u32);
    assert_eq!(a.dev.read("completer", "naks").unwrap(), cases.len() as u32 + 1, "the sequence NAK completes nothing");
    assert_eq!(a.dev.read("completer", "cqes").unwrap(), cases.len() as u32);
}
