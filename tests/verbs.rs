//! The driver's resources through their whole life, on simulated cards: what a driver opening
//! a card clears, keys no earlier run predicts, a stray completion reported without losing the
//! ones beside it, a refused QP commit leaving the driver's view as it was, and protection
//! domains, regions, CQs, QPs and DMA memory released — and refused while something uses them.

use rnic_driver::bus::{Bus, BusError};
use rnic_driver::device::Device;
use rnic_driver::sim_bus::SimCard;
use rnic_driver::sim_pair::{connect, port, qp_pair, two_cards, Card, PathKind};
use rnic_driver::verbs::{Context, Cq, DmaBuf, QpCaps, QpState, SendWr, VerbsError, Wc, FIRST_QPN};
use rnic_sim::nic::NicSim;
use rnic_sim::world::LinkConfig;
use rnic_spec::desc::{CqStatus, Cqe, SendOp, CQE_LEN};
use rnic_spec::mr::access;
use rnic_spec::regs;

const KIND: PathKind = PathKind { v6: false, vlan: None, pmtu: 1024 };
const CAPS: QpCaps = QpCaps { sq_entries: 8, rq_entries: 8 };

/// A simulated card alone, opened by the driver.
fn card() -> Context<SimCard> {
    Context::new(Device::open(SimCard::new(NicSim::new().unwrap())).unwrap(), port(0)).unwrap()
}

#[test]
fn a_driver_opening_the_card_clears_what_an_earlier_run_set_up() {
    let (world, mut a, mut b) = two_cards(LinkConfig::default());
    let (pa, pb) = (a.alloc_pd().unwrap(), b.alloc_pd().unwrap());
    let src = a.alloc_buf(4096, 4096).unwrap();
    a.write_buf(src.iova, &[0x5A; 64]).unwrap();
    let dst = b.alloc_buf(4096, 4096).unwrap();
    let lmr = a.reg_mr(pa, src.iova, 4096, 0).unwrap();
    let old = b.reg_mr(pb, dst.iova, 4096, access::REMOTE_WRITE).unwrap();
    let (mut cqa, cqb) = (a.create_cq(8).unwrap(), b.create_cq(8).unwrap());
    let (mut qa, qb) = qp_pair(&mut a, &mut b, (pa, pb), (&cqa, &cqb), KIND, CAPS, (0, 0)).unwrap();
    let write = |id, rkey| SendWr {
        wr_id: id,
        op: SendOp::Write,
        flags: 0,
        local_addr: src.iova,
        length: 64,
        lkey: lmr.key(),
        remote_addr: dst.iova,
        rkey,
        imm: 0,
        atomic: Default::default(),
    };
    let complete = |a: &mut Card, cqa: &mut Cq| {
        for _ in 0..50 {
            world.borrow_mut().run_until(1000, |_| false);
            if let Some(w) = a.poll_cq(cqa, 1).unwrap().first() {
                return (w.wr_id, w.status);
            }
        }
        panic!("no completion");
    };
    a.post_send(&mut qa, &write(1, old.key())).unwrap();
    assert_eq!(complete(&mut a, &mut cqa), (1, CqStatus::Success));
    assert_eq!(b.read_buf(dst.iova, 64).unwrap(), vec![0x5A; 64]);

    // Card 1's driver restarts: the new one sets up the same QP number, connected afresh to
    // card 0's (reset and connected again too), but registers nothing. The old rkey must not
    // reach the old region any more.
    let mut b = Context::new(Device::open(b.dev.into_bus()).unwrap(), port(1)).unwrap();
    let pb = b.alloc_pd().unwrap();
    let cqb = b.create_cq(8).unwrap();
    let mut qb2 = b.create_qp(pb, &cqb, &cqb, CAPS).unwrap();
    assert_eq!(qb2.qpn, qb.qpn);
    a.modify_qp(&mut qa, QpState::Reset, &Default::default()).unwrap();
    connect(&mut a, &mut qa, 1, KIND, qb2.qpn, 0, 0).unwrap();
    connect(&mut b, &mut qb2, 0, KIND, qa.qpn, 0, 0).unwrap();
    a.write_buf(src.iova, &[0xA5; 64]).unwrap();
    a.post_send(&mut qa, &write(2, old.key())).unwrap();
    assert_eq!(complete(&mut a, &mut cqa), (2, CqStatus::RemoteAccess), "the old region is gone from the card");
    assert_eq!(b.read_buf(dst.iova, 64).unwrap(), vec![0x5A; 64], "nothing written under the old key");
    assert_eq!(b.dev.read("responder", "naks_access").unwrap(), 1);

    // Keys start from an unpredictable variant: the new run's first key is not the old one's.
    let new = b.reg_mr(pb, dst.iova, 4096, access::REMOTE_WRITE).unwrap();
    assert_ne!(new.key(), old.key());
    assert_eq!(new.key() & (regs::MRS - 1), old.key() & (regs::MRS - 1), "the same slot, another variant");
}

