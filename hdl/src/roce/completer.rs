//! The completer: acknowledges for this card's requests in, send completions out — CQEs
//! written into the send queue's completion ring in host memory, with the phase bit.
//!
//! An ACK carries the responder's MSN, the count of messages it has finished; every WQE the
//! requester sent and the MSN now covers completes successfully, in order. A NAK for an
//! invalid request or a remote access error completes the oldest outstanding WQE with that
//! error and marks the QP broken: later acknowledges for it are dropped (`unexpected`), as are
//! acknowledges that cover more than was sent. Sequence NAKs and RNR NAKs complete nothing
//! (retransmission is not built yet). CQEs name the WQE by its send-queue index; the driver
//! knows the rest. The reference is `rnic_spec::completer`.
//!
//! WQEs the requester refused or flushed are reported in order with the sent ones: the first
//! error is recorded for the QP, and once every WQE before it has completed, it and every WQE
//! after it complete with their error (the first) or `Flushed` (the rest), in order.
//!
//! A CQE is written only while the ring has room: software returns entries with the CQ's
//! consumer-index doorbell, and a CQE that would overwrite one not yet consumed is dropped and
//! counted (`cq_overflows`: the CQ overflowed, a software error; the WQE still counts as
//! completed, so later completions keep their order).
//!
//! Receive completions come from the responder whole (index, byte count, immediate, status)
//! and go into the QP's receive CQ; acknowledges go first when both wait.

use crate::pack_word;
use crate::ram_fifo::RamFifo;
use crate::stream::c;
use rnic_spec::desc::CqStatus;
use rnic_spec::regs::{CQ_SLOT_BITS, QP_SLOT_BITS};
use rust_hdl::prelude::*;

pack_word! {
    /// A CQE as the DMA write engine takes it (byte 0 in bits 7:0; `rnic_spec::desc::Cqe`).
    lsb_first CqeBeat: 512 {
        wr_id: 64, byte_len: 32, imm: 32, qpn: 8, qpn_hi: 24, op: 8, status: 8, flags: 8, pad0: 8,
        wqe_index: 16, pad1: 40, owner: 8,
    }
}
pack_word! {
    /// A QP's completion state: next index to complete, MSN covered, broken by a NAK, and the
    /// first local error (its index and status).
    lsb_first DoneWord: 66 { idx: 16, msn: 24, broken: 1, e_valid: 1, e_from: 16, e_status: 8 }
}
pack_word! { lsb_first CqWord: 68 { base: 64, log: 4 } }
pack_word! {
    /// A QP's completion queues: send and receive.
    lsb_first QpCqs: 16 { send: 8, recv: 8 }
}
pack_word! { lsb_first CqOffset: 64 { zero: 5, index: 16 } }
pack_word! { lsb_first Owner8: 8 { flag: 1 } }

const C_IDLE: u64 = 0;
const C_LOAD: u64 = 1;
const C_LOAD_CQ: u64 = 2;
const C_DECIDE: u64 = 3;
const C_CQE: u64 = 4;
const C_STORE: u64 = 5;
const C_R_LOAD: u64 = 6;
const C_ERRS: u64 = 7;

