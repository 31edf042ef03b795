//! The completer: acknowledges for this card's requests in, send completions out — CQEs
//! written into the send queue's completion ring in host memory, with the phase bit.
//!
//! An ACK carries the responder's MSN, the count of messages it has finished; every WQE the
//! requester sent and the MSN now covers completes successfully, in order. A NAK for an
//! invalid request or a remote access error completes the oldest outstanding WQE with that
//! error and marks the QP broken: later acknowledges for it are dropped (`unexpected`), as are
//! acknowledges that cover more than was sent. CQEs name the WQE by its send-queue index; the
//! driver knows the rest. The reference is `rnic_spec::completer`.
//!
//! Retransmission decisions live here too: every NAK's MSN first acknowledges like an ACK's;
//! an ACK's PSN (the requester asks for one every `qp::ACK_REQ_EVERY` PSNs inside a long
//! message) or a sequence NAK's moves the QP's first unacknowledged PSN on, which is progress
//! too. A sequence NAK, or a local ACK timeout (`RetryTimer`, kicked by each WQE sent and
//! restarted by progress), uses a transport retry and asks the requester to go back to the
//! oldest outstanding WQE (`rw_*`), from the NAK's PSN or the first unacknowledged one; an RNR NAK uses an RNR retry and arms an RNR wait whose
//! end does the same. With no retry left — or on a NAK for an invalid request, a remote
//! access or a remote operational error — the oldest WQE completes with its error, every
//! later one with `Flushed`, and the requester is stopped (`rw_stop`); its marker report
//! (`requester::ERR_MARKER`) flushes what it sent before it saw the stop.
//!
//! WQEs the requester refused or flushed are reported in order with the sent ones: the first
//! error is recorded for the QP, and once every WQE before it has completed, it and every WQE
//! after it complete with their error (the first) or `Flushed` (the rest), in order.
//!
//! A CQE is written only while the ring has room: software returns entries with the CQ's
//! consumer-index doorbell, and a CQE that would overwrite one not yet consumed is dropped and
//! counted (`cq_overflows`: the CQ overflowed, or was closed, a software error; the WQE still counts as
//! completed, so later completions keep their order).
//!
//! Receive completions come from the responder whole (index, byte count, immediate, status)
//! and go into the QP's receive CQ; acknowledges go first when both wait.

use crate::pack_word;
use crate::ram_fifo::RamFifo;
use crate::roce::retry_timer::RetryTimer;
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
    lsb_first DoneWord: 122 {
        idx: 16, msn: 24, broken: 1, e_valid: 1, e_from: 16, e_status: 8, retry_left: 3, rnr_left: 3,
        ua_known: 1, unacked: 24, nak_seen: 1, nak_psn: 24,
    }
}
pack_word! { lsb_first CqWord: 68 { base: 64, log: 4 } }
pack_word! {
    /// A QP's completion queues (send and receive) and its retry counts (`qp.retry`).
    lsb_first QpCqs: 22 { send: 8, recv: 8, retry_cnt: 3, rnr_retry: 3 }
}
pack_word! { lsb_first CqOffset: 64 { zero: 5, index: 16 } }
pack_word! {
    /// A refused WQE's report as it waits for the FSM: its index and the commit count it was
    /// made under.
    lsb_first LocalReport: 24 { index: 16, stamp: 8 }
}
pack_word! {
    /// Where a WQE's SIGNALED flag is kept: its QP and its send-queue index modulo 256 (a
    /// send queue holds at most 256 WQEs, `qp::SQ_LOG_SIZE_MAX`).
    lsb_first SigAddr: 16 { index: 8, qp: 8 }
}
pack_word! { lsb_first Owner8: 8 { flag: 1 } }
pack_word! {
    /// A sent event as it waits in `sent_q`: SIGNALED, the PSN after its last packet, READ.
    lsb_first SentReport: 26 { signaled: 1, end_psn: 24, read: 1 }
}
pack_word! {
    /// What `sig_ram` keeps of a sent WQE.
    lsb_first SigBits: 2 { signaled: 1, read: 1 }
}
/// Kinds of acknowledge events (`ack_kind`, from the responder): a plain ACK / NAK (its MSN
/// completes what it covers, up to the first RDMA READ); the last response of the oldest READ
/// placed (everything up to that READ completes, the READ too); an implied NAK (a READ response
/// or an ACK past a READ whose responses are missing: everything before the READ completes,
/// then a sequence NAK at the READ's next response PSN); a READ response the local key refused
/// (everything before the READ completes, the READ fails with LocalProtection, the queue breaks).
pub const KIND_PLAIN: u64 = 0;
pub const KIND_READ_DONE: u64 = 1;
pub const KIND_IMPLIED_NAK: u64 = 2;
pub const KIND_READ_REFUSED: u64 = 3;

const C_IDLE: u64 = 0;
const C_LOAD: u64 = 1;
const C_LOAD_CQ: u64 = 2;
const C_DECIDE: u64 = 3;
const C_CQE: u64 = 4;
const C_STORE: u64 = 5;
const C_R_LOAD: u64 = 6;
const C_ERRS: u64 = 7;
const C_ACT: u64 = 8;
const C_RW: u64 = 9;
/// What an acknowledge or an expiry asks for once its completions are written.
const ACT_NONE: u64 = 0;
const ACT_REWIND: u64 = 1;
const ACT_RNR: u64 = 2;
const ACT_BREAK: u64 = 3;

