//! `rnic sim demo`: two simulated cards, QPs connected over IPv4 and over IPv6 with a VLAN tag,
//! RDMA WRITE, WRITE with immediate, SEND, SEND with immediate and RDMA READ from 1 byte to
//! 1 MiB at PMTU 1024 and 4096, every destination byte, the acknowledgement (a READ's: its last
//! response), the send completion and (for SENDs and WRITE with immediate) the receive
//! completion with its byte count and immediate checked, and the counters of both cards. With link faults (`Faults`: loss, reordering,
//! duplication, corruption) the same operations run over a lossy link and the card's
//! retransmission has to deliver every one: then an operation is waited for by its
//! completion (the ACK may be lost and a later one cover it) and the recovery counters show
//! what it took.

use crate::sim_pair::{qp_pair, try_two_cards, Card, PathKind};
use crate::verbs::{Cq, DmaBuf, Qp, QpCaps, RecvWr, SendWr};
use rnic_sim::bench::CLOCK_MHZ;
use rnic_sim::world::{Faults, LinkConfig, World};
use rnic_spec::desc::SendOp;
use rnic_spec::mr::access;
use rnic_spec::qp::packet_count;
use std::cell::RefCell;
use std::rc::Rc;

/// The message sizes of the demo.
pub const SIZES: [usize; 6] = [1, 64, 4096, 65536, 300_001, 1 << 20];

/// One operation of the demo.
#[derive(Debug, Clone)]
pub struct DemoRow {
    pub op: &'static str,
    pub path: &'static str,
    pub pmtu: u32,
    pub size: usize,
    pub packets: usize,
    /// From the doorbell to the ACK's (a READ's last response's) last bit arriving back at the
    /// requesting card.
    pub cycles: u64,
    /// `None`: every destination byte is right; else the first wrong offset.
    pub first_bad_byte: Option<usize>,
    /// The ACK came back (syndrome ACK; for a READ, its last response).
    pub acked: bool,
    /// The requester's CQ holds one successful completion with this work request's wr_id (and,
    /// for SENDs and WRITE with immediate, the responder's CQ the receive completion with the
    /// receive's wr_id, the message length and the immediate).
    pub completed: bool,
}

impl DemoRow {
    pub fn ok(&self) -> bool {
        self.first_bad_byte.is_none() && self.acked && self.completed
    }
    /// Payload over the doorbell-to-ACK time, in Gb/s.
    pub fn gbps(&self) -> f64 {
        if self.cycles == 0 {
            return 0.0;
        }
        self.size as f64 * 8.0 / (self.cycles as f64 / CLOCK_MHZ * 1000.0)
    }
}

pub struct Demo {
    pub world: Rc<RefCell<World>>,
    pub cards: [Card; 2],
    pub rows: Vec<DemoRow>,
    /// Each card's completion rings (the only host memory it writes outside its regions).
    pub cq_rings: [DmaBuf; 2],
}

impl Demo {
    /// Every write the cards made to host memory, by card and in order, each named by what it
    /// landed in: a registered region of that card, one of its completion rings, or neither
    /// (a card bug). Needs `run(.., log_dma: true)`.
    pub fn dma_writes(&self) -> Vec<crate::sim_rx::DmaWrite> {
        use crate::sim_rx::{DmaTarget, DmaWrite};
        let mut out = Vec::new();
        for (card, nic) in self.world.borrow().nics.iter().enumerate() {
            let ring = self.cq_rings[card];
            for w in nic.dma_write.log.iter().flatten() {
                let target = if w.within(ring.iova, ring.len as u64) {
                    DmaTarget::Completion { qpn: None }
                } else if let Some(r) = self.cards[card].regions().iter().flatten().find(|r| w.within(r.base, r.length as u64)) {
                    DmaTarget::Region { key: r.key, qpn: None }
                } else {
                    DmaTarget::Outside
                };
                out.push(DmaWrite { card, cycle: w.cycle, addr: w.addr, len: w.len, target });
            }
        }
        out
    }
}

/// Frames card `from` has sent so far.
fn sent(w: &World, from: usize) -> usize {
    w.sent_by(from).count()
}

