//! Atomics, the responder's side, end to end: COMPARE & SWAP and FETCH & ADD requests sent raw
//! into card 1 are executed on its host memory and answered with the ATOMIC Acknowledge the
//! reference model (`rnic_spec::responder`) gives, byte for byte on the wire — hits and misses,
//! on words other QPs' atomics and this QP's WRITEs change too, a READ behind them seeing their
//! result; duplicates are answered from the saved result and executed never again; a duplicate
//! older than the results kept is not answered; refused atomics (no REMOTE_ATOMIC, out of
//! bounds, a stale rkey, a misaligned address) get the model's NAK, break the QP and change
//! nothing.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::sim_pair::{assert_frames, frames_by_dest_qp, qp_pair, raw_request, two_cards, PathKind};
use rnic_driver::verbs::{QpCaps, QpState};
use rnic_sim::world::LinkConfig;
use rnic_spec::mr::access;
use rnic_spec::responder::{Outcome, RspState, OP_CMP_SWAP, OP_FETCH_ADD, OP_READ_REQUEST, OP_WRITE_ONLY, SAVED_ATOMICS};
use rnic_spec::wire::ib::Reth;
use rnic_spec::wire::rx::{classify, RxConfig};
use rnic_spec::wire::tx::AtomicArgs;
use std::collections::HashMap;

const CAPS: QpCaps = QpCaps { sq_entries: 16, rq_entries: 16 };

fn word(image: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(image[at..at + 8].try_into().unwrap())
}

/// One request for the model and the wire.
struct Request {
    opcode: u8,
    psn: u32,
    reth: Reth,
    atomic: AtomicArgs,
    payload: Vec<u8>,
}

