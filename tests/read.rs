//! RDMA READ, the responder's side, end to end: READ requests sent raw into card 1 — every
//! length class (0, 1, a beat, around the path MTU, many packets), at path MTUs 256, 1024 and
//! 4096, duplicates, a READ right behind a WRITE to the same bytes — are answered with the
//! READ RESPONSE packets the reference model (`rnic_spec::responder::ReadReply`) gives, byte for
//! byte on the wire, the payload read from card 1's host memory; refused READs (no
//! REMOTE_READ, out of bounds, a stale rkey, longer than 2^31) get the model's NAK, break the
//! QP and read nothing. (A READ request carrying payload never reaches the responder: the
//! receive pipeline drops it as malformed, `rx.pad_length`.)

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::sim_pair::{assert_answers, assert_frames, frames_by_dest_qp, qp_pair, raw_request, run_until_quiet, sent_packets, two_cards, Answer, PathKind};
use rnic_driver::verbs::{QpCaps, QpState};
use rnic_sim::world::LinkConfig;
use rnic_spec::mr::access;
use rnic_spec::responder::{Outcome, RspState, MAX_MESSAGE, OP_READ_REQUEST, OP_WRITE_ONLY};
use rnic_spec::wire::ib::Reth;
use rnic_spec::wire::rx::{classify, RxConfig};
use std::collections::HashMap;

const CAPS: QpCaps = QpCaps { sq_entries: 16, rq_entries: 16 };

/// Answers expected on one QP: frames, the kept READ they belong to (`ReadReply::slot`), and
/// whether they answer a duplicate.
type Expected = Vec<(Vec<Vec<u8>>, Option<usize>, bool)>;

/// An answer is replaceable when a later duplicate answers the same kept READ.
fn answers(list: &Expected) -> Vec<Answer> {
    let replaced = |i: usize, slot: Option<usize>| slot.is_some() && list[i + 1..].iter().any(|(_, s, dup)| *dup && *s == slot);
    list.iter().enumerate().map(|(i, (frames, slot, _))| Answer { frames: frames.clone(), replaceable: replaced(i, *slot) }).collect()
}

/// Waits for card 1's answers to settle and checks them per QP against `want`; the READ
/// responses and replaced answers the card counted must be the ones on the wire.
fn check_answers(world: &std::rc::Rc<std::cell::RefCell<rnic_sim::world::World>>, card: &mut rnic_driver::sim_pair::Card, want: &HashMap<u32, Expected>, responses: u64, max: u64) {
    let total: usize = want.values().flatten().map(|a| a.0.len()).sum();
    let least: usize = want.values().map(|l| answers(l).iter().filter(|a| !a.replaceable).map(|a| a.frames.len()).sum::<usize>()).sum();
    let done = run_until_quiet(world, 1, least, 5_000, max);
    let stats = card.dev.nonzero_stats().unwrap();
    assert!(done, "card 1 sent {} frames, at least {least} expected; card 1: {stats}", world.borrow().sent_by(1).count());
    let got = frames_by_dest_qp(&world.borrow(), 1);
    let mut cut = 0;
    for (q, list) in want {
        cut += assert_answers(&got[q], &answers(list), &format!("QP {q}"));
    }
    let sent = world.borrow().sent_by(1).count();
    assert_eq!(card.dev.read("responder", "read_responses").unwrap() as u64, responses - (total - sent) as u64, "READ responses sent: the model's less those replaced");
    assert_eq!(card.dev.read("responder", "reads_replaced").unwrap() as usize, cut, "answers replaced");
}