#[test]
fn a_stray_completion_is_reported_once_and_loses_nothing() {
    let mut c = card();
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(4096, 4096).unwrap();
    let mr = c.reg_mr(pd, buf.iova, 4096, access::LOCAL_WRITE).unwrap();
    let mut cq = c.create_cq(8).unwrap();
    let mut qp = c.create_qp(pd, &cq, &cq, CAPS).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    // Two WRITEs posted to a peer that never answers: the card completes neither within this
    // test, so the ring holds only what the test writes there.
    for id in [10, 11] {
        let wr = SendWr { wr_id: id, op: SendOp::Write, flags: 0, local_addr: buf.iova, length: 8, lkey: mr.key(), remote_addr: 0, rkey: 1, imm: 0, atomic: Default::default() };
        c.post_send(&mut qp, &wr).unwrap();
    }
    let cqe = |index: u16| Cqe { wr_id: 0, byte_len: 0, imm: 0, qpn: qp.qpn, op: 0, status: 0, flags: 0, wqe_index: index, owner: 1 };
    for (slot, index) in [(0u64, 0u16), (1, 7), (2, 1)] {
        c.write_buf(cq.ring().iova + slot * CQE_LEN as u64, &cqe(index).pack()).unwrap();
    }
    let ids = |r: Result<Vec<Wc>, VerbsError>| r.map(|v| v.iter().map(|w| (w.wr_id, w.status)).collect::<Vec<_>>());
    assert_eq!(ids(c.poll_cq(&mut cq, 8)), Ok(vec![(10, CqStatus::Success)]), "completions before the stray come first");
    assert_eq!(ids(c.poll_cq(&mut cq, 8)), Err(VerbsError::StrayCompletion { qpn: qp.qpn, wqe_index: 7 }));
    assert_eq!(ids(c.poll_cq(&mut cq, 8)), Ok(vec![(11, CqStatus::Success)]), "the queue goes on past it");
    assert_eq!(ids(c.poll_cq(&mut cq, 8)), Ok(vec![]));
    assert_eq!(c.sq_free(&qp), CAPS.sq_entries, "both slots free again");
}

/// A bus whose next write to one BAR0 offset fails (a card that stops answering), and which
/// can skip the driver's waits (so the card's own ordering is what is tested).
struct FailingBus {
    card: SimCard,
    fail_write_at: Option<u32>,
    no_waits: bool,
}

impl Bus for FailingBus {
    fn read32(&mut self, offset: u32) -> Result<u32, BusError> {
        self.card.read32(offset)
    }
    fn write32(&mut self, offset: u32, value: u32) -> Result<(), BusError> {
        if self.fail_write_at == Some(offset) {
            self.fail_write_at = None;
            return Err(BusError::Timeout { offset, write: true });
        }
        self.card.write32(offset, value)
    }
    fn dma_alloc(&mut self, len: usize, align: usize) -> Result<u64, BusError> {
        self.card.dma_alloc(len, align)
    }
    fn dma_free(&mut self, iova: u64) -> Result<(), BusError> {
        self.card.dma_free(iova)
    }
    fn dma_write(&mut self, iova: u64, data: &[u8]) -> Result<(), BusError> {
        self.card.dma_write(iova, data)
    }
    fn dma_read(&mut self, iova: u64, len: usize) -> Result<Vec<u8>, BusError> {
        self.card.dma_read(iova, len)
    }
    fn wait(&mut self, cycles: u64) {
        if !self.no_waits {
            self.card.wait(cycles)
        }
    }
}