crate::hdl_block! {
    pub struct Completer {
        pub clock: Signal<In, Clock>,
        /// `qp.commit` (the QP's state restarts) and its send CQ from the staged words.
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<32>>,
        pub qp_send_cq: Signal<In, Bits<32>>,
        pub qp_recv_cq: Signal<In, Bits<32>>,
        pub qp_retry: Signal<In, Bits<32>>,
        /// The committed QP's first send PSN (`qp.sq_psn`).
        pub qp_sq_psn: Signal<In, Bits<32>>,
        /// `cq.commit` with the staged ring.
        pub cq_commit_valid: Signal<In, Bit>,
        pub cq_commit: Signal<In, Bits<32>>,
        pub cq_base: Signal<In, Bits<64>>,
        pub cq_log_size: Signal<In, Bits<32>>,
        /// `doorbell.cq`: a CQ's new consumer index.
        pub cq_doorbell_valid: Signal<In, Bit>,
        pub cq_doorbell: Signal<In, Bits<32>>,
        /// The requester sent a new WQE on this QP (its first packet is out); it asked for a
        /// completion (SIGNALED). A successful WQE that did not completes silently: no CQE
        /// (errors and flushes always get one).
        pub sent_valid: Signal<In, Bit>,
        pub sent_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub sent_signaled: Signal<In, Bit>,
        pub sent_end_psn: Signal<In, Bits<24>>,
        pub sent_read: Signal<In, Bit>,
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
        pub ack_psn: Signal<In, Bits<24>>,
        pub ack_kind: Signal<In, Bits<2>>,
        /// A response of a READ of QP `touch_qp` was placed: its ACK timer, if armed, starts
        /// again (the READ is progressing).
        pub touch_valid: Signal<In, Bit>,
        pub touch_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        /// Go-back-N requests to the requester (`Requester::rw_*`).
        pub rw_valid: Signal<Out, Bit>,
        pub rw_ready: Signal<In, Bit>,
        pub rw_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rw_index: Signal<Out, Bits<16>>,
        pub rw_psn: Signal<Out, Bits<24>>,
        pub rw_skip: Signal<Out, Bits<1>>,
        pub rw_stop: Signal<Out, Bits<1>>,
        /// The completion fence (see the requester): before a send CQE for WQE `i` is written,
        /// `i + 1` is published as the QP's completed count, and the CQE waits while the
        /// requester claims that QP for a WQE fetch that may have read the count before.
        pub done_valid: Signal<Out, Bit>,
        pub done_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub done_index: Signal<Out, Bits<16>>,
        pub claim: Signal<In, Bit>,
        pub claim_qp: Signal<In, Bits<QP_SLOT_BITS>>,
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
        pub naks_sequence: Signal<Out, Bits<32>>,
        pub naks_rnr: Signal<Out, Bits<32>>,
        pub timeouts: Signal<Out, Bits<32>>,
        pub rewinds: Signal<Out, Bits<32>>,
        pub retries_exceeded: Signal<Out, Bits<32>>,
        /// QP `broke_qp`'s send queue is broken (its state stored so): for `qp.errors_*`.
        pub broke_valid: Signal<Out, Bit>,
        pub broke_qp: Signal<Out, Bits<QP_SLOT_BITS>>,

        timer: RetryTimer,
        published: DFF<Bit>,
        fenced: DFF<Bit>,
        act: DFF<Bits<2>>,
        act_skip: DFF<Bits<1>>,
        act_retry: DFF<Bit>,
        brk_status: DFF<Bits<8>>,
        kill: DFF<Bit>,
        is_tmo: DFF<Bit>,
        is_rnr_exp: DFF<Bit>,
        /// The expired timer was touched by placed READ responses since it was armed.
        tmo_touched: DFF<Bit>,
        rnr_t: DFF<Bits<32>>,
        progress: DFF<Bit>,
        rewound: DFF<Bit>,
        tcmd_rnr: DFF<Bit>,
        a_psn: DFF<Bits<24>>,
        cfg_retry: DFF<Bits<3>>,
        cfg_rnr: DFF<Bits<3>>,
        retry_left: DFF<Bits<3>>,
        rnr_left: DFF<Bits<3>>,
        n_seq: DFF<Bits<32>>,
        n_rnr: DFF<Bits<32>>,
        n_tmo: DFF<Bits<32>>,
        n_rw: DFF<Bits<32>>,
        n_exc: DFF<Bits<32>>,
        s_fire: Signal<Local, Bit>,
        cover_bad: Signal<Local, Bit>,
        is_rnr: Signal<Local, Bit>,
        idle_q: Signal<Local, Bit>,
        brk_now: Signal<Local, Bit>,
        brk_st: Signal<Local, Bits<8>>,
        c_act: Constant<Bits<4>> = c::<4>(C_ACT),
        c_rw: Constant<Bits<4>> = c::<4>(C_RW),
        act_none: Constant<Bits<2>> = c::<2>(ACT_NONE),
        act_rewind: Constant<Bits<2>> = c::<2>(ACT_REWIND),
        act_rnr: Constant<Bits<2>> = c::<2>(ACT_RNR),
        act_break: Constant<Bits<2>> = c::<2>(ACT_BREAK),
        zero3: Constant<Bits<3>> = c::<3>(0),
        one3: Constant<Bits<3>> = c::<3>(1),
        forever3: Constant<Bits<3>> = c::<3>(rnic_spec::retry::RNR_RETRY_FOREVER as u64),
        rnr_class: Constant<Bits<2>> = c::<2>(1),
        nak_seq: Constant<Bits<5>> = c::<5>(0),
        nak_operational: Constant<Bits<5>> = c::<5>(3),
        marker: Constant<Bits<8>> = c::<8>(crate::roce::requester::ERR_MARKER),
        st_oper: Constant<Bits<8>> = c::<8>(CqStatus::RemoteOperational as u64),
        st_retry: Constant<Bits<8>> = c::<8>(CqStatus::RetryExceeded as u64),
        st_rnr: Constant<Bits<8>> = c::<8>(CqStatus::RnrRetryExceeded as u64),
        rnr_codes: [Constant<Bits<5>>; 32] = crate::stream::numbers::<5, 32>(),
        rnr_ticks: [Constant<Bits<32>>; 32] = rnr_tick_table(),

        /// Per QP: WQEs sent (written on `sent`), completed / covered MSN / broken (the FSM).
        sent_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        /// The same counts, read by the FSM (a RAM has one read port).
        sent_copy: RAM<Bits<16>, QP_SLOT_BITS>,
        done_ram: RAM<Bits<122>, QP_SLOT_BITS>,
        /// The QP's first PSN not yet acknowledged, once an acknowledge named one (its moving
        /// on is progress; a timeout resends from it).
        ua_known: DFF<Bit>,
        unacked: DFF<Bits<24>>,
        /// The PSN of the QP's last sequence NAK: one for another PSN is progress too — an
        /// implied NAK inside a READ whose responses were placed meanwhile, even when an ACK
        /// for a request behind the READ moved `unacked` past it.
        nak_seen: DFF<Bit>,
        nak_psn: DFF<Bits<24>>,
        /// Refused WQEs for the FSM: QP, send-queue index, status.
        local_q: RamFifo<6, 5, QP_SLOT_BITS, 24, 8>,
        local_tail: DFF<Bits<6>>,
        s_status: DFF<Bits<8>>,
        is_local: DFF<Bit>,
        l_idx: DFF<Bits<16>>,
        l_status: DFF<Bits<8>>,
        e_valid: DFF<Bit>,
        e_from: DFF<Bits<16>>,
        e_status: DFF<Bits<8>>,
        c_errs: Constant<Bits<4>> = c::<4>(C_ERRS),
        one6: Constant<Bits<6>> = c::<6>(1),
        depth6: Constant<Bits<6>> = c::<6>(32),
        half16: Constant<Bits<16>> = c::<16>(0x8000),
        st_flushed: Constant<Bits<8>> = c::<8>(CqStatus::Flushed as u64),
        err_take: Signal<Local, Bit>,
        errs_left: Signal<Local, Bit>,
        cq_of: RAM<Bits<22>, QP_SLOT_BITS>,
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
        /// Sent events wait here for their read-modify-write of `sent_ram` (b: SIGNALED).
        sent_q: RamFifo<5, 4, QP_SLOT_BITS, 26, 8>,
        sent_report: SentReport,
        s_end: DFF<Bits<24>>,
        /// Per QP: the PSN after the last packet sent (`sq_psn` at the commit, then each sent
        /// WQE's end). An acknowledge for it or a later PSN is a ghost: nothing sent asked
        /// for it (read with `sent_copy`).
        npsn_ram: RAM<Bits<24>, QP_SLOT_BITS>,
        npsn: DFF<Bits<24>>,
        ghost: Signal<Local, Bit>,
        /// Each sent WQE's SIGNALED flag, by QP and index (`SigAddr`).
        sig_ram: RAM<Bits<2>, 16>,
        sig_bits: SigBits,
        s_rd: DFF<Bit>,
        /// The acknowledge's kind (`KIND_*`), and whether it may still complete a READ.
        kind: DFF<Bits<2>>,
        rd_pass: DFF<Bit>,
        /// The WQE in C_CQE has had its `sig_ram` word read (a cycle after its index).
        peek: DFF<Bit>,
        /// The WQE in C_CQE is a READ this acknowledge may not complete: coverage ends here.
        rd_cut: Signal<Local, Bit>,
        by_read: Signal<Local, Bit>,
        ack_to: Signal<Local, Bits<24>>,
        ack_newer: Signal<Local, Bit>,
        is_seq_nak: Signal<Local, Bit>,
        nak_moved: Signal<Local, Bit>,
        k_plain: Constant<Bits<2>> = c::<2>(KIND_PLAIN),
        k_read_done: Constant<Bits<2>> = c::<2>(KIND_READ_DONE),
        k_refused: Constant<Bits<2>> = c::<2>(KIND_READ_REFUSED),
        st_local_prot: Constant<Bits<8>> = c::<8>(CqStatus::LocalProtection as u64),
        sig_w: SigAddr,
        sig_r: SigAddr,
        s_sig: DFF<Bit>,
        /// QP commits so far (mod 256), and per QP the count its last commit made: an event
        /// queued with an older count (`s_stamp`, `l_stamp`) was the QP's before that commit
        /// and changes nothing of the new one (two copies: one read port each).
        commits: DFF<Bits<8>>,
        stamp_ram: RAM<Bits<8>, QP_SLOT_BITS>,
        stamp_copy: RAM<Bits<8>, QP_SLOT_BITS>,
        s_stamp: DFF<Bits<8>>,
        /// The QP of the sent event in hand was committed while it was being counted.
        s_hit: DFF<Bit>,
        s_stale: Signal<Local, Bit>,
        s_age: Signal<Local, Bits<8>>,
        l_stamp: DFF<Bits<8>>,
        l_age: Signal<Local, Bits<8>>,
        local_report: LocalReport,
        one8: Constant<Bits<8>> = c::<8>(1),
        /// The CQE in hand is a silent success: it completes without a write.
        silent: Signal<Local, Bit>,
        sent_tail: DFF<Bits<5>>,
        s_busy: DFF<Bit>,
        s_qp: DFF<Bits<QP_SLOT_BITS>>,
        done_commit: DoneWord,
        done_back: DoneWord,
        cq_word: CqWord,
        cq_off: CqOffset,
        cqe: CqeBeat,
        owner8: Owner8,

        c_idle: Constant<Bits<4>> = c::<4>(C_IDLE),
        c_load: Constant<Bits<4>> = c::<4>(C_LOAD),
        c_load_cq: Constant<Bits<4>> = c::<4>(C_LOAD_CQ),
        c_decide: Constant<Bits<4>> = c::<4>(C_DECIDE),
        c_cqe: Constant<Bits<4>> = c::<4>(C_CQE),
        c_store: Constant<Bits<4>> = c::<4>(C_STORE),
        c_r_load: Constant<Bits<4>> = c::<4>(C_R_LOAD),
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
        zero23: Constant<Bits<23>> = c::<23>(0),
        one24: Constant<Bits<24>> = c::<24>(1),
        one32: Constant<Bits<32>> = c::<32>(1),
        half24: Constant<Bits<24>> = c::<24>(0x80_0000),
        nak_class: Constant<Bits<2>> = c::<2>(3),
        ack_class: Constant<Bits<2>> = c::<2>(0),
        nak_access: Constant<Bits<5>> = c::<5>(2),
        st_ok: Constant<Bits<8>> = c::<8>(CqStatus::Success as u64),
        st_invalid: Constant<Bits<8>> = c::<8>(CqStatus::RemoteInvalidRequest as u64),
        st_access: Constant<Bits<8>> = c::<8>(CqStatus::RemoteAccess as u64),

        state: DFF<Bits<4>>,
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
        /// The event in hand's QP (`h_qp`) or CQ (`h_cq`) was committed since it was taken:
        /// the QP's state is not written back, no CQE more is written for it, no rewind asked;
        /// the CQ's producer index is not written back and its CQEs are dropped.
        h_qp: DFF<Bit>,
        h_cq: DFF<Bit>,
        /// The CQ the event in hand uses (as it is being read, then as loaded).
        cq_in_hand: Signal<Local, Bits<CQ_SLOT_BITS>>,
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

/// Ticks of each RNR NAK timer code (`rnic_spec::retry::rnr_ticks`).
fn rnr_tick_table() -> [Constant<Bits<32>>; 32] {
    std::array::from_fn(|i| c::<32>(rnic_spec::retry::rnr_ticks(i as u8) as u64))
}

impl Logic for Completer {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, sent_tail, s_busy, s_qp, local_tail, s_status, is_local, l_idx, l_status, e_valid, e_from, e_status, state, is_recv, r_len, r_imm, r_op, r_flags, ack_q, syn, msn, cqn, sent, d_idx, d_msn, broken, ring_base,
            cq_mask, cq_log, pi, left, db_last, db_last_cq, db_last_ci, ci, cq_size, n_overflows, status, is_error, cmd_done, beat_done, n_acks, n_naks, n_cqes, n_unexpected,
            act, act_skip, act_retry, brk_status, kill, is_tmo, is_rnr_exp, tmo_touched, rnr_t, progress, rewound, tcmd_rnr, a_psn, cfg_retry, cfg_rnr,
            retry_left, rnr_left, n_seq, n_rnr, n_tmo, n_rw, n_exc, published, fenced, ua_known, unacked, nak_seen, nak_psn, s_sig, s_end, npsn, h_qp, h_cq, commits, s_stamp, s_hit, l_stamp,
            s_rd, kind, rd_pass, peek
        );
        self.timer.clock.next = self.clock.val();
        self.timer.qp_commit_valid.next = self.qp_commit_valid.val();
        self.timer.qp_commit.next = self.qp_commit.val();
        self.timer.qp_retry.next = self.qp_retry.val();
        self.timer.touch_valid.next = self.touch_valid.val();
        self.timer.touch_qp.next = self.touch_qp.val();
        self.sent_ram.read_clock.next = self.clock.val();
        self.stamp_ram.read_clock.next = self.clock.val();
        self.stamp_ram.write_clock.next = self.clock.val();
        self.stamp_copy.read_clock.next = self.clock.val();
        self.stamp_copy.write_clock.next = self.clock.val();
        self.sent_ram.write_clock.next = self.clock.val();
        self.sent_copy.read_clock.next = self.clock.val();
        self.sent_copy.write_clock.next = self.clock.val();
        self.sig_ram.read_clock.next = self.clock.val();
        self.npsn_ram.read_clock.next = self.clock.val();
        self.npsn_ram.write_clock.next = self.clock.val();
        self.sig_ram.write_clock.next = self.clock.val();
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
        // (Bit 31 of a CQ commit closes the CQ: `regs::CQ_CLOSED`.)
        self.cq_commit_ok.next = self.cq_commit_valid.val() & (self.cq_commit.val().get_bits::<23>(8) == self.zero23.val());
        self.cq_of.write_enable.next = self.commit_ok.val();
        self.cq_of.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.qp_cqs.send.next = self.qp_send_cq.val().get_bits::<CQ_SLOT_BITS>(0);
        self.qp_cqs.recv.next = self.qp_recv_cq.val().get_bits::<CQ_SLOT_BITS>(0);
        self.qp_cqs.retry_cnt.next = self.qp_retry.val().get_bits::<3>(8);
        self.qp_cqs.rnr_retry.next = self.qp_retry.val().get_bits::<3>(12);
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
        self.sent_report.signaled.next = self.zero1.val();
        if self.sent_signaled.val() {
            self.sent_report.signaled.next = self.one1.val();
        }
        self.sent_report.end_psn.next = self.sent_end_psn.val();
        self.sent_report.read.next = self.zero1.val();
        if self.sent_read.val() {
            self.sent_report.read.next = self.one1.val();
        }
        self.sent_q.wr_b.next = self.sent_report.word.val();
        self.sent_q.wr_c.next = self.commits.q.val();
        if self.commit_ok.val() {
            self.commits.d.next = self.commits.q.val() + self.one8.val();
        }
        self.stamp_ram.write_enable.next = self.commit_ok.val();
        self.stamp_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.stamp_ram.write_data.next = self.commits.q.val() + self.one8.val();
        self.stamp_copy.write_enable.next = self.commit_ok.val();
        self.stamp_copy.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.stamp_copy.write_data.next = self.commits.q.val() + self.one8.val();
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
            self.s_sig.d.next = self.sent_q.out_b.val().get_bit(0);
            self.s_end.d.next = self.sent_q.out_b.val().get_bits::<24>(1);
            self.s_rd.d.next = self.sent_q.out_b.val().get_bit(25);
            self.s_stamp.d.next = self.sent_q.out_c.val();
            self.s_hit.d.next = false;
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
            self.s_stamp.d.next = self.commits.q.val();
            self.s_hit.d.next = false;
        }
        self.stamp_ram.read_address.next = self.sent_ram.read_address.val();
        if self.commit_ok.val() & self.s_busy.q.val() & (self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0) == self.s_qp.q.val()) {
            self.s_hit.d.next = true;
        }
        // Stale: queued before its QP's last commit (the count went past the event's), or the
        // commit came while it was counted. It completes without a trace.
        self.s_age.next = self.s_stamp.q.val() - self.stamp_ram.read_data.val();
        self.s_stale.next = self.s_hit.q.val() | self.s_age.val().get_bit(7);
        // A sent WQE kicks its QP's ACK timer; the event completes once the timer took it.
        self.timer.kick_valid.next =
            self.s_busy.q.val() & !self.commit_ok.val() & !self.s_stale.val() & (self.s_status.q.val() == self.zero8.val());
        self.timer.kick_qp.next = self.s_qp.q.val();
        // (The timer takes a kick in a cycle without a command: spelled out as there.)
        self.s_fire.next = self.s_busy.q.val()
            & !self.commit_ok.val()
            & (!((self.state.q.val() == self.c_store.val())
                & !self.h_qp.q.val()
                & !self.cq_commit_ok.val()
                & !self.is_recv.q.val()
                & (self.tcmd_rnr.q.val() | self.broken.q.val() | self.progress.q.val() | self.rewound.q.val()))
                | (self.s_status.q.val() != self.zero8.val()));
        self.local_q.wr_en.next = self.s_fire.val() & !self.s_stale.val() & (self.s_status.q.val() != self.zero8.val());
        self.local_q.wr_addr.next = self.local_tail.q.val().get_bits::<5>(0);
        self.local_q.wr_a.next = self.s_qp.q.val();
        self.local_report.index.next = self.sent_ram.read_data.val();
        self.local_report.stamp.next = self.s_stamp.q.val();
        self.local_q.wr_b.next = self.local_report.word.val();
        self.local_q.wr_c.next = self.s_status.q.val();
        self.local_q.tail.next = self.local_tail.q.val();
        if self.local_q.wr_en.val() {
            self.local_tail.d.next = self.local_tail.q.val() + self.one6.val();
        }
        self.sent_ram.write_enable.next = self.commit_ok.val() | (self.s_fire.val() & !self.s_stale.val());
        self.sent_ram.write_address.next = self.s_qp.q.val();
        // (The requester's marker is no WQE: it takes no index.)
        self.sent_ram.write_data.next = self.sent_ram.read_data.val() + self.one16.val();
        if self.s_status.q.val() == self.marker.val() {
            self.sent_ram.write_data.next = self.sent_ram.read_data.val();
        }
        if self.s_fire.val() {
            self.s_busy.d.next = false;
        }
        if self.commit_ok.val() {
            self.sent_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.sent_ram.write_data.next = self.zero16.val();
        }
        // The sent WQE's index is the count before it.
        self.sig_w.index.next = self.sent_ram.read_data.val().get_bits::<8>(0);
        self.sig_w.qp.next = self.s_qp.q.val();
        self.sig_ram.write_enable.next = self.s_fire.val() & !self.s_stale.val() & (self.s_status.q.val() == self.zero8.val());
        self.sig_ram.write_address.next = self.sig_w.word.val();
        self.sig_bits.signaled.next = self.zero1.val();
        if self.s_sig.q.val() {
            self.sig_bits.signaled.next = self.one1.val();
        }
        self.sig_bits.read.next = self.zero1.val();
        if self.s_rd.q.val() {
            self.sig_bits.read.next = self.one1.val();
        }
        self.sig_ram.write_data.next = self.sig_bits.word.val();
        self.npsn_ram.write_enable.next = self.commit_ok.val() | self.sig_ram.write_enable.val();
        self.npsn_ram.write_address.next = self.s_qp.q.val();
        self.npsn_ram.write_data.next = self.s_end.q.val();
        if self.commit_ok.val() {
            self.npsn_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.npsn_ram.write_data.next = self.qp_sq_psn.val().get_bits::<24>(0);
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
        self.done_commit.retry_left.next = self.qp_retry.val().get_bits::<3>(8);
        self.done_commit.rnr_left.next = self.qp_retry.val().get_bits::<3>(12);
        self.done_back.retry_left.next = self.retry_left.q.val();
        self.done_commit.ua_known.next = self.zero1.val();
        self.done_commit.unacked.next = self.zero24.val();
        self.done_back.ua_known.next = self.zero1.val();
        if self.ua_known.q.val() {
            self.done_back.ua_known.next = self.one1.val();
        }
        self.done_back.unacked.next = self.unacked.q.val();
        self.done_commit.nak_seen.next = self.zero1.val();
        self.done_commit.nak_psn.next = self.zero24.val();
        self.done_back.nak_seen.next = self.zero1.val();
        if self.nak_seen.q.val() {
            self.done_back.nak_seen.next = self.one1.val();
        }
        self.done_back.nak_psn.next = self.nak_psn.q.val();
        self.done_back.rnr_left.next = self.rnr_left.q.val();
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
        self.done_ram.write_enable.next =
            self.commit_ok.val() | ((self.state.q.val() == self.c_store.val()) & !self.is_recv.q.val() & !self.h_qp.q.val());
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
        self.pi_ram.write_enable.next = self.cq_commit_ok.val() | ((self.state.q.val() == self.c_store.val()) & !self.h_cq.q.val());
        self.pi_ram.write_address.next = self.cqn.q.val();
        self.pi_ram.write_data.next = self.pi.q.val();
        if self.cq_commit_ok.val() {
            // A closed CQ's ring is full from the start: nothing is written into it.
            self.pi_ram.write_address.next = self.cq_commit.val().get_bits::<CQ_SLOT_BITS>(0);
            self.pi_ram.write_data.next = self.zero16.val();
            if self.cq_commit.val().get_bit(31) {
                self.pi_ram.write_data.next = self.one16.val() << self.cq_log_size.val().get_bits::<4>(0);
            }
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
                if !self.rc_valid.val() & !self.local_q.out_valid.val() {
                    self.done_ram.read_address.next = self.timer.exp_qp.val();
                    self.cq_of.read_address.next = self.timer.exp_qp.val();
                    self.sent_copy.read_address.next = self.timer.exp_qp.val();
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

        self.stamp_copy.read_address.next = self.sent_copy.read_address.val();
        self.npsn_ram.read_address.next = self.sent_copy.read_address.val();

        // The CQE: its ring slot, and its bytes.
        self.cq_off.zero.next = self.zero5.val();
        self.cq_off.index.next = self.pi.q.val() & self.cq_mask.q.val();
        // A success of a WQE without SIGNALED writes nothing. (The flag is read by QP and
        // index; the fence's two cycles pass before it is used.)
        self.sig_r.index.next = self.d_idx.q.val().get_bits::<8>(0);
        self.sig_r.qp.next = self.ack_q.q.val();
        self.sig_ram.read_address.next = self.sig_r.word.val();
        self.silent.next = !self.is_recv.q.val() & (self.status.q.val() == self.st_ok.val()) & !self.sig_ram.read_data.val().get_bit(0);
        // A success reaching an RDMA READ: only the READ-done kind completes it (one), so a
        // READ never completes before its data is placed — not on a FIRST's MSN, not on a
        // duplicate's re-ACK. (Decided once the word is read, before the fence publishes.)
        self.rd_cut.next = (self.state.q.val() == self.c_cqe.val())
            & !self.is_recv.q.val()
            & self.peek.q.val()
            & !self.published.q.val()
            & (self.status.q.val() == self.st_ok.val())
            & self.sig_ram.read_data.val().get_bit(1)
            & !((self.kind.q.val() == self.k_read_done.val()) & self.rd_pass.q.val());
        // (The room check and `silent` are spelled out in each use: see the requester on
        // valid / ready.)
        self.wr_valid.next = (self.state.q.val() == self.c_cqe.val())
            & !self.cmd_done.q.val()
            & !self.h_qp.q.val()
            & !self.h_cq.q.val()
            & (self.is_recv.q.val() | self.fenced.q.val())
            & (self.is_recv.q.val() | (self.status.q.val() != self.st_ok.val()) | self.sig_ram.read_data.val().get_bit(0))
            & ((self.pi.q.val() - self.ci.q.val()) != self.cq_size.q.val());
        // The fence: publish, then wait for the requester's claim on the QP to end.
        // (A commit has the requester's count RAM in its cycle: the publication waits.)
        // (The commit spelled out from the inputs: see the requester on valid / ready.)
        // (The cut spelled out from registers: see the requester on valid / ready.)
        self.done_valid.next = (self.state.q.val() == self.c_cqe.val())
            & !self.is_recv.q.val()
            & self.peek.q.val()
            & !((self.status.q.val() == self.st_ok.val())
                & self.sig_ram.read_data.val().get_bit(1)
                & !((self.kind.q.val() == self.k_read_done.val()) & self.rd_pass.q.val()))
            & !self.published.q.val()
            & !self.h_qp.q.val()
            & !(self.qp_commit_valid.val() & (self.qp_commit.val().get_bits::<24>(8) == self.zero24.val()));
        self.done_qp.next = self.ack_q.q.val();
        self.done_index.next = self.d_idx.q.val() + self.one16.val();
        // (Spelled out, not read back from the output: see the requester on valid / ready.)
        if (self.state.q.val() == self.c_cqe.val())
            & !self.is_recv.q.val()
            & self.peek.q.val()
            & !self.rd_cut.val()
            & !self.published.q.val()
            & !self.h_qp.q.val()
            & !(self.qp_commit_valid.val() & (self.qp_commit.val().get_bits::<24>(8) == self.zero24.val()))
        {
            self.published.d.next = true;
            // The READ this acknowledge completes is the last WQE it completes (decided as
            // its completion is published, so a publication held back by a commit keeps it).
            if (self.status.q.val() == self.st_ok.val()) & self.sig_ram.read_data.val().get_bit(1) {
                self.rd_pass.d.next = false;
                self.left.d.next = self.one16.val();
            }
        }
        if (self.state.q.val() == self.c_cqe.val()) & self.published.q.val() & !(self.claim.val() & (self.claim_qp.val() == self.ack_q.q.val())) {
            self.fenced.d.next = true;
        }
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
        // (No event is taken in a commit's cycle: the words read for it would be as they were.)
        self.ack_ready.next = (self.state.q.val() == self.c_idle.val()) & !self.qp_commit_valid.val() & !self.cq_commit_valid.val();
        self.rc_ready.next =
            (self.state.q.val() == self.c_idle.val()) & !self.ack_valid.val() & !self.qp_commit_valid.val() & !self.cq_commit_valid.val();
        // Only WQEs before the first refused one were sent: acknowledges can cover no more.
        self.outstanding.next = self.sent.q.val() - self.d_idx.q.val();
        if self.e_valid.q.val() {
            self.outstanding.next = self.e_from.q.val() - self.d_idx.q.val();
        }
        // What an acknowledge covers: its MSN's count, or, for an implied NAK or a refused READ
        // response, everything up to the READ (the cut in C_CQE stops there; `by_read`).
        self.covered.next = self.msn.q.val() - self.d_msn.q.val();
        self.by_read.next = (self.kind.q.val() != self.k_plain.val()) & (self.kind.q.val() != self.k_read_done.val());
        self.is_ack.next = self.syn.q.val().get_bits::<2>(5) == self.ack_class.val();
        self.is_nak.next = self.syn.q.val().get_bits::<2>(5) == self.nak_class.val();
        self.is_rnr.next = self.syn.q.val().get_bits::<2>(5) == self.rnr_class.val();
        self.nak_code.next = self.syn.q.val().get_bits::<5>(0);
        self.cmd_fire.next = self.wr_ready.val()
            & (self.state.q.val() == self.c_cqe.val())
            & !self.cmd_done.q.val()
            & !self.h_qp.q.val()
            & !self.h_cq.q.val()
            & (self.is_recv.q.val() | self.fenced.q.val())
            & !self.silent.val()
            & ((self.pi.q.val() - self.ci.q.val()) != self.cq_size.q.val());
        // (Also every CQE for a CQ committed while its event is in hand: its ring is gone.)
        self.cq_drop.next = (self.state.q.val() == self.c_cqe.val())
            & !self.cmd_done.q.val()
            & (self.is_recv.q.val() | self.fenced.q.val())
            & !self.silent.val()
            & (((self.pi.q.val() - self.ci.q.val()) == self.cq_size.q.val()) | self.h_cq.q.val());
        self.beat_fire.next =
            self.wd_ready.val() & (self.state.q.val() == self.c_cqe.val()) & self.cmd_done.q.val() & !self.beat_done.q.val();
        self.cqe_done.next = ((self.beat_done.q.val() | self.beat_fire.val()) & (self.cmd_done.q.val() | self.cmd_fire.val()))
            | self.cq_drop.val()
            | ((self.state.q.val() == self.c_cqe.val()) & !self.cmd_done.q.val() & self.fenced.q.val() & self.silent.val());

        if self.state.q.val() == self.c_idle.val() {
            self.kind.d.next = self.k_plain.val();
            self.peek.d.next = false;
            self.h_qp.d.next = false;
            self.h_cq.d.next = false;
            self.act.d.next = self.act_none.val();
            self.kill.d.next = false;
            self.progress.d.next = false;
            self.rewound.d.next = false;
            self.tcmd_rnr.d.next = false;
            self.is_tmo.d.next = false;
            self.is_rnr_exp.d.next = false;
        }
        if (self.state.q.val() == self.c_idle.val()) & self.ack_valid.val() & !self.qp_commit_valid.val() & !self.cq_commit_valid.val() {
            self.is_local.d.next = false;
            self.ack_q.d.next = self.ack_qp.val();
            self.syn.d.next = self.ack_syndrome.val();
            self.msn.d.next = self.ack_msn.val();
            self.a_psn.d.next = self.ack_psn.val();
            self.kind.d.next = self.ack_kind.val();
            self.rd_pass.d.next = true;
            self.is_recv.d.next = false;
            self.state.d.next = self.c_load.val();
        }
        if (self.state.q.val() == self.c_idle.val())
            & !self.ack_valid.val()
            & self.rc_valid.val()
            & !self.qp_commit_valid.val()
            & !self.cq_commit_valid.val()
        {
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
        self.local_q.out_ready.next = (self.state.q.val() == self.c_idle.val())
            & !self.ack_valid.val()
            & !self.rc_valid.val()
            & !self.qp_commit_valid.val()
            & !self.cq_commit_valid.val();
        if (self.state.q.val() == self.c_idle.val())
            & !self.ack_valid.val()
            & !self.rc_valid.val()
            & self.local_q.out_valid.val()
            & !self.qp_commit_valid.val()
            & !self.cq_commit_valid.val()
        {
            self.ack_q.d.next = self.local_q.out_a.val();
            self.l_idx.d.next = self.local_q.out_b.val().get_bits::<16>(0);
            self.l_stamp.d.next = self.local_q.out_b.val().get_bits::<8>(16);
            self.l_status.d.next = self.local_q.out_c.val();
            self.is_local.d.next = true;
            self.is_recv.d.next = false;
            self.state.d.next = self.c_load.val();
        }
        // Lowest: a fired timer (a local ACK timeout, or the end of an RNR wait).
        self.timer.exp_ready.next = (self.state.q.val() == self.c_idle.val())
            & !self.ack_valid.val()
            & !self.rc_valid.val()
            & !self.local_q.out_valid.val()
            & !self.qp_commit_valid.val()
            & !self.cq_commit_valid.val();
        if (self.state.q.val() == self.c_idle.val())
            & !self.ack_valid.val()
            & !self.rc_valid.val()
            & !self.local_q.out_valid.val()
            & self.timer.exp_valid.val()
            & !self.qp_commit_valid.val()
            & !self.cq_commit_valid.val()
        {
            self.ack_q.d.next = self.timer.exp_qp.val();
            self.is_local.d.next = false;
            self.is_recv.d.next = false;
            self.is_tmo.d.next = true;
            self.is_rnr_exp.d.next = self.timer.exp_rnr.val();
            self.tmo_touched.d.next = self.timer.exp_touched.val();
            self.act.d.next = self.act_rewind.val();
            self.act_skip.d.next = self.zero1.val();
            self.act_retry.d.next = !self.timer.exp_rnr.val();
            self.state.d.next = self.c_load.val();
        }
        if self.state.q.val() == self.c_r_load.val() {
            self.cqn.d.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(8);
            self.state.d.next = self.c_load_cq.val();
        }
        self.l_age.next = self.l_stamp.q.val() - self.stamp_copy.read_data.val();
        if self.state.q.val() == self.c_load.val() {
            self.d_idx.d.next = self.done_ram.read_data.val().get_bits::<16>(0);
            self.d_msn.d.next = self.done_ram.read_data.val().get_bits::<24>(16);
            self.broken.d.next = self.done_ram.read_data.val().get_bit(40);
            self.e_valid.d.next = self.done_ram.read_data.val().get_bit(41);
            self.e_from.d.next = self.done_ram.read_data.val().get_bits::<16>(42);
            self.e_status.d.next = self.done_ram.read_data.val().get_bits::<8>(58);
            self.cqn.d.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(0);
            self.sent.d.next = self.sent_copy.read_data.val();
            self.npsn.d.next = self.npsn_ram.read_data.val();
            self.retry_left.d.next = self.done_ram.read_data.val().get_bits::<3>(66);
            self.rnr_left.d.next = self.done_ram.read_data.val().get_bits::<3>(69);
            self.ua_known.d.next = self.done_ram.read_data.val().get_bit(72);
            self.unacked.d.next = self.done_ram.read_data.val().get_bits::<24>(73);
            self.nak_seen.d.next = self.done_ram.read_data.val().get_bit(97);
            self.nak_psn.d.next = self.done_ram.read_data.val().get_bits::<24>(98);
            self.cfg_retry.d.next = self.cq_of.read_data.val().get_bits::<3>(16);
            self.cfg_rnr.d.next = self.cq_of.read_data.val().get_bits::<3>(19);
            self.state.d.next = self.c_load_cq.val();
            // A refused WQE reported before its QP's last commit: not the new QP's.
            if self.is_local.q.val() & self.l_age.val().get_bit(7) {
                self.state.d.next = self.c_idle.val();
            }
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
        // An acknowledge's MSN completes what it covers: none (a repeated one), or up to what
        // was sent; more than that, or anything on a broken queue, is unexpected. So is a
        // ghost: its PSN is at or past the end of what was sent.
        self.ghost.next = (self.a_psn.q.val() - self.npsn.q.val()) < self.half24.val();
        self.cover_bad.next = self.ghost.val()
            | (self.by_read.val() & self.broken.q.val())
            | (!self.by_read.val()
                & (self.covered.val() != self.zero24.val())
                & ((self.covered.val() >= self.half24.val())
                    | (self.covered.val().get_bits::<8>(16) != self.zero8.val())
                    | (self.covered.val().get_bits::<16>(0) > self.outstanding.val())
                    | self.broken.q.val()));
        // An ACK acknowledges its PSN, a sequence NAK the packets before its PSN.
        self.ack_to.next = self.a_psn.q.val();
        if self.is_ack.val() {
            self.ack_to.next = self.a_psn.q.val() + self.one24.val();
        }
        self.is_seq_nak.next = self.is_nak.val() & (self.nak_code.val() == self.nak_seq.val()) & !self.cover_bad.val() & !self.broken.q.val();
        self.ack_newer.next = (self.is_ack.val() | self.is_seq_nak.val())
            & !self.cover_bad.val()
            & !self.broken.q.val()
            & (!self.ua_known.q.val()
                | (((self.ack_to.val() - self.unacked.q.val()) < self.half24.val()) & (self.ack_to.val() != self.unacked.q.val())));
        self.nak_moved.next = self.is_seq_nak.val() & (!self.nak_seen.q.val() | (self.nak_psn.q.val() != self.a_psn.q.val()));
        if self.state.q.val() == self.c_decide.val() {
            self.state.d.next = self.c_idle.val();
            self.cmd_done.d.next = false;
            self.beat_done.d.next = false;
            if self.is_local.q.val() {
                if !self.e_valid.q.val() & (self.l_status.q.val() != self.marker.val()) {
                    self.e_valid.d.next = true;
                    self.e_from.d.next = self.l_idx.q.val();
                    self.e_status.d.next = self.l_status.q.val();
                }
                self.state.d.next = self.c_errs.val();
            }
            if self.is_tmo.q.val() {
                self.state.d.next = self.c_act.val();
                // READ responses placed since the timer was armed: progress, the retry
                // count starts again before the timeout uses one.
                if self.tmo_touched.q.val() & !self.is_rnr_exp.q.val() {
                    self.retry_left.d.next = self.cfg_retry.q.val();
                }
            }
            if !self.is_local.q.val() & !self.is_tmo.q.val() {
                // (Implied NAKs and refused READ responses are the card's own conclusions:
                // the responder counts them.)
                if self.is_ack.val() & (self.kind.q.val() != self.k_refused.val()) {
                    self.n_acks.d.next = self.n_acks.q.val() + self.one32.val();
                }
                if !self.is_ack.val() & ((self.kind.q.val() == self.k_plain.val()) | (self.kind.q.val() == self.k_read_done.val())) {
                    self.n_naks.d.next = self.n_naks.q.val() + self.one32.val();
                }
                // What the acknowledge asks for once its completions are written.
                self.act.d.next = self.act_none.val();
                self.act_skip.d.next = self.zero1.val();
                self.act_retry.d.next = false;
                if self.is_rnr.val() {
                    self.n_rnr.d.next = self.n_rnr.q.val() + self.one32.val();
                    self.act.d.next = self.act_rnr.val();
                    for i in 0..32 {
                        if self.nak_code.val() == self.rnr_codes[i].val() {
                            self.rnr_t.d.next = self.rnr_ticks[i].val();
                        }
                    }
                }
                if self.is_nak.val() {
                    self.act.d.next = self.act_break.val();
                    if self.nak_code.val() == self.nak_seq.val() {
                        // (Implied NAKs are counted by the responder, `implied_naks`.)
                        if self.kind.q.val() == self.k_plain.val() {
                            self.n_seq.d.next = self.n_seq.q.val() + self.one32.val();
                        }
                        self.act.d.next = self.act_rewind.val();
                        self.act_skip.d.next = self.one1.val();
                        self.act_retry.d.next = true;
                    }
                    self.brk_status.d.next = self.st_invalid.val();
                    if self.nak_code.val() == self.nak_access.val() {
                        self.brk_status.d.next = self.st_access.val();
                    }
                    if self.nak_code.val() == self.nak_operational.val() {
                        self.brk_status.d.next = self.st_oper.val();
                    }
                    // (Reserved NAK codes ask for nothing.)
                    if self.nak_code.val() > self.nak_operational.val() {
                        self.act.d.next = self.act_none.val();
                    }
                }
                // Packets acknowledged past the first one not yet acknowledged: progress, the
                // retry counts start again and the timer restarts.
                if self.ack_newer.val() {
                    self.ua_known.d.next = true;
                    self.unacked.d.next = self.ack_to.val();
                }
                if self.is_seq_nak.val() {
                    self.nak_seen.d.next = true;
                    self.nak_psn.d.next = self.a_psn.q.val();
                }
                if self.ack_newer.val() | self.nak_moved.val() {
                    self.retry_left.d.next = self.cfg_retry.q.val();
                    self.rnr_left.d.next = self.cfg_rnr.q.val();
                    self.progress.d.next = true;
                }
                if self.kind.q.val() == self.k_refused.val() {
                    self.act.d.next = self.act_break.val();
                    self.brk_status.d.next = self.st_local_prot.val();
                }
                self.state.d.next = self.c_act.val();
                if (self.covered.val() != self.zero24.val()) & !self.by_read.val() & !self.cover_bad.val() {
                    self.left.d.next = self.covered.val().get_bits::<16>(0);
                    self.status.d.next = self.st_ok.val();
                    self.is_error.d.next = false;
                    self.state.d.next = self.c_cqe.val();
                }
                if (self.outstanding.val() != self.zero16.val()) & self.by_read.val() & !self.cover_bad.val() {
                    self.left.d.next = self.outstanding.val();
                    self.status.d.next = self.st_ok.val();
                    self.is_error.d.next = false;
                    self.state.d.next = self.c_cqe.val();
                }
                if self.cover_bad.val() {
                    self.n_unexpected.d.next = self.n_unexpected.q.val() + self.one32.val();
                    self.act.d.next = self.act_none.val();
                    self.state.d.next = self.c_idle.val();
                }
            }
        }
        // The action, once the covered WQEs have completed: a rewind (using a retry unless it
        // ends an RNR wait), an RNR wait, or breaking the queue (also when no retry is left).
        self.idle_q.next = self.broken.q.val() | (self.outstanding.val() == self.zero16.val());
        self.brk_now.next = false;
        self.brk_st.next = self.brk_status.q.val();
        if self.state.q.val() == self.c_act.val() {
            self.state.d.next = self.c_errs.val();
            self.act.d.next = self.act_none.val();
            if (self.act.q.val() == self.act_rewind.val()) & !self.idle_q.val() {
                if self.act_retry.q.val() & (self.retry_left.q.val() == self.zero3.val()) {
                    self.brk_now.next = true;
                    self.brk_st.next = self.st_retry.val();
                } else {
                    if self.act_retry.q.val() {
                        self.retry_left.d.next = self.retry_left.q.val() - self.one3.val();
                    }
                    if self.is_tmo.q.val() & self.act_retry.q.val() {
                        self.n_tmo.d.next = self.n_tmo.q.val() + self.one32.val();
                    }
                    self.rewound.d.next = true;
                    self.state.d.next = self.c_rw.val();
                }
            }
            if (self.act.q.val() == self.act_rnr.val()) & !self.idle_q.val() {
                if (self.cfg_rnr.q.val() != self.forever3.val()) & (self.rnr_left.q.val() == self.zero3.val()) {
                    self.brk_now.next = true;
                    self.brk_st.next = self.st_rnr.val();
                } else {
                    if self.cfg_rnr.q.val() != self.forever3.val() {
                        self.rnr_left.d.next = self.rnr_left.q.val() - self.one3.val();
                    }
                    self.tcmd_rnr.d.next = true;
                }
            }
            if (self.act.q.val() == self.act_break.val()) & !self.idle_q.val() {
                self.brk_now.next = true;
            }
        }
        if self.brk_now.val() {
            // The oldest outstanding WQE fails, the rest are flushed (C_ERRS), the requester stops.
            self.e_valid.d.next = true;
            self.e_from.d.next = self.d_idx.q.val();
            self.e_status.d.next = self.brk_st.val();
            self.broken.d.next = true;
            self.kill.d.next = true;
            self.n_exc.d.next = self.n_exc.q.val() + self.one32.val();
            if self.act.q.val() == self.act_break.val() {
                self.n_exc.d.next = self.n_exc.q.val();
            }
        }
        self.rw_valid.next = (self.state.q.val() == self.c_rw.val()) & !self.h_qp.q.val();
        self.rw_qp.next = self.ack_q.q.val();
        self.rw_index.next = self.d_idx.q.val();
        self.rw_psn.next = self.a_psn.q.val();
        self.rw_skip.next = self.act_skip.q.val();
        // A local ACK timeout resends from the first packet not yet acknowledged.
        if self.is_tmo.q.val() & !self.is_rnr_exp.q.val() {
            self.rw_psn.next = self.unacked.q.val();
            self.rw_skip.next = self.zero1.val();
            if self.ua_known.q.val() {
                self.rw_skip.next = self.one1.val();
            }
        }
        self.rw_stop.next = self.zero1.val();
        if self.kill.q.val() {
            self.rw_stop.next = self.one1.val();
        }
        if (self.state.q.val() == self.c_rw.val()) & self.rw_ready.val() {
            if !self.kill.q.val() {
                self.n_rw.d.next = self.n_rw.q.val() + self.one32.val();
            }
            self.kill.d.next = false;
            self.state.d.next = self.c_errs.val();
        }
        if self.state.q.val() == self.c_cqe.val() {
            self.peek.d.next = true;
            if self.rd_cut.val() {
                self.peek.d.next = false;
                self.state.d.next = self.c_act.val();
            }
            if self.cmd_fire.val() {
                self.cmd_done.d.next = true;
            }
            if self.beat_fire.val() {
                self.beat_done.d.next = true;
            }
            if self.cqe_done.val() {
                self.peek.d.next = false;
                self.cmd_done.d.next = false;
                self.beat_done.d.next = false;
                self.published.d.next = false;
                self.fenced.d.next = false;
                if self.cq_drop.val() {
                    self.n_overflows.d.next = self.n_overflows.q.val() + self.one32.val();
                } else if !self.silent.val() {
                    self.pi.d.next = self.pi.q.val() + self.one16.val();
                    self.n_cqes.d.next = self.n_cqes.q.val() + self.one32.val();
                }
                self.d_idx.d.next = self.d_idx.q.val() + self.one16.val();
                self.left.d.next = self.left.q.val() - self.one16.val();
                if !self.is_error.q.val() {
                    self.d_msn.d.next = self.d_msn.q.val() + self.one24.val();
                    // Progress (a WQE completed): the retry counts start again.
                    self.progress.d.next = true;
                    self.retry_left.d.next = self.cfg_retry.q.val();
                    self.rnr_left.d.next = self.cfg_rnr.q.val();
                }
                if self.is_error.q.val() {
                    self.broken.d.next = true;
                }
                if self.left.q.val() == self.one16.val() {
                    self.state.d.next = self.c_act.val();
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
            if self.kill.q.val() {
                self.state.d.next = self.c_rw.val();
            }
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
        // Commits of what the event in hand uses: noted, and a committed QP's event ends at
        // the next point with no write in progress (its producer index still stored).
        self.cq_in_hand.next = self.cqn.q.val();
        if self.state.q.val() == self.c_load.val() {
            self.cq_in_hand.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(0);
        }
        if self.state.q.val() == self.c_r_load.val() {
            self.cq_in_hand.next = self.cq_of.read_data.val().get_bits::<CQ_SLOT_BITS>(8);
        }
        if self.commit_ok.val()
            & (self.state.q.val() != self.c_idle.val())
            & (self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0) == self.ack_q.q.val())
        {
            self.h_qp.d.next = true;
        }
        if self.cq_commit_ok.val()
            & (self.state.q.val() != self.c_idle.val())
            & (self.cq_commit.val().get_bits::<CQ_SLOT_BITS>(0) == self.cq_in_hand.val())
        {
            self.h_cq.d.next = true;
        }
        if self.h_qp.q.val()
            & (self.state.q.val() != self.c_idle.val())
            & (self.state.q.val() != self.c_store.val())
            & !((self.state.q.val() == self.c_cqe.val()) & self.cmd_done.q.val())
        {
            self.state.d.next = self.c_store.val();
        }
        // The QP's timer as the event leaves it: an RNR wait; stopped with the queue broken;
        // restarted by progress or a rewind (a timer left running with nothing outstanding
        // fires once and is ignored, so no disarm can race a WQE sent meanwhile).
        self.timer.cmd_valid.next = (self.state.q.val() == self.c_store.val())
            & !self.h_qp.q.val()
            & !self.commit_ok.val()
            & !self.cq_commit_ok.val()
            & !self.is_recv.q.val()
            & (self.tcmd_rnr.q.val() | self.broken.q.val() | self.progress.q.val() | self.rewound.q.val());
        self.timer.cmd_qp.next = self.ack_q.q.val();
        self.timer.cmd_arm.next = !self.broken.q.val();
        self.timer.cmd_rnr.next = self.tcmd_rnr.q.val();
        self.timer.cmd_ticks.next = self.rnr_t.q.val();

        self.acks.next = self.n_acks.q.val();
        self.naks.next = self.n_naks.q.val();
        self.cqes.next = self.n_cqes.q.val();
        self.unexpected.next = self.n_unexpected.q.val();
        self.cq_overflows.next = self.n_overflows.q.val();
        self.naks_sequence.next = self.n_seq.q.val();
        self.naks_rnr.next = self.n_rnr.q.val();
        self.timeouts.next = self.n_tmo.q.val();
        self.rewinds.next = self.n_rw.q.val();
        self.retries_exceeded.next = self.n_exc.q.val();
        self.broke_valid.next = (self.state.q.val() == self.c_store.val())
            & !self.is_recv.q.val()
            & !self.h_qp.q.val()
            & !self.commit_ok.val()
            & self.broken.q.val();
        self.broke_qp.next = self.ack_q.q.val();
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

#[cfg(test)]
mod tests {
    use super::CqeBeat;
    use rnic_spec::desc::{cqe, CQE_LEN};

    /// The CQE the completer packs has the spec's layout: each field at the spec's byte offset
    /// with the spec's width, and the padding where the spec has zeros.
    #[test]
    fn cqe_beat_has_the_spec_layout() {
        let want = [
            ("wr_id", cqe::WR_ID, 8),
            ("byte_len", cqe::BYTE_LEN, 4),
            ("imm", cqe::IMM, 4),
            ("qpn", cqe::QPN, 1),
            ("qpn_hi", cqe::QPN + 1, 3),
            ("op", cqe::OP, 1),
            ("status", cqe::STATUS, 1),
            ("flags", cqe::FLAGS, 1),
            ("wqe_index", cqe::WQE_INDEX, 2),
            ("owner", cqe::OWNER, 1),
        ];
        let mut at = 0;
        for &(name, bits) in CqeBeat::FIELDS {
            if let Some(&(_, byte, len)) = want.iter().find(|w| w.0 == name) {
                assert_eq!((at, bits), (8 * byte, 8 * len), "{name}");
            } else {
                assert!(name.starts_with("pad"), "{name} is not in the spec's CQE");
            }
            at += bits;
        }
        assert!(at >= 8 * CQE_LEN);
    }
}
