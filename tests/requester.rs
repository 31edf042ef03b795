//! The requester end to end through the driver: QPs created and connected with the verbs API
//! on a simulated card, send work requests posted into host memory with doorbells, and every
//! frame on the wire compared with the reference model (`QpContext::request`) — headers, PSNs,
//! opcodes, payload bytes from host memory — while the other card's receive pipeline accepts
//! them all. Refused WQEs send nothing, and QPs are served round-robin.

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::verbs::{Cq, Qp, QpAttr, QpCaps, QpState, SendWr, VerbsError};
use rnic_driver::sim_pair::{connect, run_for_completions, sent_packets, two_cards, Card, PathKind};

use rnic_sim::world::LinkConfig;
use rnic_spec::desc::{send_flags, send_wqe, CqOp, CqStatus, SendOp, SendWqe, INLINE_MAX};
use rnic_spec::mr::access;
use rnic_spec::qp::{Payload, RequestPacket, WQE_BATCH};
use rnic_spec::wire::tx::AtomicArgs;
use std::collections::{HashMap, VecDeque};

/// A QP on card 0 connected towards port 1 (whose card has no such QP: the frames are
/// checked on the wire).
fn connected_qp(card: &mut Card, pd: rnic_driver::verbs::Pd, cq: &Cq, kind: PathKind, dest_qpn: u32, psn: u32) -> Qp {
    let mut qp = card.create_qp(pd, cq, cq, QpCaps { sq_entries: 128, rq_entries: 1 }).unwrap();
    connect(card, &mut qp, 1, kind, dest_qpn, 0, psn).unwrap();
    qp
}