#[test]
fn a_refused_qp_commit_leaves_the_drivers_view_as_it_was() {
    let bus = FailingBus { card: SimCard::new(NicSim::new().unwrap()), fail_write_at: None, no_waits: false };
    let mut c = Context::new(Device::open(bus).unwrap(), port(0)).unwrap();
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(4096, 4096).unwrap();
    let mr = c.reg_mr(pd, buf.iova, 4096, 0).unwrap();
    let cq = c.create_cq(8).unwrap();
    let mut qp = c.create_qp(pd, &cq, &cq, CAPS).unwrap();
    let commit = regs::addr("qp", "commit").unwrap();

    c.dev.bus().fail_write_at = Some(commit);
    let before = qp.clone();
    assert!(matches!(c.modify_qp(&mut qp, QpState::Init, &Default::default()), Err(VerbsError::Device(_))));
    assert_eq!(qp, before, "Reset still, context unchanged");

    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    let wr = SendWr { wr_id: 1, op: SendOp::Write, flags: 0, local_addr: buf.iova, length: 8, lkey: mr.key(), remote_addr: 0, rkey: 1, imm: 0, atomic: Default::default() };
    c.post_send(&mut qp, &wr).unwrap();
    c.dev.bus().fail_write_at = Some(commit);
    let before = qp.clone();
    assert!(c.modify_qp(&mut qp, QpState::Reset, &Default::default()).is_err());
    assert_eq!(qp, before, "still Rts with its WQE posted");
    assert_eq!(c.sq_free(&qp), CAPS.sq_entries - 1, "the posted WQE is still on the books");
    c.modify_qp(&mut qp, QpState::Reset, &Default::default()).unwrap();
    assert_eq!((qp.state, c.sq_free(&qp)), (QpState::Reset, CAPS.sq_entries));
}

