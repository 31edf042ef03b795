//! Fuzz: random request packets (valid ICRC: card 0's raw packet source builds them) into a
//! configured card 1 while its memory regions are deregistered and registered again and its
//! QPs are re-created under the traffic. Every byte card 1 writes to host memory must lie in
//! one of its completion rings, or in a region that was registered at that moment and whose
//! access allows a write — never in a trap: a region no request may write (no write access;
//! a protection domain without QPs; named only by receive WQEs whose lkey lacks LOCAL_WRITE),
//! nor in memory outside every region. The trap chunks' bytes are compared at the end too.
//! COMPARE & SWAP / FETCH & ADD requests are in the mix too (mostly aligned): their
//! read-modify-write may land only in a region that allows REMOTE_ATOMIC.
//! Card 1's QPs also have RDMA READs of their own outstanding (their requests go nowhere), and
//! READ responses for them — mostly the one expected next, else a duplicate, one ahead, a
//! wrong opcode or length — are in the mix: their bytes may land only in the READ's buffer.
//!
//! `RNIC_FUZZ_PACKETS` sets the count (default 100 000; the long run is 1 000 000).

use rand::rngs::SmallRng;
use rand::{Rng, SeedableRng};
use rnic_driver::sim_pair::{connect, raw_request, two_cards, Card, PathKind};
use rnic_driver::verbs::{Cq, Mr, Pd, Qp, QpCaps, QpState, RecvWr, SendWr};
use rnic_sim::host::HostAccess;
use rnic_sim::world::{LinkConfig, World};
use rnic_spec::desc::{RecvWqe, SendOp};
use rnic_spec::qp::packet_count;
use rnic_spec::reads::{PendingRead, ReadPlacer};
use rnic_spec::responder::{OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_LAST, OP_READ_RESPONSE_MIDDLE, OP_READ_RESPONSE_ONLY};
use rnic_spec::mr::access;
use rnic_spec::responder::RspState;
use rnic_spec::wire::ib::Reth;
use rnic_spec::wire::tx::{AtomicArgs, IpPair};
use std::cell::RefCell;
use std::rc::Rc;

const CHUNK: u64 = 4096;
/// Card 1's fuzzed memory: chunks of 4 KiB, every region in a chunk of its own (every other
/// chunk, so no write can run from one region into the next).
const CHUNKS: usize = 128;
const CAPS: QpCaps = QpCaps { sq_entries: 4, rq_entries: 64 };
const FILL: u8 = 0xEE;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// REMOTE_WRITE | LOCAL_WRITE | REMOTE_ATOMIC: WRITE and atomic targets, receive buffers.
    Both,
    /// REMOTE_WRITE: WRITE targets.
    Remote,
    /// LOCAL_WRITE: receive buffers of the region's own PD's QPs.
    Local,
    /// Traps: REMOTE_READ only.
    ReadOnly,
    /// REMOTE_WRITE, but its key is only ever given as a receive WQE's lkey (which needs
    /// LOCAL_WRITE): no request may write it.
    BadLkey,
    /// A region of a protection domain without QPs (all access).
    Orphan,
}

impl Kind {
    fn access(self) -> u8 {
        match self {
            Kind::Both | Kind::Orphan => access::REMOTE_WRITE | access::LOCAL_WRITE | access::REMOTE_ATOMIC,
            Kind::Remote | Kind::BadLkey => access::REMOTE_WRITE,
            Kind::Local => access::LOCAL_WRITE,
            Kind::ReadOnly => access::REMOTE_READ,
        }
    }

    fn legal(self) -> bool {
        matches!(self, Kind::Both | Kind::Remote | Kind::Local)
    }
}

/// One registration: where, what kind, for which PD, and while when (card 1's cycles: from
/// just before `reg_mr` to the return of `dereg_mr`).
#[derive(Debug, Clone, Copy)]
struct Registration {
    mr: Mr,
    kind: Kind,
    pd: usize,
    chunk: usize,
    from: u64,
    until: Option<u64>,
}

struct Fuzz {
    world: Rc<RefCell<World>>,
    b: Card,
    rng: SmallRng,
    base: u64,
    pds: [Pd; 3],
    regs: Vec<Registration>,
    /// Indexes into `regs` of the registrations live now.
    live: Vec<usize>,
    free: std::collections::VecDeque<usize>,
    cq: Cq,
    qps: Vec<Target>,
}

