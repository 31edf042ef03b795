//! The RDMA READs each send queue has outstanding: the requester appends one entry per new
//! READ it sends (where its responses go, and their PSNs); the responder places the responses
//! into the oldest entry's buffer and, after its last response, pops it. Per QP a ring of
//! `RD_SLOTS` entries, its tail kept here for the responder (the requester's own copy is in
//! its send-queue state) and its head here for the requester (the responder's own copy is in
//! its QP state): the requester sends no new READ while `max_rd_atomic` are outstanding.
//! A QP commit empties the QP's ring. The pointer RAMs have one write port each: an append or
//! a pop that meets another QP's commit waits a cycle in a register (BAR writes, hence
//! commits, are at least three cycles apart; appends and pops are several cycles apart), and
//! one for the QP being committed is dropped (it was the old QP's).

use crate::pack_word;
use crate::stream::c;
use rnic_spec::regs::QP_SLOT_BITS;
use rust_hdl::prelude::*;

/// Ring index bits: a slot (3 bits for `RD_SLOTS` = 8) and a wrap bit.
pub const RD_PTR: usize = 4;
/// Address bits of an entry: QP and slot.
pub const RD_ADDR: usize = QP_SLOT_BITS + 3;
const _: () = assert!(rnic_spec::qp::RD_SLOTS == 8);

pack_word! {
    /// An outstanding READ or atomic (`atomic`: answered by one ATOMIC Acknowledge, whose
    /// original value fills the 8-byte buffer): its local buffer (`len` bytes at `laddr` under
    /// `lkey`), its first PSN and the PSN after its last response.
    lsb_first ReadEntry: 177 { laddr: 64, len: 32, lkey: 32, psn: 24, end_psn: 24, atomic: 1 }
}
pack_word! { lsb_first EntryAddr: 11 { slot: 3, qp: 8 } }

/// Bit offset of a `ReadEntry` field.
pub fn entry_at(name: &str) -> Constant<Bits<8>> {
    crate::pack::field_at(ReadEntry::FIELDS, name, 0)
}

crate::hdl_block! {
    pub struct ReadTable {
        pub clock: Signal<In, Clock>,
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<32>>,
        /// The requester appends `ap_entry` at its ring index `ap_tail`, which moves to `ap_tail + 1`.
        pub ap_valid: Signal<In, Bit>,
        pub ap_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub ap_tail: Signal<In, Bits<RD_PTR>>,
        pub ap_entry: Signal<In, Bits<177>>,
        /// The responder popped the QP's oldest entry: its head is now `pop_head`.
        pub pop_valid: Signal<In, Bit>,
        pub pop_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub pop_head: Signal<In, Bits<RD_PTR>>,
        /// Reads (data one cycle after the address): the responder's tail and entry, the
        /// requester's head.
        pub rsp_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub rsp_tail: Signal<Out, Bits<RD_PTR>>,
        pub rsp_slot_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub rsp_slot: Signal<In, Bits<3>>,
        pub rsp_entry: Signal<Out, Bits<177>>,
        pub req_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub req_head: Signal<Out, Bits<RD_PTR>>,

        entries: RAM<Bits<177>, RD_ADDR>,
        tails: RAM<Bits<RD_PTR>, QP_SLOT_BITS>,
        heads: RAM<Bits<RD_PTR>, QP_SLOT_BITS>,
        wr_addr: EntryAddr,
        rd_addr: EntryAddr,
        commit_ok: Signal<Local, Bit>,
        commit_qp: Signal<Local, Bits<QP_SLOT_BITS>>,
        /// Pointer writes waiting for a commit's cycle to pass.
        ap_wait: DFF<Bit>,
        ap_wait_qp: DFF<Bits<QP_SLOT_BITS>>,
        ap_wait_tail: DFF<Bits<RD_PTR>>,
        pop_wait: DFF<Bit>,
        pop_wait_qp: DFF<Bits<QP_SLOT_BITS>>,
        pop_wait_head: DFF<Bits<RD_PTR>>,
        one_ptr: Constant<Bits<RD_PTR>> = c::<RD_PTR>(1),
        zero24: Constant<Bits<24>> = c::<24>(0),
        zero_ptr: Constant<Bits<RD_PTR>> = c::<RD_PTR>(0),
    }
}