#[test]
fn posted_sends_become_the_reference_packets_on_the_wire() {
    let mut rng = SmallRng::seed_from_u64(0x5e9d);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let pd = a.alloc_pd().unwrap();
    let src_len = 1 << 20;
    let src = a.alloc_buf(src_len, 4096).unwrap();
    let image: Vec<u8> = (0..src_len).map(|_| rng.gen()).collect();
    a.write_buf(src.iova, &image).unwrap();
    let mr = a.reg_mr(pd, src.iova, src_len as u32, access::LOCAL_WRITE).unwrap();
    let cq = a.create_cq(1024).unwrap();
    // Inline payloads come from a buffer in no region; it is overwritten once posted, so the
    // frames must carry the bytes it held at post time.
    let inl = a.alloc_buf(4096, 4096).unwrap();
    let inl_image: Vec<u8> = (0..4096).map(|_| rng.gen()).collect();
    a.write_buf(inl.iova, &inl_image).unwrap();

    // 16 QPs: IPv4 and IPv6, some with a VLAN tag, every path MTU, PSNs near the wrap.
    let pmtus = [256, 512, 1024, 2048, 4096];
    let mut qps: Vec<Qp> = (0..16)
        .map(|i| {
            let dest = 0x100 + rng.gen_range(0..0xFF_0000) / 16 * 16 + i;
            let psn = if i % 4 == 0 { 0xFF_FFF0 + i } else { rng.gen_range(0..0x100_0000) };
            let kind = PathKind { v6: i % 2 == 1, vlan: (i % 3 == 0).then_some(100 + i as u16), pmtu: pmtus[i as usize % pmtus.len()] };
            connected_qp(&mut a, pd, &cq, kind, dest, psn)
        })
        .collect();

    // Random work requests, each QP's posted with one doorbell; a few are refused by the card's
    // checks, and every later one of that QP is flushed (the send queue is in error).
    let ops = [SendOp::Send, SendOp::SendImm, SendOp::Write, SendOp::WriteImm, SendOp::CmpSwap, SendOp::FetchAdd];
    // Every fourth QP has more than a batch (WQE_BATCH) posted: it is served over several turns.
    let counts: Vec<usize> = (0..qps.len()).map(|i| if i % 4 == 0 { rng.gen_range(WQE_BATCH + 1..=WQE_BATCH + 24) } else { rng.gen_range(1..=6) }).collect();
    let mut wqes: Vec<Vec<(SendWqe, bool)>> = vec![Vec::new(); qps.len()];
    let order: Vec<usize> = (0..qps.len()).collect();
    let mut refused = 0;
    let mut flushed = 0;
    let mut inlined = 0;
    for (i, qp) in qps.iter_mut().enumerate() {
        let mut list = Vec::new();
        for k in 0..counts[i] {
            let op = ops[rng.gen_range(0..ops.len())];
            let length = match rng.gen_range(0..10) {
                _ if op.is_atomic() => 8,
                0 => 0,
                1..=3 => rng.gen_range(1..=64),
                _ => rng.gen_range(65..=20_000),
            };
            let offset = rng.gen_range(0..src_len as u64 - length as u64);
            let bad = rng.gen_range(0..12) == 0 && length > 0;
            let inline = !bad && !op.is_atomic() && length as usize <= INLINE_MAX && rng.gen();
            let mut wr = SendWr {
                wr_id: (i * 100 + k) as u64,
                op,
                flags: if rng.gen() { send_flags::SOLICITED } else { 0 } | send_flags::SIGNALED,
                local_addr: src.iova + offset + if bad { src_len as u64 } else { 0 },
                length,
                lkey: mr.key(),
                remote_addr: rng.gen(),
                rkey: rng.gen(),
                imm: rng.gen(),
                atomic: AtomicArgs { value: rng.gen(), compare: rng.gen() },
            };
            let mut wqe = wr.wqe();
            if inline {
                let at = rng.gen_range(0..4096 - length as u64);
                (wr.local_addr, wr.lkey, wr.flags) = (inl.iova + at, rng.gen(), wr.flags | send_flags::INLINE);
                wqe = wr.wqe().with_inline(&inl_image[at as usize..][..length as usize]).unwrap();
                inlined += 1;
            }
            // Refused itself, or flushed behind a refused one.
            let out = bad || wqes[i].iter().any(|w: &(SendWqe, bool)| w.1);
            wqes[i].push((wqe, out));
            refused += out as u32;
            flushed += (out && !bad) as u32;
            list.push(wr);
        }
        a.post_send_list(qp, &list).unwrap();
    }
    assert!(inlined > 3, "the seed posts inline WQEs ({inlined})");
    a.write_buf(inl.iova, &[0xEE; 4096]).unwrap();
    world.borrow_mut().nics[0].dma_read.log = Some(Vec::new());

    // The reference: each QP's packets in order, and the round-robin order of messages.
    let mut expected: HashMap<u32, VecDeque<RequestPacket>> = HashMap::new();
    let mut total = 0;
    for (i, qp) in qps.iter().enumerate() {
        let ctx = *qp.context();
        let mut psn = ctx.sq_psn;
        for (wqe, out) in &wqes[i] {
            let result = ctx.request(a.port(), a.regions(), wqe, psn);
            if *out {
                // The first WQE out is a corrupted one; the rest of the queue is flushed.
                assert!(result.is_err(), "only the corrupted WQEs are refused");
                break;
            }
            let packets = result.expect("the model sends what the card sends");
            psn = rnic_spec::wire::psn::add(psn, packets.len() as u32);
            total += packets.len();
            expected.entry(ctx.dest_qpn).or_default().extend(packets);
        }
    }
    let done = world.borrow_mut().run_until(3_000_000, |w| w.nics[1].delivered_count() == total && w.link_idle());
    assert!(done, "card 1 got {} of {total} packets", world.borrow().nics[1].delivered_count());

    let frames = sent_packets(&world.borrow(), 0);
    let mut sent: HashMap<u32, VecDeque<Vec<u8>>> = HashMap::new();
    for (p, frame) in &frames {
        sent.entry(p.bth.dest_qp).or_default().push_back(frame.clone());
    }
    for (dest, packets) in &expected {
        let got = sent.remove(dest).unwrap_or_default();
        assert_eq!(got.len(), packets.len(), "packets to QP {dest:#x}");
        for (k, (p, frame)) in packets.iter().zip(&got).enumerate() {
            let payload = match &p.payload {
                Payload::Host(addr) => &image[(addr - src.iova) as usize..][..p.desc.payload_len as usize],
                Payload::Inline(data) => &data[..p.desc.payload_len as usize],
            };
            let want = p.desc.packet(payload).unwrap().frame();
            let first_diff = frame.iter().zip(&want).position(|(x, y)| x != y);
            assert!(
                frame == &want,
                "QP {dest:#x} packet {k} (opcode {:#x}, PSN {:#x}): {} bytes sent, {} expected, first difference at byte {first_diff:?}",
                p.desc.opcode,
                p.desc.psn,
                frame.len(),
                want.len()
            );
        }
    }
    assert!(sent.is_empty(), "no frames to other QPs");

    // Round-robin: the messages start in the order a FIFO of QPs with work serves them, a
    // batch of up to WQE_BATCH WQEs per turn.
    let mut fifo: VecDeque<usize> = order.into_iter().collect();
    let mut left: Vec<usize> = counts.clone();
    let mut want_starts = Vec::new();
    let mut next_wqe = vec![0usize; qps.len()];
    while let Some(i) = fifo.pop_front() {
        for _ in 0..left[i].min(WQE_BATCH) {
            if !wqes[i][next_wqe[i]].1 {
                want_starts.push(qps[i].context().dest_qpn);
            }
            next_wqe[i] += 1;
            left[i] -= 1;
        }
        if left[i] > 0 {
            fifo.push_back(i);
        }
    }
    let starts: Vec<u32> = frames
        .iter()
        .filter(|(p, _)| matches!(p.bth.opcode, 0x00 | 0x04 | 0x05 | 0x06 | 0x0A | 0x0B | 0x13 | 0x14))
        .map(|(p, _)| p.bth.dest_qp)
        .collect();
    assert_eq!(starts, want_starts, "messages in round-robin order");
    let atomics = frames.iter().filter(|(p, _)| matches!(p.bth.opcode, 0x13 | 0x14)).count();
    assert!(atomics > 3, "the seed sends atomics ({atomics})");

    // Flushes are reported after the last packet left: wait until every WQE is accounted for.
    let posted = wqes.iter().map(Vec::len).sum::<usize>() as u32;
    for _ in 0..100 {
        if a.dev.read("tx_counters", "wqes").unwrap() + a.dev.read("tx_counters", "wqe_errors").unwrap() == posted {
            break;
        }
        world.borrow_mut().run_until(1_000, |_| false);
    }
    assert_eq!(a.dev.read("tx_counters", "wqes").unwrap() as usize, wqes.iter().map(Vec::len).sum::<usize>() - refused as usize);
    assert_eq!(a.dev.read("tx_counters", "wqe_errors").unwrap(), refused, "refused and flushed WQEs");
    assert!(flushed > 0, "the seed flushes some WQEs behind a refused one");
    assert_eq!(b.dev.read("rx_counters", "accepted").unwrap() as usize, total);
    assert!(world.borrow().nics[0].dma_read.violations.is_empty());
    let reads = world.borrow().nics[0].dma_read.log.clone().unwrap();
    assert!(!reads.iter().any(|r| r.addr < inl.iova + 4096 && r.addr + r.len as u64 > inl.iova), "the card read an inline WQE's buffer");
}