struct Target {
    qp: Qp,
    pd: usize,
    pmtu: u32,
    model: RspState,
    posted: Vec<RecvWqe>,
    /// The QP's own READs (a model that steers the responses' PSNs), and its next send PSN.
    reads: ReadPlacer,
    sq_psn: u32,
}

impl Fuzz {
    fn cycle(&self) -> u64 {
        self.world.borrow().nics[1].cycles()
    }

    fn register(&mut self, kind: Kind, pd: usize) {
        let chunk = self.free.pop_front().expect("a free chunk");
        // Regions start and end at random offsets in their chunk (edges at odd addresses).
        let head = if self.rng.gen_bool(0.5) { 0 } else { self.rng.gen_range(1..200) };
        let tail = if self.rng.gen_bool(0.5) { 0 } else { self.rng.gen_range(1..200) };
        let from = self.cycle();
        let mr = self.b.reg_mr(self.pds[pd], self.base + chunk as u64 * CHUNK + head, (CHUNK - head - tail) as u32, kind.access()).unwrap();
        self.live.push(self.regs.len());
        self.regs.push(Registration { mr, kind, pd, chunk, from, until: None });
    }

    /// Deregister a random live region and register one of its kind elsewhere (one an
    /// outstanding READ of card 1 lands in stays: the driver refuses, `InUse`).
    fn churn(&mut self) {
        let at = self.rng.gen_range(0..self.live.len());
        let i = self.live[at];
        let r = self.regs[i];
        match self.b.dereg_mr(r.mr) {
            Err(rnic_driver::verbs::VerbsError::InUse(..)) => return,
            other => other.unwrap(),
        }
        self.live.swap_remove(at);
        self.regs[i].until = Some(self.cycle());
        self.free.push_back(r.chunk);
        self.register(r.kind, r.pd);
    }

    /// A buffer for a receive WQE of a QP in `pd`: mostly a legal one, sometimes a trap.
    fn recv_buffer(&mut self, pd: usize) -> (u64, u32, u32) {
        let pick: Vec<usize> = match self.rng.gen_range(0..10) {
            0 => self.live.iter().copied().filter(|&i| self.regs[i].kind == Kind::BadLkey).collect(),
            1 => self.live.iter().copied().filter(|&i| self.regs[i].pd != pd && self.regs[i].kind == Kind::Local).collect(),
            2 => self.live.iter().copied().filter(|&i| self.regs[i].kind == Kind::Orphan).collect(),
            _ => self.live.iter().copied().filter(|&i| self.regs[i].pd == pd && matches!(self.regs[i].kind, Kind::Local | Kind::Both)).collect(),
        };
        let r = self.regs[pick[self.rng.gen_range(0..pick.len())]].mr.region;
        let off = self.rng.gen_range(0..r.length.min(512));
        let over = if self.rng.gen_bool(0.1) { 64 } else { 0 };
        let len = self.rng.gen_range(0..=r.length - off + over);
        (r.base + off as u64, len, r.key)
    }

    fn post_receives(&mut self, q: usize, n: usize) {
        let pd = self.qps[q].pd;
        let wrs: Vec<RecvWr> = (0..n)
            .map(|k| {
                let (addr, length, lkey) = self.recv_buffer(pd);
                RecvWr { wr_id: k as u64, addr, length, lkey }
            })
            .collect();
        self.b.post_recv(&mut self.qps[q].qp, &wrs).unwrap();
        self.qps[q].posted.extend(wrs.iter().map(|w| RecvWqe { wr_id: w.wr_id, addr: w.addr, length: w.length, lkey: w.lkey }));
    }

