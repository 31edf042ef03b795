//! The atomic unit: executes COMPARE & SWAP and FETCH & ADD requests for `ResponseTx` as a
//! read-modify-write of eight bytes of host memory (read, compute, write, wait for the host's
//! write response), one at a time — so no other atomic on the card interleaves with it — and
//! keeps each QP's last `SAVED` results (PSN, MSN, original value): a duplicate atomic request
//! is answered from them and never executed twice (IBTA Vol 1 §9.7.5.1.2). A duplicate whose
//! result is no longer kept is not answered (as rxe; the requester's retry gives up).
//! The reference model is `rnic_spec::responder` (`AtomicOp`, `RspState::executed`).
//!
//! A QP commit forgets the QP's saved results; a job whose QP is committed while it runs
//! still finishes (its request was accepted before) but saves nothing for the new QP.
//! Host memory is little-endian (the x86 and Arm hosts the card serves): the eight bytes at
//! the address are read back as beat bits 63..0.

use crate::pack_word;
use crate::stream::c;
use rnic_spec::regs::QP_SLOT_BITS;
use rust_hdl::prelude::*;

/// Results kept per QP (a power of two): as many as the READ / atomic requests a requester
/// may have outstanding (`rnic_spec::qp::RD_SLOTS`).
pub const SAVED_LOG: usize = 3;
const _: () = assert!(rnic_spec::qp::RD_SLOTS == 1 << SAVED_LOG);

pack_word! {
    /// A saved result: the request's PSN, the MSN its acknowledge carried, the original value.
    lsb_first Saved: 112 { psn: 24, msn: 24, orig: 64 }
}
pack_word! { lsb_first SavedAddr: 11 { slot: 3, qp: 8 } }
pack_word! { lsb_first Beat64: 512 { value: 64 } }
pack_word! {
    /// A QP's saved results: the slot the next one goes to, and how many are kept (0 … 8).
    lsb_first SavedCount: 7 { slot: 3, n: 4 }
}

const A_IDLE: u64 = 0;
/// The QP's count is being read.
const A_COUNT: u64 = 1;
/// A duplicate: the saved results are read newest first (address, then data).
const A_SCAN: u64 = 2;
const A_READ_WAIT: u64 = 4;
const A_WRITE: u64 = 5;
const A_WRITE_DATA: u64 = 6;
const A_WRITE_WAIT: u64 = 7;
const A_SAVE: u64 = 8;
const A_DONE: u64 = 9;