#[test]
fn reads_are_answered_from_memory_as_the_model_says() {
    let mut rng = SmallRng::seed_from_u64(0x4ead);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let len = 64usize << 10;
    let buf = b.alloc_buf(len, 4096).unwrap();
    let mut image: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(buf.iova, &image).unwrap();
    let mr = b.reg_mr(pb, buf.iova, len as u32, access::REMOTE_READ | access::REMOTE_WRITE).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    let reth = |off: u64, dma_len: u32| Reth { va: buf.iova + off, rkey: mr.key(), dma_len };

    let mut want: HashMap<u32, Expected> = HashMap::new();
    let mut responses = 0;
    for (i, pmtu) in [256u32, 1024, 4096].into_iter().enumerate() {
        let kind = PathKind { v6: i == 1, vlan: None, pmtu };
        let (qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (100, 0)).unwrap();
        let ctx = *qb.context();
        let mut state = RspState::new(ctx.rq_psn);
        // (opcode, offset, length, payload): READs of every length class, a duplicate, and a
        // WRITE whose bytes the READ behind it must return. Each QP has its own 20 KiB of the
        // buffer, and the WRITE goes where no earlier READ reads: a READ is ordered before the
        // WRITEs behind it only with a fence at the requester (IBTA's relaxed READ ordering;
        // the responder places them while the READ's responses are still being read).
        let window = i as u64 * 20_480;
        let mut ops: Vec<(u8, u64, u32, Vec<u8>)> = [0, 1, 63, 64, pmtu - 1, pmtu, pmtu + 1, 3 * pmtu + 17, 8192 + 5]
            .into_iter()
            .map(|n| (OP_READ_REQUEST, window + rng.gen_range(0..12_288 - 8197), n, Vec::new()))
            .collect();
        let w = window + rng.gen_range(14_336..20_480 - 256);
        ops.push((OP_WRITE_ONLY, w, 200, (0..200).map(|_| rng.gen()).collect()));
        ops.push((OP_READ_REQUEST, w - 8, 216, Vec::new()));
        let mut psn = ctx.rq_psn;
        for (k, (op, off, n, payload)) in ops.iter().enumerate() {
            // The third READ is sent again once (its PSN is behind by then): executed again.
            let resend = k == 3;
            let tries = if resend { vec![psn, psn] } else { vec![psn] };
            for p in tries {
                let d = raw_request(&ctx, qb.qpn, *op, p, reth(*off, *n), payload.len() as u16, true);
                let effect = state.receive(Some(&ctx), b.regions(), &[], &d.packet(payload).unwrap());
                match effect.outcome {
                    Outcome::Placed { addr, len } => {
                        let at = (addr - buf.iova) as usize;
                        image[at..at + len as usize].copy_from_slice(payload);
                    }
                    Outcome::Read | Outcome::Duplicate => {}
                    other => panic!("op {op:#x} of {n} bytes at PMTU {pmtu}: {other:?}"),
                }
                if let Some(r) = effect.response {
                    want.entry(qa.qpn).or_default().push((vec![r.descriptor(b.port(), &ctx).packet(&[]).unwrap().frame()], None, false));
                }
                if let Some(read) = effect.read {
                    let mut frames = Vec::new();
                    for resp in read.responses(ctx.pmtu_log2) {
                        let at = (resp.va - buf.iova) as usize;
                        let bytes = &image[at..at + resp.len as usize];
                        frames.push(resp.descriptor(b.port(), &ctx).packet(bytes).unwrap().frame());
                        responses += 1;
                    }
                    want.entry(qa.qpn).or_default().push((frames, read.slot, effect.outcome == Outcome::Duplicate));
                }
                world.borrow_mut().nics[0].send(d, payload);
            }
            psn = state.epsn;
        }
    }
    check_answers(&world, &mut b, &want, responses, 400_000);
    assert_eq!(b.dev.read("responder", "read_errors").unwrap(), 0);
    assert_eq!(b.dev.read("responder", "duplicates").unwrap(), 3, "one READ sent twice per QP");
    for name in ["naks_sequence", "naks_invalid", "naks_access", "bad_qp", "set_aside"] {
        assert_eq!(b.dev.read("responder", name).unwrap(), 0, "{name}");
    }
    assert_eq!(b.read_buf(buf.iova, len).unwrap(), image, "only the WRITEs changed memory");
}