    /// Put QP `q` (or, one time in sixty-four, a new one) back in RTS with a fresh receive PSN and
    /// receive queue. (`destroy_qp` waits the driver's grace period before freeing the
    /// rings: simulated time the fuzz spends sparingly.)
    fn recreate(&mut self, q: usize) {
        if self.rng.gen_range(0..64) == 0 {
            let fresh = self.b.create_qp(self.pds[self.qps[q].pd], &self.cq, &self.cq, CAPS).unwrap();
            let old = std::mem::replace(&mut self.qps[q].qp, fresh);
            self.b.destroy_qp(old).unwrap();
        } else {
            self.b.modify_qp(&mut self.qps[q].qp, QpState::Reset, &Default::default()).unwrap();
        }
        let psn = self.rng.gen_range(0..0x100_0000);
        let kind = PathKind { v6: q % 2 == 1, vlan: None, pmtu: self.qps[q].pmtu };
        connect(&mut self.b, &mut self.qps[q].qp, 0, kind, 0x100 + q as u32, psn, 0).unwrap();
        self.qps[q].model = RspState::new(psn);
        self.qps[q].posted.clear();
        self.qps[q].reads = ReadPlacer::default();
        self.qps[q].sq_psn = 0;
        self.post_receives(q, 32);
    }

    /// Card 1's QP `q` READs into a buffer of its own (mostly one its lkey allows).
    fn post_read(&mut self, q: usize) {
        let _ = self.b.poll_cq(&mut self.cq, 256);
        if self.b.sq_free(&self.qps[q].qp) == 0 || self.qps[q].reads.pending.len() >= 2 {
            return;
        }
        let (addr, len, lkey) = self.recv_buffer(self.qps[q].pd);
        let len = len.min(4 * self.qps[q].pmtu);
        let wr = SendWr { wr_id: 0, op: SendOp::Read, flags: 0, local_addr: addr, length: len, lkey, remote_addr: 0x1000, rkey: 0x77, imm: 0, atomic: Default::default() };
        self.b.post_send(&mut self.qps[q].qp, &wr).unwrap();
        let t = &mut self.qps[q];
        let pmtu_log2 = t.pmtu.trailing_zeros() as u8;
        t.reads.pending.push_back(PendingRead { laddr: addr, len, lkey, psn: t.sq_psn, atomic: false });
        t.sq_psn = (t.sq_psn + packet_count(len, pmtu_log2)) & 0xFF_FFFF;
    }

    /// A READ response for QP `q`'s oldest READ: mostly the one expected next.
    fn read_response(&mut self, q: usize) {
        let rng = &mut self.rng;
        let t = &mut self.qps[q];
        let Some(read) = t.reads.pending.front().copied() else { return };
        let (pmtu, ctx) = (t.pmtu, *t.qp.context());
        let n = read.len.div_ceil(pmtu).max(1);
        let k = t.reads.placed + if rng.gen_range(0..10) == 0 { rng.gen_range(0..3) } else { 0 };
        let k = if rng.gen_range(0..10) == 0 { k.saturating_sub(1) } else { k };
        let (first, last) = (k == 0, k + 1 >= n);
        let mut opcode = match (first, last) {
            (true, true) => OP_READ_RESPONSE_ONLY,
            (true, false) => OP_READ_RESPONSE_FIRST,
            (false, true) => OP_READ_RESPONSE_LAST,
            (false, false) => OP_READ_RESPONSE_MIDDLE,
        };
        let mut len = if last { read.len.saturating_sub(k * pmtu) } else { pmtu };
        if rng.gen_range(0..12) == 0 {
            opcode = rng.gen_range(OP_READ_RESPONSE_FIRST..=OP_READ_RESPONSE_ONLY);
        }
        if rng.gen_range(0..12) == 0 {
            len = rng.gen_range(0..=(pmtu + 64).min(4096));
        }
        let psn = (read.psn + k) & 0xFF_FFFF;
        let mut d = raw_request(&ctx, t.qp.qpn, opcode, psn, Reth::default(), len as u16, false);
        d.aeth.msn = rng.gen_range(0..4);
        let payload: Vec<u8> = (0..len).map(|_| rng.gen()).collect();
        t.reads.response(self.b.regions(), ctx.pd, ctx.pmtu_log2, opcode, psn, len);
        self.world.borrow_mut().nics[0].send(d, &payload);
    }