crate::hdl_block! {
    pub struct Completer {
        pub clock: Signal<In, Clock>,
        /// `qp.commit` (the QP's state restarts) and its send CQ from the staged words.
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<32>>,
        pub qp_send_cq: Signal<In, Bits<32>>,
        pub qp_recv_cq: Signal<In, Bits<32>>,
        /// `cq.commit` with the staged ring.
        pub cq_commit_valid: Signal<In, Bit>,
        pub cq_commit: Signal<In, Bits<32>>,
        pub cq_base: Signal<In, Bits<64>>,
        pub cq_log_size: Signal<In, Bits<32>>,
        /// `doorbell.cq`: a CQ's new consumer index.
        pub cq_doorbell_valid: Signal<In, Bit>,
        pub cq_doorbell: Signal<In, Bits<32>>,
        /// The requester sent a WQE (its last packet is out) on this QP.
        pub sent_valid: Signal<In, Bit>,
        pub sent_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        /// The requester refused or flushed a WQE of `sent_qp` (taken when `err_ready`).
        pub err_valid: Signal<In, Bit>,
        pub err_ready: Signal<Out, Bit>,
        pub err_status: Signal<In, Bits<8>>,
        /// Acknowledges from the responder's path.
        pub ack_valid: Signal<In, Bit>,
        pub ack_ready: Signal<Out, Bit>,
        pub ack_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub ack_syndrome: Signal<In, Bits<8>>,
        pub ack_msn: Signal<In, Bits<24>>,
        /// Receive completions from the responder.
        pub rc_valid: Signal<In, Bit>,
        pub rc_ready: Signal<Out, Bit>,
        pub rc_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub rc_index: Signal<In, Bits<16>>,
        pub rc_len: Signal<In, Bits<32>>,
        pub rc_imm: Signal<In, Bits<32>>,
        pub rc_op: Signal<In, Bits<8>>,
        pub rc_status: Signal<In, Bits<8>>,
        pub rc_flags: Signal<In, Bits<8>>,
        /// CQE writes (a `DmaWrite` command of 32 bytes and its one beat).
        pub wr_valid: Signal<Out, Bit>,
        pub wr_ready: Signal<In, Bit>,
        pub wr_addr: Signal<Out, Bits<64>>,
        pub wd_valid: Signal<Out, Bit>,
        pub wd_ready: Signal<In, Bit>,
        pub wd_data: Signal<Out, Bits<512>>,
        pub acks: Signal<Out, Bits<32>>,
        pub naks: Signal<Out, Bits<32>>,
        pub cqes: Signal<Out, Bits<32>>,
        pub unexpected: Signal<Out, Bits<32>>,
        pub cq_overflows: Signal<Out, Bits<32>>,

        /// Per QP: WQEs sent (written on `sent`), completed / covered MSN / broken (the FSM).
        sent_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        /// The same counts, read by the FSM (a RAM has one read port).
        sent_copy: RAM<Bits<16>, QP_SLOT_BITS>,
        done_ram: RAM<Bits<66>, QP_SLOT_BITS>,
        /// Refused WQEs for the FSM: QP, send-queue index, status.
        local_q: RamFifo<6, 5, QP_SLOT_BITS, 16, 8>,
        local_tail: DFF<Bits<6>>,
        s_status: DFF<Bits<8>>,
        is_local: DFF<Bit>,
        l_idx: DFF<Bits<16>>,
        l_status: DFF<Bits<8>>,
        e_valid: DFF<Bit>,
        e_from: DFF<Bits<16>>,
        e_status: DFF<Bits<8>>,
        c_errs: Constant<Bits<3>> = c::<3>(C_ERRS),
        one6: Constant<Bits<6>> = c::<6>(1),
        depth6: Constant<Bits<6>> = c::<6>(32),
        half16: Constant<Bits<16>> = c::<16>(0x8000),
        st_flushed: Constant<Bits<8>> = c::<8>(CqStatus::Flushed as u64),
        err_take: Signal<Local, Bit>,
        errs_left: Signal<Local, Bit>,
        cq_of: RAM<Bits<16>, QP_SLOT_BITS>,
        qp_cqs: QpCqs,
        cq_ram: RAM<Bits<68>, CQ_SLOT_BITS>,
        pi_ram: RAM<Bits<16>, CQ_SLOT_BITS>,
        /// Consumer indexes, written by `doorbell.cq`.
        ci_ram: RAM<Bits<16>, CQ_SLOT_BITS>,
        /// The previous cycle's doorbell (the RAM read in that cycle did not see it).
        db_last: DFF<Bit>,
        db_last_cq: DFF<Bits<CQ_SLOT_BITS>>,
        db_last_ci: DFF<Bits<16>>,
        ci: DFF<Bits<16>>,
        cq_size: DFF<Bits<16>>,
        n_overflows: DFF<Bits<32>>,
        db_ok: Signal<Local, Bit>,
        cq_drop: Signal<Local, Bit>,
        /// Sent events wait here for their read-modify-write of `sent_ram`.
        sent_q: RamFifo<5, 4, QP_SLOT_BITS, 1, 1>,
        sent_tail: DFF<Bits<5>>,
        s_busy: DFF<Bit>,
        s_qp: DFF<Bits<QP_SLOT_BITS>>,
        done_commit: DoneWord,
        done_back: DoneWord,
        cq_word: CqWord,
        cq_off: CqOffset,
        cqe: CqeBeat,
        owner8: Owner8,

        c_idle: Constant<Bits<3>> = c::<3>(C_IDLE),
        c_load: Constant<Bits<3>> = c::<3>(C_LOAD),
        c_load_cq: Constant<Bits<3>> = c::<3>(C_LOAD_CQ),
        c_decide: Constant<Bits<3>> = c::<3>(C_DECIDE),
        c_cqe: Constant<Bits<3>> = c::<3>(C_CQE),
        c_store: Constant<Bits<3>> = c::<3>(C_STORE),
        c_r_load: Constant<Bits<3>> = c::<3>(C_R_LOAD),
        zero1: Constant<Bits<1>> = c::<1>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        zero5: Constant<Bits<5>> = c::<5>(0),
        zero8: Constant<Bits<8>> = c::<8>(0),
        zero16: Constant<Bits<16>> = c::<16>(0),
        zero24: Constant<Bits<24>> = c::<24>(0),
        zero32: Constant<Bits<32>> = c::<32>(0),
        zero40: Constant<Bits<40>> = Constant::new(Bits::default()),
        zero64: Constant<Bits<64>> = c::<64>(0),
        one5: Constant<Bits<5>> = c::<5>(1),
        one16: Constant<Bits<16>> = c::<16>(1),
        one24: Constant<Bits<24>> = c::<24>(1),
        one32: Constant<Bits<32>> = c::<32>(1),
        half24: Constant<Bits<24>> = c::<24>(0x80_0000),
        nak_class: Constant<Bits<2>> = c::<2>(3),
        ack_class: Constant<Bits<2>> = c::<2>(0),
        nak_invalid: Constant<Bits<5>> = c::<5>(1),
        nak_access: Constant<Bits<5>> = c::<5>(2),
        st_ok: Constant<Bits<8>> = c::<8>(CqStatus::Success as u64),
        st_invalid: Constant<Bits<8>> = c::<8>(CqStatus::RemoteInvalidRequest as u64),
        st_access: Constant<Bits<8>> = c::<8>(CqStatus::RemoteAccess as u64),

        state: DFF<Bits<3>>,
        /// The CQE being written is a receive completion (fields below), not an acknowledge's.
        is_recv: DFF<Bit>,
        r_len: DFF<Bits<32>>,
        r_imm: DFF<Bits<32>>,
        r_op: DFF<Bits<8>>,
        r_flags: DFF<Bits<8>>,
        ack_q: DFF<Bits<QP_SLOT_BITS>>,
        syn: DFF<Bits<8>>,
        msn: DFF<Bits<24>>,
        cqn: DFF<Bits<CQ_SLOT_BITS>>,
        sent: DFF<Bits<16>>,
        d_idx: DFF<Bits<16>>,
        d_msn: DFF<Bits<24>>,
        broken: DFF<Bit>,
        ring_base: DFF<Bits<64>>,
        cq_mask: DFF<Bits<16>>,
        cq_log: DFF<Bits<4>>,
        pi: DFF<Bits<16>>,
        left: DFF<Bits<16>>,
        status: DFF<Bits<8>>,
        is_error: DFF<Bit>,
        cmd_done: DFF<Bit>,
        beat_done: DFF<Bit>,
        n_acks: DFF<Bits<32>>,
        n_naks: DFF<Bits<32>>,
        n_cqes: DFF<Bits<32>>,
        n_unexpected: DFF<Bits<32>>,

        commit_ok: Signal<Local, Bit>,
        cq_commit_ok: Signal<Local, Bit>,
        covered: Signal<Local, Bits<24>>,
        outstanding: Signal<Local, Bits<16>>,
        is_ack: Signal<Local, Bit>,
        is_nak: Signal<Local, Bit>,
        nak_code: Signal<Local, Bits<5>>,
        cmd_fire: Signal<Local, Bit>,
        beat_fire: Signal<Local, Bit>,
        cqe_done: Signal<Local, Bit>,
        cq_pass: Signal<Local, Bits<16>>,
    }
}