/// Run the demo over a link with `faults` (percent per frame); `trace` writes a VCD of card 0
/// (`FILE`) and card 1 (`FILE.1.vcd`).
pub fn run(trace: Option<&str>, faults: Faults, log_dma: bool) -> Result<Demo, String> {
    let lossy = faults.loss + faults.reorder + faults.duplicate + faults.corrupt > 0.0;
    let (world, mut a, mut b) = try_two_cards(LinkConfig { faults, ..LinkConfig::default() }).map_err(|e| e.to_string())?;
    if let Some(path) = trace {
        let mut w = world.borrow_mut();
        w.nics[0].model().trace(path).map_err(|e| format!("cannot trace to {path}: {e}"))?;
        let second = format!("{path}.1.vcd");
        w.nics[1].model().trace(&second).map_err(|e| format!("cannot trace to {second}: {e}"))?;
    }
    let e = |e: crate::verbs::VerbsError| e.to_string();
    let (pa, pb) = (a.alloc_pd().map_err(e)?, b.alloc_pd().map_err(e)?);
    let (mut cqa, mut cqb) = (a.create_cq(256).map_err(e)?, b.create_cq(256).map_err(e)?);
    if log_dma {
        for nic in world.borrow_mut().nics.iter_mut() {
            nic.dma_write.log = Some(Vec::new());
        }
    }
    let max = *SIZES.iter().max().expect("sizes");
    let src = a.alloc_buf(max, 4096).map_err(e)?;
    let dst = b.alloc_buf(max + 64, 4096).map_err(e)?;
    // A pattern no two offsets share within a message, so a misplaced byte shows.
    let pattern: Vec<u8> = (0..max).map(|i| (i * 131 + (i >> 8) * 7 + 1) as u8).collect();
    a.write_buf(src.iova, &pattern).map_err(e)?;
    let lmr = a.reg_mr(pa, src.iova, max as u32, 0).map_err(e)?;
    let rmr = b.reg_mr(pb, dst.iova, (max + 64) as u32, access::REMOTE_WRITE | access::LOCAL_WRITE | access::REMOTE_READ | access::REMOTE_ATOMIC).map_err(e)?;
    // Where card 0's READs land.
    let land = a.alloc_buf(max + 64, 4096).map_err(e)?;
    let land_mr = a.reg_mr(pa, land.iova, (max + 64) as u32, access::LOCAL_WRITE).map_err(e)?;

    let paths: [(&'static str, PathKind); 3] = [
        ("IPv4", PathKind { v6: false, vlan: None, pmtu: 1024 }),
        ("IPv4", PathKind { v6: false, vlan: None, pmtu: 4096 }),
        ("IPv6 VLAN 100", PathKind { v6: true, vlan: Some(100), pmtu: 4096 }),
    ];
    let mut rows = Vec::new();
    for (k, (name, kind)) in paths.iter().enumerate() {
        let psn = [0xFF_FFF0, 17, 0x80_0000][k];
        let (mut qa, mut qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), *kind, QpCaps { sq_entries: 64, rq_entries: 64 }, (psn, 5)).map_err(e)?;
        if lossy {
            let attr = crate::verbs::QpAttr { timeout: Some(crate::sim_pair::LOSSY_LINK_TIMEOUT), ..Default::default() };
            a.modify_qp(&mut qa, crate::verbs::QpState::Rts, &attr).map_err(e)?;
        }
        for op in [SendOp::Write, SendOp::WriteImm, SendOp::Send, SendOp::SendImm, SendOp::Read] {
            for &size in &SIZES {
                let (qps, cqs) = ((&mut qa, &mut qb), (&mut cqa, &mut cqb));
                let bufs = [(src.iova, lmr.key()), (dst.iova, rmr.key()), (land.iova, land_mr.key())];
                let row = one_message(&world, (&mut a, &mut b), qps, cqs, op, name, *kind, size, bufs, &pattern, lossy)?;
                rows.push(row);
            }
        }
        for op in [SendOp::FetchAdd, SendOp::CmpSwap] {
            let bufs = [(dst.iova, rmr.key()), (land.iova, land_mr.key())];
            rows.push(one_atomic(&world, (&mut a, &mut b), &mut qa, &mut cqa, op, name, *kind, bufs, lossy)?);
        }
    }
    // Let the last ACK through the requesting card's receive pipeline before counting.
    world.borrow_mut().run_until(200, |_| false);
    Ok(Demo { world, cards: [a, b], rows, cq_rings: [cqa.ring(), cqb.ring()] })
}

/// Poll `cq` of `card` until it holds a completion (as software does, while the CQE write is
/// still on its way), for at most 2000 cycles.
fn poll_one(card: &mut Card, cq: &mut Cq) -> Result<Vec<crate::verbs::Wc>, String> {
    let mut wcs = Vec::new();
    for _ in 0..100 {
        wcs.extend(card.poll_cq(cq, 16).map_err(|e| e.to_string())?);
        if !wcs.is_empty() {
            break;
        }
        crate::bus::Bus::wait(card.dev.bus(), 20);
    }
    Ok(wcs)
}