    /// One random request to one of the QPs (or to no QP), sent by card 0.
    fn packet(&mut self) {
        let q = self.rng.gen_range(0..self.qps.len());
        match self.rng.gen_range(0..100) {
            0..=1 => return self.post_read(q),
            2..=9 if !self.qps[q].reads.pending.is_empty() => return self.read_response(q),
            _ => {}
        }
        let rng = &mut self.rng;
        let t = &self.qps[q];
        let ctx = *t.qp.context();
        let pmtu = t.pmtu;
        // Mostly the opcode a well-behaved requester sends next (as the model sees the QP), so
        // messages get placed; otherwise any.
        let m = t.model;
        let opcode: u8 = match rng.gen_range(0..100) {
            0..=74 if m.in_msg => {
                let base = if m.send { 0x00 } else { 0x06 };
                base + if m.left > pmtu { 1 } else { rng.gen_range(2..=3) }
            }
            0..=74 => [0x00, 0x04, 0x05, 0x06, 0x0A, 0x0B][rng.gen_range(0..6)],
            75..=89 => rng.gen_range(0x00..=0x0B),
            90..=94 => [0x0C, 0x0D, 0x0E, 0x0F, 0x10, 0x11, 0x12, 0x13, 0x14][rng.gen_range(0..9)],
            95..=96 => [0x13, 0x14][rng.gen_range(0..2)],
            _ => rng.gen(),
        };
        let epsn = t.model.epsn;
        let psn = match rng.gen_range(0..100) {
            0..=84 => epsn,
            85..=91 => epsn.wrapping_sub(rng.gen_range(1..5)) & 0xFF_FFFF,
            92..=97 => (epsn + rng.gen_range(1..5)) & 0xFF_FFFF,
            _ => rng.gen_range(0..0x100_0000),
        };
        // A region (live, or one gone) and a key for it: its own, another, or random.
        let r = self.regs[rng.gen_range(0..self.regs.len())];
        let region = r.mr.region;
        let rkey = match rng.gen_range(0..30) {
            0 => rng.gen(),
            1 => {
                let o = self.regs[rng.gen_range(0..self.regs.len())];
                o.mr.key()
            }
            _ => region.key,
        };
        let rkey = if r.kind == Kind::BadLkey && rkey == region.key { region.key ^ 0x100 } else { rkey };
        let dma_len: u32 = match rng.gen_range(0..8) {
            0 => 0,
            1 => rng.gen_range(1..=64),
            2 => pmtu - 1 + rng.gen_range(0..3),
            3 => 2 * pmtu + rng.gen_range(0..3) - 1,
            4 => rng.gen_range(1..3 * pmtu),
            _ => rng.gen_range(1..=pmtu),
        };
        // A WRITE FIRST mostly opens a message longer than one packet.
        let dma_len = if opcode == 0x06 && rng.gen_bool(0.8) { rng.gen_range(pmtu + 1..=4 * pmtu) } else { dma_len };
        let va = match rng.gen_range(0..10) {
            0..=3 => region.base,
            4..=6 => (region.base + region.length as u64).wrapping_sub(dma_len as u64),
            7 => (region.base + region.length as u64).wrapping_sub(dma_len as u64) + rng.gen_range(1..64),
            _ => region.base.wrapping_add(rng.gen_range(0..region.length as u64 + 64)).wrapping_sub(32),
        };
        // Atomics mostly at an aligned address (else NAK invalid request).
        let va = if matches!(opcode, 0x13 | 0x14) && rng.gen_bool(0.7) { va & !7 } else { va };
        let k = opcode.wrapping_sub(if opcode <= 0x05 { 0 } else { 0x06 });
        let payload_len: u16 = if rng.gen_bool(0.85) {
            match (opcode <= 0x0B, k) {
                (true, 0 | 1) => pmtu as u16,
                (true, 2 | 3) if opcode >= 0x06 && m.in_msg => m.left.min(pmtu) as u16,
                (true, 4 | 5) => dma_len.min(pmtu) as u16,
                (true, _) => rng.gen_range(1..=pmtu) as u16,
                _ => 0,
            }
        } else {
            rng.gen_range(0..=(pmtu + 64).min(4096)) as u16
        };
        let mut d = raw_request(&ctx, t.qp.qpn, opcode, psn, Reth { va, rkey, dma_len }, payload_len, rng.gen_bool(0.5));
        d.atomic = AtomicArgs { value: rng.gen(), compare: if rng.gen() { 0 } else { rng.gen() } };
        if rng.gen_range(0..100) == 0 {
            d.dest_qp = rng.gen_range(0..0x100_0000);
        }
        if rng.gen_range(0..40) == 0 {
            d.pkey = rng.gen();
        }
        if rng.gen_range(0..40) == 0 {
            d.ip = match d.ip {
                IpPair::V4 { dst, .. } => IpPair::V4 { src: [192, 0, 2, 77], dst },
                IpPair::V6 { dst, mut src } => {
                    src[15] ^= 0x40;
                    IpPair::V6 { src, dst }
                }
            };
        }
        let payload: Vec<u8> = (0..payload_len).map(|_| rng.gen()).collect();
        // The model only steers the PSNs (the card may drop what its receive buffer cannot
        // hold, so it is no oracle here); a QP it says went to error is re-created.
        let t = &mut self.qps[q];
        if let Some(pkt) = d.packet(&payload) {
            t.model.receive(Some(&ctx), self.b.regions(), &t.posted, &pkt);
        }
        self.world.borrow_mut().nics[0].send(d, &payload);
        let (error, used) = (t.model.error, t.model.rq_ci as usize);
        if error || self.rng.gen_range(0..3000) == 0 {
            self.recreate(q);
        } else if self.qps[q].posted.len() - used < 8 {
            self.post_receives(q, 8);
        }
    }
}