#[test]
fn refused_reads_get_the_models_nak_and_read_nothing() {
    let mut rng = SmallRng::seed_from_u64(0x4eae);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let len = 16usize << 10;
    let buf = b.alloc_buf(len, 4096).unwrap();
    let image: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(buf.iova, &image).unwrap();
    let half = len as u32 / 2;
    let readable = b.reg_mr(pb, buf.iova, half, access::REMOTE_READ).unwrap();
    let write_only = b.reg_mr(pb, buf.iova + half as u64, half, access::REMOTE_WRITE).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let ok = |off: u64, dma_len: u32| Reth { va: buf.iova + off, rkey: readable.key(), dma_len };
    // (RETH, payload bytes): each breaks its QP; a good READ behind it is dropped.
    let cases = [
        (Reth { va: buf.iova + half as u64, rkey: write_only.key(), dma_len: 64 }, 0), // no REMOTE_READ
        (ok(half as u64 - 8, 16), 0),                                                   // past the end
        (Reth { rkey: readable.key() ^ 0x100, ..ok(0, 64) }, 0),                        // stale rkey
        (ok(0, MAX_MESSAGE + 1), 0),                                                    // longer than 2^31
    ];
    let mut want: HashMap<u32, Vec<Vec<u8>>> = HashMap::new();
    let mut broken = Vec::new();
    for (reth, n) in cases {
        let (qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (100, 0)).unwrap();
        assert_eq!(b.query_qp(&qb).unwrap(), QpState::Rts);
        let ctx = *qb.context();
        let mut state = RspState::new(ctx.rq_psn);
        for (reth, n, psn) in [(reth, n, 100), (ok(0, 64), 0, 101)] {
            let payload = vec![0xAB; n];
            let d = raw_request(&ctx, qb.qpn, OP_READ_REQUEST, psn, reth, n as u16, true);
            let effect = state.receive(Some(&ctx), b.regions(), &[], &d.packet(&payload).unwrap());
            assert!(effect.read.is_none(), "{reth:?}: refused by the model");
            if let Some(r) = effect.response {
                want.entry(qa.qpn).or_default().push(r.descriptor(b.port(), &ctx).packet(&[]).unwrap().frame());
            }
            world.borrow_mut().nics[0].send(d, &payload);
        }
        assert!(state.error, "{reth:?}: the QP breaks");
        broken.push((qa, qb));
    }
    let total: usize = want.values().map(Vec::len).sum();
    assert_eq!(total, cases.len(), "one NAK per case");
    world.borrow_mut().run_until(200_000, |w| w.link_idle() && w.sent_by(1).count() >= total);
    world.borrow_mut().run_until(5_000, |_| false);
    let opcodes: Vec<(u32, u8, u32, String)> = world
        .borrow()
        .sent_by(1)
        .map(|(_, f)| classify(f, RxConfig { fcs: false }).packet.map(|p| (p.bth.dest_qp, p.bth.opcode, p.bth.psn, format!("{:?}", p.ext))).unwrap())
        .collect();
    assert_eq!(opcodes.len(), total, "card 1 sent {opcodes:x?}");
    world.borrow_mut().run_until(2_000, |_| false);
    let got = frames_by_dest_qp(&world.borrow(), 1);
    for (q, frames) in &want {
        assert_frames(&got[q], frames, &format!("QP {q}"));
    }
    assert_eq!(b.dev.read("responder", "read_responses").unwrap(), 0);
    assert_eq!(b.dev.read("responder", "naks_access").unwrap(), 3);
    assert_eq!(b.dev.read("responder", "naks_invalid").unwrap(), 1);
    assert_eq!(b.dev.read("responder", "bad_qp").unwrap(), cases.len() as u32, "the READ behind each");
    assert_eq!(b.read_buf(buf.iova, len).unwrap(), image);
    // The card reports each QP in error (`query_qp`), until software resets it.
    for (qa, qb) in &mut broken {
        assert_eq!(b.query_qp(qb).unwrap(), QpState::Error, "QP {}", qb.qpn);
        assert_eq!(a.query_qp(qa).unwrap(), QpState::Rts, "the requester got a NAK it never asked for: its QP {} is untouched", qa.qpn);
    }
    let (_, qb) = &mut broken[0];
    b.modify_qp(qb, QpState::Reset, &Default::default()).unwrap();
    assert_eq!(b.query_qp(qb).unwrap(), QpState::Reset, "the commit clears the card's error");
    assert_eq!(b.query_qp(&broken[1].1).unwrap(), QpState::Error, "only that QP's");
}