impl Logic for ReadTable {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, ap_wait, ap_wait_qp, ap_wait_tail, pop_wait, pop_wait_qp, pop_wait_head);
        self.entries.read_clock.next = self.clock.val();
        self.entries.write_clock.next = self.clock.val();
        self.tails.read_clock.next = self.clock.val();
        self.tails.write_clock.next = self.clock.val();
        self.heads.read_clock.next = self.clock.val();
        self.heads.write_clock.next = self.clock.val();
        self.commit_ok.next = self.qp_commit_valid.val() & (self.qp_commit.val().get_bits::<24>(8) == self.zero24.val());
        self.commit_qp.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.wr_addr.qp.next = self.ap_qp.val();
        self.wr_addr.slot.next = self.ap_tail.val().get_bits::<3>(0);
        self.entries.write_enable.next = self.ap_valid.val();
        self.entries.write_address.next = self.wr_addr.word.val();
        self.entries.write_data.next = self.ap_entry.val();
        // Tails: a commit, else a waiting append, else a new one (which waits if it meets
        // either; one for the QP being committed is dropped).
        self.tails.write_enable.next = self.commit_ok.val() | self.ap_wait.q.val() | self.ap_valid.val();
        self.tails.write_address.next = self.ap_qp.val();
        self.tails.write_data.next = self.ap_tail.val() + self.one_ptr.val();
        if self.ap_wait.q.val() {
            self.tails.write_address.next = self.ap_wait_qp.q.val();
            self.tails.write_data.next = self.ap_wait_tail.q.val();
            self.ap_wait.d.next = false;
        }
        if self.commit_ok.val() {
            self.tails.write_address.next = self.commit_qp.val();
            self.tails.write_data.next = self.zero_ptr.val();
            if self.ap_wait.q.val() & (self.ap_wait_qp.q.val() != self.commit_qp.val()) {
                self.ap_wait.d.next = true;
            }
        }
        if self.ap_valid.val() & (self.commit_ok.val() | self.ap_wait.q.val()) & !(self.commit_ok.val() & (self.ap_qp.val() == self.commit_qp.val())) {
            self.ap_wait.d.next = true;
            self.ap_wait_qp.d.next = self.ap_qp.val();
            self.ap_wait_tail.d.next = self.ap_tail.val() + self.one_ptr.val();
        }
        // Heads: the same.
        self.heads.write_enable.next = self.commit_ok.val() | self.pop_wait.q.val() | self.pop_valid.val();
        self.heads.write_address.next = self.pop_qp.val();
        self.heads.write_data.next = self.pop_head.val();
        if self.pop_wait.q.val() {
            self.heads.write_address.next = self.pop_wait_qp.q.val();
            self.heads.write_data.next = self.pop_wait_head.q.val();
            self.pop_wait.d.next = false;
        }
        if self.commit_ok.val() {
            self.heads.write_address.next = self.commit_qp.val();
            self.heads.write_data.next = self.zero_ptr.val();
            if self.pop_wait.q.val() & (self.pop_wait_qp.q.val() != self.commit_qp.val()) {
                self.pop_wait.d.next = true;
            }
        }
        if self.pop_valid.val() & (self.commit_ok.val() | self.pop_wait.q.val()) & !(self.commit_ok.val() & (self.pop_qp.val() == self.commit_qp.val())) {
            self.pop_wait.d.next = true;
            self.pop_wait_qp.d.next = self.pop_qp.val();
            self.pop_wait_head.d.next = self.pop_head.val();
        }
        self.tails.read_address.next = self.rsp_qp.val();
        self.rsp_tail.next = self.tails.read_data.val();
        self.rd_addr.qp.next = self.rsp_slot_qp.val();
        self.rd_addr.slot.next = self.rsp_slot.val();
        self.entries.read_address.next = self.rd_addr.word.val();
        self.rsp_entry.next = self.entries.read_data.val();
        self.heads.read_address.next = self.req_qp.val();
        self.req_head.next = self.heads.read_data.val();
    }
}