#[test]
fn random_requests_write_only_inside_registered_writable_regions() {
    let packets: usize = std::env::var("RNIC_FUZZ_PACKETS").ok().and_then(|v| v.parse().ok()).unwrap_or(100_000);
    let (world, _a, mut b) = two_cards(LinkConfig::default());
    world.borrow_mut().nics[1].dma_write.log = Some(Vec::new());
    world.borrow_mut().nics[1].dma_read.log = Some(Vec::new());
    let buf = b.alloc_buf(CHUNKS * CHUNK as usize, 4096).unwrap();
    b.write_buf(buf.iova, &vec![FILL; CHUNKS * CHUNK as usize]).unwrap();
    let pds = [b.alloc_pd().unwrap(), b.alloc_pd().unwrap(), b.alloc_pd().unwrap()];
    let cq = b.create_cq(4096).unwrap();
    let mut f = Fuzz {
        world: world.clone(),
        b,
        rng: SmallRng::seed_from_u64(0xf022),
        base: buf.iova,
        pds,
        regs: Vec::new(),
        live: Vec::new(),
        free: (0..CHUNKS).step_by(2).collect(),
        cq,
        qps: Vec::new(),
    };
    for pd in 0..2 {
        for kind in [Kind::Both, Kind::Both, Kind::Remote, Kind::Local, Kind::Local, Kind::ReadOnly, Kind::BadLkey] {
            f.register(kind, pd);
        }
    }
    f.register(Kind::Orphan, 2);
    f.register(Kind::Orphan, 2);
    for (q, pmtu) in [256, 1024, 4096, 1024].into_iter().enumerate() {
        let qp = f.b.create_qp(f.pds[q % 2], &f.cq, &f.cq, CAPS).unwrap();
        f.qps.push(Target { qp, pd: q % 2, pmtu, model: RspState::new(0), posted: Vec::new(), reads: ReadPlacer::default(), sq_psn: 0 });
        f.recreate(q);
    }
    let mut churns = 0;
    for n in 0..packets {
        f.packet();
        if n % 400 == 399 {
            f.churn();
            churns += 1;
        }
        // Keep card 0's queue short: the card under test sees line-rate bursts, not a backlog
        // of seconds.
        if world.borrow().nics[0].tx_pending().0 > 24 {
            world.borrow_mut().run_until(1_000_000, |w| w.nics[0].tx_pending().0 < 8);
        }
    }
    let settled = world.borrow_mut().run_until(2_000_000, |w| w.link_idle() && w.nics[0].tx_pending() == (0, 0) && w.nics[1].dma_write.idle());
    assert!(settled, "the cards settle");

    let log: Vec<HostAccess> = world.borrow_mut().nics[1].dma_write.log.take().unwrap();
    let ring = f.cq.ring();
    let mut in_regions = 0u64;
    for w in &log {
        let (start, end) = (w.addr, w.addr + w.len as u64);
        if start >= ring.iova && end <= ring.iova + ring.len as u64 {
            continue;
        }
        let legal = f.regs.iter().any(|r| {
            let m = r.mr.region;
            r.kind.legal() && start >= m.base && end <= m.base + m.length as u64 && w.cycle >= r.from && r.until.is_none_or(|u| w.cycle <= u)
        });
        let hit: Vec<&Registration> = f.regs.iter().filter(|r| start < r.mr.region.base + r.mr.region.length as u64 && r.mr.region.base < end).collect();
        assert!(legal, "card 1 wrote {} bytes at {start:#x} in cycle {}: regions there {hit:?}", w.len, w.cycle);
        in_regions += w.len as u64;
    }
    // Reads: every burst card 1 read from the data chunks (READ responses, atomics; its rings
    // are elsewhere) lies in a region that allows REMOTE_READ — or, one beat for an atomic, in
    // one that allows REMOTE_ATOMIC — rounded out to whole 64-byte beats, read once that
    // region was registered, and not after its `dereg_mr` returned (the fence waits for READs
    // and atomics queued under the key).
    let reads: Vec<HostAccess> = world.borrow_mut().nics[1].dma_read.log.take().unwrap();
    let data = buf.iova..buf.iova + (CHUNKS as u64) * CHUNK;
    let mut read_bytes = 0u64;
    for r in reads.iter().filter(|r| data.contains(&r.addr)) {
        let (start, end) = (r.addr, r.addr + r.len as u64);
        let readable = f.regs.iter().filter(|g| {
            let m = g.mr.region;
            (g.kind == Kind::ReadOnly || (g.kind == Kind::Both && r.len <= 64)) && start >= m.base & !63 && end <= (m.base + m.length as u64).next_multiple_of(64) && r.cycle >= g.from
        });
        let fenced = readable.clone().any(|g| g.until.is_none_or(|u| r.cycle <= u));
        assert!(readable.count() > 0, "card 1 read {} bytes at {start:#x} in cycle {}: no READ-able (or atomic) region there", r.len, r.cycle);
        assert!(fenced, "card 1 read {} bytes at {start:#x} in cycle {}, after its region's dereg_mr returned", r.len, r.cycle);
        read_bytes += r.len as u64;
    }
    // A second witness, independent of the log: the trap chunks and the gaps hold their fill.
    let mem = f.b.read_buf(buf.iova, CHUNKS * CHUNK as usize).unwrap();
    for chunk in 0..CHUNKS {
        let legal_ever = f.regs.iter().any(|r| r.chunk == chunk && r.kind.legal());
        if !legal_ever {
            let bytes = &mem[chunk * CHUNK as usize..(chunk + 1) * CHUNK as usize];
            assert!(bytes.iter().all(|&x| x == FILL), "chunk {chunk} (no writable region ever) was written");
        }
    }
    let mut rd = |n: &str| f.b.dev.read("responder", n).unwrap();
    let (placed, access, invalid, bad_qp, bad_source, rnr, operational, read_placed) = (
        rd("placed"),
        rd("naks_access"),
        rd("naks_invalid"),
        rd("bad_qp"),
        rd("bad_source"),
        rd("naks_rnr"),
        rd("naks_operational"),
        rd("read_placed"),
    );
    println!(
        "fuzz: {packets} packets, {churns} regions moved, {} host writes ({in_regions} bytes in regions); placed {placed}, \
         NAK access {access}, invalid {invalid}, operational {operational}, RNR {rnr}, bad QP {bad_qp}, bad source {bad_source}; \
         {read_bytes} bytes read for READ responses ({} responses), none after its region's dereg_mr; \
         responses to its own READs: {read_placed} placed, {} dropped, {} implied NAKs",
        log.len(),
        f.b.dev.read("responder", "read_responses").unwrap(),
        f.b.dev.read("responder", "read_dropped").unwrap(),
        f.b.dev.read("responder", "implied_naks").unwrap()
    );
    // Not vacuous: packets were placed, and every refusal was exercised.
    assert!(placed as usize > packets / 50, "placed {placed}");
    for (what, n) in [("access", access), ("invalid", invalid), ("bad_qp", bad_qp), ("bad_source", bad_source), ("operational", operational)] {
        assert!(n > 0, "no {what} refusal");
    }
    assert!(in_regions > 0);
    assert!(read_bytes > 0, "no READ was answered");
    assert!(read_placed > 100, "responses to card 1's own READs were placed: {read_placed}");
    let atomics = f.b.dev.read("responder", "atomics").unwrap();
    println!("fuzz: {atomics} atomics executed, {} answered again", f.b.dev.read("responder", "atomic_replays").unwrap());
    assert!(atomics > 10, "atomics were executed: {atomics}");
}