/// One message from card 0's `qa` to card 1's `qb`: a WRITE lands at an odd offset of `dst`; a
/// SEND in a receive buffer posted there first (a WRITE with immediate consumes a receive too);
/// a READ brings the pattern, put at that offset of `dst` first, to the same offset of `land`.
#[allow(clippy::too_many_arguments)]
fn one_message(
    world: &Rc<RefCell<World>>,
    (a, b): (&mut Card, &mut Card),
    (qa, qb): (&mut Qp, &mut Qp),
    (cqa, cqb): (&mut Cq, &mut Cq),
    op: SendOp,
    path: &'static str,
    kind: PathKind,
    size: usize,
    [(src, lkey), (dst, rkey), (land, land_key)]: [(u64, u32); 3],
    pattern: &[u8],
    lossy: bool,
) -> Result<DemoRow, String> {
    let e = |e: crate::verbs::VerbsError| e.to_string();
    // Clear the destination (one byte either side too) so every byte must come from the wire.
    let offset = 1 + (size % 61);
    let reading = op == SendOp::Read;
    b.write_buf(dst, &vec![0u8; size + 64]).map_err(e)?;
    if reading {
        a.write_buf(land, &vec![0u8; size + 64]).map_err(e)?;
        b.write_buf(dst + offset as u64, &pattern[..size]).map_err(e)?;
    }
    let recv_id = 0x8000_0000 | size as u64;
    if !matches!(op, SendOp::Write | SendOp::Read) {
        let buf = if op.is_rdma() { (0, 0) } else { (dst + offset as u64, size as u32) };
        b.post_recv(qb, &[RecvWr { wr_id: recv_id, addr: buf.0, length: buf.1, lkey: rkey }]).map_err(e)?;
    }
    let acks_before = sent(&world.borrow(), 1);
    let start = world.borrow().cycles();
    let wr = SendWr {
        wr_id: size as u64,
        op,
        flags: 0,
        local_addr: if reading { land + offset as u64 } else { src },
        length: size as u32,
        lkey: if reading { land_key } else { lkey },
        remote_addr: if op.is_rdma() { dst + offset as u64 } else { 0 },
        rkey: if op.is_rdma() { rkey } else { 0 },
        imm: 0x1234_5678,
        atomic: Default::default(),
    };
    a.post_send(qa, &wr).map_err(e)?;
    use rnic_spec::desc::{CqOp, CqStatus};
    let send_ok = |wcs: &[crate::verbs::Wc]| wcs.len() == 1 && wcs[0].wr_id == size as u64 && wcs[0].status == CqStatus::Success;
    let last = match reading {
        true => [rnic_spec::responder::OP_READ_RESPONSE_LAST, rnic_spec::responder::OP_READ_RESPONSE_ONLY],
        false => [rnic_spec::responder::OP_ACK; 2],
    };
    let (acked, end, sent_wc) = wait_answer(world, a, cqa, qa.qpn, last, (start, acks_before), lossy)?;
    let got = if reading { a.read_buf(land, size + 64) } else { b.read_buf(dst, size + 64) }.map_err(e)?;
    let mut want = vec![0u8; size + 64];
    want[offset..offset + size].copy_from_slice(&pattern[..size]);
    let first_bad_byte = got.iter().zip(&want).position(|(x, y)| x != y);
    let mut completed = send_ok(&sent_wc) && (!reading || sent_wc[0].op == CqOp::Read);
    if !matches!(op, SendOp::Write | SendOp::Read) {
        let recv_wc = poll_one(b, cqb)?;
        let (want_op, imm) = match op {
            SendOp::WriteImm => (CqOp::RecvRdmaImm, Some(wr.imm)),
            SendOp::SendImm => (CqOp::Recv, Some(wr.imm)),
            _ => (CqOp::Recv, None),
        };
        completed &= recv_wc.len() == 1 && {
            let w = &recv_wc[0];
            (w.wr_id, w.status, w.op, w.byte_len, w.imm) == (recv_id, CqStatus::Success, want_op, size as u32, imm)
        };
    }
    Ok(DemoRow {
        op: op_name(op),
        path,
        pmtu: kind.pmtu,
        size,
        packets: packet_count(size as u32, kind.pmtu.trailing_zeros() as u8) as usize,
        cycles: end.saturating_sub(start),
        first_bad_byte,
        acked,
        completed,
    })
}