#[test]
fn resources_are_released_and_refused_while_in_use() {
    let mut c = card();
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(8192, 4096).unwrap();
    c.write_buf(buf.iova, &[7; 16]).unwrap();
    let mr = c.reg_mr(pd, buf.iova + 4096, 4096, access::REMOTE_WRITE).unwrap();
    let cq = c.create_cq(8).unwrap();
    let qp = c.create_qp(pd, &cq, &cq, CAPS).unwrap();

    let in_use = |r: Result<(), VerbsError>| matches!(r, Err(VerbsError::InUse(..)));
    assert!(in_use(c.dealloc_pd(pd)), "a region and a QP are in it");
    assert!(in_use(c.free_buf(buf)), "a region covers its second page");
    assert!(in_use(c.free_buf(DmaBuf { iova: buf.iova, len: 1 })), "the allocation's length counts, not the handle's");
    assert!(in_use(c.free_buf(cq.ring())), "a CQ's ring");
    assert!(in_use(c.destroy_cq(cq.clone())), "a QP reports to it");
    let e = c.destroy_cq(cq.clone()).unwrap_err().to_string();
    assert!(e.contains(&format!("QP {}", qp.qpn)) && e.contains("release that first"), "{e}");

    let mut stale = qp.clone();
    c.destroy_qp(qp).unwrap();
    assert!(in_use(c.dealloc_pd(pd)), "the region still is");
    // A stale handle does not reach the QP that has its number now.
    let mut other = c.create_qp(pd, &cq, &cq, CAPS).unwrap();
    assert_eq!(other.qpn, stale.qpn);
    assert_eq!(c.modify_qp(&mut stale, QpState::Init, &Default::default()), Err(VerbsError::UnknownQp(stale.qpn)));
    assert_eq!(c.destroy_qp(stale.clone()), Err(VerbsError::UnknownQp(stale.qpn)));
    c.modify_qp(&mut other, QpState::Init, &Default::default()).unwrap();
    c.destroy_qp(other).unwrap();
    let mut stale_cq = cq.clone();
    c.destroy_cq(cq.clone()).unwrap();
    assert_eq!(c.destroy_cq(cq.clone()), Err(VerbsError::UnknownCq(cq.cqn)), "destroyed once only");
    let _again = c.create_cq(8).unwrap();
    assert_eq!(c.poll_cq(&mut stale_cq, 8), Err(VerbsError::UnknownCq(cq.cqn)), "a stale CQ handle polls nothing");
    c.dereg_mr(mr).unwrap();
    c.free_buf(buf).unwrap();
    assert!(matches!(c.free_buf(buf), Err(VerbsError::Bus(BusError::NotAllocated(_)))), "freed once only");
    assert!(c.read_buf(buf.iova, 1).is_err(), "freed memory is out of reach");
    c.dealloc_pd(pd).unwrap();
    assert_eq!(c.dealloc_pd(pd), Err(VerbsError::UnknownPd(pd.0)));
    assert!(matches!(c.reg_mr(pd, buf.iova, 16, 0), Err(VerbsError::UnknownPd(_))), "a deallocated PD registers nothing");

    // Freed memory is handed out again and reads as new; slots come back.
    let again = c.alloc_buf(8192, 4096).unwrap();
    assert_eq!(again.iova, buf.iova);
    assert_eq!(c.read_buf(again.iova, 16).unwrap(), vec![0; 16], "not the old bytes");
    c.free_buf(again).unwrap();
    // More QPs, CQs and memory than the card and the IOVA space hold, created and destroyed
    // in turn: nothing runs out.
    for _ in 0..regs::QPS.max(regs::CQS) + 8 {
        let pd = c.alloc_pd().unwrap();
        let cq = c.create_cq(1 << 10).unwrap();
        let qp = c.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 256, rq_entries: 256 }).unwrap();
        assert!(qp.qpn >= FIRST_QPN);
        let big = c.alloc_buf(1 << 25, 4096).unwrap();
        c.free_buf(big).unwrap();
        c.destroy_qp(qp).unwrap();
        c.destroy_cq(cq).unwrap();
        c.dealloc_pd(pd).unwrap();
    }
}

#[test]
fn moving_a_qp_to_error_flushes_its_outstanding_work_in_order() {
    let mut c = card();
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(4096, 4096).unwrap();
    let mr = c.reg_mr(pd, buf.iova, 4096, access::LOCAL_WRITE).unwrap();
    let (mut scq, mut rcq) = (c.create_cq(16).unwrap(), c.create_cq(16).unwrap());
    let mut qp = c.create_qp(pd, &scq, &rcq, CAPS).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    // Three sends to a peer that never answers and three receives nobody fills.
    let wr = |id| SendWr { wr_id: id, op: SendOp::Write, flags: 0, local_addr: buf.iova, length: 8, lkey: mr.key(), remote_addr: 0, rkey: 1, imm: 0, atomic: Default::default() };
    let recv = |id| rnic_driver::verbs::RecvWr { wr_id: id, addr: buf.iova, length: 64, lkey: mr.key() };
    for id in [10, 11, 12] {
        c.post_send(&mut qp, &wr(id)).unwrap();
    }
    c.post_recv(&mut qp, &[recv(20), recv(21), recv(22)]).unwrap();
    assert!(matches!(c.dereg_mr(mr), Err(VerbsError::InUse(..))), "posted sends read under its key");
    c.modify_qp(&mut qp, QpState::Error, &Default::default()).unwrap();
    let ids = |v: Vec<Wc>| v.iter().map(|w| (w.wr_id, w.status, w.byte_len, w.qpn)).collect::<Vec<_>>();
    let flushed = |ids: &[u64]| ids.iter().map(|&i| (i, CqStatus::Flushed, 0, qp.qpn)).collect::<Vec<_>>();
    assert_eq!(ids(c.poll_cq(&mut scq, 2).unwrap()), flushed(&[10, 11]), "send flushes go to the send CQ, at most max");
    assert_eq!(ids(c.poll_cq(&mut scq, 8).unwrap()), flushed(&[12]));
    assert_eq!(ids(c.poll_cq(&mut scq, 8).unwrap()), []);
    let r = c.poll_cq(&mut rcq, 8).unwrap();
    assert!(r.iter().all(|w| w.op == rnic_spec::desc::CqOp::Recv));
    assert_eq!(ids(r), flushed(&[20, 21, 22]), "receive flushes go to the receive CQ");
    assert_eq!(c.sq_free(&qp), CAPS.sq_entries);
    assert!(matches!(c.post_send(&mut qp, &wr(13)), Err(VerbsError::NotReadyToSend(QpState::Error))));
    let mr2 = c.reg_mr(pd, buf.iova, 4096, access::LOCAL_WRITE).unwrap();
    c.dereg_mr(mr).unwrap();

    // Back through Reset the QP works again (nothing left to flush).
    c.modify_qp(&mut qp, QpState::Reset, &Default::default()).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    c.post_send(&mut qp, &SendWr { lkey: mr2.key(), ..wr(14) }).unwrap();
    assert_eq!(ids(c.poll_cq(&mut scq, 8).unwrap()), [], "not flushed: the QP is in Rts");
}

