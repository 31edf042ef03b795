//! The responder's receive queues: per QP the producer index (`doorbell.rq`), the next WQE
//! index to fetch, the ring, and up to [`RQ_CACHE`] receive WQEs fetched ahead from host memory,
//! so back-to-back SENDs find their buffers on the card.
//!
//! Why a per-QP cache read in batches: a receive WQE read costs a host round trip (about 215
//! cycles with the 800 ns PCIe model) while a 4 KiB SEND takes 84 cycles on the wire and a
//! 64-byte one about 3; one WQE fetched at a time made the responder wait 0.86 µs per SEND and
//! overflow its receive buffer. Each read now fetches every free slot's worth of posted WQEs
//! (up to 64, contiguous in the ring: 2 KiB, 32 beats), up to two reads in flight per QP, so a
//! QP refills as fast as it is emptied. What is ready while a read flies is the cache less
//! what is in flight: with 32 slots and one read, 32 - 18 at a SEND every 12 cycles (168 cycles
//! of SENDs for a 215-cycle round trip), and a sender at 16.5 M SENDs/s found the cache empty
//! (456 cycles of waiting in 512 SENDs); two reads in flight (freed slots asked for again
//! sooner) left 118, and 64 slots none. 256 QPs × 64 slots × 128 bits is 2 Mbit (about 64
//! BRAM36, or 8 URAM).
//!
//! Indexes (16-bit, free-running; a WQE's slot is its index mod 64): the fetch index `fi`
//! (next to read), the landed index `li` (every WQE before it is in the cache) and the taken
//! index (the responder's consumer index `ci`, copied here when it takes one). The responder's
//! WQE at `ci` is there when `li != ci`. A QP is looked at when a doorbell comes, when a WQE is
//! taken, when a read lands, and when the responder waits (`waiting`, once per request record);
//! a look that finds fewer than two reads in flight for it, free slots and WQEs posted past
//! `fi` reads them (the QP remembered in a queue of reads in flight with its first index and count; the
//! returning beats carry two WQEs each, written one per cycle). A read's WQEs count as landed
//! when its last beat is in, because only that beat says whether the read failed; a failed read
//! marks the QP's ring broken (every WQE taken then is an error) until the QP's next commit.
//! A commit empties the QP's queue; reads in flight for a QP committed since belong to the QP
//! as it was and their fills are thrown away (`discard`: no new read starts for the QP until
//! the last of them lands).

use crate::pack_word;
use crate::ram_fifo::RamFifo;
use crate::stream::c;
use rnic_spec::desc::{recv_wqe, RECV_WQE_LEN};
use rnic_spec::regs::QP_SLOT_BITS;
use rust_hdl::prelude::*;

/// Receive WQEs cached per QP (log2).
pub const RQ_CACHE_BITS: usize = 6;
pub const RQ_CACHE: u64 = 1 << RQ_CACHE_BITS;
const SLOT_BITS: usize = QP_SLOT_BITS + RQ_CACHE_BITS;

pack_word! { lsb_first RqOffset: 64 { zero: 5, index: 16 } }
const _: () = assert!(RECV_WQE_LEN == 1 << 5);
pack_word! {
    /// A QP's receive ring, as the prefetcher keeps it (set by `qp.commit`).
    lsb_first RingWord: 68 { base_lo: 32, base_hi: 32, log: 4 }
}
pack_word! {
    /// A prefetched receive WQE: the buffer. (`update` slices the RAM's word at 0, 64 and 96:
    /// literals, as hdl_gen needs.)
    lsb_first CachedWqe: 128 { addr: 64, len: 32, lkey: 32 }
}
pack_word! {
    /// A cache slot's address: the QP's slots side by side, a WQE's slot its index mod 64.
    lsb_first SlotAddr: 14 { slot: 6, qp: 8 }
}
const _: () = assert!(RQ_CACHE_BITS == 6 && QP_SLOT_BITS == 8 && SLOT_BITS == 14);