crate::hdl_block! {
    pub struct AtomicUnit {
        pub clock: Signal<In, Clock>,
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<QP_SLOT_BITS>>,
        /// A job (one cycle, while idle: the owner waits for `done`): QP slot, PSN, MSN, address, CmpSwap (else
        /// FetchAdd), the swap value or addend, the compare value; `dup`: answer from the
        /// saved results instead.
        pub go: Signal<In, Bit>,
        pub go_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub go_psn: Signal<In, Bits<24>>,
        pub go_msn: Signal<In, Bits<24>>,
        pub go_va: Signal<In, Bits<64>>,
        pub go_cas: Signal<In, Bit>,
        pub go_value: Signal<In, Bits<64>>,
        pub go_compare: Signal<In, Bits<64>>,
        pub go_dup: Signal<In, Bit>,
        /// The job's end (one cycle): `answer` an ATOMIC Acknowledge with `msn` and `orig`, or
        /// (`error`) the host read failed, or neither (a duplicate whose result is gone).
        pub done: Signal<Out, Bit>,
        pub answer: Signal<Out, Bit>,
        pub error: Signal<Out, Bit>,
        pub msn: Signal<Out, Bits<24>>,
        pub orig: Signal<Out, Bits<64>>,
        /// DMA: the beat of the job's 8-byte read (the owner issues the read as it starts a
        /// new job: a read command driven from here would loop through the read arbiter) and
        /// one 8-byte write per executed job.
        pub rdd_valid: Signal<In, Bit>,
        pub rdd_data: Signal<In, Bits<64>>,
        pub rdd_error: Signal<In, Bit>,
        pub wr_valid: Signal<Out, Bit>,
        pub wr_ready: Signal<In, Bit>,
        pub wr_addr: Signal<Out, Bits<64>>,
        pub wr_len: Signal<Out, Bits<16>>,
        pub wd_valid: Signal<Out, Bit>,
        pub wd_ready: Signal<In, Bit>,
        pub wd_data: Signal<Out, Bits<512>>,
        pub wr_done: Signal<In, Bit>,
        /// Atomics executed, duplicates answered from a saved result, duplicates not answered.
        pub executed: Signal<Out, Bits<32>>,
        pub replayed: Signal<Out, Bits<32>>,
        pub unanswered: Signal<Out, Bits<32>>,

        saved: RAM<Bits<112>, 11>,
        counts: RAM<Bits<7>, QP_SLOT_BITS>,
        saved_word: Saved,
        saved_at: SavedAddr,
        save_at: SavedAddr,
        new_beat: Beat64,
        count_word: SavedCount,
        state: DFF<Bits<4>>,
        j_qp: DFF<Bits<QP_SLOT_BITS>>,
        j_psn: DFF<Bits<24>>,
        j_msn: DFF<Bits<24>>,
        j_va: DFF<Bits<64>>,
        j_cas: DFF<Bit>,
        j_value: DFF<Bits<64>>,
        j_compare: DFF<Bits<64>>,
        j_dup: DFF<Bit>,
        /// The job's QP was committed since the job began: nothing is saved for it.
        j_stale: DFF<Bit>,
        j_orig: DFF<Bits<64>>,
        j_new: DFF<Bits<64>>,
        j_answer: DFF<Bit>,
        j_error: DFF<Bit>,
        /// The QP's count as read, and the scan's position (saved results looked at).
        c_next: DFF<Bits<3>>,
        c_n: DFF<Bits<4>>,
        scan_k: DFF<Bits<4>>,
        scan_data: DFF<Bit>,
        n_executed: DFF<Bits<32>>,
        n_replayed: DFF<Bits<32>>,
        n_unanswered: DFF<Bits<32>>,

        k_count: Signal<Local, Bits<7>>,
        k_saved: Signal<Local, Bits<112>>,
        commit_ok: Signal<Local, Bit>,
        commit_qp: Signal<Local, Bits<QP_SLOT_BITS>>,
        old: Signal<Local, Bits<64>>,
        a_idle: Constant<Bits<4>> = c::<4>(A_IDLE),
        a_count: Constant<Bits<4>> = c::<4>(A_COUNT),
        a_scan: Constant<Bits<4>> = c::<4>(A_SCAN),
        a_read_wait: Constant<Bits<4>> = c::<4>(A_READ_WAIT),
        a_write: Constant<Bits<4>> = c::<4>(A_WRITE),
        a_write_data: Constant<Bits<4>> = c::<4>(A_WRITE_DATA),
        a_write_wait: Constant<Bits<4>> = c::<4>(A_WRITE_WAIT),
        a_save: Constant<Bits<4>> = c::<4>(A_SAVE),
        a_done: Constant<Bits<4>> = c::<4>(A_DONE),
        eight16: Constant<Bits<16>> = c::<16>(8),
        zero7: Constant<Bits<7>> = c::<7>(0),
        zero4: Constant<Bits<4>> = c::<4>(0),
        one3: Constant<Bits<3>> = c::<3>(1),
        one4: Constant<Bits<4>> = c::<4>(1),
        full4: Constant<Bits<4>> = c::<4>(1 << SAVED_LOG),
        one32: Constant<Bits<32>> = c::<32>(1),
        psn_at: Constant<Bits<7>> = c::<7>(0),
        msn_at: Constant<Bits<7>> = c::<7>(24),
        orig_at: Constant<Bits<7>> = c::<7>(48),
        slot_at: Constant<Bits<3>> = c::<3>(0),
        n_at: Constant<Bits<3>> = c::<3>(3),
    }
}