#[test]
fn random_reads_back_to_back_on_four_qps_match_the_model() {
    let mut rng = SmallRng::seed_from_u64(0x4eaf);
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let len = 64usize << 10;
    let buf = b.alloc_buf(len, 4096).unwrap();
    let image: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
    b.write_buf(buf.iova, &image).unwrap();
    let mr = b.reg_mr(pb, buf.iova, len as u32, access::REMOTE_READ).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    let mut qps = Vec::new();
    for pmtu in [256u32, 512, 1024, 4096] {
        let kind = PathKind { v6: rng.gen(), vlan: None, pmtu };
        let psn = rng.gen_range(0..0x100_0000);
        let (qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (psn, 0)).unwrap();
        let ctx = *qb.context();
        qps.push((qa, qb, ctx, RspState::new(ctx.rq_psn)));
    }
    let mut want: HashMap<u32, Expected> = HashMap::new();
    let mut responses = 0;
    // Requests back to back from card 0's raw port (the link's full rate): mostly READs at the
    // ePSN, some repeated from behind it; lengths from 0 to several packets. In bursts of 12:
    // a peer keeps no more READs outstanding than the responder's resources (the card's
    // response queue holds 16; more would back up into the receive buffer). A duplicate of a
    // kept READ replaces the answers to it still queued or going out.
    let mut dups = 0;
    // Duplicates inside an earlier READ: answered from the middle (MIDDLE / LAST first).
    let mut mids = 0;
    for k in 0..160 {
        if k % 12 == 0 {
            let least: usize = want.values().map(|l| answers(l).iter().filter(|a| !a.replaceable).map(|a| a.frames.len()).sum::<usize>()).sum();
            let done = run_until_quiet(&world, 1, least, 5_000, 400_000);
            assert!(done, "burst {}: card 1 sent {}, at least {least} expected", k / 12, world.borrow().sent_by(1).count());
        }
        let (qa, qb, ctx, state) = &mut qps[rng.gen_range(0..4)];
        let pmtu = 1u32 << ctx.pmtu_log2;
        let n = match rng.gen_range(0..6) {
            0 => 0,
            1 => rng.gen_range(1..=64),
            2 => pmtu + rng.gen_range(0..3) - 1,
            _ => rng.gen_range(1..=6000),
        };
        let off = rng.gen_range(0..(len as u32 - n)) as u64;
        let behind = rng.gen_range(0..8) == 0;
        // (From behind: inside or at the start of one of the QP's last READs — the card keeps
        // eight — or before them all.)
        let psn = if behind { rnic_spec::wire::psn::add(state.epsn, 0x100_0000 - rng.gen_range(1..=40)) } else { state.epsn };
        dups += behind as usize;
        let d = raw_request(ctx, qb.qpn, OP_READ_REQUEST, psn, Reth { va: buf.iova + off, rkey: mr.key(), dma_len: n }, 0, true);
        let effect = state.receive(Some(ctx), b.regions(), &[], &d.packet(&[]).unwrap());
        let read = effect.read.unwrap_or_else(|| panic!("{:?}", effect.outcome));
        mids += read.mid as usize;
        let mut frames = Vec::new();
        for resp in read.responses(ctx.pmtu_log2) {
            let at = (resp.va - buf.iova) as usize;
            frames.push(resp.descriptor(b.port(), ctx).packet(&image[at..at + resp.len as usize]).unwrap().frame());
            responses += 1;
        }
        want.entry(qa.qpn).or_default().push((frames, read.slot, behind));
        world.borrow_mut().nics[0].send(d, &[]);
    }
    check_answers(&world, &mut b, &want, responses, 2_000_000);
    let replaced = b.dev.read("responder", "reads_replaced").unwrap();
    assert!(replaced > 0, "some duplicates caught their READ's answer still queued or going out");
    assert_eq!(b.dev.read("rx_counters", "no_buffer").unwrap(), 0, "no request lost in the receive buffer");
    assert_eq!(b.dev.read("responder", "duplicates").unwrap() as usize, dups);
    assert!(mids > 0 && mids < dups, "duplicates answered from the middle: {mids} of {dups}");
    assert_eq!(b.read_buf(buf.iova, len).unwrap(), image, "READs write nothing");
}

/// Card 1 answers READs of `len` bytes of a pattern (from card 0's QPs `qa`, `qa2`, whose
/// first PSNs are `psns`), its host reads failing at or past byte `fail_at` of the buffer (SLVERR).
struct FailingReads {
    world: std::rc::Rc<std::cell::RefCell<rnic_sim::world::World>>,
    b: rnic_driver::sim_pair::Card,
    buf: rnic_driver::verbs::DmaBuf,
    image: Vec<u8>,
    rkey: u32,
    qps: [(rnic_driver::verbs::Qp, rnic_driver::verbs::Qp); 2],
}