/// Wait for the answer that ends a message of QP `qpn` started at cycle `start` (card 1 had
/// sent `acks_before` frames then): card 1's newest frame has one of the opcodes `last` (an ACK,
/// a READ's last response, an ATOMIC Acknowledge) with an ACK syndrome — a READ's responses may
/// pause while their host reads are out. On a faulty link the answer may be lost and a later
/// one cover the message, and the message may take several rounds: wait for its completion.
/// Returns (answered, the cycle the answer's last bit arrived, card 0's completions).
fn wait_answer(
    world: &Rc<RefCell<World>>,
    a: &mut Card,
    cqa: &mut Cq,
    qpn: u32,
    last: [u8; 2],
    (start, acks_before): (u64, usize),
    lossy: bool,
) -> Result<(bool, u64, Vec<crate::verbs::Wc>), String> {
    if lossy {
        let mut wcs = Vec::new();
        while wcs.is_empty() && world.borrow().cycles() - start < 20_000_000 {
            world.borrow_mut().run_until(2_000, |_| false);
            wcs = a.poll_cq(cqa, 16).map_err(|e| e.to_string())?;
        }
        let ok = wcs.len() == 1 && wcs[0].status == rnic_spec::desc::CqStatus::Success;
        return Ok((ok, world.borrow().cycles(), wcs));
    }
    let answered = move |f: &Vec<u8>| {
        let r = rnic_spec::wire::rx::classify(f, rnic_spec::wire::rx::RxConfig { fcs: false });
        r.packet.is_some_and(|p| {
            last.contains(&p.bth.opcode)
                && p.bth.dest_qp == qpn
                && p.ext.iter().any(|x| matches!(x, rnic_spec::wire::ib::Ext::Aeth(a) if a.syndrome == rnic_spec::responder::aeth::ACK))
        })
    };
    let done = world.borrow_mut().run_until(2_000_000, |w| sent(w, 1) > acks_before && w.link_idle() && w.sent_by(1).last().is_some_and(|(_, f)| answered(f)));
    let w = world.borrow();
    let ack = w.sent_by(1).last();
    let acked = done && ack.is_some_and(|(_, f)| answered(f));
    let end = ack.map_or(w.cycles(), |(ns, f)| (ns as f64 * CLOCK_MHZ / 1000.0 + w.wire_cycles(f.len() + 4)) as u64);
    drop(w);
    Ok((acked, end, poll_one(a, cqa)?))
}

/// One atomic (`op`) from card 0's `qa` on the 8-byte word at `dst + 8` of card 1: the word
/// holds a known value first; its original value must land at `land + 8` of card 0, the new
/// one in the word, and no other byte of either 24-byte window change.
#[allow(clippy::too_many_arguments)]
fn one_atomic(
    world: &Rc<RefCell<World>>,
    (a, b): (&mut Card, &mut Card),
    qa: &mut Qp,
    cqa: &mut Cq,
    op: SendOp,
    path: &'static str,
    kind: PathKind,
    [(dst, rkey), (land, land_key)]: [(u64, u32); 2],
    lossy: bool,
) -> Result<DemoRow, String> {
    use rnic_spec::desc::CqOp;
    let e = |e: crate::verbs::VerbsError| e.to_string();
    const WORD: u64 = 0x0123_4567_89AB_CDEF;
    const ADD: u64 = 0xFEDC_0000_0000_0011;
    const SWAP: u64 = 0x5A5A_0000_1111_2222;
    let window = |v: u64| [[0u8; 8], v.to_le_bytes(), [0u8; 8]].concat();
    b.write_buf(dst, &window(WORD)).map_err(e)?;
    a.write_buf(land, &window(0)).map_err(e)?;
    let (new, cq_op) = if op == SendOp::FetchAdd { (WORD.wrapping_add(ADD), CqOp::FetchAdd) } else { (SWAP, CqOp::CmpSwap) };
    let acks_before = sent(&world.borrow(), 1);
    let start = world.borrow().cycles();
    let wr = SendWr {
        wr_id: 8,
        op,
        flags: 0,
        local_addr: land + 8,
        length: 8,
        lkey: land_key,
        remote_addr: dst + 8,
        rkey,
        imm: 0,
        atomic: rnic_spec::wire::tx::AtomicArgs { value: if op == SendOp::FetchAdd { ADD } else { SWAP }, compare: WORD },
    };
    a.post_send(qa, &wr).map_err(e)?;
    let (acked, end, wcs) = wait_answer(world, a, cqa, qa.qpn, [rnic_spec::responder::OP_ATOMIC_ACK; 2], (start, acks_before), lossy)?;
    let got = [a.read_buf(land, 24).map_err(e)?, b.read_buf(dst, 24).map_err(e)?].concat();
    let want = [window(WORD), window(new)].concat();
    let completed = wcs.len() == 1 && wcs[0].status == rnic_spec::desc::CqStatus::Success && wcs[0].op == cq_op && wcs[0].byte_len == 8;
    Ok(DemoRow {
        op: op_name(op),
        path,
        pmtu: kind.pmtu,
        size: 8,
        packets: 1,
        cycles: end.saturating_sub(start),
        first_bad_byte: got.iter().zip(&want).position(|(x, y)| x != y),
        acked,
        completed,
    })
}