#[test]
fn a_wqe_read_before_a_commit_is_dropped_not_sent_for_the_new_qp() {
    // No grace period from the driver: the card alone must keep the old WQE out of the new QP.
    let bus = FailingBus { card: SimCard::new(NicSim::new().unwrap()), fail_write_at: None, no_waits: true };
    let mut c = Context::new(Device::open(bus).unwrap(), port(0)).unwrap();
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(4096, 4096).unwrap();
    let old = c.reg_mr(pd, buf.iova, 4096, 0).unwrap();
    let mut cq = c.create_cq(16).unwrap();
    let mut qp = c.create_qp(pd, &cq, &cq, CAPS).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    let wr = |id, len, lkey| SendWr { wr_id: id, op: SendOp::Write, flags: 0, local_addr: buf.iova, length: len, lkey, remote_addr: 0, rkey: 1, imm: 0, atomic: Default::default() };
    // The card starts reading this WQE; the QP goes to Error, its region away, and back to Rts
    // before the read is back.
    c.post_send(&mut qp, &wr(1, 8, old.key())).unwrap();
    c.modify_qp(&mut qp, QpState::Error, &Default::default()).unwrap();
    let flushed: Vec<_> = c.poll_cq(&mut cq, 8).unwrap().iter().map(|w| (w.wr_id, w.status)).collect();
    assert_eq!(flushed, [(1, CqStatus::Flushed)]);
    let new = c.reg_mr(pd, buf.iova, 4096, 0).unwrap();
    c.dereg_mr(old).unwrap();
    c.modify_qp(&mut qp, QpState::Reset, &Default::default()).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    c.post_send(&mut qp, &wr(2, 16, new.key())).unwrap();
    c.dev.bus().card.wait(5_000);
    assert_eq!(c.poll_cq(&mut cq, 8).unwrap(), [], "no completion: the old WQE was neither refused nor sent as the new QP's");
    // Card 0's frames: the new WQE's alone (16 bytes of payload), or the old one's before the
    // commit — never the old one after it.
    let sent: Vec<usize> = c.dev.bus().card.nic.sent().iter().map(|(_, f)| f.len()).collect();
    assert_eq!(sent.last(), Some(&94), "the new WRITE went out: {sent:?}");
    assert_eq!(c.dev.read("tx_counters", "wqe_errors").unwrap(), 0, "nothing refused: {sent:?}");
}