impl FailingReads {
    fn new(len: usize, fail_at: u64, psns: [u32; 2]) -> FailingReads {
        let (world, mut a, mut b) = two_cards(LinkConfig::default());
        let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
        let buf = b.alloc_buf(len, 4096).unwrap();
        let image: Vec<u8> = (0..len as u32).map(|i| (i * 13 + 5) as u8).collect();
        b.write_buf(buf.iova, &image).unwrap();
        let mr = b.reg_mr(pb, buf.iova, len as u32, access::REMOTE_READ).unwrap();
        let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
        let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
        let qps = psns.map(|psn| qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (psn, 0)).unwrap());
        world.borrow_mut().nics[1].dma_read.error_above = buf.iova + fail_at;
        FailingReads { world, b, buf, image, rkey: mr.key(), qps }
    }

    /// Card 0 sends a READ of `n` bytes at `off` on its QP `k` (raw, from the wire's end).
    fn read(&self, k: usize, psn: u32, off: u64, n: u32) {
        let qb = &self.qps[k].1;
        let f = raw_request(qb.context(), qb.qpn, OP_READ_REQUEST, psn, Reth { va: self.buf.iova + off, rkey: self.rkey, dma_len: n }, 0, true);
        self.world.borrow_mut().nics[0].send(f, &[]);
    }

    /// The packets card 1 has sent, from the `skip`th on.
    fn answers(&self, skip: usize) -> Vec<rnic_spec::wire::packet::RocePacket> {
        sent_packets(&self.world.borrow(), 1).into_iter().skip(skip).map(|(p, _)| p).collect()
    }

    fn counter(&mut self, reg: &str) -> u32 {
        self.b.dev.read("responder", reg).unwrap()
    }
}

fn syndrome(p: &rnic_spec::wire::packet::RocePacket) -> Option<u8> {
    p.ext.iter().find_map(|e| if let rnic_spec::wire::ib::Ext::Aeth(a) = e { Some(a.syndrome) } else { None })
}

#[test]
fn a_failed_host_read_is_answered_by_a_nak_and_no_byte_of_it_goes_out() {
    // The third response packet of a 3000-byte READ cannot be read.
    let mut t = FailingReads::new(8192, 2048, [100, 100]);
    t.read(0, 100, 0, 3000);
    assert!(t.world.borrow_mut().run_until(100_000, |w| w.link_idle() && w.sent_by(1).count() >= 1));
    t.world.borrow_mut().run_until(5_000, |_| false);
    let got = t.answers(0);
    // The packets read before the failure (FIRST, MIDDLE); then one NAK remote operational
    // error at the failed packet's PSN, and nothing of the failed read.
    let (last, good) = got.split_last().expect("an answer");
    assert_eq!(good.len(), 2, "{got:?}");
    for (k, p) in good.iter().enumerate() {
        assert_eq!((p.bth.opcode, p.bth.psn), ([0x0D, 0x0E][k], 100 + k as u32));
        assert_eq!(p.payload, t.image[k * 1024..(k + 1) * 1024]);
    }
    assert_eq!((last.bth.opcode, last.bth.psn), (0x11, 100 + good.len() as u32), "{got:?}");
    assert_eq!(syndrome(last), Some(rnic_spec::responder::aeth::NAK_REMOTE_OPERATIONAL));
    assert_eq!(t.counter("read_errors"), 1);
    // The failed job's beats are thrown away: the next READ (another QP) is answered right.
    t.world.borrow_mut().nics[1].dma_read.error_above = u64::MAX;
    let before = got.len();
    t.read(1, 100, 512, 1500);
    assert!(t.world.borrow_mut().run_until(100_000, |w| w.link_idle() && w.sent_by(1).count() == before + 2));
    let got = t.answers(before);
    assert_eq!(got.iter().map(|p| (p.bth.opcode, p.bth.dest_qp)).collect::<Vec<_>>(), [(0x0D, t.qps[1].0.qpn), (0x0F, t.qps[1].0.qpn)]);
    assert_eq!([got[0].payload.clone(), got[1].payload.clone()].concat(), t.image[512..2012]);
}