impl Logic for AtomicUnit {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, j_qp, j_psn, j_msn, j_va, j_cas, j_value, j_compare, j_dup, j_stale, j_orig, j_new, j_answer, j_error, c_next, c_n,
            scan_k, scan_data, n_executed, n_replayed, n_unanswered
        );
        self.saved.read_clock.next = self.clock.val();
        self.saved.write_clock.next = self.clock.val();
        self.counts.read_clock.next = self.clock.val();
        self.counts.write_clock.next = self.clock.val();
        self.commit_ok.next = self.qp_commit_valid.val();
        self.commit_qp.next = self.qp_commit.val();
        if self.commit_ok.val() & (self.commit_qp.val() == self.j_qp.q.val()) & (self.state.q.val() != self.a_idle.val()) {
            self.j_stale.d.next = true;
        }

        if (self.state.q.val() == self.a_idle.val()) & self.go.val() {
            self.state.d.next = self.a_count.val();
            self.j_qp.d.next = self.go_qp.val();
            self.j_psn.d.next = self.go_psn.val();
            self.j_msn.d.next = self.go_msn.val();
            self.j_va.d.next = self.go_va.val();
            self.j_cas.d.next = self.go_cas.val();
            self.j_value.d.next = self.go_value.val();
            self.j_compare.d.next = self.go_compare.val();
            self.j_dup.d.next = self.go_dup.val();
            self.j_stale.d.next = false;
            self.j_answer.d.next = false;
            self.j_error.d.next = false;
        }
        // (Read with the job's arrival: the count is there in A_COUNT.)
        self.counts.read_address.next = self.j_qp.q.val();
        if self.state.q.val() == self.a_idle.val() {
            self.counts.read_address.next = self.go_qp.val();
        }
        self.k_count.next = self.counts.read_data.val();
        if self.state.q.val() == self.a_count.val() {
            self.c_next.d.next = self.k_count.val().get_bits::<3>(self.slot_at.val().index());
            self.c_n.d.next = self.k_count.val().get_bits::<4>(self.n_at.val().index());
            self.scan_k.d.next = self.zero4.val();
            self.scan_data.d.next = false;
            self.state.d.next = self.a_read_wait.val();
            if self.j_dup.q.val() {
                self.state.d.next = self.a_scan.val();
            }
        }

        // A duplicate: saved results newest first, one address per two cycles.
        self.saved_at.qp.next = self.j_qp.q.val();
        self.saved_at.slot.next = self.c_next.q.val() - self.one3.val() - self.scan_k.q.val().get_bits::<3>(0);
        self.saved.read_address.next = self.saved_at.word.val();
        self.k_saved.next = self.saved.read_data.val();
        if self.state.q.val() == self.a_scan.val() {
            self.scan_data.d.next = !self.scan_data.q.val();
            if !self.scan_data.q.val() & (self.scan_k.q.val() == self.c_n.q.val()) {
                self.state.d.next = self.a_done.val();
                self.n_unanswered.d.next = self.n_unanswered.q.val() + self.one32.val();
            }
            if self.scan_data.q.val() {
                self.scan_k.d.next = self.scan_k.q.val() + self.one4.val();
                if self.k_saved.val().get_bits::<24>(self.psn_at.val().index()) == self.j_psn.q.val() {
                    self.state.d.next = self.a_done.val();
                    self.j_answer.d.next = true;
                    self.j_msn.d.next = self.k_saved.val().get_bits::<24>(self.msn_at.val().index());
                    self.j_orig.d.next = self.k_saved.val().get_bits::<64>(self.orig_at.val().index());
                    self.n_replayed.d.next = self.n_replayed.q.val() + self.one32.val();
                }
            }
        }

        // A new request: read, compute, write, and wait for the host's write response (so
        // the next atomic reads what this one wrote).
        self.old.next = self.rdd_data.val();
        if (self.state.q.val() == self.a_read_wait.val()) & self.rdd_valid.val() {
            self.j_orig.d.next = self.old.val();
            self.j_new.d.next = self.old.val() + self.j_value.q.val();
            if self.j_cas.q.val() {
                self.j_new.d.next = self.old.val();
                if self.old.val() == self.j_compare.q.val() {
                    self.j_new.d.next = self.j_value.q.val();
                }
            }
            self.state.d.next = self.a_write.val();
            if self.rdd_error.val() {
                self.j_error.d.next = true;
                self.state.d.next = self.a_done.val();
            }
        }
        self.wr_valid.next = self.state.q.val() == self.a_write.val();
        self.wr_addr.next = self.j_va.q.val();
        self.wr_len.next = self.eight16.val();
        if (self.state.q.val() == self.a_write.val()) & self.wr_ready.val() {
            self.state.d.next = self.a_write_data.val();
        }
        self.wd_valid.next = self.state.q.val() == self.a_write_data.val();
        self.new_beat.value.next = self.j_new.q.val();
        self.wd_data.next = self.new_beat.word.val();
        if (self.state.q.val() == self.a_write_data.val()) & self.wd_ready.val() {
            self.state.d.next = self.a_write_wait.val();
        }
        if (self.state.q.val() == self.a_write_wait.val()) & self.wr_done.val() {
            self.state.d.next = self.a_save.val();
            self.j_answer.d.next = true;
            self.n_executed.d.next = self.n_executed.q.val() + self.one32.val();
        }

        // Save the result (a commit's clear of the counts goes first: the save waits a cycle).
        self.saved_word.psn.next = self.j_psn.q.val();
        self.saved_word.msn.next = self.j_msn.q.val();
        self.saved_word.orig.next = self.j_orig.q.val();
        self.save_at.qp.next = self.j_qp.q.val();
        self.save_at.slot.next = self.c_next.q.val();
        self.saved.write_address.next = self.save_at.word.val();
        self.saved.write_data.next = self.saved_word.word.val();
        self.saved.write_enable.next = false;
        self.count_word.slot.next = self.c_next.q.val() + self.one3.val();
        self.count_word.n.next = self.c_n.q.val() + self.one4.val();
        if self.c_n.q.val() == self.full4.val() {
            self.count_word.n.next = self.c_n.q.val();
        }
        self.counts.write_address.next = self.j_qp.q.val();
        self.counts.write_data.next = self.count_word.word.val();
        self.counts.write_enable.next = false;
        if (self.state.q.val() == self.a_save.val()) & !self.commit_ok.val() {
            self.state.d.next = self.a_done.val();
            if !self.j_stale.q.val() {
                self.saved.write_enable.next = true;
                self.counts.write_enable.next = true;
            }
        }
        if self.commit_ok.val() {
            self.counts.write_address.next = self.commit_qp.val();
            self.counts.write_data.next = self.zero7.val();
            self.counts.write_enable.next = true;
        }

        self.done.next = self.state.q.val() == self.a_done.val();
        self.answer.next = self.j_answer.q.val();
        self.error.next = self.j_error.q.val();
        self.msn.next = self.j_msn.q.val();
        self.orig.next = self.j_orig.q.val();
        if self.state.q.val() == self.a_done.val() {
            self.state.d.next = self.a_idle.val();
        }
        self.executed.next = self.n_executed.q.val();
        self.replayed.next = self.n_replayed.q.val();
        self.unanswered.next = self.n_unanswered.q.val();
    }
}