#[test]
fn completions_taken_off_the_ring_survive_a_failed_cq_doorbell() {
    let bus = FailingBus { card: SimCard::new(NicSim::new().unwrap()), fail_write_at: None, no_waits: false };
    let mut c = Context::new(Device::open(bus).unwrap(), port(0)).unwrap();
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(4096, 4096).unwrap();
    let mut cq = c.create_cq(8).unwrap();
    let mut qp = c.create_qp(pd, &cq, &cq, CAPS).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    // A bad lkey: the card completes the WQE in error on its own (no peer needed).
    let wr = SendWr { wr_id: 5, op: SendOp::Write, flags: 0, local_addr: buf.iova, length: 8, lkey: 0xdead_0001, remote_addr: 0, rkey: 1, imm: 0, atomic: Default::default() };
    c.post_send(&mut qp, &wr).unwrap();
    c.dev.bus().card.wait(5_000);
    let db = regs::addr("doorbell", "cq").unwrap();
    c.dev.bus().fail_write_at = Some(db);
    let got: Vec<_> = c.poll_cq(&mut cq, 8).unwrap().iter().map(|w| (w.wr_id, w.status)).collect();
    assert_eq!(got, [(5, CqStatus::LocalProtection)], "returned although the card could not be told");
    // The next poll tells the card; when that fails too, with nothing else to return, it says so.
    c.dev.bus().fail_write_at = Some(db);
    assert!(matches!(c.poll_cq(&mut cq, 8), Err(VerbsError::Device(_))), "the doorbell is retried");
    assert_eq!(c.poll_cq(&mut cq, 8).unwrap(), []);
    // That one went through: an empty poll writes no doorbell again.
    c.dev.bus().fail_write_at = Some(db);
    assert_eq!(c.poll_cq(&mut cq, 8).unwrap(), []);
    assert_eq!(c.dev.bus().fail_write_at, Some(db), "no doorbell write on an empty poll");
}

#[test]
fn a_cq_closed_while_its_cqes_are_written_takes_no_entry_more() {
    let bus = FailingBus { card: SimCard::new(NicSim::new().unwrap()), fail_write_at: None, no_waits: false };
    let mut c = Context::new(Device::open(bus).unwrap(), port(0)).unwrap();
    c.dev.bus().card.nic.dma_write.log = Some(Vec::new());
    let pd = c.alloc_pd().unwrap();
    let buf = c.alloc_buf(4096, 4096).unwrap();
    let cq = c.create_cq(64).unwrap();
    let mut qp = c.create_qp(pd, &cq, &cq, QpCaps { sq_entries: 64, rq_entries: 8 }).unwrap();
    connect(&mut c, &mut qp, 1, KIND, 9, 0, 0).unwrap();
    // Bad lkeys: the card completes every WQE itself (the first in error, the rest flushed),
    // CQE after CQE; the CQ is closed under it once the first is in the ring.
    let wr = |id| SendWr { wr_id: id, op: SendOp::Write, flags: 0, local_addr: buf.iova, length: 8, lkey: 0xdead_0001, remote_addr: 0, rkey: 1, imm: 0, atomic: Default::default() };
    // (One doorbell for all: the card starts on them only once every one is posted.)
    c.post_send_list(&mut qp, &(0..32).map(wr).collect::<Vec<_>>()).unwrap();
    let ring = cq.ring();
    let written = |c: &mut Context<FailingBus>| c.dev.bus().card.nic.dma_write.log.as_ref().unwrap().len();
    let mut waited = 0;
    while written(&mut c) == 0 && waited < 50_000 {
        c.dev.bus().card.wait(1);
        waited += 1;
    }
    assert_eq!(written(&mut c), 1, "the first CQE is in");
    c.dev.close_cq(cq.cqn).unwrap();
    let at_close = written(&mut c);
    c.dev.bus().card.wait(20_000);
    // One more WQE: its flush completion finds the CQ closed as well.
    c.post_send(&mut qp, &wr(32)).unwrap();
    c.dev.bus().card.wait(20_000);
    let log = c.dev.bus().card.nic.dma_write.log.take().unwrap();
    for w in &log {
        assert!(w.addr >= ring.iova && w.addr + w.len as u64 <= ring.iova + 32 * 64, "a write outside the ring: {w:?}");
    }
    assert!(log.len() <= at_close + 1, "at most the CQE in flight at the close lands after it: {} then {}", at_close, log.len());
    let dropped = c.dev.read("completer", "cq_overflows").unwrap() as usize;
    assert_eq!(log.len() + dropped, 33, "every completion written once or dropped once ({} written)", log.len());
    assert!(dropped >= 32 - at_close, "dropped {dropped}");
}