impl Logic for Completer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, sent_tail, s_busy, s_qp, local_tail, s_status, is_local, l_idx, l_status, e_valid, e_from, e_status, state, is_recv, r_len, r_imm, r_op, r_flags, ack_q, syn, msn, cqn, sent, d_idx, d_msn, broken, ring_base,
            cq_mask, cq_log, pi, left, db_last, db_last_cq, db_last_ci, ci, cq_size, n_overflows, status, is_error, cmd_done, beat_done, n_acks, n_naks, n_cqes, n_unexpected
        );
        self.sent_ram.read_clock.next = self.clock.val();
        self.sent_ram.write_clock.next = self.clock.val();
        self.sent_copy.read_clock.next = self.clock.val();
        self.sent_copy.write_clock.next = self.clock.val();
        self.done_ram.read_clock.next = self.clock.val();
        self.done_ram.write_clock.next = self.clock.val();
        self.cq_of.read_clock.next = self.clock.val();
        self.cq_of.write_clock.next = self.clock.val();
        self.cq_ram.read_clock.next = self.clock.val();
        self.cq_ram.write_clock.next = self.clock.val();
        self.pi_ram.read_clock.next = self.clock.val();
        self.pi_ram.write_clock.next = self.clock.val();
        self.ci_ram.read_clock.next = self.clock.val();
        self.ci_ram.write_clock.next = self.clock.val();
        self.sent_q.clock.next = self.clock.val();
        self.local_q.clock.next = self.clock.val();

        // Commits: a QP's counts restart; a CQ's ring is set and empty.
        self.commit_ok.next = self.qp_commit_valid.val() & (self.qp_commit.val().get_bits::<24>(8) == self.zero24.val());
        self.cq_commit_ok.next = self.cq_commit_valid.val() & (self.cq_commit.val().get_bits::<24>(8) == self.zero24.val());
        self.cq_of.write_enable.next = self.commit_ok.val();
        self.cq_of.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.qp_cqs.send.next = self.qp_send_cq.val().get_bits::<CQ_SLOT_BITS>(0);
        self.qp_cqs.recv.next = self.qp_recv_cq.val().get_bits::<CQ_SLOT_BITS>(0);
        self.cq_of.write_data.next = self.qp_cqs.word.val();
        self.cq_word.base.next = self.cq_base.val();
        self.cq_word.log.next = self.cq_log_size.val().get_bits::<4>(0);
        self.cq_ram.write_enable.next = self.cq_commit_ok.val();
        self.cq_ram.write_address.next = self.cq_commit.val().get_bits::<CQ_SLOT_BITS>(0);
        self.cq_ram.write_data.next = self.cq_word.word.val();

        // Sent events: queued, then counted one read-modify-write at a time (a commit resets).
        self.sent_q.wr_en.next = self.sent_valid.val();
        self.sent_q.wr_addr.next = self.sent_tail.q.val().get_bits::<4>(0);
        self.sent_q.wr_a.next = self.sent_qp.val();
        self.sent_q.wr_b.next = self.zero1.val();
        self.sent_q.wr_c.next = self.zero1.val();
        self.sent_q.tail.next = self.sent_tail.q.val();
        if self.sent_valid.val() {
            self.sent_tail.d.next = self.sent_tail.q.val() + self.one5.val();
        }
        self.sent_q.out_ready.next = !self.s_busy.q.val() & !self.commit_ok.val();
        self.sent_ram.read_address.next = self.sent_q.out_a.val();
        if self.s_busy.q.val() {
            self.sent_ram.read_address.next = self.s_qp.q.val();
        }
        if !self.s_busy.q.val() & !self.commit_ok.val() & self.sent_q.out_valid.val() {
            self.s_busy.d.next = true;
            self.s_qp.d.next = self.sent_q.out_a.val();
            self.s_status.d.next = self.zero8.val();
        }
        // A refused WQE is counted the same way once every sent event before it is, and goes
        // on to the FSM with its index (the count before it); the requester waits till then.
        // (Its sent events come from another state of its FSM, never in the same cycle.)
        // (Spelled from registers in both uses: see the requester on valid / ready.)
        self.err_ready.next = !self.s_busy.q.val()
            & (self.sent_tail.q.val() == self.sent_q.head.val())
            & ((self.local_tail.q.val() - self.local_q.head.val()) != self.depth6.val());
        self.err_take.next = self.err_valid.val()
            & !self.s_busy.q.val()
            & (self.sent_tail.q.val() == self.sent_q.head.val())
            & ((self.local_tail.q.val() - self.local_q.head.val()) != self.depth6.val())
            & !self.commit_ok.val();
        if self.err_take.val() {
            self.s_busy.d.next = true;
            self.s_qp.d.next = self.sent_qp.val();
            self.s_status.d.next = self.err_status.val();
            self.sent_ram.read_address.next = self.sent_qp.val();
        }
        self.local_q.wr_en.next = self.s_busy.q.val() & !self.commit_ok.val() & (self.s_status.q.val() != self.zero8.val());
        self.local_q.wr_addr.next = self.local_tail.q.val().get_bits::<5>(0);
        self.local_q.wr_a.next = self.s_qp.q.val();
        self.local_q.wr_b.next = self.sent_ram.read_data.val();
        self.local_q.wr_c.next = self.s_status.q.val();
        self.local_q.tail.next = self.local_tail.q.val();
        if self.local_q.wr_en.val() {
            self.local_tail.d.next = self.local_tail.q.val() + self.one6.val();
        }
        self.sent_ram.write_enable.next = self.commit_ok.val() | (self.s_busy.q.val() & !self.commit_ok.val());
        self.sent_ram.write_address.next = self.s_qp.q.val();
        self.sent_ram.write_data.next = self.sent_ram.read_data.val() + self.one16.val();
        if self.s_busy.q.val() & !self.commit_ok.val() {
            self.s_busy.d.next = false;
        }
        if self.commit_ok.val() {
            self.sent_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.sent_ram.write_data.next = self.zero16.val();
        }
        self.sent_copy.write_enable.next = self.sent_ram.write_enable.val();
        self.sent_copy.write_address.next = self.sent_ram.write_address.val();
        self.sent_copy.write_data.next = self.sent_ram.write_data.val();

        // The done state: reset by a commit, written back by the FSM.
        self.done_commit.idx.next = self.zero16.val();
        self.done_commit.msn.next = self.zero24.val();
        self.done_commit.broken.next = self.zero1.val();
        self.done_commit.e_valid.next = self.zero1.val();
        self.done_commit.e_from.next = self.zero16.val();
        self.done_commit.e_status.next = self.zero8.val();
        self.done_back.e_valid.next = self.zero1.val();
        if self.e_valid.q.val() {
            self.done_back.e_valid.next = self.one1.val();
        }
        self.done_back.e_from.next = self.e_from.q.val();
        self.done_back.e_status.next = self.e_status.q.val();
        self.done_back.idx.next = self.d_idx.q.val();
        self.done_back.msn.next = self.d_msn.q.val();
        self.done_back.broken.next = self.zero1.val();
        if self.broken.q.val() {
            self.done_back.broken.next = self.one1.val();
        }
        self.done_ram.write_enable.next = self.commit_ok.val() | ((self.state.q.val() == self.c_store.val()) & !self.is_recv.q.val());
        self.done_ram.write_address.next = self.ack_q.q.val();
        self.done_ram.write_data.next = self.done_back.word.val();
        if self.commit_ok.val() {
            self.done_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.done_ram.write_data.next = self.done_commit.word.val();
        }
        // Consumer doorbells (a CQ commit empties the ring; BAR writes come one at a time).
        self.db_ok.next = self.cq_doorbell_valid.val() & (self.cq_doorbell.val().get_bits::<8>(24) == self.zero8.val());
        self.ci_ram.write_enable.next = self.cq_commit_ok.val() | self.db_ok.val();
        self.ci_ram.write_address.next = self.cq_doorbell.val().get_bits::<CQ_SLOT_BITS>(16);
        self.ci_ram.write_data.next = self.cq_doorbell.val().get_bits::<16>(0);
        if self.cq_commit_ok.val() {
            self.ci_ram.write_address.next = self.cq_commit.val().get_bits::<CQ_SLOT_BITS>(0);
            self.ci_ram.write_data.next = self.zero16.val();
        }
        self.db_last.d.next = self.db_ok.val();
        self.db_last_cq.d.next = self.cq_doorbell.val().get_bits::<CQ_SLOT_BITS>(16);
        self.db_last_ci.d.next = self.cq_doorbell.val().get_bits::<16>(0);
        self.pi_ram.write_enable.next = self.cq_commit_ok.val() | (self.state.q.val() == self.c_store.val());
        self.pi_ram.write_address.next = self.cqn.q.val();
        self.pi_ram.write_data.next = self.pi.q.val();
        if self.cq_commit_ok.val() {
            self.pi_ram.write_address.next = self.cq_commit.val().get_bits::<CQ_SLOT_BITS>(0);
            self.pi_ram.write_data.next = self.zero16.val();
        }

        // Reads for the acknowledge being served.
        self.done_ram.read_address.next = self.ack_q.q.val();
        self.cq_of.read_address.next = self.ack_q.q.val();
        self.sent_copy.read_address.next = self.ack_q.q.val();
        // In idle, at the QP of the event taken: an acknowledge, else a receive completion
        // (which reads only its CQ), else a refused WQE.
        if self.state.q.val() == self.c_idle.val() {
            self.done_ram.read_address.next = self.ack_qp.val();
            self.cq_of.read_address.next = self.ack_qp.val();
            self.sent_copy.read_address.next = self.ack_qp.val();
            if !self.ack_valid.val() {
                self.done_ram.read_address.next = self.local_q.out_a.val();
                self.cq_of.read_address.next = self.local_q.out_a.val();
                self.sent_copy.read_address.next = self.local_q.out_a.val();
                if self.rc_valid.val() {
                    self.cq_of.read_address.next = self.rc_qp.val();
                }
            }
        }
        self.cq_ram.read_address.next = self.cqn.q.val();
        self.pi_ram.read_address.next = self.cqn.q.val();
        self.ci_ram.read_address.next = self.cqn.q.val();
        if self.state.q.val() == self.c_load.val() {
            self.cq_ram.read_address.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(0);
            self.pi_ram.read_address.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(0);
            self.ci_ram.read_address.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(0);
        }
        if self.state.q.val() == self.c_r_load.val() {
            self.cq_ram.read_address.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(8);
            self.pi_ram.read_address.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(8);
            self.ci_ram.read_address.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(8);
        }

        // The CQE: its ring slot, and its bytes.
        self.cq_off.zero.next = self.zero5.val();
        self.cq_off.index.next = self.pi.q.val() & self.cq_mask.q.val();
        // (The room check is spelled out in each use: see the requester on valid / ready.)
        self.wr_valid.next = (self.state.q.val() == self.c_cqe.val())
            & !self.cmd_done.q.val()
            & ((self.pi.q.val() - self.ci.q.val()) != self.cq_size.q.val());
        self.wr_addr.next = self.ring_base.q.val() + self.cq_off.word.val();
        self.wd_valid.next = (self.state.q.val() == self.c_cqe.val()) & self.cmd_done.q.val() & !self.beat_done.q.val();
        // Phase: 1 on the ring's first pass, 0 on the second, and so on.
        self.cq_pass.next = self.pi.q.val() >> self.cq_log.q.val();
        self.owner8.flag.next = self.one1.val();
        if self.cq_pass.val().get_bit(0) {
            self.owner8.flag.next = self.zero1.val();
        }
        self.cqe.wr_id.next = self.zero64.val();
        self.cqe.byte_len.next = self.zero32.val();
        self.cqe.imm.next = self.zero32.val();
        self.cqe.op.next = self.zero8.val();
        self.cqe.flags.next = self.zero8.val();
        if self.is_recv.q.val() {
            self.cqe.byte_len.next = self.r_len.q.val();
            self.cqe.imm.next = self.r_imm.q.val();
            self.cqe.op.next = self.r_op.q.val();
            self.cqe.flags.next = self.r_flags.q.val();
        }
        self.cqe.qpn.next = self.ack_q.q.val();
        self.cqe.qpn_hi.next = self.zero24.val();
        self.cqe.status.next = self.status.q.val();
        self.cqe.pad0.next = self.zero8.val();
        self.cqe.wqe_index.next = self.d_idx.q.val();
        self.cqe.pad1.next = self.zero40.val();
        self.cqe.owner.next = self.owner8.word.val();
        self.wd_data.next = self.cqe.word.val();

        // The FSM.
        self.ack_ready.next = self.state.q.val() == self.c_idle.val();
        self.rc_ready.next = (self.state.q.val() == self.c_idle.val()) & !self.ack_valid.val();
        self.covered.next = self.msn.q.val() - self.d_msn.q.val();
        // Only WQEs before the first refused one were sent: acknowledges can cover no more.
        self.outstanding.next = self.sent.q.val() - self.d_idx.q.val();
        if self.e_valid.q.val() {
            self.outstanding.next = self.e_from.q.val() - self.d_idx.q.val();
        }
        self.is_ack.next = self.syn.q.val().get_bits::<2>(5) == self.ack_class.val();
        self.is_nak.next = self.syn.q.val().get_bits::<2>(5) == self.nak_class.val();
        self.nak_code.next = self.syn.q.val().get_bits::<5>(0);
        self.cmd_fire.next = self.wr_ready.val()
            & (self.state.q.val() == self.c_cqe.val())
            & !self.cmd_done.q.val()
            & ((self.pi.q.val() - self.ci.q.val()) != self.cq_size.q.val());
        self.cq_drop.next = (self.state.q.val() == self.c_cqe.val())
            & !self.cmd_done.q.val()
            & ((self.pi.q.val() - self.ci.q.val()) == self.cq_size.q.val());
        self.beat_fire.next =
            self.wd_ready.val() & (self.state.q.val() == self.c_cqe.val()) & self.cmd_done.q.val() & !self.beat_done.q.val();
        self.cqe_done.next = ((self.beat_done.q.val() | self.beat_fire.val()) & (self.cmd_done.q.val() | self.cmd_fire.val())) | self.cq_drop.val();

        if (self.state.q.val() == self.c_idle.val()) & self.ack_valid.val() {
            self.is_local.d.next = false;
            self.ack_q.d.next = self.ack_qp.val();
            self.syn.d.next = self.ack_syndrome.val();
            self.msn.d.next = self.ack_msn.val();
            self.is_recv.d.next = false;
            self.state.d.next = self.c_load.val();
        }
        if (self.state.q.val() == self.c_idle.val()) & !self.ack_valid.val() & self.rc_valid.val() {
            self.is_local.d.next = false;
            self.ack_q.d.next = self.rc_qp.val();
            self.is_recv.d.next = true;
            self.d_idx.d.next = self.rc_index.val();
            self.status.d.next = self.rc_status.val();
            self.r_len.d.next = self.rc_len.val();
            self.r_imm.d.next = self.rc_imm.val();
            self.r_op.d.next = self.rc_op.val();
            self.r_flags.d.next = self.rc_flags.val();
            self.left.d.next = self.one16.val();
            self.is_error.d.next = false;
            self.cmd_done.d.next = false;
            self.beat_done.d.next = false;
            self.state.d.next = self.c_r_load.val();
        }
        self.local_q.out_ready.next = (self.state.q.val() == self.c_idle.val()) & !self.ack_valid.val() & !self.rc_valid.val();
        if (self.state.q.val() == self.c_idle.val()) & !self.ack_valid.val() & !self.rc_valid.val() & self.local_q.out_valid.val() {
            self.ack_q.d.next = self.local_q.out_a.val();
            self.l_idx.d.next = self.local_q.out_b.val();
            self.l_status.d.next = self.local_q.out_c.val();
            self.is_local.d.next = true;
            self.is_recv.d.next = false;
            self.state.d.next = self.c_load.val();
        }
        if self.state.q.val() == self.c_r_load.val() {
            self.cqn.d.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(8);
            self.state.d.next = self.c_load_cq.val();
        }
        if self.state.q.val() == self.c_load.val() {
            self.d_idx.d.next = self.done_ram.read_data.val().get_bits::<16>(0);
            self.d_msn.d.next = self.done_ram.read_data.val().get_bits::<24>(16);
            self.broken.d.next = self.done_ram.read_data.val().get_bit(40);
            self.e_valid.d.next = self.done_ram.read_data.val().get_bit(41);
            self.e_from.d.next = self.done_ram.read_data.val().get_bits::<16>(42);
            self.e_status.d.next = self.done_ram.read_data.val().get_bits::<8>(58);
            self.cqn.d.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(0);
            self.sent.d.next = self.sent_copy.read_data.val();
            self.state.d.next = self.c_load_cq.val();
        }
        if self.state.q.val() == self.c_load_cq.val() {
            self.ring_base.d.next = self.cq_ram.read_data.val().get_bits::<64>(0);
            self.cq_log.d.next = self.cq_ram.read_data.val().get_bits::<4>(64);
            self.cq_mask.d.next = (self.one16.val() << self.cq_ram.read_data.val().get_bits::<4>(64)) - self.one16.val();
            self.pi.d.next = self.pi_ram.read_data.val();
            self.ci.d.next = self.ci_ram.read_data.val();
            if self.db_last.q.val() & (self.db_last_cq.q.val() == self.cqn.q.val()) {
                self.ci.d.next = self.db_last_ci.q.val();
            }
            self.cq_size.d.next = self.one16.val() << self.cq_ram.read_data.val().get_bits::<4>(64);
            self.state.d.next = self.c_decide.val();
            if self.is_recv.q.val() {
                self.state.d.next = self.c_cqe.val();
            }
        }
        if self.state.q.val() == self.c_decide.val() {
            self.state.d.next = self.c_idle.val();
            self.cmd_done.d.next = false;
            self.beat_done.d.next = false;
            if self.is_local.q.val() {
                if !self.e_valid.q.val() {
                    self.e_valid.d.next = true;
                    self.e_from.d.next = self.l_idx.q.val();
                    self.e_status.d.next = self.l_status.q.val();
                }
                self.state.d.next = self.c_errs.val();
            }
            if self.is_ack.val() & !self.is_local.q.val() {
                self.n_acks.d.next = self.n_acks.q.val() + self.one32.val();
                // The WQEs the MSN now covers: none (a repeated ACK), or up to what was sent.
                if (self.covered.val() != self.zero24.val()) & (self.covered.val() < self.half24.val()) {
                    self.left.d.next = self.covered.val().get_bits::<16>(0);
                    self.status.d.next = self.st_ok.val();
                    self.is_error.d.next = false;
                    self.state.d.next = self.c_cqe.val();
                }
                if (self.covered.val() >= self.half24.val())
                    | (self.covered.val().get_bits::<8>(16) != self.zero8.val())
                    | (self.covered.val().get_bits::<16>(0) > self.outstanding.val())
                    | self.broken.q.val()
                {
                    self.n_unexpected.d.next = self.n_unexpected.q.val() + self.one32.val();
                    self.state.d.next = self.c_idle.val();
                }
            }
            if self.is_nak.val() & !self.is_local.q.val() {
                self.n_naks.d.next = self.n_naks.q.val() + self.one32.val();
                if ((self.nak_code.val() == self.nak_invalid.val()) | (self.nak_code.val() == self.nak_access.val()))
                    & !self.broken.q.val()
                    & (self.outstanding.val() != self.zero16.val())
                {
                    self.left.d.next = self.one16.val();
                    self.status.d.next = self.st_access.val();
                    if self.nak_code.val() == self.nak_invalid.val() {
                        self.status.d.next = self.st_invalid.val();
                    }
                    self.is_error.d.next = true;
                    self.state.d.next = self.c_cqe.val();
                }
            }
        }
        if self.state.q.val() == self.c_cqe.val() {
            if self.cmd_fire.val() {
                self.cmd_done.d.next = true;
            }
            if self.beat_fire.val() {
                self.beat_done.d.next = true;
            }
            if self.cqe_done.val() {
                self.cmd_done.d.next = false;
                self.beat_done.d.next = false;
                if self.cq_drop.val() {
                    self.n_overflows.d.next = self.n_overflows.q.val() + self.one32.val();
                } else {
                    self.pi.d.next = self.pi.q.val() + self.one16.val();
                    self.n_cqes.d.next = self.n_cqes.q.val() + self.one32.val();
                }
                self.d_idx.d.next = self.d_idx.q.val() + self.one16.val();
                self.left.d.next = self.left.q.val() - self.one16.val();
                if !self.is_error.q.val() {
                    self.d_msn.d.next = self.d_msn.q.val() + self.one24.val();
                }
                if self.is_error.q.val() {
                    self.broken.d.next = true;
                }
                if self.left.q.val() == self.one16.val() {
                    self.state.d.next = self.c_errs.val();
                }
            }
        }
        // Refused WQEs whose turn has come: the first with its error, the rest flushed.
        self.errs_left.next = self.e_valid.q.val()
            & !self.is_recv.q.val()
            & ((self.d_idx.q.val() - self.e_from.q.val()) < self.half16.val())
            & (self.d_idx.q.val() != self.sent.q.val());
        if self.state.q.val() == self.c_errs.val() {
            self.state.d.next = self.c_store.val();
            if self.errs_left.val() {
                self.left.d.next = self.one16.val();
                self.is_error.d.next = true;
                self.status.d.next = self.st_flushed.val();
                if self.d_idx.q.val() == self.e_from.q.val() {
                    self.status.d.next = self.e_status.q.val();
                }
                self.cmd_done.d.next = false;
                self.beat_done.d.next = false;
                self.state.d.next = self.c_cqe.val();
            }
        }
        if (self.state.q.val() == self.c_store.val()) & !self.commit_ok.val() & !self.cq_commit_ok.val() {
            self.state.d.next = self.c_idle.val();
        }

        self.acks.next = self.n_acks.q.val();
        self.naks.next = self.n_naks.q.val();
        self.cqes.next = self.n_cqes.q.val();
        self.unexpected.next = self.n_unexpected.q.val();
        self.cq_overflows.next = self.n_overflows.q.val();
        // A consumer doorbell for the CQ being written (after its load) moves the room on.
        if (self.state.q.val() != self.c_idle.val())
            & (self.state.q.val() != self.c_load.val())
            & (self.state.q.val() != self.c_r_load.val())
            & self.db_ok.val()
            & (self.cq_doorbell.val().get_bits::<CQ_SLOT_BITS>(16) == self.cqn.q.val())
        {
            self.ci.d.next = self.cq_doorbell.val().get_bits::<16>(0);
        }
    }
}