/// Inline SEND and WRITE between two cards: the bytes of post time arrive (the buffer is
/// overwritten right after the post, and the card never reads it), with no local key; a WQE
/// the driver would refuse, written into the ring behind its back, is refused by the card.
#[test]
fn inline_requests_carry_the_bytes_of_post_time_and_the_card_checks_them() {
    use rnic_driver::sim_pair::qp_pair;
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let src = a.alloc_buf(4096, 4096).unwrap();
    let dst = b.alloc_buf(8192, 4096).unwrap();
    let rmr = b.reg_mr(pb, dst.iova, 8192, access::LOCAL_WRITE | access::REMOTE_WRITE).unwrap();
    // Non-inline payloads from a registered buffer, interleaved with the inline ones.
    let big = a.alloc_buf(4096, 4096).unwrap();
    let pattern: Vec<u8> = (0..4096u32).map(|i| (i * 13 + 5) as u8).collect();
    a.write_buf(big.iova, &pattern).unwrap();
    let lmr = a.reg_mr(pa, big.iova, 4096, access::LOCAL_WRITE).unwrap();
    let (mut cqa, mut cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let caps = QpCaps { sq_entries: 16, rq_entries: 16 };
    let (mut qa, mut qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, caps, (0x10, 0x20)).unwrap();
    b.post_recv(&mut qb, &[rnic_driver::verbs::RecvWr { wr_id: 77, addr: dst.iova + 1024, length: 64, lkey: rmr.key() }]).unwrap();
    a.write_buf(src.iova, b"8 bytes!thirteen bytesanother!").unwrap();
    let inline = |wr_id, op, at: u64, length| SendWr {
        wr_id,
        op,
        flags: send_flags::SIGNALED | send_flags::INLINE,
        local_addr: src.iova + at,
        length,
        lkey: 0xBAD,
        remote_addr: dst.iova + 8,
        rkey: rmr.key(),
        imm: 0,
        atomic: Default::default(),
    };
    let write = |wr_id, at: u64, length, to: u64| SendWr { flags: send_flags::SIGNALED, local_addr: big.iova + at, lkey: lmr.key(), remote_addr: dst.iova + to, ..inline(wr_id, SendOp::Write, 0, length) };
    // One batch: a 3000-byte WRITE (its payload read takes a round trip while the inline
    // packets behind it are queued), two inline WRITEs back to back, a 100-byte WRITE, an
    // inline SEND.
    let list = [
        write(0, 0, 3000, 4096),
        inline(1, SendOp::Write, 0, 8),
        SendWr { remote_addr: dst.iova + 16, ..inline(2, SendOp::Write, 22, 8) },
        write(3, 3000, 100, 3000),
        inline(4, SendOp::Send, 8, 13),
    ];
    a.post_send_list(&mut qa, &list).unwrap();
    a.write_buf(src.iova, &[0; 64]).unwrap();
    world.borrow_mut().nics[0].dma_read.log = Some(Vec::new());
    let wcs: Vec<_> = run_for_completions(&world, &mut a, &mut cqa, list.len(), 2_000, 100_000).unwrap().iter().map(|w| (w.wr_id, w.status, w.op, w.byte_len)).collect();
    let ok = |id, op, len| (id, CqStatus::Success, op, len);
    assert_eq!(wcs, [ok(0, CqOp::Write, 3000), ok(1, CqOp::Write, 8), ok(2, CqOp::Write, 8), ok(3, CqOp::Write, 100), ok(4, CqOp::Send, 13)]);
    assert_eq!(b.read_buf(dst.iova + 8, 16).unwrap(), b"8 bytes!another!");
    assert_eq!(b.read_buf(dst.iova + 1024, 13).unwrap(), b"thirteen byte");
    assert_eq!(b.read_buf(dst.iova + 4096, 3000).unwrap(), pattern[..3000], "the long WRITE's bytes, none of an inline packet's");
    assert_eq!(b.read_buf(dst.iova + 3000, 100).unwrap(), pattern[3000..3100]);
    let recv = b.poll_cq(&mut cqb, 4).unwrap();
    assert_eq!((recv.len(), recv[0].wr_id, recv[0].byte_len), (1, 77, 13));
    let reads = world.borrow().nics[0].dma_read.log.clone().unwrap();
    assert!(!reads.iter().any(|r| r.addr < src.iova + 4096 && r.addr + r.len as u64 > src.iova), "the card read the inline buffer");
    // (Card 0 sends only requests here; card 1 answers with ACKs.)
    let frames = sent_packets(&world.borrow(), 0);
    let requests: Vec<_> = frames.iter().filter(|(p, _)| p.bth.opcode != 0x11).collect();
    assert_eq!(requests.len(), 3 + 4, "three packets of the 3000-byte WRITE at PMTU 1024, then one each");

    // A bad inline buffer fails the post, and nothing of it is posted.
    let e = a.post_send_list(&mut qa, &[inline(5, SendOp::Write, 0, 8), SendWr { local_addr: 0x10, ..inline(6, SendOp::Write, 0, 8) }]).unwrap_err();
    assert!(matches!(e, VerbsError::InlineBuffer(0x10, 8, _)) && e.to_string().contains("local_addr"), "{e}");
    assert_eq!(a.sq_free(&qa), 16, "nothing posted");
    let empty = SendWr { local_addr: 0, ..inline(7, SendOp::Write, 0, 0) };
    a.post_send(&mut qa, &empty).unwrap();
    world.borrow_mut().run_until(20_000, |_| false);
    assert_eq!(a.poll_cq(&mut cqa, 4).unwrap().iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>(), [(7, CqStatus::Success)], "a zero-length inline WRITE reads nothing");

    // The driver's own checks.
    assert_eq!(a.post_send(&mut qa, &inline(3, SendOp::Write, 0, 17)), Err(VerbsError::InlineTooLong(17)));
    assert_eq!(a.post_send(&mut qa, &inline(3, SendOp::Read, 0, 8)), Err(VerbsError::InlineOp(SendOp::Read)));
    // The card's, each on a QP of its own: an inline READ (the opcode byte rewritten after
    // the doorbell, before the card reads the WQE) and 17 inline bytes (the length).
    for (at, byte, status) in [(send_wqe::OP, SendOp::Read as u8, CqStatus::LocalQpOperation), (send_wqe::LENGTH, 17, CqStatus::LocalLength)] {
        let (mut qa, _qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, caps, (0, 0)).unwrap();
        a.post_send_list(&mut qa, &[inline(10, SendOp::Write, 0, 16), inline(11, SendOp::Write, 0, 8)]).unwrap();
        a.write_buf(qa.context().sq_base + at as u64, &[byte]).unwrap();
        world.borrow_mut().run_until(20_000, |_| false);
        let wc: Vec<_> = a.poll_cq(&mut cqa, 4).unwrap().iter().map(|w| (w.wr_id, w.status)).collect();
        assert_eq!(wc, [(10, status), (11, CqStatus::Flushed)], "{status:?}");
    }
    assert_eq!(a.dev.read("tx_counters", "wqe_errors").unwrap(), 4, "two refused, two flushed");
    let wire = sent_packets(&world.borrow(), 0);
    assert_eq!(wire.len(), 7 + 1, "only the good requests went out (the batch's seven, the empty WRITE)");
}

#[test]
fn verbs_refuse_bad_requests_before_the_card_sees_them() {
    let (_world, mut a, _b) = two_cards(LinkConfig::default());
    let pd = a.alloc_pd().unwrap();
    let cq = a.create_cq(4).unwrap();
    assert!(a.create_cq(5).is_err(), "CQ sizes are powers of two");
    let mut qp = a.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 2, rq_entries: 1 }).unwrap();
    let wr = SendWr { wr_id: 1, op: SendOp::Write, flags: 0, local_addr: 0, length: 1, lkey: 0, remote_addr: 0, rkey: 0, imm: 0, atomic: Default::default() };
    assert_eq!(a.post_send(&mut qp, &wr), Err(VerbsError::NotReadyToSend(QpState::Reset)));
    let e = a.modify_qp(&mut qp, QpState::Rts, &QpAttr::default()).unwrap_err();
    assert_eq!(e, VerbsError::BadTransition { from: QpState::Reset, to: QpState::Rts });
    assert!(e.to_string().contains("from Reset it can go to Reset, Init, Error"), "{e}");
    a.modify_qp(&mut qp, QpState::Init, &QpAttr::default()).unwrap();
    let e = a.modify_qp(&mut qp, QpState::Rtr, &QpAttr { pmtu: Some(1000), ..Default::default() }).unwrap_err();
    assert!(matches!(e, VerbsError::BadAttribute("path", _)), "{e}");
    assert!(a.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 3, rq_entries: 1 }).is_err(), "queue sizes are powers of two");
    let mut qp = connected_qp(&mut a, pd, &cq, PathKind { v6: false, vlan: None, pmtu: 1024 }, 0x11, 0);
    for n in [0, 9] {
        let e = a.modify_qp(&mut qp, QpState::Rts, &QpAttr { max_rd_atomic: Some(n), ..Default::default() }).unwrap_err();
        assert!(matches!(e, VerbsError::BadAttribute("max_rd_atomic", _)), "{e}");
    }
    let big = SendWr { length: u32::MAX, ..wr };
    assert!(matches!(a.post_send(&mut qp, &big), Err(VerbsError::TooLong(_))));
    assert!(a.write_buf(0x1234, &[0]).is_err(), "CPU access outside DMA memory is refused");
    let e = a.reg_mr(pd, u64::MAX - 1, 4, 0).unwrap_err();
    assert!(e.to_string().contains("wrap"), "{e}");
}