#[test]
fn a_read_failing_behind_good_ones_fails_alone() {
    // Three READs arrive back to back: the responder reads ahead of the one it answers, so the
    // middle one's failed host read comes back while the first is still being sent. The first
    // is answered whole, the second by a NAK at its PSN, the third (read ahead, thrown away
    // with the failure, read again) whole.
    let mut t = FailingReads::new(16384, 12288, [200, 300]);
    t.world.borrow_mut().nics[1].dma_read.log = Some(Vec::new());
    t.read(0, 200, 0, 4000);
    t.read(0, 204, 12288, 100);
    t.read(1, 300, 5000, 3000);
    assert!(t.world.borrow_mut().run_until(200_000, |w| w.link_idle() && w.sent_by(1).count() >= 4 + 1 + 3));
    t.world.borrow_mut().run_until(5_000, |_| false);
    let got = t.answers(0);
    let seen: Vec<_> = got.iter().map(|p| (p.bth.dest_qp, p.bth.opcode, p.bth.psn)).collect();
    let (qa, qa2) = (t.qps[0].0.qpn, t.qps[1].0.qpn);
    assert_eq!(
        seen,
        [(qa, 0x0D, 200), (qa, 0x0E, 201), (qa, 0x0E, 202), (qa, 0x0F, 203), (qa, 0x11, 204), (qa2, 0x0D, 300), (qa2, 0x0E, 301), (qa2, 0x0F, 302)]
    );
    let payload = |r: std::ops::Range<usize>| got[r].iter().flat_map(|p| p.payload.clone()).collect::<Vec<u8>>();
    assert_eq!(payload(0..4), t.image[..4000]);
    assert_eq!(payload(5..8), t.image[5000..8000]);
    assert_eq!(syndrome(&got[4]), Some(rnic_spec::responder::aeth::NAK_REMOTE_OPERATIONAL));
    assert_eq!(t.counter("read_errors"), 1);
    assert_eq!(t.counter("read_responses"), 7);
    // The third READ's first packet was read ahead, before the failure came back, and again.
    let reads = t.world.borrow().nics[1].dma_read.log.clone().unwrap();
    assert_eq!(reads.iter().filter(|r| r.addr == (t.buf.iova + 5000) & !63).count(), 2, "{reads:?}");
}

#[test]
fn a_read_waiting_for_queue_room_when_its_qp_is_reset_is_never_answered() {
    use rnic_driver::sim_pair::try_two_cards_with_host;
    use rnic_sim::host::HostTiming;
    // Card 1's host answers writes after 30 000 cycles: an ACK leaves the response queue only
    // once its WRITE's bytes are in memory, so 64 ACKs fill the queue (`AckQueue`) and a READ
    // behind them waits for room — with its key already checked.
    const QUEUE: u32 = 64;
    let host = HostTiming { write_cycles: 30_000, ..HostTiming::default() };
    let (world, mut a, mut b) = try_two_cards_with_host(LinkConfig::default(), host).unwrap();
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let buf = b.alloc_buf(8192, 4096).unwrap();
    let mr = b.reg_mr(pb, buf.iova, 8192, access::REMOTE_READ | access::REMOTE_WRITE).unwrap();
    let (cqa, cqb) = (a.create_cq(4).unwrap(), b.create_cq(4).unwrap());
    let kind = PathKind { v6: false, vlan: None, pmtu: 1024 };
    let (qa1, qb1) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (100, 0)).unwrap();
    let (qa2, mut qb2) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), kind, CAPS, (100, 0)).unwrap();
    let reth = |off: u64, n| Reth { va: buf.iova + off, rkey: mr.key(), dma_len: n };
    for k in 0..QUEUE {
        let d = raw_request(qb1.context(), qb1.qpn, OP_WRITE_ONLY, 100 + k, reth(64 * k as u64, 64), 64, true);
        world.borrow_mut().nics[0].send(d, &[k as u8; 64]);
    }
    world.borrow_mut().run_until(3_000, |_| false);
    let d = raw_request(qb2.context(), qb2.qpn, OP_READ_REQUEST, 100, reth(4096, 64), 0, true);
    world.borrow_mut().nics[0].send(d, &[]);
    world.borrow_mut().run_until(2_000, |_| false);
    assert_eq!(world.borrow().sent_by(1).count(), 0, "every answer waits for the host's write responses");
    assert_eq!(b.dev.read("responder", "acks").unwrap(), QUEUE, "the queue is full");
    // The READ's QP is reset while the READ waits: it was the old QP's, and is never answered.
    b.modify_qp(&mut qb2, QpState::Reset, &Default::default()).unwrap();
    assert!(world.borrow_mut().run_until(100_000, |w| w.link_idle() && w.sent_by(1).count() >= QUEUE as usize));
    world.borrow_mut().run_until(20_000, |_| false);
    let to: Vec<u32> = world.borrow().sent_by(1).map(|(_, f)| classify(f, RxConfig { fcs: false }).packet.unwrap().bth.dest_qp).collect();
    assert_eq!(to, vec![qa1.qpn; QUEUE as usize], "the ACKs, and nothing for QP {}", qa2.qpn);
    assert_eq!(b.dev.read("responder", "read_responses").unwrap(), 0);
}