#[test]
fn atomics_execute_once_and_are_answered_as_the_model_says() {
    let mut rng = SmallRng::seed_from_u64(0xa70);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let len = 8usize << 10;
    let buf = b.alloc_buf(len, 4096).unwrap();
    let mut image: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(buf.iova, &image).unwrap();
    let mr = b.reg_mr(pb, buf.iova, len as u32, access::REMOTE_ATOMIC | access::REMOTE_READ | access::REMOTE_WRITE).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    // Eight shared words (every QP's atomics meet on them), and per QP words only its WRITEs
    // and atomics touch: each WRITE goes to a fresh word that atomics then use. (An atomic
    // sees the WRITEs before it; a WRITE after an atomic may pass it without a fence, as IBTA
    // allows for READs and atomics, so no WRITE goes to a word after an atomic.)
    let shared: Vec<u64> = (0..8).map(|k| 64 * k + 8 * rng.gen_range(0..8)).collect();
    let kinds = [PathKind { v6: false, vlan: None, pmtu: 1024 }, PathKind { v6: true, vlan: None, pmtu: 4096 }];
    let mut qps = Vec::new();
    for kind in kinds {
        let (qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (300, 0)).unwrap();
        let ctx = *qb.context();
        qps.push((qa, qb, ctx, RspState::new(ctx.rq_psn), ctx.rq_psn, Vec::<Request>::new(), 0u64));
    }
    let mut want: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    let (mut executed, mut replays, mut unanswered) = (0, 0, 0);
    for step in 0..160 {
        let q = rng.gen_range(0..qps.len());
        let (qa, qb, ctx, state, psn, sent, writes) = &mut qps[q];
        let own = 2048 + 2048 * q as u64 + 8 * *writes;
        let roll = rng.gen_range(0..20);
        let req = if roll < 2 && !sent.is_empty() {
            // A duplicate of an atomic sent before: the newest ones are answered again, older
            // than the results kept are not.
            let k = sent.len() - 1 - rng.gen_range(0..sent.len().min(SAVED_ATOMICS + 3));
            let r = &sent[k];
            Request { opcode: r.opcode, psn: r.psn, reth: r.reth, atomic: r.atomic, payload: Vec::new() }
        } else if roll < 4 {
            let payload: Vec<u8> = (0..8).map(|_| rng.gen()).collect();
            *writes += 1;
            Request { opcode: OP_WRITE_ONLY, psn: *psn, reth: Reth { va: buf.iova + own + 8, rkey: mr.key(), dma_len: 8 }, atomic: AtomicArgs::default(), payload }
        } else if roll < 5 {
            let at = shared[rng.gen_range(0..shared.len())] & !63;
            Request { opcode: OP_READ_REQUEST, psn: *psn, reth: Reth { va: buf.iova + at, rkey: mr.key(), dma_len: 64 }, atomic: AtomicArgs::default(), payload: Vec::new() }
        } else {
            let at = if rng.gen_bool(0.2) { own } else { shared[rng.gen_range(0..shared.len())] };
            let cur = word(&image, at as usize);
            let cas = rng.gen_bool(0.5);
            // CmpSwap hits half the time; FetchAdd adds small and huge (wrapping) values.
            let compare = if rng.gen() { cur } else { rng.gen() };
            let value = if rng.gen() { rng.gen_range(0..1000) } else { rng.gen() };
            let opcode = if cas { OP_CMP_SWAP } else { OP_FETCH_ADD };
            Request { opcode, psn: *psn, reth: Reth { va: buf.iova + at, rkey: mr.key(), dma_len: 0 }, atomic: AtomicArgs { value, compare }, payload: Vec::new() }
        };
        let mut d = raw_request(ctx, qb.qpn, req.opcode, req.psn, req.reth, req.payload.len() as u16, true);
        d.atomic = req.atomic;
        let effect = state.receive(Some(ctx), b.regions(), &[], &d.packet(&req.payload).unwrap());
        world.borrow_mut().nics[0].send(d, &req.payload);
        match effect.outcome {
            Outcome::Placed { addr, len } => {
                let at = (addr - buf.iova) as usize;
                image[at..at + len as usize].copy_from_slice(&req.payload);
            }
            Outcome::Atomic | Outcome::Read | Outcome::Duplicate => {}
            other => panic!("step {step}: {:#x}: {other:?}", req.opcode),
        }
        if let Some(r) = effect.response {
            want.entry(qa.qpn).or_default().push(r.descriptor(b.port(), ctx).packet(&[]).unwrap().frame());
        }
        if let Some(read) = effect.read {
            for resp in read.responses(ctx.pmtu_log2) {
                let at = (resp.va - buf.iova) as usize;
                want.entry(qa.qpn).or_default().push(resp.descriptor(b.port(), ctx).packet(&image[at..at + resp.len as usize]).unwrap().frame());
            }
        }
        match effect.atomic {
            Some(reply) if reply.orig.is_none() => {
                let at = (reply.va - buf.iova) as usize;
                let orig = word(&image, at);
                image[at..at + 8].copy_from_slice(&reply.op.apply(orig).to_le_bytes());
                state.executed(&reply, orig);
                want.entry(qa.qpn).or_default().push(reply.descriptor(b.port(), ctx, orig).packet(&[]).unwrap().frame());
                executed += 1;
                sent.push(req);
            }
            Some(reply) => {
                let orig = reply.orig.unwrap();
                want.entry(qa.qpn).or_default().push(reply.descriptor(b.port(), ctx, orig).packet(&[]).unwrap().frame());
                replays += 1;
            }
            None if matches!(d.opcode, OP_CMP_SWAP | OP_FETCH_ADD) => unanswered += 1,
            None => {}
        }
        *psn = state.epsn;
        // A compliant requester keeps at most its max_rd_atomic READs and atomics outstanding:
        // four answers may be missing at a time.
        let expected: usize = want.values().map(Vec::len).sum();
        world.borrow_mut().run_until(200_000, |w| w.sent_by(1).count() + 4 >= expected);
    }
    assert!(executed > 80 && replays > 5 && unanswered > 0, "the mix covers every case: {executed} {replays} {unanswered}");
    let total: usize = want.values().map(Vec::len).sum();
    let done = world.borrow_mut().run_until(2_000_000, |w| w.link_idle() && w.sent_by(1).count() >= total);
    if !done {
        let got = frames_by_dest_qp(&world.borrow(), 1);
        for (q, frames) in &want {
            let ops = |v: &Vec<Vec<u8>>| v.iter().map(|f| { let p = classify(f, RxConfig { fcs: false }).packet.unwrap(); (p.bth.opcode, p.bth.psn, format!("{:?}", p.ext.first())) }).collect::<Vec<_>>();
            eprintln!("QP {q}: want {:x?}\n got {:x?}", ops(frames), got.get(q).map(ops));
        }
        for n in ["atomics", "atomic_replays", "atomic_unanswered", "acks", "placed", "read_responses", "duplicates"] {
            eprintln!("{n} {}", b.dev.read("responder", n).unwrap());
        }
    }
    assert!(done, "card 1 sent {} of {total} frames", world.borrow().sent_by(1).count());
    world.borrow_mut().run_until(5_000, |_| false);
    let got = frames_by_dest_qp(&world.borrow(), 1);
    for (q, frames) in &want {
        assert_frames(&got[q], frames, &format!("QP {q}"));
    }
    assert_eq!(b.dev.read("responder", "atomics").unwrap(), executed);
    assert_eq!(b.dev.read("responder", "atomic_replays").unwrap(), replays);
    assert_eq!(b.dev.read("responder", "atomic_unanswered").unwrap(), unanswered);
    for name in ["naks_sequence", "naks_invalid", "naks_access", "bad_qp", "set_aside", "read_errors"] {
        assert_eq!(b.dev.read("responder", name).unwrap(), 0, "{name}");
    }
    assert_eq!(b.read_buf(buf.iova, len).unwrap(), image, "every atomic changed memory once");
}