/// A single WQE posted onto an empty send queue is pushed through BAR0 with its doorbell:
/// the card sends it without reading the ring (the ring slot, overwritten after the post, does
/// not matter); a list, or a post behind outstanding WQEs, goes through the ring; and a pushed
/// WQE the card cannot use in place (its index behind the QP's next WQE; a driver may push at
/// any time) is retired, never sent.
#[test]
fn a_pushed_wqe_is_sent_without_reading_the_ring() {
    use rnic_driver::sim_pair::qp_pair;
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let src = a.alloc_buf(4096, 4096).unwrap();
    let image: Vec<u8> = (0..4096u32).map(|i| (i * 7 + 3) as u8).collect();
    a.write_buf(src.iova, &image).unwrap();
    let lmr = a.reg_mr(pa, src.iova, 4096, access::LOCAL_WRITE).unwrap();
    let dst = b.alloc_buf(4096, 4096).unwrap();
    let rmr = b.reg_mr(pb, dst.iova, 4096, access::LOCAL_WRITE | access::REMOTE_WRITE).unwrap();
    let (mut cqa, cqb) = (a.create_cq(16).unwrap(), b.create_cq(16).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let (mut qa, _qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, QpCaps { sq_entries: 16, rq_entries: 16 }, (0, 0)).unwrap();
    // (A second pair, connected on card 0 only at the end.)
    let mut q2 = a.create_qp(pa, &cqa, &cqa, QpCaps { sq_entries: 16, rq_entries: 16 }).unwrap();
    let mut qb2 = b.create_qp(pb, &cqb, &cqb, QpCaps { sq_entries: 16, rq_entries: 16 }).unwrap();
    connect(&mut b, &mut qb2, 0, kind, q2.qpn, 0, 0).unwrap();
    let ring = (qa.context().sq_base, 16 * 64u64);
    let write = |id: u64| SendWr {
        wr_id: id,
        op: SendOp::Write,
        flags: send_flags::SIGNALED,
        local_addr: src.iova + 64 * id,
        length: 64,
        lkey: lmr.key(),
        remote_addr: dst.iova + 64 * id,
        rkey: rmr.key(),
        imm: 0,
        atomic: Default::default(),
    };
    world.borrow_mut().nics[0].dma_read.log = Some(Vec::new());
    let mut run = |a: &mut Card, n: usize, ring: (u64, u64)| {
        let wcs: Vec<_> = run_for_completions(&world, a, &mut cqa, n, 1_000, 40_000).unwrap().iter().map(|w| (w.wr_id, w.status)).collect();
        let reads = world.borrow_mut().nics[0].dma_read.log.replace(Vec::new()).unwrap();
        let ring_reads = reads.iter().filter(|r| r.addr < ring.0 + ring.1 && r.addr + r.len as u64 > ring.0).count();
        (wcs, ring_reads)
    };

    // Pushed: no ring read, even with the ring's copy made garbage right after the post.
    a.post_send(&mut qa, &write(0)).unwrap();
    a.write_buf(ring.0, &[0xFF; 64]).unwrap();
    assert_eq!(run(&mut a, 1, ring), (vec![(0, CqStatus::Success)], 0));
    // A list: the card reads its batch.
    a.post_send_list(&mut qa, &[write(1), write(2)]).unwrap();
    assert_eq!(run(&mut a, 2, ring), (vec![(1, CqStatus::Success), (2, CqStatus::Success)], 1));
    // Behind more than PUSH_OUTSTANDING_MAX outstanding WQEs: the doorbell alone (the third
    // here is read from the ring).
    for id in 3..5 {
        a.post_send(&mut qa, &write(id)).unwrap();
    }
    let (wcs, ring_reads) = run(&mut a, 2, ring);
    assert_eq!((wcs, ring_reads), (vec![(3, CqStatus::Success), (4, CqStatus::Success)], 0), "two pushed");
    for id in 5..8 {
        a.post_send(&mut qa, &write(id)).unwrap();
    }
    let (wcs, ring_reads) = run(&mut a, 3, ring);
    assert_eq!((wcs, ring_reads >= 1), (vec![(5, CqStatus::Success), (6, CqStatus::Success), (7, CqStatus::Success)], true));
    // A list, then a push of its last WQE's index with other contents (it would write slot
    // 12): the card has fetched the batch from the ring, the pushed copy is never sent (it
    // could not match any more: the next fetch is past its index).
    a.post_send_list(&mut qa, &[write(8), write(9)]).unwrap();
    let stray = SendWr { remote_addr: dst.iova + 64 * 12, ..write(9) }.wqe();
    a.dev.push_send_wqe(qa.qpn as u16, 10, &stray.pack()).unwrap();
    assert_eq!(run(&mut a, 2, ring).0, [(8, CqStatus::Success), (9, CqStatus::Success)]);
    // Push off: the ring is read (and the stale push retired by that fetch).
    a.set_wqe_push(false);
    a.post_send(&mut qa, &write(10)).unwrap();
    assert_eq!(run(&mut a, 1, ring), (vec![(10, CqStatus::Success)], 1));
    a.set_wqe_push(true);
    a.post_send(&mut qa, &write(11)).unwrap();
    assert_eq!(run(&mut a, 1, ring), (vec![(11, CqStatus::Success)], 0));
    // A push for a QP that cannot send yet (Reset: the card fetches nothing), retired by the
    // commits that connect it: the WQE the ring holds at that index is what goes out, not the
    // pushed copy (which would write slot 12).
    a.dev.push_send_wqe(q2.qpn as u16, 1, &SendWr { remote_addr: dst.iova + 64 * 12, ..write(12) }.wqe().pack()).unwrap();
    world.borrow_mut().run_until(2_000, |_| false);
    connect(&mut a, &mut q2, 1, kind, qb2.qpn, 0, 0).unwrap();
    a.set_wqe_push(false);
    a.post_send(&mut q2, &SendWr { remote_addr: dst.iova + 64 * 13, ..write(13) }).unwrap();
    assert_eq!(run(&mut a, 1, (q2.context().sq_base, 16 * 64)), (vec![(13, CqStatus::Success)], 1));
    assert_eq!(b.read_buf(dst.iova, 12 * 64).unwrap(), image[..12 * 64], "every WRITE landed");
    assert_eq!(b.read_buf(dst.iova + 12 * 64, 64).unwrap(), [0; 64], "no stray pushed copy was sent");
    assert_eq!(b.read_buf(dst.iova + 13 * 64, 64).unwrap(), image[13 * 64..14 * 64]);
}