crate::hdl_block! {
    pub struct RecvPrefetch {
        pub clock: Signal<In, Clock>,
        /// A commit of QP slot `commit_qp` (validated by the owner): its queue starts empty,
        /// at the ring staged in `ring_*` (`qp.rq_base_lo/hi`, `qp.rq_log_size`).
        pub commit_ok: Signal<In, Bit>,
        pub commit_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        /// A commit command in this cycle, valid or not: nothing is looked up or filled now (the
        /// RAM words read would be the QP's as it was, and the commit writes them).
        pub commit_any: Signal<In, Bit>,
        pub ring_lo: Signal<In, Bits<32>>,
        pub ring_hi: Signal<In, Bits<32>>,
        pub ring_log: Signal<In, Bits<4>>,
        /// A receive doorbell (validated): QP `db_qp`'s producer index is now `db_pi`.
        pub db_valid: Signal<In, Bit>,
        pub db_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub db_pi: Signal<In, Bits<16>>,
        /// The responder takes a request record for QP `rec_qp`: its producer index, a cycle
        /// later.
        pub rec_take: Signal<In, Bit>,
        pub rec_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub rec_pi: Signal<Out, Bits<16>>,
        /// The packet's QP and its consumer index (registers of the responder; the QP set a
        /// cycle before the index is looked at): whether the WQE at that index is in the cache
        /// (the QP's landed index as of the previous cycle against the index now), and the WQE
        /// (at the previous cycle's QP and index).
        pub at_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub at_ci: Signal<In, Bits<16>>,
        pub at_cached: Signal<Out, Bit>,
        pub wqe_addr: Signal<Out, Bits<64>>,
        pub wqe_len: Signal<Out, Bits<32>>,
        pub wqe_lkey: Signal<Out, Bits<32>>,
        /// The QP's ring could not be read: the WQE is not to be used.
        pub wqe_error: Signal<Out, Bit>,
        /// `waiting`: the responder waits for `at_qp`'s WQE (a look is asked for once per record).
        pub waiting: Signal<In, Bit>,
        /// The responder takes the WQE at `at_ci` of `at_qp`.
        pub take: Signal<In, Bit>,
        /// DMA read port: up to 64 WQEs per read.
        pub rd_valid: Signal<Out, Bit>,
        pub rd_ready: Signal<In, Bit>,
        pub rd_addr: Signal<Out, Bits<64>>,
        pub rd_len: Signal<Out, Bits<16>>,
        pub rdd_valid: Signal<In, Bit>,
        pub rdd_ready: Signal<Out, Bit>,
        pub rdd_data: Signal<In, Bits<512>>,
        pub rdd_error: Signal<In, Bit>,

        /// Producer indexes (a copy for the responder's record and one for the looks: a RAM
        /// has one read port), fetch, taken and landed indexes, rings, the WQE cache.
        rq_pi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        pf_pi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        pf_fi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        tk_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        li_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        ring_ram: RAM<Bits<68>, QP_SLOT_BITS>,
        wqe_ram: RAM<Bits<128>, SLOT_BITS>,
        ring_word: RingWord,
        cached_word: CachedWqe,
        rq_off: RqOffset,
        fill_slot: SlotAddr,
        at_slot: SlotAddr,
        /// QPs with a read in flight, committed while it was, with a ring that failed to read.
        fetching: DFF<Bits<256>>,
        /// QPs with two reads in flight.
        fetching2: DFF<Bits<256>>,
        discard: DFF<Bits<256>>,
        broken: DFF<Bits<256>>,
        /// QPs to look at, and each read in flight: QP, first index, WQE count.
        pf_look: RamFifo<6, 5, QP_SLOT_BITS, 1, 1>,
        pf_look_tail: DFF<Bits<6>>,
        pf_flight: RamFifo<6, 5, QP_SLOT_BITS, 16, 16>,
        pf_flight_tail: DFF<Bits<6>>,
        /// The WQE of the read at the flight queue's head that comes next.
        f_k: DFF<Bits<16>>,
        /// Look requests waiting for the queue: a doorbell's, a taken WQE's, a landed read's.
        pend_db: DFF<Bit>,
        pend_db_qp: DFF<Bits<QP_SLOT_BITS>>,
        pend_take: DFF<Bit>,
        pend_take_qp: DFF<Bits<QP_SLOT_BITS>>,
        pend_fill: DFF<Bit>,
        pend_fill_qp: DFF<Bits<QP_SLOT_BITS>>,
        /// The responder's wait was put in the look queue (for this record).
        kicked: DFF<Bit>,
        /// The look: idle, reading the QP's words, sizing its read, issuing it.
        e_state: DFF<Bits<2>>,
        e_qp: DFF<Bits<QP_SLOT_BITS>>,
        e_fi: DFF<Bits<16>>,
        e_base: DFF<Bits<64>>,
        e_mask: DFF<Bits<16>>,
        /// WQEs posted past the fetch index, free slots, slots to the ring's end; the read's count.
        e_posted: DFF<Bits<16>>,
        e_free: DFF<Bits<16>>,
        e_room: DFF<Bits<16>>,
        e_n: DFF<Bits<16>>,
        e_idle: Constant<Bits<2>> = c::<2>(0),
        e_look: Constant<Bits<2>> = c::<2>(1),
        e_size: Constant<Bits<2>> = c::<2>(2),
        e_cmd: Constant<Bits<2>> = c::<2>(3),
        pf_push: Signal<Local, Bit>,
        pf_push_qp: Signal<Local, Bits<QP_SLOT_BITS>>,
        look_room: Signal<Local, Bit>,
        pf_issue: Signal<Local, Bit>,
        pf_fill: Signal<Local, Bit>,
        /// The fill writes the last WQE of its read.
        fill_last: Signal<Local, Bit>,
        /// A fill for a QP not committed since its read was issued.
        keep_fill: Signal<Local, Bit>,
        fill_wqe: Signal<Local, Bits<256>>,
        fill_index: Signal<Local, Bits<16>>,
        commit_mask: Signal<Local, Bits<256>>,
        fill_mask: Signal<Local, Bits<256>>,
        set_fetching: Signal<Local, Bits<256>>,
        set_broken: Signal<Local, Bits<256>>,
        e_wanted: Signal<Local, Bit>,
        e_in_cache: Signal<Local, Bits<16>>,
        /// The bit vectors shifted down to a QP (bit 0 is its bit).
        e_fetching2_at: Signal<Local, Bits<256>>,
        /// A read lands that is its QP's last in flight.
        last_mask: Signal<Local, Bits<256>>,
        e_discard_at: Signal<Local, Bits<256>>,
        fill_discard_at: Signal<Local, Bits<256>>,
        at_broken_at: Signal<Local, Bits<256>>,
        one256: Constant<Bits<256>> = c::<256>(1),
        zero256: Constant<Bits<256>> = c::<256>(0),
        one6: Constant<Bits<6>> = c::<6>(1),
        depth6: Constant<Bits<6>> = c::<6>(32),
        one16: Constant<Bits<16>> = c::<16>(1),
        zero16: Constant<Bits<16>> = c::<16>(0),
        cache16: Constant<Bits<16>> = c::<16>(RQ_CACHE),
        zero5: Constant<Bits<5>> = c::<5>(0),
        wqe_shift: Constant<Bits<3>> = c::<3>(5),
        zero1: Constant<Bits<1>> = c::<1>(0),
        w_addr_at: Constant<Bits<8>> = c::<8>(8 * recv_wqe::ADDR as u64),
        w_len_at: Constant<Bits<8>> = c::<8>(8 * recv_wqe::LENGTH as u64),
        w_lkey_at: Constant<Bits<8>> = c::<8>(8 * recv_wqe::LKEY as u64),
    }
}