/// The name of a demo operation.
fn op_name(op: SendOp) -> &'static str {
    match op {
        SendOp::Write => "WRITE",
        SendOp::WriteImm => "WRITE with immediate",
        SendOp::Send => "SEND",
        SendOp::SendImm => "SEND with immediate",
        SendOp::Read => "READ",
        SendOp::CmpSwap => "COMPARE & SWAP",
        SendOp::FetchAdd => "FETCH & ADD",
    }
}

/// The link's fault counts, for the table and the JSON summary.
fn link_line(w: &World) -> String {
    let f = w.faults;
    format!("link: lost {}, corrupted {}, duplicated {}, reordered {} frames", f.lost, f.corrupted, f.duplicated, f.reordered)
}

pub fn table(d: &mut Demo) -> Result<String, String> {
    use std::fmt::Write as _;
    let mut out = String::new();
    let w = |out: &mut String, s: String| writeln!(out, "{s}").expect("string");
    w(&mut out, format!("{:<22} {:<14} {:>5} {:>8} {:>7} {:>9} {:>10} {:>7}  result", "operation", "path", "pmtu", "size", "packets", "cycles", "µs", "Gb/s"));
    for r in &d.rows {
        let result = match (r.first_bad_byte, r.acked) {
            (None, true) if r.completed => "ok: every byte, ACK, completions".to_string(),
            (None, true) => "FAILED: completion missing or wrong".to_string(),
            (Some(at), _) => format!("FAILED: byte {at} wrong"),
            (None, false) => "FAILED: no ACK".to_string(),
        };
        w(
            &mut out,
            format!(
                "{:<22} {:<14} {:>5} {:>8} {:>7} {:>9} {:>10.3} {:>7.2}  {result}",
                r.op,
                r.path,
                r.pmtu,
                r.size,
                r.packets,
                r.cycles,
                r.cycles as f64 / CLOCK_MHZ,
                r.gbps()
            ),
        );
    }
    w(&mut out, String::new());
    for (i, card) in d.cards.iter_mut().enumerate() {
        let nonzero = card.dev.nonzero_stats().map_err(|e| e.to_string())?;
        w(&mut out, format!("card {i}: {nonzero}"));
    }
    w(&mut out, link_line(&d.world.borrow()));
    w(
        &mut out,
        format!(
            "\ncycles: doorbell to the ACK's last bit back at the requester ({CLOCK_MHZ} MHz) — on a faulty link, to the completion polled; Gb/s over that time. {} frames on the wire.",
            d.world.borrow().capture().len()
        ),
    );
    Ok(out)
}

pub fn json(d: &mut Demo) -> Result<String, String> {
    let mut out = String::new();
    for r in &d.rows {
        let line = serde_json::json!({
            "operation": r.op,
            "path": r.path,
            "pmtu": r.pmtu,
            "size": r.size,
            "packets": r.packets,
            "cycles": r.cycles,
            "gbps": r.gbps(),
            "bytes_ok": r.first_bad_byte.is_none(),
            "acked": r.acked,
            "completed": r.completed,
        });
        out.push_str(&format!("{line}\n"));
    }
    let mut counters = serde_json::Map::new();
    for (i, card) in d.cards.iter_mut().enumerate() {
        let mut m = serde_json::Map::new();
        for (b, n, v) in card.dev.stats().map_err(|e| e.to_string())? {
            m.insert(format!("{b}.{n}"), v.into());
        }
        counters.insert(format!("card{i}"), m.into());
    }
    let f = d.world.borrow().faults;
    let link = serde_json::json!({ "lost": f.lost, "corrupted": f.corrupted, "duplicated": f.duplicated, "reordered": f.reordered });
    out.push_str(&format!("{}\n", serde_json::json!({ "summary": { "ok": d.rows.iter().all(DemoRow::ok), "frames": d.world.borrow().capture().len(), "counters": counters, "link": link } })));
    Ok(out)
}