#[test]
fn refused_atomics_get_the_models_nak_and_change_nothing() {
    let mut rng = SmallRng::seed_from_u64(0xa71);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let len = 8usize << 10;
    let buf = b.alloc_buf(len, 4096).unwrap();
    let image: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(buf.iova, &image).unwrap();
    let half = len as u64 / 2;
    let atomic = b.reg_mr(pb, buf.iova, half as u32, access::REMOTE_ATOMIC).unwrap();
    let no_atomic = b.reg_mr(pb, buf.iova + half, half as u32, access::REMOTE_WRITE | access::REMOTE_READ).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let ok = |off: u64| Reth { va: buf.iova + off, rkey: atomic.key(), dma_len: 0 };
    let cases = [
        (Reth { va: buf.iova + half, rkey: no_atomic.key(), dma_len: 0 }, "no REMOTE_ATOMIC"),
        (ok(half), "past the end"),
        (ok(half - 4), "across the end (and misaligned)"),
        (Reth { rkey: atomic.key() ^ 0x100, ..ok(0) }, "stale rkey"),
        (ok(12), "misaligned"),
        (ok(1), "misaligned by a byte"),
    ];
    let mut want: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    let mut broken = Vec::new();
    for (reth, what) in cases {
        let (qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (100, 0)).unwrap();
        let ctx = *qb.context();
        let mut state = RspState::new(ctx.rq_psn);
        // The refused one, then a good one behind it (dropped: the QP is in error).
        for (reth, psn, opcode) in [(reth, 100, OP_FETCH_ADD), (ok(64), 101, OP_CMP_SWAP)] {
            let mut d = raw_request(&ctx, qb.qpn, opcode, psn, reth, 0, true);
            d.atomic = AtomicArgs { value: 1, compare: word(&image, 64) };
            let effect = state.receive(Some(&ctx), b.regions(), &[], &d.packet(&[]).unwrap());
            assert!(effect.atomic.is_none(), "{what}: refused by the model");
            if let Some(r) = effect.response {
                want.entry(qa.qpn).or_default().push(r.descriptor(b.port(), &ctx).packet(&[]).unwrap().frame());
            }
            world.borrow_mut().nics[0].send(d, &[]);
        }
        assert!(state.error, "{what}: the QP breaks");
        broken.push(qb);
    }
    let total: usize = want.values().map(Vec::len).sum();
    assert_eq!(total, cases.len(), "one NAK per case");
    world.borrow_mut().run_until(200_000, |w| w.link_idle() && w.sent_by(1).count() >= total);
    world.borrow_mut().run_until(5_000, |_| false);
    let got = frames_by_dest_qp(&world.borrow(), 1);
    for (q, frames) in &want {
        assert_frames(&got[q], frames, &format!("QP {q}"));
    }
    assert_eq!(b.dev.read("responder", "atomics").unwrap(), 0);
    assert_eq!(b.dev.read("responder", "naks_access").unwrap(), 4);
    assert_eq!(b.dev.read("responder", "naks_invalid").unwrap(), 2);
    assert_eq!(b.dev.read("responder", "bad_qp").unwrap(), cases.len() as u32, "the atomic behind each");
    assert_eq!(b.read_buf(buf.iova, len).unwrap(), image);
    for qb in &broken {
        assert_eq!(b.query_qp(qb).unwrap(), QpState::Error, "QP {}", qb.qpn);
    }
}