impl Logic for RecvPrefetch {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, fetching, fetching2, discard, broken, pf_look_tail, pf_flight_tail, f_k, pend_db, pend_db_qp, pend_take, pend_take_qp,
            pend_fill, pend_fill_qp, kicked, e_state, e_qp, e_fi, e_base, e_mask, e_posted, e_free, e_room, e_n
        );
        self.rq_pi_ram.read_clock.next = self.clock.val();
        self.rq_pi_ram.write_clock.next = self.clock.val();
        self.pf_pi_ram.read_clock.next = self.clock.val();
        self.pf_pi_ram.write_clock.next = self.clock.val();
        self.pf_fi_ram.read_clock.next = self.clock.val();
        self.pf_fi_ram.write_clock.next = self.clock.val();
        self.tk_ram.read_clock.next = self.clock.val();
        self.tk_ram.write_clock.next = self.clock.val();
        self.li_ram.read_clock.next = self.clock.val();
        self.li_ram.write_clock.next = self.clock.val();
        self.ring_ram.read_clock.next = self.clock.val();
        self.ring_ram.write_clock.next = self.clock.val();
        self.wqe_ram.read_clock.next = self.clock.val();
        self.wqe_ram.write_clock.next = self.clock.val();
        self.pf_look.clock.next = self.clock.val();
        self.pf_flight.clock.next = self.clock.val();

        // Producer indexes: a doorbell's, zero on a commit (BAR writes come one at a time).
        self.rq_pi_ram.write_enable.next = self.commit_ok.val() | self.db_valid.val();
        self.rq_pi_ram.write_address.next = self.db_qp.val();
        self.rq_pi_ram.write_data.next = self.db_pi.val();
        if self.commit_ok.val() {
            self.rq_pi_ram.write_address.next = self.commit_qp.val();
            self.rq_pi_ram.write_data.next = self.zero16.val();
        }
        self.pf_pi_ram.write_enable.next = self.rq_pi_ram.write_enable.val();
        self.pf_pi_ram.write_address.next = self.rq_pi_ram.write_address.val();
        self.pf_pi_ram.write_data.next = self.rq_pi_ram.write_data.val();
        self.rq_pi_ram.read_address.next = self.rec_qp.val();
        self.rec_pi.next = self.rq_pi_ram.read_data.val();

        self.ring_word.base_lo.next = self.ring_lo.val();
        self.ring_word.base_hi.next = self.ring_hi.val();
        self.ring_word.log.next = self.ring_log.val();
        self.ring_ram.write_enable.next = self.commit_ok.val();
        self.ring_ram.write_address.next = self.commit_qp.val();
        self.ring_ram.write_data.next = self.ring_word.word.val();
        self.commit_mask.next = self.zero256.val();
        if self.commit_ok.val() {
            self.commit_mask.next = self.one256.val() << self.commit_qp.val();
        }

        // Look requests: a doorbell's first, then a taken WQE's, then a landed read's, then the
        // responder's wait. (A full queue loses the request: the wait looks again while it
        // waits.)
        if self.db_valid.val() {
            self.pend_db.d.next = true;
            self.pend_db_qp.d.next = self.db_qp.val();
        }
        self.look_room.next = (self.pf_look_tail.q.val() - self.pf_look.head.val()) != self.depth6.val();
        self.pf_push.next = self.pend_db.q.val() | self.pend_take.q.val() | self.pend_fill.q.val() | (self.waiting.val() & !self.kicked.q.val());
        self.pf_push_qp.next = self.at_qp.val();
        if self.pend_fill.q.val() {
            self.pf_push_qp.next = self.pend_fill_qp.q.val();
        }
        if self.pend_take.q.val() {
            self.pf_push_qp.next = self.pend_take_qp.q.val();
        }
        if self.pend_db.q.val() {
            self.pf_push_qp.next = self.pend_db_qp.q.val();
        }
        self.pf_look.wr_en.next = self.pf_push.val() & self.look_room.val();
        self.pf_look.wr_addr.next = self.pf_look_tail.q.val().get_bits::<5>(0);
        self.pf_look.wr_a.next = self.pf_push_qp.val();
        self.pf_look.wr_b.next = self.zero1.val();
        self.pf_look.wr_c.next = self.zero1.val();
        self.pf_look.tail.next = self.pf_look_tail.q.val();
        if self.pf_look.wr_en.val() {
            self.pf_look_tail.d.next = self.pf_look_tail.q.val() + self.one6.val();
        }
        if self.pend_db.q.val() & !self.db_valid.val() {
            self.pend_db.d.next = false;
        }
        if !self.pend_db.q.val() & self.pend_take.q.val() {
            self.pend_take.d.next = false;
        }
        if !self.pend_db.q.val() & !self.pend_take.q.val() & self.pend_fill.q.val() {
            self.pend_fill.d.next = false;
        }
        if self.waiting.val() & !self.pend_db.q.val() & !self.pend_take.q.val() & !self.pend_fill.q.val() & self.look_room.val() {
            self.kicked.d.next = true;
        }
        if self.rec_take.val() {
            self.kicked.d.next = false;
        }

        // The look: the QP's producer, fetch and taken indexes and ring, read as it is taken.
        self.pf_look.out_ready.next = (self.e_state.q.val() == self.e_idle.val()) & !self.commit_any.val();
        self.pf_pi_ram.read_address.next = self.pf_look.out_a.val();
        self.pf_fi_ram.read_address.next = self.pf_look.out_a.val();
        self.tk_ram.read_address.next = self.pf_look.out_a.val();
        self.ring_ram.read_address.next = self.pf_look.out_a.val();
        if (self.e_state.q.val() == self.e_idle.val()) & self.pf_look.out_valid.val() & !self.commit_any.val() {
            self.e_qp.d.next = self.pf_look.out_a.val();
            self.e_state.d.next = self.e_look.val();
        }
        self.e_fetching2_at.next = self.fetching2.q.val() >> self.e_qp.q.val();
        self.e_discard_at.next = self.discard.q.val() >> self.e_qp.q.val();
        self.e_in_cache.next = self.pf_fi_ram.read_data.val() - self.tk_ram.read_data.val();
        self.e_wanted.next = !self.e_fetching2_at.val().get_bit(0)
            & !self.e_discard_at.val().get_bit(0)
            & (self.pf_pi_ram.read_data.val() != self.pf_fi_ram.read_data.val())
            & (self.e_in_cache.val() < self.cache16.val());
        if self.e_state.q.val() == self.e_look.val() {
            self.e_fi.d.next = self.pf_fi_ram.read_data.val();
            self.e_base.d.next = self.ring_ram.read_data.val().get_bits::<64>(0);
            self.e_mask.d.next = (self.one16.val() << self.ring_ram.read_data.val().get_bits::<4>(64)) - self.one16.val();
            self.e_posted.d.next = self.pf_pi_ram.read_data.val() - self.pf_fi_ram.read_data.val();
            self.e_free.d.next = self.cache16.val() - self.e_in_cache.val();
            self.e_state.d.next = self.e_idle.val();
            if self.e_wanted.val() {
                self.e_state.d.next = self.e_size.val();
            }
        }
        // The read's count: the posted WQEs that fit in the free slots and before the ring's
        // end (a read never wraps).
        if self.e_state.q.val() == self.e_size.val() {
            self.e_room.d.next = (self.e_mask.q.val() + self.one16.val()) - (self.e_fi.q.val() & self.e_mask.q.val());
            self.e_n.d.next = self.e_posted.q.val();
            if self.e_free.q.val() < self.e_posted.q.val() {
                self.e_n.d.next = self.e_free.q.val();
            }
            self.e_state.d.next = self.e_cmd.val();
        }
        if (self.e_state.q.val() == self.e_cmd.val()) & (self.e_room.q.val() < self.e_n.q.val()) {
            self.e_n.d.next = self.e_room.q.val();
        }
        // The read: `e_n` WQEs at the fetch index, while there is room to remember it (a commit
        // in the same cycle goes first: it writes the fetch index too). The count is clipped to
        // the ring's end in the first cycle of `e_cmd`: the read waits for that.
        // (The room is spelled out in both uses: a local shared by a valid and the statement
        // reading its ready is a combinational loop to Verilator, see the requester.)
        self.rq_off.zero.next = self.zero5.val();
        self.rq_off.index.next = self.e_fi.q.val() & self.e_mask.q.val();
        self.rd_valid.next = (self.e_state.q.val() == self.e_cmd.val())
            & (self.e_n.q.val() <= self.e_room.q.val())
            & !self.commit_any.val()
            & ((self.pf_flight_tail.q.val() - self.pf_flight.head.val()) != self.depth6.val());
        self.rd_addr.next = self.e_base.q.val() + self.rq_off.word.val();
        self.rd_len.next = self.e_n.q.val() << self.wqe_shift.val();
        self.pf_issue.next = (self.e_state.q.val() == self.e_cmd.val())
            & (self.e_n.q.val() <= self.e_room.q.val())
            & !self.commit_any.val()
            & ((self.pf_flight_tail.q.val() - self.pf_flight.head.val()) != self.depth6.val())
            & self.rd_ready.val();
        if self.pf_issue.val() {
            self.e_state.d.next = self.e_idle.val();
            self.pf_flight_tail.d.next = self.pf_flight_tail.q.val() + self.one6.val();
        }
        // A commit of the QP being looked at ends the look (the commit empties its queue).
        if self.commit_ok.val() & (self.commit_qp.val() == self.e_qp.q.val()) & (self.e_state.q.val() != self.e_idle.val()) {
            self.e_state.d.next = self.e_idle.val();
        }
        self.pf_flight.wr_en.next = self.pf_issue.val();
        self.pf_flight.wr_addr.next = self.pf_flight_tail.q.val().get_bits::<5>(0);
        self.pf_flight.wr_a.next = self.e_qp.q.val();
        self.pf_flight.wr_b.next = self.e_fi.q.val();
        self.pf_flight.wr_c.next = self.e_n.q.val();
        self.pf_flight.tail.next = self.pf_flight_tail.q.val();
        self.pf_fi_ram.write_enable.next = self.pf_issue.val() | self.commit_ok.val();
        self.pf_fi_ram.write_address.next = self.e_qp.q.val();
        self.pf_fi_ram.write_data.next = self.e_fi.q.val() + self.e_n.q.val();
        if self.commit_ok.val() {
            self.pf_fi_ram.write_address.next = self.commit_qp.val();
            self.pf_fi_ram.write_data.next = self.zero16.val();
        }

        // Fill: the read at the flight queue's head returns its WQEs two to a beat; one is
        // written per cycle (the beat is taken with its second, or with the read's last). Not
        // in a commit's cycle: the commit writes the landed index.
        self.fill_last.next = (self.f_k.q.val() + self.one16.val()) == self.pf_flight.out_c.val();
        self.rdd_ready.next = self.pf_flight.out_valid.val() & !self.commit_any.val() & (self.f_k.q.val().get_bit(0) | self.fill_last.val());
        self.pf_fill.next = self.rdd_valid.val() & self.pf_flight.out_valid.val() & !self.commit_any.val();
        self.pf_flight.out_ready.next = self.pf_fill.val() & self.fill_last.val();
        if self.pf_fill.val() {
            self.f_k.d.next = self.f_k.q.val() + self.one16.val();
            if self.fill_last.val() {
                self.f_k.d.next = self.zero16.val();
            }
        }
        self.fill_wqe.next = self.rdd_data.val().get_bits::<256>(0);
        if self.f_k.q.val().get_bit(0) {
            self.fill_wqe.next = self.rdd_data.val().get_bits::<256>(256);
        }
        self.cached_word.addr.next = self.fill_wqe.val().get_bits::<64>(self.w_addr_at.val().index());
        self.cached_word.len.next = self.fill_wqe.val().get_bits::<32>(self.w_len_at.val().index());
        self.cached_word.lkey.next = self.fill_wqe.val().get_bits::<32>(self.w_lkey_at.val().index());
        self.fill_index.next = self.pf_flight.out_b.val() + self.f_k.q.val();
        self.fill_slot.slot.next = self.fill_index.val().get_bits::<RQ_CACHE_BITS>(0);
        self.fill_slot.qp.next = self.pf_flight.out_a.val();
        self.fill_discard_at.next = self.discard.q.val() >> self.pf_flight.out_a.val();
        self.keep_fill.next = self.pf_fill.val() & !self.fill_discard_at.val().get_bit(0);
        self.wqe_ram.write_enable.next = self.keep_fill.val();
        self.wqe_ram.write_address.next = self.fill_slot.word.val();
        self.wqe_ram.write_data.next = self.cached_word.word.val();
        self.li_ram.write_enable.next = (self.keep_fill.val() & self.fill_last.val()) | self.commit_ok.val();
        self.li_ram.write_address.next = self.pf_flight.out_a.val();
        self.li_ram.write_data.next = self.fill_index.val() + self.one16.val();
        if self.commit_ok.val() {
            self.li_ram.write_address.next = self.commit_qp.val();
            self.li_ram.write_data.next = self.zero16.val();
        }
        self.fill_mask.next = self.zero256.val();
        if self.pf_fill.val() & self.fill_last.val() {
            self.fill_mask.next = self.one256.val() << self.pf_flight.out_a.val();
            self.pend_fill.d.next = true;
            self.pend_fill_qp.d.next = self.pf_flight.out_a.val();
        }
        self.set_broken.next = self.zero256.val();
        if self.keep_fill.val() & self.fill_last.val() & self.rdd_error.val() {
            self.set_broken.next = self.fill_mask.val();
        }
        // A thrown-away fill lets the responder ask again: the read it waited on was the old
        // QP's.
        if self.pf_fill.val() & self.fill_last.val() & !self.keep_fill.val() {
            self.kicked.d.next = false;
        }

        // The WQE at the responder's consumer index: landed when the landed index is past it.
        self.at_slot.slot.next = self.at_ci.val().get_bits::<RQ_CACHE_BITS>(0);
        self.at_slot.qp.next = self.at_qp.val();
        self.wqe_ram.read_address.next = self.at_slot.word.val();
        self.li_ram.read_address.next = self.at_qp.val();
        self.at_cached.next = self.li_ram.read_data.val() != self.at_ci.val();
        self.wqe_addr.next = self.wqe_ram.read_data.val().get_bits::<64>(0);
        self.wqe_len.next = self.wqe_ram.read_data.val().get_bits::<32>(64);
        self.wqe_lkey.next = self.wqe_ram.read_data.val().get_bits::<32>(96);
        self.at_broken_at.next = self.broken.q.val() >> self.at_qp.val();
        self.wqe_error.next = self.at_broken_at.val().get_bit(0);
        // Taken: the taken index moves past it (zero on a commit, which goes first).
        self.tk_ram.write_enable.next = self.take.val() | self.commit_ok.val();
        self.tk_ram.write_address.next = self.at_qp.val();
        self.tk_ram.write_data.next = self.at_ci.val() + self.one16.val();
        if self.commit_ok.val() {
            self.tk_ram.write_address.next = self.commit_qp.val();
            self.tk_ram.write_data.next = self.zero16.val();
        }
        if self.take.val() {
            self.pend_take.d.next = true;
            self.pend_take_qp.d.next = self.at_qp.val();
        }

        // The per-QP bits: reads in flight (one, two) from issue to last WQE; a commit then
        // marks their fills to be thrown away, until the last has landed; a failed read breaks
        // the ring until the next commit.
        self.set_fetching.next = self.zero256.val();
        if self.pf_issue.val() {
            self.set_fetching.next = self.one256.val() << self.e_qp.q.val();
        }
        // (Counts of 0, 1 or 2 reads per QP: an issue and a landing of one QP in one cycle
        // leave its count; a commit leaves the reads counted until they land.)
        self.last_mask.next = self.fill_mask.val() & !self.fetching2.q.val() & !self.set_fetching.val();
        self.fetching2.d.next = (self.fetching2.q.val() & !(self.fill_mask.val() & !self.set_fetching.val()))
            | (self.set_fetching.val() & self.fetching.q.val() & !self.fill_mask.val());
        self.fetching.d.next = (self.fetching.q.val() & !self.last_mask.val()) | self.set_fetching.val();
        self.discard.d.next = (self.discard.q.val() | (self.commit_mask.val() & self.fetching.q.val())) & !self.last_mask.val();
        self.broken.d.next = (self.broken.q.val() | self.set_broken.val()) & !self.commit_mask.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cached_wqe_slices_are_where_update_reads_them() {
        let f = |name| crate::pack::field_at::<8>(CachedWqe::FIELDS, name, 0).val().index();
        assert_eq!((f("addr"), f("len"), f("lkey")), (0, 64, 96));
    }

    #[test]
    fn a_slot_address_is_the_qp_above_the_index_mod_the_cache() {
        assert_eq!(SlotAddr::FIELDS, &[("slot", RQ_CACHE_BITS), ("qp", QP_SLOT_BITS)]);
    }
}