#[test]
fn dereg_mr_waits_for_the_atomics_and_reads_queued_under_the_key() {
    // A slow host (12 µs to answer a write) keeps three FETCH & ADDs and a READ behind them
    // in the response queue while the region is deregistered: `dereg_mr` returns only after
    // they ran, and the card touches the region no more after that.
    let host = rnic_sim::host::HostTiming { write_cycles: 3000, ..Default::default() };
    let (world, mut a, mut b) = rnic_driver::sim_pair::try_two_cards_with_host(LinkConfig::default(), host).unwrap();
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let buf = b.alloc_buf(4096, 4096).unwrap();
    b.write_buf(buf.iova, &[0; 4096]).unwrap();
    let mr = b.reg_mr(pb, buf.iova, 4096, access::REMOTE_ATOMIC | access::REMOTE_READ).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let (_qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (0, 0)).unwrap();
    let ctx = *qb.context();
    let reth = Reth { va: buf.iova, rkey: mr.key(), dma_len: 0 };
    for psn in 0..3 {
        let mut d = raw_request(&ctx, qb.qpn, OP_FETCH_ADD, psn, reth, 0, true);
        d.atomic = AtomicArgs { value: 1, compare: 0 };
        world.borrow_mut().nics[0].send(d, &[]);
    }
    world.borrow_mut().nics[0].send(raw_request(&ctx, qb.qpn, OP_READ_REQUEST, 3, Reth { dma_len: 4096, ..reth }, 0, true), &[]);
    world.borrow_mut().nics[1].dma_write.log = Some(Vec::new());
    world.borrow_mut().nics[1].dma_read.log = Some(Vec::new());
    // All four are in; the first atomic waits for its write.
    world.borrow_mut().run_until(20_000, |w| w.link_idle());
    world.borrow_mut().run_until(300, |_| false);
    assert_eq!(b.dev.read("responder", "atomics").unwrap(), 0, "the first atomic still waits for the host");
    b.dereg_mr(mr).unwrap();
    let returned = world.borrow().nics[1].cycles();
    assert_eq!(b.dev.read("responder", "atomics").unwrap(), 3, "dereg_mr returned after the queued atomics");
    world.borrow_mut().run_until(100_000, |w| w.link_idle() && w.sent_by(1).count() == 7);
    world.borrow_mut().run_until(5_000, |_| false);
    let region = buf.iova..buf.iova + 4096;
    let w = world.borrow();
    for (what, log) in [("wrote", &w.nics[1].dma_write.log), ("read", &w.nics[1].dma_read.log)] {
        let late: Vec<_> = log.iter().flatten().filter(|x| region.contains(&x.addr) && x.cycle >= returned).collect();
        assert!(late.is_empty(), "card 1 {what} the region after dereg_mr returned (cycle {returned}): {late:?}");
    }
    let ops: Vec<u8> = w.sent_by(1).map(|(_, f)| classify(f, RxConfig { fcs: false }).packet.unwrap().bth.opcode).collect();
    assert_eq!(ops, [0x12, 0x12, 0x12, 0x0D, 0x0E, 0x0E, 0x0F], "three ATOMIC Acknowledges, the READ's four responses");
    drop(w);
    assert_eq!(word(&b.read_buf(buf.iova, 8).unwrap(), 0), 3);
}
