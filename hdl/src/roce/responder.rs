//! The RC responder for RDMA WRITE and SEND: accepted request packets (after the receive commit
//! point, so every byte here passed its ICRC) in; payload DMA writes, ACK / NAK descriptors and
//! receive completions out. The reference model is `rnic_spec::responder`.
//!
//! ```text
//!  record ─► load QP context + responder state ─► checks, in order ─┬─► MrTable (WRITE FIRST/ONLY)
//!                 SEND FIRST/ONLY: receive WQE read (DMA) ─► MrTable ┤
//!                                                                    ├─► DMA write of the payload
//!                                                                    └─► drain (dropped / refused)
//!  ─► receive completion (to the completer) ─► ACK (AckReq, after the message's writes are
//!     acknowledged by the host) or NAK ─► store
//! ```
//!
//! Checks, first failing wins (IBTA Vol 1 §9.7.5): the QP must exist, be in RTR or RTS and not
//! in error (else the packet is dropped silently); ACKs and the opcodes this responder does not
//! serve yet are set aside; a PSN behind the expected one is a duplicate (not written again,
//! re-acknowledged if it asks); a PSN ahead is a sequence error (NAK, once until the expected
//! PSN arrives); FIRST/MIDDLE/LAST out of order or of the other operation is an invalid request
//! (NAK); a SEND FIRST/ONLY or WRITE-with-immediate LAST/ONLY without a posted receive WQE gets
//! an RNR NAK; payload lengths that do not fit the path MTU and the RETH length are invalid
//! requests; on WRITE FIRST/ONLY the rkey must allow REMOTE_WRITE of the whole RETH range in the
//! QP's PD (else NAK remote access error). A SEND takes its receive WQE on FIRST/ONLY from
//! the prefetcher (`RecvPrefetch`, which reads them from the ring ahead), checks the
//! lkey for LOCAL_WRITE of the whole buffer (else NAK remote operational error) and that every
//! packet fits (else NAK invalid request); both complete the WQE in error and put the QP in
//! error. A refused packet writes nothing. The ACK of a message goes out only after the host
//! has acknowledged every write of it, so a requester never sees an ACK for data not in memory.

use crate::pack_word;
use crate::roce::qp_table::{ctx_at, QpTable, CTX_BITS, QP_STAGE_WORDS};
use crate::roce::ack_queue::{AckQueue, ACK_ADDR, ACK_PTR, ANSWER_BITS, JOB_BITS};
use crate::roce::read_history::ReadHistory;
use crate::roce::recv_prefetch::RecvPrefetch;
use crate::roce::tx_header::LEN_BITS;
use crate::stream::c;
use rnic_spec::mr::access;
use rnic_spec::regs::{qp_state, QP_SLOT_BITS};
use rnic_spec::desc::{cqe_flags, CqOp, CqStatus};
use crate::roce::completer::{KIND_IMPLIED_NAK, KIND_PLAIN, KIND_READ_DONE, KIND_READ_REFUSED};
use crate::roce::atomic::Beat64;
use crate::roce::read_table::{entry_at, RD_PTR};
use crate::roce::response_tx::{JOB_ACK, JOB_ATOMIC, JOB_ATOMIC_DUP, JOB_READ};
use rnic_spec::responder::{
    aeth, OP_READ_RESPONSE_FIRST, OP_READ_RESPONSE_ONLY, OP_SEND_ONLY_IMM, OP_WRITE_FIRST, OP_WRITE_ONLY_IMM,
};
use rnic_spec::wire::rx::record_field;
use rust_hdl::prelude::*;

pack_word! {
    /// The responder's state of a QP as its RAM holds it.
    /// `last_read`, `last_slot`: the QP's last answer queued is one to the READ kept in
    /// `ReadHistory` slot `last_slot` (a duplicate of that READ may replace it).
    lsb_first RspStateWord: 325 {
        epsn: 24, msn: 24, in_msg: 1, nak_sent: 1, va: 64, left: 32, send: 1, count: 32, rq_ci: 16,
        error: 1, key: 32, epoch: 32, rd_head: 4, rd_n: 24, rd_nak: 1, rd_epoch: 32, last_read: 1, last_slot: 3,
    }
}
pack_word! {
    /// A queued ACK / NAK: the answer, the QP's path, and how many payload writes had been
    /// issued when it was queued (it leaves once the host has acknowledged that many).
    lsb_first AckWord: 374 {
        syndrome: 8, psn: 24, msn: 24, dest_qp: 24, mac: 48, flags: 2, vlan_tci: 16, traffic: 16,
        flow_label: 20, udp_sport: 16, ip: 128, pkey: 16, wseq: 32,
    }
}
pack_word! { lsb_first Len64: 64 { len: 13 } }
pack_word! {
    /// A queued READ to answer (`ResponseTx`): `len` bytes from `va` at path MTU 2^`pmtu`.
    /// `kept`, `slot`, `gen`: the `ReadHistory` entry and generation it answers (a
    /// duplicate of the same READ replaces it); `qp` where an atomic job has it.
    lsb_first ReadJob: 201 { va: 64, len: 32, pmtu: 4, mid: 1, kept: 1, slot: 3, gen: 2, pad: 86, qp: 8 }
}
pack_word! {
    /// A queued atomic (`ResponseTx`): at `va`, CmpSwap (`cas`) or FetchAdd, its operands, and
    /// the QP slot whose saved results it joins or is looked up in.
    lsb_first AtomicJob: 201 { va: 64, value: 64, compare: 64, cas: 1, qp: 8 }
}

fn ack_at(name: &str, plus: u64) -> Constant<Bits<9>> {
    crate::pack::field_at(AckWord::FIELDS, name, plus)
}
pack_word! { lsb_first Len32: 32 { len: 13 } }
pack_word! { lsb_first Len16: 16 { len: 13 } }

/// Bit offset of a state word field.
fn st_at(name: &str) -> Constant<Bits<9>> {
    crate::pack::field_at(RspStateWord::FIELDS, name, 0)
}

fn rec_at(name: &str) -> Constant<Bits<9>> {
    let (_, at, _) = record_field(name).unwrap_or_else(|| panic!("record field {name}"));
    c::<9>(at as u64)
}


const P_IDLE: u64 = 0;
const P_CHECK: u64 = 2;
const P_MR_WAIT: u64 = 4;
const P_WRITE: u64 = 5;
const P_ACK: u64 = 8;
const P_DRAIN: u64 = 9;
const P_CPL: u64 = 10;
const P_RQ_WAIT: u64 = 11;
const P_RQ_DATA: u64 = 12;
/// A key check issued from registers: a check again after a stale verdict (a receive WQE's
/// lkey too; the first check of it goes out as the WQE is taken), or a later packet's check
/// against the key that admitted its message.
const P_MR_ISSUE: u64 = 13;
const P_RC: u64 = 14;
/// A READ response or an ACK for this card's requests, with the QP's oldest outstanding READ.
const P_RR: u64 = 15;

crate::hdl_block! {
    pub struct Responder {
        pub clock: Signal<In, Clock>,
        /// `qp` block: staged context words and the commit command (the QPN).
        pub qp_stage: [Signal<In, Bits<32>>; QP_STAGE_WORDS],
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<32>>,
        /// `doorbell.rq`: a QP's new receive queue producer index.
        pub rq_doorbell_valid: Signal<In, Bit>,
        pub rq_doorbell: Signal<In, Bits<32>>,
        /// Accepted packets from the receive pipeline: record (word 0) and payload.
        pub rec_valid: Signal<In, Bit>,
        pub rec_ready: Signal<Out, Bit>,
        pub rec_word0: Signal<In, Bits<512>>,
        pub rec_word1: Signal<In, Bits<512>>,
        pub pl_valid: Signal<In, Bit>,
        pub pl_ready: Signal<Out, Bit>,
        pub pl_data: Signal<In, Bits<512>>,
        pub pl_last: Signal<In, Bit>,
        /// Key checks (an `MrTable` check port): the rkey of a WRITE, the lkey of a receive WQE.
        pub mr_valid: Signal<Out, Bit>,
        pub mr_key: Signal<Out, Bits<32>>,
        pub mr_pd: Signal<Out, Bits<16>>,
        pub mr_addr: Signal<Out, Bits<64>>,
        pub mr_len: Signal<Out, Bits<32>>,
        pub mr_need: Signal<Out, Bits<4>>,
        /// The check's tag: the low bits of the region epoch it was issued in.
        pub mr_tag: Signal<Out, Bits<16>>,
        pub mr_res_valid: Signal<In, Bit>,
        pub mr_res_error: Signal<In, Bits<3>>,
        pub mr_res_tag: Signal<In, Bits<16>>,
        /// The same table's same-cycle check (its region cache), asked with a WRITE FIRST /
        /// ONLY's rkey range as its checks run (a hit in the QP's PD with REMOTE_WRITE needs no
        /// verdict) and with a receive WQE's buffer as it is taken (LOCAL_WRITE: `fast_ok`).
        pub mr_fast_key: Signal<Out, Bits<32>>,
        pub mr_fast_addr: Signal<Out, Bits<64>>,
        pub mr_fast_len: Signal<Out, Bits<32>>,
        pub mr_fast_hit: Signal<In, Bit>,
        pub mr_fast_pd: Signal<In, Bits<16>>,
        pub mr_fast_access: Signal<In, Bits<4>>,
        /// A memory-region commit (`mr.commit`): the region epoch advances.
        pub mr_commit: Signal<In, Bit>,
        /// Receive WQE prefetch reads (`DmaRead` commands of up to 64 32-byte entries, two to a
        /// beat, in command order).
        pub rd_valid: Signal<Out, Bit>,
        pub rd_ready: Signal<In, Bit>,
        pub rd_addr: Signal<Out, Bits<64>>,
        pub rd_len: Signal<Out, Bits<16>>,
        pub rdd_valid: Signal<In, Bit>,
        pub rdd_ready: Signal<Out, Bit>,
        pub rdd_data: Signal<In, Bits<512>>,
        pub rdd_error: Signal<In, Bit>,
        /// Payload writes (a `DmaWrite`).
        pub wr_valid: Signal<Out, Bit>,
        pub wr_ready: Signal<In, Bit>,
        pub wr_addr: Signal<Out, Bits<64>>,
        pub wr_len: Signal<Out, Bits<16>>,
        pub wd_valid: Signal<Out, Bit>,
        pub wd_ready: Signal<In, Bit>,
        pub wd_data: Signal<Out, Bits<512>>,
        pub wr_done: Signal<In, Bit>,
        /// ACK / NAK descriptors for the transmit engine (no payload).
        pub ack_valid: Signal<Out, Bit>,
        pub ack_ready: Signal<In, Bit>,
        pub ack_eth_dst: Signal<Out, Bits<48>>,
        pub ack_vlan: Signal<Out, Bit>,
        pub ack_vlan_tci: Signal<Out, Bits<16>>,
        pub ack_ipv6: Signal<Out, Bit>,
        pub ack_ip_dst: Signal<Out, Bits<128>>,
        pub ack_dscp: Signal<Out, Bits<6>>,
        pub ack_ecn: Signal<Out, Bits<2>>,
        pub ack_ttl: Signal<Out, Bits<8>>,
        pub ack_flow_label: Signal<Out, Bits<20>>,
        pub ack_udp_src_port: Signal<Out, Bits<16>>,
        pub ack_pkey: Signal<Out, Bits<16>>,
        pub ack_dest_qp: Signal<Out, Bits<24>>,
        pub ack_psn: Signal<Out, Bits<24>>,
        pub ack_syndrome: Signal<Out, Bits<8>>,
        pub ack_msn: Signal<Out, Bits<24>>,
        /// What the head is (`response_tx::JOB_*`): an ACK / NAK, an RDMA READ to answer from
        /// `ack_psn` on with `ack_msn`, or an atomic (new or duplicate) at `ack_va`.
        pub ack_kind: Signal<Out, Bits<2>>,
        pub ack_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub ack_cas: Signal<Out, Bit>,
        pub ack_value: Signal<Out, Bits<64>>,
        pub ack_compare: Signal<Out, Bits<64>>,
        pub ack_va: Signal<Out, Bits<64>>,
        pub ack_len: Signal<Out, Bits<32>>,
        pub ack_pmtu: Signal<Out, Bits<4>>,
        /// A READ job goes on from the middle of an earlier READ (MIDDLE … LAST).
        pub ack_mid: Signal<Out, Bit>,
        /// A READ job's `ReadHistory` entry and generation (`ack_kept`), and the generations
        /// of the head's QP's entries as they were the cycle before: a job whose entry moved
        /// on is replaced by a duplicate's answer.
        pub ack_kept: Signal<Out, Bit>,
        pub ack_slot: Signal<Out, Bits<3>>,
        pub ack_gen: Signal<Out, Bits<2>>,
        pub check_gens: Signal<Out, Bits<16>>,
        /// The answer queue's pointers and its look-ahead port (`AckQueue`): entry
        /// `ahead_at`'s READ fields, kind and release, a cycle later.
        pub ack_head: Signal<Out, Bits<ACK_PTR>>,
        pub ack_tail: Signal<Out, Bits<ACK_PTR>>,
        pub ahead_at: Signal<In, Bits<ACK_ADDR>>,
        pub ahead_va: Signal<Out, Bits<64>>,
        pub ahead_len: Signal<Out, Bits<32>>,
        pub ahead_pmtu: Signal<Out, Bits<4>>,
        pub ahead_kind: Signal<Out, Bits<2>>,
        pub ahead_released: Signal<Out, Bit>,
        /// Acknowledges for this card's own requests, to the completer.
        pub cpl_valid: Signal<Out, Bit>,
        pub cpl_ready: Signal<In, Bit>,
        pub cpl_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub cpl_syndrome: Signal<Out, Bits<8>>,
        pub cpl_msn: Signal<Out, Bits<24>>,
        pub cpl_psn: Signal<Out, Bits<24>>,
        /// What the completer makes of it (`completer::KIND_*`).
        pub cpl_kind: Signal<Out, Bits<2>>,
        /// The READs this card's requester has outstanding (`ReadTable`): the QP's ring tail
        /// (read at the record's QP), the entry at its head, and the pop after its last response.
        pub rt_tail_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rt_tail: Signal<In, Bits<RD_PTR>>,
        pub rt_slot_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rt_slot: Signal<Out, Bits<3>>,
        pub rt_entry: Signal<In, Bits<177>>,
        pub rt_pop_valid: Signal<Out, Bit>,
        pub rt_pop_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rt_pop_head: Signal<Out, Bits<RD_PTR>>,
        /// A response of QP `rt_pop_qp`'s READ was placed (the completer's timer starts again).
        pub rr_touch: Signal<Out, Bit>,
        /// QPs the card put in error (`qp.errors_*`): their READ responses are dropped (a
        /// READ that failed gets no byte more, its buffer is the application's again).
        pub qp_broken: Signal<In, Bits<256>>,
        /// Receive completions (a CQE's fields), to the completer.
        pub rc_valid: Signal<Out, Bit>,
        pub rc_ready: Signal<In, Bit>,
        pub rc_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rc_index: Signal<Out, Bits<16>>,
        pub rc_len: Signal<Out, Bits<32>>,
        pub rc_imm: Signal<Out, Bits<32>>,
        pub rc_op: Signal<Out, Bits<8>>,
        pub rc_status: Signal<Out, Bits<8>>,
        pub rc_flags: Signal<Out, Bits<8>>,
        /// Counters: packets placed, ACKs, NAKs (sequence, invalid request, remote access),
        /// duplicates, packets for no usable QP, packets set aside (ACKs, opcodes not served),
        /// RNR NAKs, remote operational NAKs, receive WQEs completed, cycles spent waiting for a
        /// receive WQE.
        pub placed: Signal<Out, Bits<32>>,
        pub acks: Signal<Out, Bits<32>>,
        pub naks_seq: Signal<Out, Bits<32>>,
        /// Request packets ahead of the expected PSN, each dropped (the first of a gap NAKed).
        pub out_of_sequence: Signal<Out, Bits<32>>,
        pub naks_invalid: Signal<Out, Bits<32>>,
        pub naks_access: Signal<Out, Bits<32>>,
        pub duplicates: Signal<Out, Bits<32>>,
        pub bad_qp: Signal<Out, Bits<32>>,
        pub set_aside: Signal<Out, Bits<32>>,
        pub naks_rnr: Signal<Out, Bits<32>>,
        pub naks_operational: Signal<Out, Bits<32>>,
        pub receives: Signal<Out, Bits<32>>,
        pub rq_wait_cycles: Signal<Out, Bits<32>>,
        pub bad_source: Signal<Out, Bits<32>>,
        /// READ responses placed into this card's buffers; READ responses not placed (none
        /// outstanding, a duplicate, out of order, a wrong opcode or length, refused by the
        /// local key); implied NAKs (responses missing before a later response or ACK).
        pub read_placed: Signal<Out, Bits<32>>,
        pub read_dropped: Signal<Out, Bits<32>>,
        pub implied_naks: Signal<Out, Bits<32>>,
        /// Region commits so far, and the epoch every write admitted before it has finished by.
        pub mr_epoch: Signal<Out, Bits<32>>,
        pub mr_fence: Signal<Out, Bits<32>>,
        /// QP `broke_qp` is in error (its state word was written back so): for `qp.errors_*`.
        pub broke_valid: Signal<Out, Bit>,
        pub broke_qp: Signal<Out, Bits<QP_SLOT_BITS>>,

        ctx_table: QpTable,
        /// The READs executed per QP: a duplicate inside one is answered from the middle.
        history: ReadHistory,
        st_ram: RAM<Bits<325>, QP_SLOT_BITS>,
        /// The receive queues: producer and fetch indexes, rings, WQEs fetched ahead.
        rq: RecvPrefetch,
        /// The packet's QP has a receive WQE posted (fetched, being fetched, or in the ring).
        rq_avail: Signal<Local, Bit>,
        /// The receive WQE's lkey check failed, or the WQE could not be read.
        wqe_refused: Signal<Local, Bit>,
        st_commit: RspStateWord,
        st_back: RspStateWord,
        len64: Len64,
        ack_word: AckWord,
        answers: AckQueue,
        read_job: ReadJob,
        atomic_job: AtomicJob,
        /// The packet is a READ request behind the ePSN (executed again, the state kept).
        r_dup: DFF<Bit>,
        /// The queued response's kind (`response_tx::JOB_*`).
        resp_kind: DFF<Bits<2>>,
        /// An atomic request's operands.
        r_swap: DFF<Bits<64>>,
        r_compare: DFF<Bits<64>>,
        is_atomic: Signal<Local, Bit>,
        misaligned: Signal<Local, Bit>,
        op_cas: Constant<Bits<8>> = c::<8>(rnic_spec::responder::OP_CMP_SWAP as u64),
        op_faa: Constant<Bits<8>> = c::<8>(rnic_spec::responder::OP_FETCH_ADD as u64),
        need_atomic: Constant<Bits<4>> = c::<4>(access::REMOTE_ATOMIC as u64),
        eight32: Constant<Bits<32>> = c::<32>(8),
        align7: Constant<Bits<64>> = c::<64>(7),
        job_ack: Constant<Bits<2>> = c::<2>(JOB_ACK),
        job_read: Constant<Bits<2>> = c::<2>(JOB_READ),
        job_atomic: Constant<Bits<2>> = c::<2>(JOB_ATOMIC),
        job_atomic_dup: Constant<Bits<2>> = c::<2>(JOB_ATOMIC_DUP),
        r_swap_at: Constant<Bits<9>> = rec_at("swap_add"),
        r_compare_at: Constant<Bits<9>> = rec_at("compare"),
        c_pmtu: DFF<Bits<4>>,
        is_read: Signal<Local, Bit>,
        read_len_ok: Signal<Local, Bit>,
        read_pkts: Signal<Local, Bits<32>>,
        read_round: Signal<Local, Bits<32>>,
        op_read: Constant<Bits<8>> = c::<8>(rnic_spec::responder::OP_READ_REQUEST as u64),
        need_read: Constant<Bits<4>> = c::<4>(access::REMOTE_READ as u64),
        max_message: Constant<Bits<32>> = c::<32>(rnic_spec::responder::MAX_MESSAGE as u64),
        half32: Constant<Bits<32>> = c::<32>(0x8000_0000),
        one16: Constant<Bits<16>> = c::<16>(1),
        a_syndrome: Constant<Bits<9>> = ack_at("syndrome", 0),
        a_psn: Constant<Bits<9>> = ack_at("psn", 0),
        a_msn: Constant<Bits<9>> = ack_at("msn", 0),
        a_dest_qp: Constant<Bits<9>> = ack_at("dest_qp", 0),
        a_mac: Constant<Bits<9>> = ack_at("mac", 0),
        a_ipv6: Constant<Bits<9>> = ack_at("flags", 0),
        a_vlan: Constant<Bits<9>> = ack_at("flags", 1),
        a_vlan_tci: Constant<Bits<9>> = ack_at("vlan_tci", 0),
        a_dscp: Constant<Bits<9>> = ack_at("traffic", 0),
        a_ecn: Constant<Bits<9>> = ack_at("traffic", 6),
        a_ttl: Constant<Bits<9>> = ack_at("traffic", 8),
        a_flow_label: Constant<Bits<9>> = ack_at("flow_label", 0),
        a_udp_sport: Constant<Bits<9>> = ack_at("udp_sport", 0),
        a_ip: Constant<Bits<9>> = ack_at("ip", 0),
        a_pkey: Constant<Bits<9>> = ack_at("pkey", 0),
        s_epsn: Constant<Bits<9>> = st_at("epsn"),
        s_msn: Constant<Bits<9>> = st_at("msn"),
        s_in_msg: Constant<Bits<9>> = st_at("in_msg"),
        s_nak_sent: Constant<Bits<9>> = st_at("nak_sent"),
        s_va: Constant<Bits<9>> = st_at("va"),
        s_left: Constant<Bits<9>> = st_at("left"),
        s_send: Constant<Bits<9>> = st_at("send"),
        s_count: Constant<Bits<9>> = st_at("count"),
        s_rq_ci: Constant<Bits<9>> = st_at("rq_ci"),
        s_error: Constant<Bits<9>> = st_at("error"),
        s_key: Constant<Bits<9>> = st_at("key"),
        s_epoch: Constant<Bits<9>> = st_at("epoch"),
        len32: Len32,
        len16: Len16,

        p_idle: Constant<Bits<4>> = c::<4>(P_IDLE),
        p_check: Constant<Bits<4>> = c::<4>(P_CHECK),
        p_mr_wait: Constant<Bits<4>> = c::<4>(P_MR_WAIT),
        p_write: Constant<Bits<4>> = c::<4>(P_WRITE),
        p_ack: Constant<Bits<4>> = c::<4>(P_ACK),
        p_drain: Constant<Bits<4>> = c::<4>(P_DRAIN),
        p_cpl: Constant<Bits<4>> = c::<4>(P_CPL),
        p_rq_wait: Constant<Bits<4>> = c::<4>(P_RQ_WAIT),
        p_rq_data: Constant<Bits<4>> = c::<4>(P_RQ_DATA),
        p_mr_issue: Constant<Bits<4>> = c::<4>(P_MR_ISSUE),
        p_rc: Constant<Bits<4>> = c::<4>(P_RC),
        p_rr: Constant<Bits<4>> = c::<4>(P_RR),
        op_rr_first: Constant<Bits<8>> = c::<8>(OP_READ_RESPONSE_FIRST as u64),
        op_rr_only: Constant<Bits<8>> = c::<8>(OP_READ_RESPONSE_ONLY as u64),
        k_plain: Constant<Bits<2>> = c::<2>(KIND_PLAIN),
        k_read_done: Constant<Bits<2>> = c::<2>(KIND_READ_DONE),
        k_implied: Constant<Bits<2>> = c::<2>(KIND_IMPLIED_NAK),
        k_refused: Constant<Bits<2>> = c::<2>(KIND_READ_REFUSED),
        one_ptr: Constant<Bits<RD_PTR>> = c::<RD_PTR>(1),
        zero_ptr: Constant<Bits<RD_PTR>> = c::<RD_PTR>(0),
        half24: Constant<Bits<24>> = c::<24>(0x80_0000),
        three8: Constant<Bits<8>> = c::<8>(3),
        s_rd_head: Constant<Bits<9>> = st_at("rd_head"),
        s_rd_n: Constant<Bits<9>> = st_at("rd_n"),
        s_rd_nak: Constant<Bits<9>> = st_at("rd_nak"),
        s_rd_epoch: Constant<Bits<9>> = st_at("rd_epoch"),
        s_last_read: Constant<Bits<9>> = st_at("last_read"),
        s_last_slot: Constant<Bits<9>> = st_at("last_slot"),
        /// The QP's last queued answer (`RspStateWord::last_read`), for `ReadHistory`.
        last_read: DFF<Bit>,
        last_slot: DFF<Bits<3>>,
        k_last_read: Signal<Local, Bit>,
        k_last_slot: Signal<Local, Bits<3>>,
        /// The region epoch the oldest READ's buffer was last checked in (its first response
        /// checks the whole buffer; later ones only after a region changed).
        rd_epoch: DFF<Bits<32>>,
        k_rd_epoch: Signal<Local, Bits<32>>,
        /// The bytes of the READ's buffer from this response on.
        rr_rest: DFF<Bits<32>>,
        // This card's requester's side of the QP: the oldest outstanding READ (ring head,
        // responses placed, implied NAK sent since the last one placed), the ring's tail.
        rd_head: DFF<Bits<RD_PTR>>,
        rd_n: DFF<Bits<24>>,
        rd_nak: DFF<Bit>,
        r_tail: DFF<Bits<RD_PTR>>,
        /// The packet is a READ response (set as its record is taken); where its payload goes,
        /// under which key; it is its READ's last.
        rr: DFF<Bit>,
        rr_va: DFF<Bits<64>>,
        rr_key: DFF<Bits<32>>,
        rr_last: DFF<Bit>,
        /// The packet is an ATOMIC Acknowledge without payload (taken as an 8-byte READ
        /// response ONLY: its AtomicAckETH's original value is the payload, `r_swap`).
        r_aack: DFF<Bit>,
        is_aack: Signal<Local, Bit>,
        en_atomic: Signal<Local, Bit>,
        aack_beat: Beat64,
        /// An event for the completer once the packet is drained or placed, and its kind.
        cpl_pend: DFF<Bit>,
        cpl_k: DFF<Bits<2>>,
        n_read_placed: DFF<Bits<32>>,
        n_read_dropped: DFF<Bits<32>>,
        n_implied: DFF<Bits<32>>,
        rec_op: Signal<Local, Bits<8>>,
        k_rd_head: Signal<Local, Bits<RD_PTR>>,
        k_rd_n: Signal<Local, Bits<24>>,
        k_rd_nak: Signal<Local, Bit>,
        is_rresp: Signal<Local, Bit>,
        is_ack_op: Signal<Local, Bit>,
        rr_go: Signal<Local, Bit>,
        en_laddr: Signal<Local, Bits<64>>,
        en_len: Signal<Local, Bits<32>>,
        en_psn: Signal<Local, Bits<24>>,
        en_end: Signal<Local, Bits<24>>,
        rr_has: Signal<Local, Bit>,
        e_psn: Signal<Local, Bits<24>>,
        rr_d: Signal<Local, Bits<24>>,
        rr_k: Signal<Local, Bits<8>>,
        rr_first_kind: Signal<Local, Bit>,
        rr_last_kind: Signal<Local, Bit>,
        rr_last_exp: Signal<Local, Bit>,
        rr_off: Signal<Local, Bits<32>>,
        rr_ok: Signal<Local, Bit>,
        ack_past: Signal<Local, Bit>,
        ack_class: Signal<Local, Bit>,
        nak_past: Signal<Local, Bit>,
        placed_now: Signal<Local, Bit>,
        n64: crate::pack::PsnCount64,
        rr_pmtu: Signal<Local, Bits<32>>,
        broken_at: Signal<Local, Bits<256>>,
        zero2: Constant<Bits<2>> = c::<2>(0),
        en_laddr_at: Constant<Bits<8>> = entry_at("laddr"),
        en_len_at: Constant<Bits<8>> = entry_at("len"),
        en_lkey_at: Constant<Bits<8>> = entry_at("lkey"),
        en_psn_at: Constant<Bits<8>> = entry_at("psn"),
        en_end_at: Constant<Bits<8>> = entry_at("end_psn"),
        en_atomic_at: Constant<Bits<8>> = entry_at("atomic"),
        op_aack: Constant<Bits<8>> = c::<8>(rnic_spec::responder::OP_ATOMIC_ACK as u64),
        r_aack_at: Constant<Bits<9>> = rec_at("atomic_ack"),
        eight_len: Constant<Bits<LEN_BITS>> = c::<LEN_BITS>(8),
        op_ack: Constant<Bits<8>> = c::<8>(rnic_spec::responder::OP_ACK as u64),
        r_syn_at: Constant<Bits<9>> = rec_at("aeth_syndrome"),
        r_msn_at: Constant<Bits<9>> = rec_at("aeth_msn"),
        rtr: Constant<Bits<3>> = c::<3>(qp_state::RTR as u64),
        rts: Constant<Bits<3>> = c::<3>(qp_state::RTS as u64),
        op_send_only_imm: Constant<Bits<8>> = c::<8>(OP_SEND_ONLY_IMM as u64),
        op_write_first: Constant<Bits<8>> = c::<8>(OP_WRITE_FIRST as u64),
        op_write_only_imm: Constant<Bits<8>> = c::<8>(OP_WRITE_ONLY_IMM as u64),
        // Positions from an operation's base: FIRST 0, MIDDLE 1, LAST 2, LAST_IMM 3, ONLY 4,
        // ONLY_IMM 5.
        k_first: Constant<Bits<8>> = c::<8>(0),
        k_last: Constant<Bits<8>> = c::<8>(2),
        k_last_imm: Constant<Bits<8>> = c::<8>(3),
        k_only: Constant<Bits<8>> = c::<8>(4),
        k_only_imm: Constant<Bits<8>> = c::<8>(5),
        syn_ack: Constant<Bits<8>> = c::<8>(aeth::ACK as u64),
        syn_rnr: Constant<Bits<8>> = c::<8>(aeth::RNR_NAK as u64),
        syn_seq: Constant<Bits<8>> = c::<8>(aeth::NAK_PSN_SEQUENCE as u64),
        syn_invalid: Constant<Bits<8>> = c::<8>(aeth::NAK_INVALID_REQUEST as u64),
        syn_access: Constant<Bits<8>> = c::<8>(aeth::NAK_REMOTE_ACCESS as u64),
        syn_operational: Constant<Bits<8>> = c::<8>(aeth::NAK_REMOTE_OPERATIONAL as u64),
        need_write: Constant<Bits<4>> = c::<4>(access::REMOTE_WRITE as u64),
        need_local_write: Constant<Bits<4>> = c::<4>(access::LOCAL_WRITE as u64),
        st_ok: Constant<Bits<8>> = c::<8>(CqStatus::Success as u64),
        st_length: Constant<Bits<8>> = c::<8>(CqStatus::LocalLength as u64),
        st_protection: Constant<Bits<8>> = c::<8>(CqStatus::LocalProtection as u64),
        cq_recv: Constant<Bits<8>> = c::<8>(CqOp::Recv as u64),
        cq_recv_imm: Constant<Bits<8>> = c::<8>(CqOp::RecvRdmaImm as u64),
        flag_imm: Constant<Bits<8>> = c::<8>(cqe_flags::IMM as u64),
        zero3: Constant<Bits<3>> = c::<3>(0),
        zero4: Constant<Bits<4>> = c::<4>(0),
        zero8: Constant<Bits<8>> = c::<8>(0),
        zero13: Constant<Bits<LEN_BITS>> = c::<LEN_BITS>(0),
        zero16: Constant<Bits<16>> = c::<16>(0),
        zero24: Constant<Bits<24>> = c::<24>(0),
        zero32: Constant<Bits<32>> = c::<32>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        one24: Constant<Bits<24>> = c::<24>(1),
        one32: Constant<Bits<32>> = c::<32>(1),
        zero1: Constant<Bits<1>> = c::<1>(0),
        zero86: Constant<Bits<86>> = c::<86>(0),
        zero64: Constant<Bits<64>> = c::<64>(0),
        r_opcode_at: Constant<Bits<9>> = rec_at("opcode"),
        r_ack_req_at: Constant<Bits<9>> = rec_at("ack_req"),
        r_dest_qp_at: Constant<Bits<9>> = rec_at("dest_qp"),
        /// The QPN's bits above the table index.
        r_dest_hi_at: Constant<Bits<9>> = c::<9>(record_field("dest_qp").expect("dest_qp").1 as u64 + QP_SLOT_BITS as u64),
        r_psn_at: Constant<Bits<9>> = rec_at("psn"),
        r_len_at: Constant<Bits<9>> = rec_at("payload_len"),
        r_va_at: Constant<Bits<9>> = rec_at("va"),
        r_rkey_at: Constant<Bits<9>> = rec_at("rkey"),
        r_dma_len_at: Constant<Bits<9>> = rec_at("dma_len"),
        r_imm_at: Constant<Bits<9>> = rec_at("imm"),
        r_pkey_at: Constant<Bits<9>> = rec_at("pkey"),
        r_ipv6_at: Constant<Bits<9>> = rec_at("ipv6"),
        r_ip_src_at: Constant<Bits<9>> = rec_at("ip_src"),
        pkey_low: Constant<Bits<16>> = c::<16>(0x7FFF),
        o_state: Constant<Bits<9>> = ctx_at("state"),
        o_dest_qpn: Constant<Bits<9>> = ctx_at("dest_qpn"),
        o_mac: Constant<Bits<9>> = ctx_at("mac_lo"),
        o_flags: Constant<Bits<9>> = ctx_at("flags"),
        o_vlan_tci: Constant<Bits<9>> = ctx_at("vlan_tci"),
        o_traffic: Constant<Bits<9>> = ctx_at("traffic"),
        o_flow_label: Constant<Bits<9>> = ctx_at("flow_label"),
        o_udp_sport: Constant<Bits<9>> = ctx_at("udp_sport"),
        o_ip: Constant<Bits<9>> = ctx_at("ip3"),
        o_pkey: Constant<Bits<9>> = ctx_at("pkey"),
        o_pmtu: Constant<Bits<9>> = ctx_at("pmtu"),
        o_pd: Constant<Bits<9>> = ctx_at("pd"),
        o_max_dest_rd: Constant<Bits<9>> = ctx_at("max_dest_rd"),
        /// Receive WQE fields (`rnic_spec::desc::RecvWqe`), in bits.

        state: DFF<Bits<4>>,
        // The packet.
        r_opcode: DFF<Bits<8>>,
        r_ack_req: DFF<Bit>,
        r_qp_ok: DFF<Bit>,
        r_qp: DFF<Bits<QP_SLOT_BITS>>,
        r_psn: DFF<Bits<24>>,
        r_len: DFF<Bits<LEN_BITS>>,
        r_va: DFF<Bits<64>>,
        r_rkey: DFF<Bits<32>>,
        r_dma_len: DFF<Bits<32>>,
        r_imm: DFF<Bits<32>>,
        r_syn: DFF<Bits<8>>,
        r_msn: DFF<Bits<24>>,
        r_pkey: DFF<Bits<16>>,
        r_ipv6: DFF<Bit>,
        r_ip_src: DFF<Bits<128>>,
        /// A receive doorbell for the record's QP came as the record was taken.
        db_hit: DFF<Bit>,
        db_val: DFF<Bits<16>>,
        // The QP.
        c_dest_qpn: DFF<Bits<24>>,
        c_mac: DFF<Bits<48>>,
        c_flags: DFF<Bits<2>>,
        c_vlan_tci: DFF<Bits<16>>,
        c_traffic: DFF<Bits<16>>,
        c_flow_label: DFF<Bits<20>>,
        c_udp_sport: DFF<Bits<16>>,
        c_ip: DFF<Bits<128>>,
        c_pkey: DFF<Bits<16>>,
        c_pd: DFF<Bits<16>>,
        epsn: DFF<Bits<24>>,
        msn: DFF<Bits<24>>,
        in_msg: DFF<Bit>,
        in_send: DFF<Bit>,
        nak_sent: DFF<Bit>,
        w_va: DFF<Bits<64>>,
        w_left: DFF<Bits<32>>,
        count: DFF<Bits<32>>,
        rq_ci: DFF<Bits<16>>,
        qp_error: DFF<Bit>,
        /// The key that admitted the QP's message in progress, and the region epoch of its
        /// last check.
        m_key: DFF<Bits<32>>,
        m_epoch: DFF<Bits<32>>,
        /// The check in flight is a later packet's check against `m_key`.
        rechk: DFF<Bit>,
        /// Region commits, and the fence: a snapshot of (epoch, writes issued, response queue
        /// tail) taken between packets becomes the fence once the host has acknowledged those
        /// writes and the queue has answered every entry before that tail (a READ or an atomic
        /// admitted under an old key reads and writes the host when `ResponseTx` takes it up).
        epoch: DFF<Bits<32>>,
        snap_valid: DFF<Bit>,
        snap_epoch: DFF<Bits<32>>,
        snap_seq: DFF<Bits<32>>,
        snap_tail: DFF<Bits<ACK_PTR>>,
        snap_drained: DFF<Bit>,
        fence: DFF<Bits<32>>,
        // The receive WQE being read.
        q_addr: DFF<Bits<64>>,
        q_len: DFF<Bits<32>>,
        q_lkey: DFF<Bits<32>>,
        q_error: DFF<Bit>,
        // What to answer, and the write in progress.
        resp: DFF<Bit>,
        resp_syn: DFF<Bits<8>>,
        resp_psn: DFF<Bits<24>>,
        cmd_done: DFF<Bit>,
        // The receive completion to hand over.
        rc_pend: DFF<Bit>,
        rc_q_index: DFF<Bits<16>>,
        rc_q_len: DFF<Bits<32>>,
        rc_q_op: DFF<Bits<8>>,
        rc_q_status: DFF<Bits<8>>,
        rc_q_imm: DFF<Bit>,
        /// The QP state in the registers is newer than its RAM word (written back when idle),
        /// and the packet being checked is for that same QP (use the registers).
        dirty: DFF<Bit>,
        /// A placed packet's ACK, queued in the next cycle (from the registers it left; the
        /// FSM is idle then, taking the next record) instead of in a state of its own.
        ack_pending: DFF<Bit>,
        /// The receive WQE just taken was admitted by the region cache (its verdict in
        /// P_MR_WAIT at once, no table check issued).
        fast_ok: DFF<Bit>,
        fwd: DFF<Bit>,
        /// The QP of the packet in hand (or of the state not yet written back) was committed
        /// since its record was taken: the packet is abandoned at its next safe point (no
        /// write issued after it, no receive completion) and its state is not written back.
        r_committed: DFF<Bit>,
        /// A commit of the QP in hand this cycle.
        commit_hit: Signal<Local, Bit>,
        /// A commit of the QP the prefetcher's look holds this cycle.
        /// Payload writes issued and acknowledged by the host (16-bit sequence numbers).
        issued_seq: DFF<Bits<32>>,
        done_seq: DFF<Bits<32>>,
        n_placed: DFF<Bits<32>>,
        n_acks: DFF<Bits<32>>,
        n_naks_seq: DFF<Bits<32>>,
        n_out_of_seq: DFF<Bits<32>>,
        n_naks_invalid: DFF<Bits<32>>,
        n_naks_access: DFF<Bits<32>>,
        n_duplicates: DFF<Bits<32>>,
        n_bad_qp: DFF<Bits<32>>,
        n_set_aside: DFF<Bits<32>>,
        n_naks_rnr: DFF<Bits<32>>,
        n_naks_operational: DFF<Bits<32>>,
        n_receives: DFF<Bits<32>>,
        n_rq_wait: DFF<Bits<32>>,
        n_bad_source: DFF<Bits<32>>,

        commit_ok: Signal<Local, Bit>,
        db_ok: Signal<Local, Bit>,
        qp_word: Signal<Local, Bits<CTX_BITS>>,
        st: Signal<Local, Bits<325>>,
        is_write: Signal<Local, Bit>,
        is_send: Signal<Local, Bit>,
        k_op: Signal<Local, Bits<8>>,
        first: Signal<Local, Bit>,
        last: Signal<Local, Bit>,
        imm: Signal<Local, Bit>,
        needs_wqe: Signal<Local, Bit>,
        order_bad: Signal<Local, Bit>,
        fits: Signal<Local, Bit>,
        diff: Signal<Local, Bits<24>>,
        pmtu: Signal<Local, Bits<32>>,
        len: Signal<Local, Bits<32>>,
        len_ok: Signal<Local, Bit>,
        has_payload: Signal<Local, Bit>,
        fail_qp: Signal<Local, Bit>,
        from_peer: Signal<Local, Bit>,
        fail_src: Signal<Local, Bit>,
        /// The region epoch moved since the message's last key check.
        stale: Signal<Local, Bit>,
        /// A key verdict of the current epoch (an older one is checked again).
        verdict: Signal<Local, Bit>,
        rechk_need: Signal<Local, Bits<4>>,
        k_key: Signal<Local, Bits<32>>,
        k_pkey: Signal<Local, Bits<16>>,
        k_epoch: Signal<Local, Bits<32>>,
        fail_op: Signal<Local, Bit>,
        ok_op: Signal<Local, Bit>,
        fail_dup: Signal<Local, Bit>,
        fail_seq: Signal<Local, Bit>,
        in_seq: Signal<Local, Bit>,
        fail_order: Signal<Local, Bit>,
        fail_rnr: Signal<Local, Bit>,
        fail_len: Signal<Local, Bit>,
        fail_fit: Signal<Local, Bit>,
        pass_all: Signal<Local, Bit>,
        wr_inc: Signal<Local, Bit>,
        rec_qp: Signal<Local, Bits<QP_SLOT_BITS>>,
        write_back: Signal<Local, Bit>,
        ack_out: Signal<Local, Bits<ANSWER_BITS>>,
        ack_job: Signal<Local, Bits<JOB_BITS>>,
        ack_push: Signal<Local, Bit>,
        after_packet: Signal<Local, Bits<4>>,
        /// The region cache admits the WRITE's rkey range (`mr_fast_*`).
        key_known: Signal<Local, Bit>,
        /// The region cache admits the receive WQE's buffer (LOCAL_WRITE) being taken.
        wqe_known: Signal<Local, Bit>,
        /// The key verdict's error: the table's, or none for a cache hit (`fast_ok`).
        key_error: Signal<Local, Bits<3>>,
        /// P_CHECK admits a WRITE FIRST / ONLY on the region cache's word (`key_known`).
        fast_write: Signal<Local, Bit>,
        k_state: Signal<Local, Bits<3>>,
        k_pmtu: Signal<Local, Bits<4>>,
        /// The QP takes READ and atomic requests (`max_dest_rd_atomic` is not 0).
        k_takes_rd: Signal<Local, Bit>,
        k_pd: Signal<Local, Bits<16>>,
        k_epsn: Signal<Local, Bits<24>>,
        k_msn: Signal<Local, Bits<24>>,
        k_in_msg: Signal<Local, Bit>,
        k_send: Signal<Local, Bit>,
        k_nak_sent: Signal<Local, Bit>,
        k_va: Signal<Local, Bits<64>>,
        k_left: Signal<Local, Bits<32>>,
        k_count: Signal<Local, Bits<32>>,
        k_rq_ci: Signal<Local, Bits<16>>,
        k_error: Signal<Local, Bit>,
        k_rq_pi: Signal<Local, Bits<16>>,
        beat_last: Signal<Local, Bit>,
    }
}

impl Logic for Responder {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, state, r_opcode, r_ack_req, r_qp_ok, r_qp, r_psn, r_len, r_va, r_rkey, r_dma_len, r_imm, r_syn,
            r_msn, db_hit, db_val, c_dest_qpn, c_mac, c_flags, c_vlan_tci, c_traffic, c_flow_label, c_udp_sport, c_ip, c_pkey,
            c_pd, epsn, msn, in_msg, in_send, nak_sent, w_va, w_left, count, rq_ci, qp_error, q_addr,
            q_len, q_lkey, q_error, resp, resp_syn, resp_psn, cmd_done, rc_pend, rc_q_index, rc_q_len, rc_q_op, rc_q_status,
            rc_q_imm, 
            dirty, ack_pending, fast_ok, fwd, r_committed, r_dup, resp_kind, r_swap, r_compare, c_pmtu, issued_seq, done_seq, n_placed, n_acks, n_naks_seq, n_out_of_seq, n_naks_invalid, n_naks_access,
            n_duplicates, n_bad_qp, n_set_aside, n_naks_rnr, n_naks_operational, n_receives, n_rq_wait, r_pkey, r_ipv6,
            r_ip_src, m_key, m_epoch, rechk, epoch, snap_valid, snap_epoch, snap_seq, snap_tail, snap_drained, fence, n_bad_source,
            rd_head, rd_n, rd_nak, rd_epoch, last_read, last_slot, rr_rest, r_tail, rr, rr_va, rr_key, rr_last, r_aack, cpl_pend, cpl_k, n_read_placed, n_read_dropped, n_implied
        );
        self.ctx_table.clock.next = self.clock.val();
        self.history.clock.next = self.clock.val();
        self.history.qp_commit_valid.next = self.ctx_table.commit_ok.val();
        self.history.qp_commit.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.history.look_psn.next = self.r_psn.q.val();
        self.history.look_dup.next = self.r_dup.q.val();
        self.history.last_read.next = self.last_read.q.val();
        self.history.last_slot.next = self.last_slot.q.val();
        self.st_ram.read_clock.next = self.clock.val();
        self.st_ram.write_clock.next = self.clock.val();

        // Commits: this engine's copy of the QP context, and its state reset to the staged
        // receive PSN with an empty receive queue.
        for i in 0..QP_STAGE_WORDS {
            self.ctx_table.qp_stage[i].next = self.qp_stage[i].val();
        }
        self.ctx_table.qp_commit_valid.next = self.qp_commit_valid.val();
        self.ctx_table.qp_commit.next = self.qp_commit.val();
        self.commit_ok.next = self.ctx_table.commit_ok.val();
        self.st_commit.epsn.next = self.qp_stage[20].val().get_bits::<24>(0);
        self.st_commit.msn.next = self.zero24.val();
        self.st_commit.in_msg.next = self.zero1.val();
        self.st_commit.nak_sent.next = self.zero1.val();
        self.st_commit.va.next = self.zero64.val();
        self.st_commit.left.next = self.zero32.val();
        self.st_commit.send.next = self.zero1.val();
        self.st_commit.count.next = self.zero32.val();
        self.st_commit.rq_ci.next = self.zero16.val();
        self.st_commit.error.next = self.zero1.val();
        self.st_commit.key.next = self.zero32.val();
        self.st_commit.epoch.next = self.zero32.val();
        self.st_commit.rd_head.next = self.zero_ptr.val();
        self.st_commit.rd_n.next = self.zero24.val();
        self.st_commit.rd_nak.next = self.zero1.val();
        self.st_back.rd_head.next = self.rd_head.q.val();
        self.st_back.rd_n.next = self.rd_n.q.val();
        self.st_commit.rd_epoch.next = self.zero32.val();
        self.st_commit.last_read.next = self.zero1.val();
        self.st_commit.last_slot.next = self.zero3.val();
        self.st_back.last_read.next = self.zero1.val();
        if self.last_read.q.val() {
            self.st_back.last_read.next = self.one1.val();
        }
        self.st_back.last_slot.next = self.last_slot.q.val();
        self.st_back.rd_epoch.next = self.rd_epoch.q.val();
        self.st_back.rd_nak.next = self.zero1.val();
        if self.rd_nak.q.val() {
            self.st_back.rd_nak.next = self.one1.val();
        }
        self.st_back.epsn.next = self.epsn.q.val();
        self.st_back.msn.next = self.msn.q.val();
        self.st_back.in_msg.next = self.zero1.val();
        if self.in_msg.q.val() {
            self.st_back.in_msg.next = self.one1.val();
        }
        self.st_back.nak_sent.next = self.zero1.val();
        if self.nak_sent.q.val() {
            self.st_back.nak_sent.next = self.one1.val();
        }
        self.st_back.va.next = self.w_va.q.val();
        self.st_back.left.next = self.w_left.q.val();
        self.st_back.send.next = self.zero1.val();
        if self.in_send.q.val() {
            self.st_back.send.next = self.one1.val();
        }
        self.st_back.count.next = self.count.q.val();
        self.st_back.rq_ci.next = self.rq_ci.q.val();
        self.st_back.error.next = self.zero1.val();
        if self.qp_error.q.val() {
            self.st_back.error.next = self.one1.val();
        }
        self.st_back.key.next = self.m_key.q.val();
        self.st_back.epoch.next = self.m_epoch.q.val();

        // The region epoch and the fence `dereg_mr` waits for: once the FSM is between packets
        // every write admitted under an older epoch has been issued, and every READ or atomic
        // queued; once the host has acknowledged those writes and the queue has answered those
        // entries (an atomic's write acknowledged too), none is left.
        if self.mr_commit.val() {
            self.epoch.d.next = self.epoch.q.val() + self.one32.val();
        }
        if (self.state.q.val() == self.p_idle.val()) & !self.snap_valid.q.val() {
            self.snap_valid.d.next = true;
            self.snap_epoch.d.next = self.epoch.q.val();
            self.snap_seq.d.next = self.issued_seq.q.val();
            self.snap_tail.d.next = self.answers.tail.val();
            self.snap_drained.d.next = false;
        }
        // (The head moves one entry at a time: it meets the snapshot's tail on its way.)
        if self.snap_valid.q.val() & (self.answers.head.val() == self.snap_tail.q.val()) {
            self.snap_drained.d.next = true;
        }
        if self.snap_valid.q.val() & self.snap_drained.q.val() & ((self.done_seq.q.val() - self.snap_seq.q.val()) < self.half32.val()) {
            self.snap_valid.d.next = false;
            self.fence.d.next = self.snap_epoch.q.val();
        }
        // The finished packet's QP state goes back to its RAM word in the next idle cycle (a
        // commit in that cycle goes first; the state waits, and no record is taken).
        self.write_back.next =
            (self.state.q.val() == self.p_idle.val()) & self.dirty.q.val() & !self.qp_commit_valid.val() & !self.r_committed.q.val();
        if self.write_back.val() | ((self.state.q.val() == self.p_idle.val()) & self.r_committed.q.val()) {
            self.dirty.d.next = false;
        }
        self.commit_hit.next = self.commit_ok.val()
            & (self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0) == self.r_qp.q.val())
            & ((self.state.q.val() != self.p_idle.val()) | self.dirty.q.val());
        self.st_ram.write_enable.next = self.commit_ok.val() | self.write_back.val();
        self.st_ram.write_address.next = self.r_qp.q.val();
        self.st_ram.write_data.next = self.st_back.word.val();
        if self.commit_ok.val() {
            self.st_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.st_ram.write_data.next = self.st_commit.word.val();
        }
        // Receive doorbells (validated: the QPN fits) and the receive queues.
        self.db_ok.next = self.rq_doorbell_valid.val() & (self.rq_doorbell.val().get_bits::<8>(24) == self.zero8.val());
        self.rq.clock.next = self.clock.val();
        self.rq.commit_ok.next = self.commit_ok.val();
        self.rq.commit_qp.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
        self.rq.commit_any.next = self.qp_commit_valid.val();
        self.rq.ring_lo.next = self.qp_stage[22].val();
        self.rq.ring_hi.next = self.qp_stage[23].val();
        self.rq.ring_log.next = self.qp_stage[24].val().get_bits::<4>(0);
        self.rq.db_valid.next = self.db_ok.val();
        self.rq.db_qp.next = self.rq_doorbell.val().get_bits::<QP_SLOT_BITS>(16);
        self.rq.db_pi.next = self.rq_doorbell.val().get_bits::<16>(0);
        self.rq.at_qp.next = self.r_qp.q.val();
        self.rq.at_ci.next = self.rq_ci.q.val();
        self.rq.waiting.next = self.state.q.val() == self.p_rq_wait.val();
        self.rq.take.next = (self.state.q.val() == self.p_rq_data.val()) & !self.r_committed.q.val();
        self.rd_valid.next = self.rq.rd_valid.val();
        self.rq.rd_ready.next = self.rd_ready.val();
        self.rd_addr.next = self.rq.rd_addr.val();
        self.rd_len.next = self.rq.rd_len.val();
        self.rq.rdd_valid.next = self.rdd_valid.val();
        self.rdd_ready.next = self.rq.rdd_ready.val();
        self.rq.rdd_data.next = self.rdd_data.val();
        self.rq.rdd_error.next = self.rdd_error.val();

        // Records: taken when idle; the QP's RAM words are read as the record is taken and
        // checked in the next cycle.
        // (Spelled from registers and inputs only: see the requester on valid / ready.)
        // (Never in a commit's cycle: the words read would be the QP's as it was.)
        self.rec_ready.next = (self.state.q.val() == self.p_idle.val()) & !self.qp_commit_valid.val();
        self.rec_qp.next = self.rec_word0.val().get_bits::<QP_SLOT_BITS>(self.r_dest_qp_at.val().index());
        self.rq.rec_take.next = (self.state.q.val() == self.p_idle.val()) & self.rec_valid.val() & !self.qp_commit_valid.val();
        self.rq.rec_qp.next = self.rec_qp.val();
        // (Looked up with every record taken; the word is held until the next.)
        self.history.look_valid.next = (self.state.q.val() == self.p_idle.val()) & self.rec_valid.val() & !self.qp_commit_valid.val();
        self.history.look_qp.next = self.rec_qp.val();
        self.rec_op.next = self.rec_word0.val().get_bits::<8>(self.r_opcode_at.val().index());
        self.ctx_table.read_address.next = self.rec_qp.val();
        self.st_ram.read_address.next = self.rec_qp.val();
        self.rt_tail_qp.next = self.rec_qp.val();
        self.qp_word.next = self.ctx_table.read_data.val();
        self.st.next = self.st_ram.read_data.val();
        self.k_state.next = self.qp_word.val().get_bits::<3>(self.o_state.val().index());
        self.k_pmtu.next = self.qp_word.val().get_bits::<4>(self.o_pmtu.val().index());
        self.k_takes_rd.next = self.qp_word.val().get_bits::<4>(self.o_max_dest_rd.val().index()) != self.zero4.val();
        self.k_pd.next = self.qp_word.val().get_bits::<16>(self.o_pd.val().index());
        self.k_epsn.next = self.st.val().get_bits::<24>(self.s_epsn.val().index());
        self.k_msn.next = self.st.val().get_bits::<24>(self.s_msn.val().index());
        self.k_in_msg.next = self.st.val().get_bit(self.s_in_msg.val().index());
        self.k_nak_sent.next = self.st.val().get_bit(self.s_nak_sent.val().index());
        self.k_va.next = self.st.val().get_bits::<64>(self.s_va.val().index());
        self.k_left.next = self.st.val().get_bits::<32>(self.s_left.val().index());
        self.k_send.next = self.st.val().get_bit(self.s_send.val().index());
        self.k_count.next = self.st.val().get_bits::<32>(self.s_count.val().index());
        self.k_rq_ci.next = self.st.val().get_bits::<16>(self.s_rq_ci.val().index());
        self.k_error.next = self.st.val().get_bit(self.s_error.val().index());
        self.k_key.next = self.st.val().get_bits::<32>(self.s_key.val().index());
        self.k_epoch.next = self.st.val().get_bits::<32>(self.s_epoch.val().index());
        self.k_rd_head.next = self.st.val().get_bits::<RD_PTR>(self.s_rd_head.val().index());
        self.k_rd_n.next = self.st.val().get_bits::<24>(self.s_rd_n.val().index());
        self.k_rd_nak.next = self.st.val().get_bit(self.s_rd_nak.val().index());
        self.k_rd_epoch.next = self.st.val().get_bits::<32>(self.s_rd_epoch.val().index());
        self.k_last_read.next = self.st.val().get_bit(self.s_last_read.val().index());
        self.k_last_slot.next = self.st.val().get_bits::<3>(self.s_last_slot.val().index());
        if self.fwd.q.val() {
            self.k_last_read.next = self.last_read.q.val();
            self.k_last_slot.next = self.last_slot.q.val();
            self.k_rd_epoch.next = self.rd_epoch.q.val();
            self.k_rd_head.next = self.rd_head.q.val();
            self.k_rd_n.next = self.rd_n.q.val();
            self.k_rd_nak.next = self.rd_nak.q.val();
            self.k_epsn.next = self.epsn.q.val();
            self.k_msn.next = self.msn.q.val();
            self.k_in_msg.next = self.in_msg.q.val();
            self.k_nak_sent.next = self.nak_sent.q.val();
            self.k_va.next = self.w_va.q.val();
            self.k_left.next = self.w_left.q.val();
            self.k_send.next = self.in_send.q.val();
            self.k_count.next = self.count.q.val();
            self.k_rq_ci.next = self.rq_ci.q.val();
            self.k_error.next = self.qp_error.q.val();
            self.k_key.next = self.m_key.q.val();
            self.k_epoch.next = self.m_epoch.q.val();
        }
        self.rt_slot_qp.next = self.r_qp.q.val();
        self.rt_slot.next = self.rd_head.q.val().get_bits::<3>(0);
        if self.state.q.val() == self.p_check.val() {
            self.rt_slot.next = self.k_rd_head.val().get_bits::<3>(0);
        }
        // The producer index: the RAM's, or a doorbell's that came as the record was taken
        // or comes now (the RAM has not caught up with either).
        self.k_rq_pi.next = self.rq.rec_pi.val();
        if self.db_hit.q.val() {
            self.k_rq_pi.next = self.db_val.q.val();
        }
        if self.db_ok.val() & (self.rq_doorbell.val().get_bits::<QP_SLOT_BITS>(16) == self.r_qp.q.val()) {
            self.k_rq_pi.next = self.rq_doorbell.val().get_bits::<16>(0);
        }

        // The packet's kind and the checks (meaningful in P_CHECK).
        self.is_send.next = self.r_opcode.q.val() <= self.op_send_only_imm.val();
        self.is_write.next = (self.r_opcode.q.val() >= self.op_write_first.val()) & (self.r_opcode.q.val() <= self.op_write_only_imm.val());
        self.k_op.next = self.r_opcode.q.val();
        if !self.is_send.val() {
            self.k_op.next = self.r_opcode.q.val() - self.op_write_first.val();
        }
        self.first.next = (self.k_op.val() == self.k_first.val()) | (self.k_op.val() >= self.k_only.val());
        self.last.next = self.k_op.val() >= self.k_last.val();
        self.imm.next = (self.k_op.val() == self.k_last_imm.val()) | (self.k_op.val() == self.k_only_imm.val());
        self.needs_wqe.next = (self.is_send.val() & self.first.val()) | (self.is_write.val() & self.imm.val());
        // A receive WQE is there: posted and not consumed (in the cache, being fetched or in
        // the ring).
        self.rq_avail.next = self.k_rq_pi.val() != self.k_rq_ci.val();
        self.diff.next = self.r_psn.q.val() - self.k_epsn.val();
        self.pmtu.next = self.one32.val() << self.k_pmtu.val();
        self.len32.len.next = self.r_len.q.val();
        self.len.next = self.len32.word.val();
        // WRITE: FIRST and MIDDLE carry a full path MTU; LAST and ONLY end the RETH length
        // exactly. SEND: FIRST and MIDDLE a full path MTU, LAST 1 … PMTU, ONLY 0 … PMTU.
        self.len_ok.next = false;
        if self.first.val() & self.last.val() {
            self.len_ok.next = (self.len.val() == self.r_dma_len.q.val()) & (self.len.val() <= self.pmtu.val());
        }
        if self.first.val() & !self.last.val() {
            self.len_ok.next = (self.len.val() == self.pmtu.val()) & (self.r_dma_len.q.val() > self.pmtu.val());
        }
        if !self.first.val() & !self.last.val() {
            self.len_ok.next = (self.len.val() == self.pmtu.val()) & (self.k_left.val() > self.pmtu.val());
        }
        if !self.first.val() & self.last.val() {
            self.len_ok.next = (self.len.val() == self.k_left.val()) & (self.len.val() != self.zero32.val());
        }
        if self.is_send.val() {
            self.len_ok.next = self.len.val() == self.pmtu.val();
            if self.last.val() {
                self.len_ok.next = (self.len.val() <= self.pmtu.val()) & (self.first.val() | (self.len.val() != self.zero32.val()));
            }
        }
        // A SEND's later packets must fit the rest of the receive buffer.
        self.fits.next = self.len.val() <= self.k_left.val();
        self.has_payload.next = self.r_len.q.val() != self.zero13.val();
        // An RDMA READ request: no payload, at most 2^31 bytes; it takes a PSN per response
        // packet (one for length 0).
        self.is_read.next = self.r_opcode.q.val() == self.op_read.val();
        // COMPARE & SWAP, FETCH & ADD: no payload, eight bytes at an 8-byte aligned address.
        self.is_atomic.next = (self.r_opcode.q.val() == self.op_cas.val()) | (self.r_opcode.q.val() == self.op_faa.val());
        self.misaligned.next = (self.r_va.q.val() & self.align7.val()) != self.zero64.val();
        // READ responses, and ATOMIC Acknowledges (placed like a READ response ONLY).
        self.is_aack.next = self.r_opcode.q.val() == self.op_aack.val();
        self.is_rresp.next =
            ((self.r_opcode.q.val() >= self.op_rr_first.val()) & (self.r_opcode.q.val() <= self.op_rr_only.val())) | self.is_aack.val();
        self.is_ack_op.next = self.r_opcode.q.val() == self.op_ack.val();
        // A QP with `max_dest_rd_atomic` 0 takes no READ or atomic: an invalid request like a
        // length broken (rxe: RESPST_ERR_TOO_MANY_RDMA_ATM_REQ).
        self.read_len_ok.next =
            (self.len.val() == self.zero32.val()) & (self.r_dma_len.q.val() <= self.max_message.val()) & self.k_takes_rd.val();
        if self.is_read.val() {
            self.len_ok.next = self.read_len_ok.val();
        }
        if self.is_atomic.val() {
            self.len_ok.next = (self.len.val() == self.zero32.val()) & self.k_takes_rd.val();
        }
        self.read_round.next = self.r_dma_len.q.val() + (self.one32.val() << self.c_pmtu.q.val()) - self.one32.val();
        self.read_pkts.next = self.read_round.val() >> self.c_pmtu.q.val();
        if self.r_dma_len.q.val() == self.zero32.val() {
            self.read_pkts.next = self.one32.val();
        }

        // Payload: to the DMA write engine while writing, thrown away while draining. Each
        // use spells out its condition from registers (no shared local between a ready and
        // a valid, see the requester).
        // (An ATOMIC Acknowledge's one beat is its original value, not from the buffer.)
        // Beats follow their command (`cmd_done`) or go with it, in the cycle it is taken: the
        // write queue takes the two apart.
        self.wd_valid.next = (self.pl_valid.val() | self.r_aack.q.val())
            & (self.state.q.val() == self.p_write.val())
            & (self.cmd_done.q.val() | (!self.r_committed.q.val() & (self.r_len.q.val() != self.zero13.val()) & self.wr_ready.val()));
        self.aack_beat.value.next = self.r_swap.q.val();
        self.wd_data.next = self.pl_data.val();
        if self.r_aack.q.val() {
            self.wd_data.next = self.aack_beat.word.val();
        }
        self.pl_ready.next = (((self.state.q.val() == self.p_write.val())
            & (self.cmd_done.q.val() | (!self.r_committed.q.val() & (self.r_len.q.val() != self.zero13.val()) & self.wr_ready.val()))
            & self.wd_ready.val())
            | ((self.state.q.val() == self.p_drain.val()) & (self.r_len.q.val() != self.zero13.val())))
            & !self.r_aack.q.val();
        self.beat_last.next = (self.pl_valid.val() & self.pl_last.val()) | self.r_aack.q.val();

        // Payload write command: once per placed packet with payload.
        // (Outputs toward the write engine read registers only: see the requester. The beat
        // terms above read `wr_ready` too, which is loop-free only because the write queue's
        // `cmd_ready` comes from its registers.)
        self.wr_valid.next = (self.state.q.val() == self.p_write.val())
            & !self.cmd_done.q.val()
            & !self.r_committed.q.val()
            & (self.r_len.q.val() != self.zero13.val());
        self.wr_addr.next = self.w_va.q.val();
        if self.rr.q.val() {
            self.wr_addr.next = self.rr_va.q.val();
        }
        self.len16.len.next = self.r_len.q.val();
        self.wr_len.next = self.len16.word.val();
        self.wr_inc.next = (self.state.q.val() == self.p_write.val())
            & !self.cmd_done.q.val()
            & !self.r_committed.q.val()
            & self.has_payload.val()
            & self.wr_ready.val();
        if self.wr_inc.val() {
            self.issued_seq.d.next = self.issued_seq.q.val() + self.one32.val();
        }
        if self.wr_done.val() {
            self.done_seq.d.next = self.done_seq.q.val() + self.one32.val();
        }

        // The answer queue (`AckQueue`): in packet order, each released once the host has
        // acknowledged every payload write issued before it.
        self.answers.clock.next = self.clock.val();
        self.ack_word.syndrome.next = self.resp_syn.q.val();
        self.ack_word.psn.next = self.resp_psn.q.val();
        self.ack_word.msn.next = self.msn.q.val();
        self.ack_word.dest_qp.next = self.c_dest_qpn.q.val();
        self.ack_word.mac.next = self.c_mac.q.val();
        self.ack_word.flags.next = self.c_flags.q.val();
        self.ack_word.vlan_tci.next = self.c_vlan_tci.q.val();
        self.ack_word.traffic.next = self.c_traffic.q.val();
        self.ack_word.flow_label.next = self.c_flow_label.q.val();
        self.ack_word.udp_sport.next = self.c_udp_sport.q.val();
        self.ack_word.ip.next = self.c_ip.q.val();
        self.ack_word.pkey.next = self.c_pkey.q.val();
        self.ack_word.wseq.next = self.issued_seq.q.val();
        // (An answer whose QP was committed while it waited for room is the old QP's: dropped,
        // so a READ of a QP reset or destroyed meanwhile reads nothing. The push is spelled
        // from registers only: one decided by this cycle's inputs would loop through the
        // queue's `pushed` — Verilator's UNOPTFLAT.)
        self.answers.push.next = ((self.state.q.val() == self.p_ack.val()) | self.ack_pending.q.val()) & !self.r_committed.q.val();
        self.ack_pending.d.next = false;
        self.ack_push.next = self.answers.pushed.val();
        self.answers.answer.next = self.ack_word.word.val();
        self.answers.done_seq.next = self.done_seq.q.val();
        self.read_job.va.next = self.r_va.q.val();
        self.read_job.len.next = self.r_dma_len.q.val();
        self.read_job.pmtu.next = self.c_pmtu.q.val();
        self.read_job.mid.next = self.zero1.val();
        if self.history.mid.val() & self.r_dup.q.val() {
            self.read_job.mid.next = self.one1.val();
        }
        self.read_job.kept.next = self.zero1.val();
        if self.history.tag_valid.val() {
            self.read_job.kept.next = self.one1.val();
        }
        self.read_job.slot.next = self.history.tag_slot.val();
        self.read_job.gen.next = self.history.tag_gen.val();
        self.read_job.pad.next = self.zero86.val();
        self.read_job.qp.next = self.r_qp.q.val();
        self.atomic_job.va.next = self.r_va.q.val();
        self.atomic_job.value.next = self.r_swap.q.val();
        self.atomic_job.compare.next = self.r_compare.q.val();
        self.atomic_job.cas.next = self.zero1.val();
        if self.r_opcode.q.val() == self.op_cas.val() {
            self.atomic_job.cas.next = self.one1.val();
        }
        self.atomic_job.qp.next = self.r_qp.q.val();
        self.answers.job.next = self.read_job.word.val();
        if self.resp_kind.q.val().get_bit(1) {
            self.answers.job.next = self.atomic_job.word.val();
        }
        self.answers.kind.next = self.resp_kind.q.val();
        self.ack_out.next = self.answers.out_answer.val();
        self.ack_job.next = self.answers.out_job.val();
        self.ack_valid.next = self.answers.out_valid.val();
        self.answers.out_ready.next = self.ack_ready.val();
        self.ack_kind.next = self.answers.out_kind.val();
        self.ack_value.next = self.ack_job.val().get_bits::<64>(64);
        self.ack_compare.next = self.ack_job.val().get_bits::<64>(128);
        self.ack_cas.next = self.ack_job.val().get_bit(192);
        self.ack_qp.next = self.ack_job.val().get_bits::<QP_SLOT_BITS>(193);
        self.ack_va.next = self.ack_job.val().get_bits::<64>(0);
        self.ack_len.next = self.ack_job.val().get_bits::<32>(64);
        self.ack_pmtu.next = self.ack_job.val().get_bits::<4>(96);
        self.ack_mid.next = self.ack_job.val().get_bit(100);
        self.ack_kept.next = self.ack_job.val().get_bit(101);
        self.ack_slot.next = self.ack_job.val().get_bits::<3>(102);
        self.ack_gen.next = self.ack_job.val().get_bits::<2>(105);
        self.history.check_qp.next = self.ack_job.val().get_bits::<QP_SLOT_BITS>(193);
        self.check_gens.next = self.history.check_gens.val();
        self.ack_head.next = self.answers.head.val();
        self.ack_tail.next = self.answers.tail.val();
        self.answers.ahead_at.next = self.ahead_at.val();
        self.ahead_va.next = self.answers.ahead_va.val();
        self.ahead_len.next = self.answers.ahead_len.val();
        self.ahead_pmtu.next = self.answers.ahead_pmtu.val();
        self.ahead_kind.next = self.answers.ahead_kind.val();
        self.ahead_released.next = self.answers.ahead_released.val();
        self.ack_syndrome.next = self.ack_out.val().get_bits::<8>(self.a_syndrome.val().index());
        self.ack_psn.next = self.ack_out.val().get_bits::<24>(self.a_psn.val().index());
        self.ack_msn.next = self.ack_out.val().get_bits::<24>(self.a_msn.val().index());
        self.ack_dest_qp.next = self.ack_out.val().get_bits::<24>(self.a_dest_qp.val().index());
        self.ack_eth_dst.next = self.ack_out.val().get_bits::<48>(self.a_mac.val().index());
        self.ack_ipv6.next = self.ack_out.val().get_bit(self.a_ipv6.val().index());
        self.ack_vlan.next = self.ack_out.val().get_bit(self.a_vlan.val().index());
        self.ack_vlan_tci.next = self.ack_out.val().get_bits::<16>(self.a_vlan_tci.val().index());
        self.ack_dscp.next = self.ack_out.val().get_bits::<6>(self.a_dscp.val().index());
        self.ack_ecn.next = self.ack_out.val().get_bits::<2>(self.a_ecn.val().index());
        self.ack_ttl.next = self.ack_out.val().get_bits::<8>(self.a_ttl.val().index());
        self.ack_flow_label.next = self.ack_out.val().get_bits::<20>(self.a_flow_label.val().index());
        self.ack_udp_src_port.next = self.ack_out.val().get_bits::<16>(self.a_udp_sport.val().index());
        self.ack_ip_dst.next = self.ack_out.val().get_bits::<128>(self.a_ip.val().index());
        self.ack_pkey.next = self.ack_out.val().get_bits::<16>(self.a_pkey.val().index());

        // Where a packet goes when its payload is placed or drained: its receive completion,
        // then its answer.
        self.after_packet.next = self.p_idle.val();
        if self.resp.q.val() {
            self.after_packet.next = self.p_ack.val();
        }
        if self.rc_pend.q.val() {
            self.after_packet.next = self.p_rc.val();
        }
        if self.cpl_pend.q.val() {
            self.after_packet.next = self.p_cpl.val();
        }
        if self.r_committed.q.val() {
            self.after_packet.next = self.p_idle.val();
        }

        // The FSM.
        // (Taken exactly when `rec_ready` says so: a record held back by a commit must not be
        // processed now and again when it is released — its payload would go to the first.)
        if (self.state.q.val() == self.p_idle.val()) & self.rec_valid.val() & !self.qp_commit_valid.val() {
            self.r_opcode.d.next = self.rec_word0.val().get_bits::<8>(self.r_opcode_at.val().index());
            self.r_ack_req.d.next = self.rec_word0.val().get_bit(self.r_ack_req_at.val().index());
            self.r_qp.d.next = self.rec_word0.val().get_bits::<QP_SLOT_BITS>(self.r_dest_qp_at.val().index());
            self.r_qp_ok.d.next = self.rec_word0.val().get_bits::<16>(self.r_dest_hi_at.val().index()) == self.zero16.val();
            self.r_psn.d.next = self.rec_word0.val().get_bits::<24>(self.r_psn_at.val().index());
            self.r_len.d.next = self.rec_word0.val().get_bits::<LEN_BITS>(self.r_len_at.val().index());
            self.r_va.d.next = self.rec_word0.val().get_bits::<64>(self.r_va_at.val().index());
            self.r_rkey.d.next = self.rec_word0.val().get_bits::<32>(self.r_rkey_at.val().index());
            self.r_dma_len.d.next = self.rec_word0.val().get_bits::<32>(self.r_dma_len_at.val().index());
            self.r_imm.d.next = self.rec_word0.val().get_bits::<32>(self.r_imm_at.val().index());
            self.r_syn.d.next = self.rec_word0.val().get_bits::<8>(self.r_syn_at.val().index());
            self.r_msn.d.next = self.rec_word0.val().get_bits::<24>(self.r_msn_at.val().index());
            self.r_pkey.d.next = self.rec_word0.val().get_bits::<16>(self.r_pkey_at.val().index());
            self.r_ipv6.d.next = self.rec_word0.val().get_bit(self.r_ipv6_at.val().index());
            self.r_ip_src.d.next = self.rec_word1.val().get_bits::<128>(self.r_ip_src_at.val().index());
            self.r_swap.d.next = self.rec_word1.val().get_bits::<64>(self.r_swap_at.val().index());
            self.r_aack.d.next = false;
            if (self.rec_op.val() == self.op_aack.val())
                & (self.rec_word0.val().get_bits::<LEN_BITS>(self.r_len_at.val().index()) == self.zero13.val())
            {
                self.r_aack.d.next = true;
                self.r_len.d.next = self.eight_len.val();
                self.r_swap.d.next = self.rec_word1.val().get_bits::<64>(self.r_aack_at.val().index());
            }
            self.r_compare.d.next = self.rec_word1.val().get_bits::<64>(self.r_compare_at.val().index());
            self.rechk.d.next = false;
            self.rr.d.next = ((self.rec_op.val() >= self.op_rr_first.val()) & (self.rec_op.val() <= self.op_rr_only.val()))
                | (self.rec_op.val() == self.op_aack.val());
            self.rr_last.d.next = false;
            self.cpl_pend.d.next = false;
            self.cpl_k.d.next = self.k_plain.val();
            self.db_hit.d.next = self.db_ok.val() & (self.rq_doorbell.val().get_bits::<QP_SLOT_BITS>(16) == self.rec_qp.val());
            self.db_val.d.next = self.rq_doorbell.val().get_bits::<16>(0);
            self.resp.d.next = false;
            self.resp_kind.d.next = self.job_ack.val();
            self.rc_pend.d.next = false;
            self.rc_q_op.d.next = self.cq_recv.val();
            self.rc_q_imm.d.next = false;
            self.cmd_done.d.next = false;
            self.fwd.d.next = self.dirty.q.val() & !self.r_committed.q.val() & (self.rec_qp.val() == self.r_qp.q.val());
            self.r_committed.d.next = false;
            self.state.d.next = self.p_check.val();
        }
        if self.commit_hit.val() {
            self.r_committed.d.next = true;
        }
        if self.state.q.val() == self.p_check.val() {
            self.c_dest_qpn.d.next = self.qp_word.val().get_bits::<24>(self.o_dest_qpn.val().index());
            self.c_mac.d.next = self.qp_word.val().get_bits::<48>(self.o_mac.val().index());
            self.c_flags.d.next = self.qp_word.val().get_bits::<2>(self.o_flags.val().index());
            self.c_vlan_tci.d.next = self.qp_word.val().get_bits::<16>(self.o_vlan_tci.val().index());
            self.c_traffic.d.next = self.qp_word.val().get_bits::<16>(self.o_traffic.val().index());
            self.c_flow_label.d.next = self.qp_word.val().get_bits::<20>(self.o_flow_label.val().index());
            self.c_udp_sport.d.next = self.qp_word.val().get_bits::<16>(self.o_udp_sport.val().index());
            self.c_ip.d.next = self.qp_word.val().get_bits::<128>(self.o_ip.val().index());
            self.c_pkey.d.next = self.qp_word.val().get_bits::<16>(self.o_pkey.val().index());
            self.c_pmtu.d.next = self.k_pmtu.val();
            self.c_pd.d.next = self.k_pd.val();
            self.epsn.d.next = self.k_epsn.val();
            self.msn.d.next = self.k_msn.val();
            self.in_msg.d.next = self.k_in_msg.val();
            self.in_send.d.next = self.k_send.val();
            self.nak_sent.d.next = self.k_nak_sent.val();
            self.w_va.d.next = self.k_va.val();
            self.w_left.d.next = self.k_left.val();
            self.count.d.next = self.k_count.val();
            self.rq_ci.d.next = self.k_rq_ci.val();
            self.qp_error.d.next = self.k_error.val();
            self.m_key.d.next = self.k_key.val();
            self.m_epoch.d.next = self.k_epoch.val();
        }
        // The checks in order: the first failing one decides the outcome.
        // (A QP in error drops requests; acknowledges for its send queue still pass.)
        self.fail_qp.next = !self.r_qp_ok.q.val()
            | ((self.k_state.val() != self.rtr.val()) & (self.k_state.val() != self.rts.val()))
            | (self.k_error.val() & (self.is_write.val() | self.is_send.val() | self.is_read.val() | self.is_atomic.val() | self.is_rresp.val()));
        self.k_pkey.next = self.qp_word.val().get_bits::<16>(self.o_pkey.val().index());
        // The connected peer: its source address (and IP version), and a P_Key that matches the
        // QP's (low 15 bits equal, one of the two a full member; IBTA §10.9.3).
        self.from_peer.next = (self.r_ip_src.q.val() == self.qp_word.val().get_bits::<128>(self.o_ip.val().index()))
            & (self.r_ipv6.q.val() == self.qp_word.val().get_bit(self.o_flags.val().index()))
            & (((self.r_pkey.q.val() ^ self.k_pkey.val()) & self.pkey_low.val()) == self.zero16.val())
            & (self.r_pkey.q.val().get_bit(15) | self.k_pkey.val().get_bit(15));
        self.fail_src.next = !self.fail_qp.val() & !self.from_peer.val();
        self.fail_op.next = !self.fail_qp.val()
            & self.from_peer.val()
            & !self.is_write.val()
            & !self.is_send.val()
            & !self.is_read.val()
            & !self.is_atomic.val()
            & !self.is_rresp.val();
        // Answers to this card's requests: READ responses and ACKs, looked at with the QP's
        // oldest outstanding READ (P_RR).
        self.rr_go.next = !self.fail_qp.val() & self.from_peer.val() & (self.is_rresp.val() | self.is_ack_op.val());
        self.ok_op.next =
            !self.fail_qp.val() & self.from_peer.val() & (self.is_write.val() | self.is_send.val() | self.is_read.val() | self.is_atomic.val());
        self.fail_dup.next = self.ok_op.val() & self.diff.val().get_bit(23);
        self.fail_seq.next = self.ok_op.val() & (self.diff.val() != self.zero24.val()) & !self.diff.val().get_bit(23);
        self.in_seq.next = self.ok_op.val() & (self.diff.val() == self.zero24.val());
        self.order_bad.next = (self.first.val() == self.k_in_msg.val()) | (!self.first.val() & (self.k_send.val() != self.is_send.val()));
        self.fail_order.next = self.in_seq.val() & self.order_bad.val();
        self.fail_rnr.next = self.in_seq.val() & !self.order_bad.val() & self.needs_wqe.val() & !self.rq_avail.val();
        self.fail_len.next = self.in_seq.val() & !self.order_bad.val() & !(self.needs_wqe.val() & !self.rq_avail.val()) & !self.len_ok.val();
        self.fail_fit.next = self.in_seq.val()
            & !self.order_bad.val()
            & !(self.needs_wqe.val() & !self.rq_avail.val())
            & self.len_ok.val()
            & self.is_send.val()
            & !self.first.val()
            & !self.fits.val();
        self.pass_all.next = self.in_seq.val()
            & !self.order_bad.val()
            & !(self.needs_wqe.val() & !self.rq_avail.val())
            & self.len_ok.val()
            & !(self.is_send.val() & !self.first.val() & !self.fits.val());
        // Key checks: a WRITE's rkey over the whole RETH range, issued as the checks pass (so
        // every verdict has its packet waiting), or from registers (P_MR_ISSUE): a receive WQE's
        // lkey over its buffer, the same check again after a stale verdict, or a later packet's
        // bytes under the key that admitted its message when a region changed since (so a
        // region deregistered mid-message gets no byte more). Each check carries its epoch.
        self.stale.next = self.k_epoch.val() != self.epoch.q.val();
        self.mr_fast_key.next = self.r_rkey.q.val();
        self.mr_fast_addr.next = self.r_va.q.val();
        self.mr_fast_len.next = self.r_dma_len.q.val();
        if self.state.q.val() == self.p_rq_data.val() {
            self.mr_fast_key.next = self.rq.wqe_lkey.val();
            self.mr_fast_addr.next = self.rq.wqe_addr.val();
            self.mr_fast_len.next = self.rq.wqe_len.val();
        }
        self.key_known.next = self.mr_fast_hit.val()
            & (self.mr_fast_pd.val() == self.k_pd.val())
            & ((self.mr_fast_access.val() & self.need_write.val()) == self.need_write.val());
        self.wqe_known.next = self.mr_fast_hit.val()
            & (self.mr_fast_pd.val() == self.c_pd.q.val())
            & ((self.mr_fast_access.val() & self.need_local_write.val()) == self.need_local_write.val());
        self.mr_valid.next = ((self.state.q.val() == self.p_check.val())
            & self.pass_all.val()
            & self.first.val()
            & self.is_write.val()
            & !self.key_known.val())
            | ((self.state.q.val() == self.p_check.val()) & self.is_read.val() & (self.pass_all.val() | (self.fail_dup.val() & self.len_ok.val())))
            | ((self.state.q.val() == self.p_check.val()) & self.is_atomic.val() & self.pass_all.val())
            | ((self.state.q.val() == self.p_rq_data.val()) & self.is_send.val() & !self.r_committed.q.val() & !self.wqe_known.val())
            | (self.state.q.val() == self.p_mr_issue.val());
        self.mr_tag.next = self.epoch.q.val().get_bits::<16>(0);
        self.mr_key.next = self.r_rkey.q.val();
        self.mr_pd.next = self.k_pd.val();
        self.mr_addr.next = self.r_va.q.val();
        self.mr_len.next = self.r_dma_len.q.val();
        self.mr_need.next = self.need_write.val();
        if self.is_read.val() {
            self.mr_need.next = self.need_read.val();
        }
        if self.is_atomic.val() {
            self.mr_need.next = self.need_atomic.val();
            self.mr_len.next = self.eight32.val();
        }
        self.rechk_need.next = self.need_write.val();
        if self.is_send.val() {
            self.rechk_need.next = self.need_local_write.val();
        }
        // A SEND's receive WQE, checked as it is taken from the prefetcher.
        if self.state.q.val() == self.p_rq_data.val() {
            self.mr_pd.next = self.c_pd.q.val();
            self.mr_key.next = self.rq.wqe_lkey.val();
            self.mr_addr.next = self.rq.wqe_addr.val();
            self.mr_len.next = self.rq.wqe_len.val();
            self.mr_need.next = self.need_local_write.val();
        }
        if self.state.q.val() == self.p_mr_issue.val() {
            self.mr_pd.next = self.c_pd.q.val();
            if self.is_send.val() {
                self.mr_key.next = self.q_lkey.q.val();
                self.mr_addr.next = self.q_addr.q.val();
                self.mr_len.next = self.q_len.q.val();
                self.mr_need.next = self.need_local_write.val();
            }
            if self.rechk.q.val() {
                self.mr_key.next = self.m_key.q.val();
                self.mr_addr.next = self.w_va.q.val();
                self.mr_len.next = self.len.val();
                self.mr_need.next = self.rechk_need.val();
            }
            // A READ response: the rest of the local buffer from its bytes on, checked by the
            // READ's first response and again by the next one after any region changed (so a
            // region deregistered while responses arrive gets no byte more).
            if self.rr.q.val() {
                self.mr_key.next = self.rr_key.q.val();
                self.mr_addr.next = self.rr_va.q.val();
                self.mr_len.next = self.rr_rest.q.val();
                self.mr_need.next = self.need_local_write.val();
            }
        }
        self.verdict.next = ((self.state.q.val() == self.p_mr_wait.val())
            & self.mr_res_valid.val()
            & (self.mr_res_tag.val() == self.epoch.q.val().get_bits::<16>(0)))
            | ((self.state.q.val() == self.p_mr_wait.val()) & self.fast_ok.q.val());
        // A WRITE FIRST / ONLY whose rkey range the region cache holds is admitted as its checks
        // pass, by the verdict code below (no check issued, no wait).
        self.fast_write.next = (self.state.q.val() == self.p_check.val())
            & self.pass_all.val()
            & self.first.val()
            & self.is_write.val()
            & self.key_known.val();
        self.key_error.next = self.mr_res_error.val();
        if self.fast_ok.q.val() | self.fast_write.val() {
            self.key_error.next = self.zero3.val();
        }
        self.fast_ok.d.next = false;
        if (self.state.q.val() == self.p_mr_wait.val()) & self.mr_res_valid.val() & !self.verdict.val() {
            self.state.d.next = self.p_mr_issue.val();
        }

        if self.state.q.val() == self.p_check.val() {
            self.state.d.next = self.p_drain.val();
            if self.pass_all.val() {
                // A new message's byte count starts (not on a duplicate or early FIRST, which
                // is dropped: the message in progress keeps its count).
                if self.first.val() {
                    self.count.d.next = self.zero32.val();
                }
                self.state.d.next = self.p_write.val();
                if self.first.val() & self.is_write.val() {
                    self.state.d.next = self.p_mr_wait.val();
                }
                if (self.first.val() & self.is_send.val()) | (self.imm.val() & self.is_write.val() & !self.first.val()) {
                    self.state.d.next = self.p_rq_wait.val();
                }
                if !self.first.val() & self.stale.val() {
                    self.rechk.d.next = true;
                    self.state.d.next = self.p_mr_issue.val();
                }
            }
            if self.fail_src.val() {
                self.n_bad_source.d.next = self.n_bad_source.q.val() + self.one32.val();
            }
            if self.fail_qp.val() {
                self.n_bad_qp.d.next = self.n_bad_qp.q.val() + self.one32.val();
            }
            if self.fail_op.val() & (self.r_opcode.q.val() != self.op_ack.val()) {
                self.n_set_aside.d.next = self.n_set_aside.q.val() + self.one32.val();
            }
            if self.rr_go.val() {
                self.state.d.next = self.p_rr.val();
            }
            self.rd_head.d.next = self.k_rd_head.val();
            self.rd_n.d.next = self.k_rd_n.val();
            self.rd_nak.d.next = self.k_rd_nak.val();
            self.rd_epoch.d.next = self.k_rd_epoch.val();
            self.last_read.d.next = self.k_last_read.val();
            self.last_slot.d.next = self.k_last_slot.val();
            self.r_tail.d.next = self.rt_tail.val();
            self.r_dup.d.next = self.fail_dup.val();
            if self.pass_all.val() & (self.is_read.val() | self.is_atomic.val()) {
                self.state.d.next = self.p_mr_wait.val();
            }
            if self.fail_dup.val() {
                // Behind: a duplicate, already placed; re-acknowledged if it asks.
                self.resp.d.next = self.r_ack_req.q.val();
                self.resp_syn.d.next = self.syn_ack.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_duplicates.d.next = self.n_duplicates.q.val() + self.one32.val();
            }
            if self.fail_dup.val() & self.is_atomic.val() {
                // A duplicate atomic is answered from its saved result (never executed again),
                // whether it asks for an acknowledge or not.
                self.resp.d.next = true;
                self.resp_kind.d.next = self.job_atomic_dup.val();
            }
            if self.fail_dup.val() & self.is_read.val() {
                // A duplicate READ is executed again from its PSN (its key checked again); one
                // breaking the length rules is an invalid request like a new one.
                self.resp.d.next = false;
                self.state.d.next = self.p_mr_wait.val();
                if !self.len_ok.val() {
                    self.state.d.next = self.p_drain.val();
                    self.qp_error.d.next = true;
                    self.resp.d.next = true;
                    self.resp_syn.d.next = self.syn_invalid.val();
                    self.n_naks_invalid.d.next = self.n_naks_invalid.q.val() + self.one32.val();
                }
                // (On a QP that takes no READ, none was executed: one behind the ePSN is
                // stale, dropped as rxe drops a duplicate it holds no resource for.)
                if !self.k_takes_rd.val() {
                    self.state.d.next = self.p_drain.val();
                    self.qp_error.d.next = self.k_error.val();
                    self.resp.d.next = false;
                    self.n_naks_invalid.d.next = self.n_naks_invalid.q.val();
                }
            }
            if self.fail_seq.val() {
                // Ahead of the expected PSN: packets were lost. One NAK until the ePSN arrives.
                self.resp.d.next = !self.k_nak_sent.val();
                self.resp_syn.d.next = self.syn_seq.val();
                self.resp_psn.d.next = self.k_epsn.val();
                self.nak_sent.d.next = true;
                self.n_out_of_seq.d.next = self.n_out_of_seq.q.val() + self.one32.val();
                if !self.k_nak_sent.val() {
                    self.n_naks_seq.d.next = self.n_naks_seq.q.val() + self.one32.val();
                }
            }
            if self.fail_rnr.val() {
                // No receive WQE: the requester is to send this packet again later; packets
                // behind it are dropped silently until it comes (no sequence NAK for them,
                // which would cut the RNR wait short).
                self.nak_sent.d.next = true;
                self.resp.d.next = true;
                self.resp_syn.d.next = self.syn_rnr.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_naks_rnr.d.next = self.n_naks_rnr.q.val() + self.one32.val();
            }
            if self.fail_order.val() | self.fail_len.val() | self.fail_fit.val() {
                // Class C: the QP goes to error (IBTA §9.9.3.1.3).
                self.qp_error.d.next = true;
                self.resp.d.next = true;
                self.resp_syn.d.next = self.syn_invalid.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_naks_invalid.d.next = self.n_naks_invalid.q.val() + self.one32.val();
            }
            if self.fail_fit.val() {
                // The SEND outgrew its receive buffer: the WQE completes in error, the QP too.
                self.rc_pend.d.next = true;
                self.rc_q_status.d.next = self.st_length.val();
                self.rc_q_index.d.next = self.k_rq_ci.val() - self.one16.val();
                self.qp_error.d.next = true;
            }
        }
        // Answers to this card's requests, with the QP's oldest outstanding READ (its entry read
        // in P_CHECK). A READ response is placed only at the next PSN that READ expects, with
        // the opcode and length that PSN must have; one behind is a duplicate, one ahead means
        // responses were lost (an implied NAK at the expected PSN, once until one is placed).
        // An ACK at or past the READ's first PSN says the same (IBTA Vol 1 §9.7.5.1.2).
        self.en_laddr.next = self.rt_entry.val().get_bits::<64>(self.en_laddr_at.val().index());
        self.en_len.next = self.rt_entry.val().get_bits::<32>(self.en_len_at.val().index());
        self.en_psn.next = self.rt_entry.val().get_bits::<24>(self.en_psn_at.val().index());
        self.en_end.next = self.rt_entry.val().get_bits::<24>(self.en_end_at.val().index());
        self.rr_pmtu.next = self.one32.val() << self.c_pmtu.q.val();
        self.broken_at.next = self.qp_broken.val() >> self.r_qp.q.val();
        self.rr_has.next = (self.rd_head.q.val() != self.r_tail.q.val()) & !self.broken_at.val().get_bit(0);
        self.e_psn.next = self.en_psn.val() + self.rd_n.q.val();
        self.rr_d.next = self.r_psn.q.val() - self.e_psn.val();
        self.rr_k.next = self.r_opcode.q.val() - self.op_rr_first.val();
        // FIRST 0, MIDDLE 1, LAST 2, ONLY 3.
        self.rr_first_kind.next = (self.rr_k.val() == self.k_first.val()) | (self.rr_k.val() == self.three8.val()) | self.is_aack.val();
        self.rr_last_kind.next = self.rr_k.val() >= self.k_last.val();
        // An ATOMIC Acknowledge answers an atomic only (and carries no payload), a READ
        // response a READ only.
        self.en_atomic.next = self.rt_entry.val().get_bit(self.en_atomic_at.val().index());
        self.rr_last_exp.next = (self.e_psn.val() + self.one24.val()) == self.en_end.val();
        self.rr_off.next = self.n64.word.val().get_bits::<32>(0) << self.c_pmtu.q.val();
        self.n64.n.next = self.rd_n.q.val();
        self.rr_ok.next = (self.is_aack.val() == self.en_atomic.val())
            & (self.is_aack.val() == self.r_aack.q.val())
            & (self.rr_first_kind.val() == (self.rd_n.q.val() == self.zero24.val()))
            & (self.rr_last_kind.val() == self.rr_last_exp.val())
            & ((self.rr_last_kind.val() & (self.len.val() == (self.en_len.val() - self.rr_off.val())))
                | (!self.rr_last_kind.val() & (self.len.val() == self.rr_pmtu.val())));
        // An ACK at or past the READ's first PSN, or a NAK for a request after the READ: the
        // READ's responses are missing (retried first, as rxe does, so an error NAK for a later
        // request is not blamed on the READ; while that retry is out such a NAK is dropped:
        // the resend brings it again).
        self.ack_class.next = self.r_syn.q.val().get_bits::<2>(5) == self.zero2.val();
        self.nak_past.next = self.rr_has.val() & !self.ack_class.val() & ((self.r_psn.q.val() - self.en_end.val()) < self.half24.val());
        self.ack_past.next = ((self.rr_has.val() & self.ack_class.val() & ((self.r_psn.q.val() - self.en_psn.val()) < self.half24.val()))
            | self.nak_past.val())
            & !self.rd_nak.q.val();
        if (self.state.q.val() == self.p_rr.val()) & self.is_ack_op.val() {
            self.state.d.next = self.p_cpl.val();
            if self.nak_past.val() & self.rd_nak.q.val() {
                self.state.d.next = self.p_idle.val();
                self.n_read_dropped.d.next = self.n_read_dropped.q.val() + self.one32.val();
            }
            if self.ack_past.val() {
                self.cpl_k.d.next = self.k_implied.val();
                self.r_syn.d.next = self.syn_seq.val();
                self.r_psn.d.next = self.e_psn.val();
                self.rd_nak.d.next = true;
                self.dirty.d.next = true;
                self.n_implied.d.next = self.n_implied.q.val() + self.one32.val();
            }
        }
        if (self.state.q.val() == self.p_rr.val()) & self.is_rresp.val() {
            self.state.d.next = self.p_drain.val();
            self.n_read_dropped.d.next = self.n_read_dropped.q.val() + self.one32.val();
            self.rr_va.d.next = self.en_laddr.val() + (self.n64.word.val() << self.c_pmtu.q.val());
            self.rr_key.d.next = self.rt_entry.val().get_bits::<32>(self.en_lkey_at.val().index());
            self.rr_last.d.next = self.rr_last_kind.val();
            self.rr_rest.d.next = self.en_len.val() - self.rr_off.val();
            self.r_syn.d.next = self.syn_ack.val();
            if self.rr_has.val() & (self.rr_d.val() == self.zero24.val()) & self.rr_ok.val() {
                self.n_read_dropped.d.next = self.n_read_dropped.q.val();
                self.state.d.next = self.p_write.val();
                if self.has_payload.val() & ((self.rd_n.q.val() == self.zero24.val()) | (self.rd_epoch.q.val() != self.epoch.q.val())) {
                    self.state.d.next = self.p_mr_issue.val();
                }
            }
            if self.rr_has.val() & (self.rr_d.val() != self.zero24.val()) & !self.rr_d.val().get_bit(23) & !self.rd_nak.q.val() {
                self.n_read_dropped.d.next = self.n_read_dropped.q.val();
                self.n_implied.d.next = self.n_implied.q.val() + self.one32.val();
                self.cpl_pend.d.next = true;
                self.cpl_k.d.next = self.k_implied.val();
                self.r_syn.d.next = self.syn_seq.val();
                self.r_psn.d.next = self.e_psn.val();
                self.rd_nak.d.next = true;
                self.dirty.d.next = true;
            }
        }
        if self.r_committed.q.val() & (self.state.q.val() == self.p_rr.val()) {
            self.state.d.next = self.p_drain.val();
            self.cpl_pend.d.next = false;
        }
        if self.verdict.val() & self.rr.q.val() {
            // The local key refused the bytes: nothing is placed, the READ fails.
            self.state.d.next = self.p_write.val();
            if self.key_error.val() == self.zero3.val() {
                self.rd_epoch.d.next = self.epoch.q.val();
            }
            if self.key_error.val() != self.zero3.val() {
                self.state.d.next = self.p_drain.val();
                self.cpl_pend.d.next = true;
                self.cpl_k.d.next = self.k_refused.val();
                self.n_read_dropped.d.next = self.n_read_dropped.q.val() + self.one32.val();
            }
        }
        // Waiting for the prefetched WQE: once its bit is set its word is in the RAM, read at
        // the packet's QP in every cycle and taken in the next.
        if (self.state.q.val() == self.p_rq_wait.val()) & self.rq.at_cached.val() {
            self.state.d.next = self.p_rq_data.val();
        }
        if (self.state.q.val() == self.p_rq_wait.val()) & !self.rq.at_cached.val() {
            self.n_rq_wait.d.next = self.n_rq_wait.q.val() + self.one32.val();
        }
        if self.state.q.val() == self.p_rq_data.val() {
            // The WQE is consumed whatever it holds.
            self.rc_q_index.d.next = self.rq_ci.q.val();
            self.rq_ci.d.next = self.rq_ci.q.val() + self.one16.val();
            self.q_addr.d.next = self.rq.wqe_addr.val();
            self.q_len.d.next = self.rq.wqe_len.val();
            self.q_lkey.d.next = self.rq.wqe_lkey.val();
            self.q_error.d.next = self.rq.wqe_error.val();
            self.state.d.next = self.p_mr_wait.val();
            // Its lkey range in the region cache: the verdict is there as it enters P_MR_WAIT.
            self.fast_ok.d.next = self.wqe_known.val() & self.is_send.val();
            if self.is_write.val() {
                self.state.d.next = self.p_write.val();
            }
        }
        if self.state.q.val() == self.p_mr_issue.val() {
            self.state.d.next = self.p_mr_wait.val();
        }
        if (self.verdict.val() & self.is_write.val()) | self.fast_write.val() {
            // A FIRST / ONLY (or, after its check again, a later packet) goes on; a WRITE with
            // immediate's last packet takes its receive WQE first.
            self.state.d.next = self.p_write.val();
            if self.imm.val() {
                self.state.d.next = self.p_rq_wait.val();
            }
            if self.key_error.val() == self.zero3.val() {
                self.m_epoch.d.next = self.epoch.q.val();
                if !self.rechk.q.val() {
                    self.w_va.d.next = self.r_va.q.val();
                    self.w_left.d.next = self.r_dma_len.q.val();
                    self.in_send.d.next = false;
                    self.m_key.d.next = self.r_rkey.q.val();
                }
            }
            if self.key_error.val() != self.zero3.val() {
                self.state.d.next = self.p_drain.val();
                self.resp.d.next = true;
                self.resp_syn.d.next = self.syn_access.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_naks_access.d.next = self.n_naks_access.q.val() + self.one32.val();
                self.qp_error.d.next = true;
            }
        }
        self.wqe_refused.next = (self.key_error.val() != self.zero3.val()) | self.q_error.q.val();
        if self.verdict.val() & self.is_send.val() & self.rechk.q.val() {
            self.state.d.next = self.p_write.val();
            self.m_epoch.d.next = self.epoch.q.val();
            if self.key_error.val() != self.zero3.val() {
                // The receive buffer's region went mid-message: its WQE completes in error.
                self.state.d.next = self.p_drain.val();
                self.resp.d.next = true;
                self.resp_syn.d.next = self.syn_operational.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_naks_operational.d.next = self.n_naks_operational.q.val() + self.one32.val();
                self.rc_pend.d.next = true;
                self.rc_q_status.d.next = self.st_protection.val();
                self.rc_q_index.d.next = self.rq_ci.q.val() - self.one16.val();
                self.qp_error.d.next = true;
            }
        }
        if self.verdict.val() & self.is_send.val() & !self.rechk.q.val() {
            self.state.d.next = self.p_write.val();
            self.w_va.d.next = self.q_addr.q.val();
            self.w_left.d.next = self.q_len.q.val();
            self.in_send.d.next = true;
            self.m_key.d.next = self.q_lkey.q.val();
            self.m_epoch.d.next = self.epoch.q.val();
            // A key that does not allow the write (or an unreadable WQE) wins over the length.
            if !self.wqe_refused.val() & (self.len.val() > self.q_len.q.val()) {
                self.state.d.next = self.p_drain.val();
                self.resp.d.next = true;
                self.resp_syn.d.next = self.syn_invalid.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_naks_invalid.d.next = self.n_naks_invalid.q.val() + self.one32.val();
                self.rc_pend.d.next = true;
                self.rc_q_status.d.next = self.st_length.val();
                self.qp_error.d.next = true;
            }
            if self.wqe_refused.val() {
                self.state.d.next = self.p_drain.val();
                self.resp.d.next = true;
                self.resp_syn.d.next = self.syn_operational.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.n_naks_operational.d.next = self.n_naks_operational.q.val() + self.one32.val();
                self.rc_pend.d.next = true;
                self.rc_q_status.d.next = self.st_protection.val();
                self.qp_error.d.next = true;
            }
        }
        if self.verdict.val() & self.is_atomic.val() {
            // An atomic whose key allows it and whose address is aligned: executed by
            // `ResponseTx` in queue order (after every write before it is in memory); it takes
            // one PSN and finishes a message. (Key first, then alignment, as rxe.)
            self.dirty.d.next = true;
            self.resp.d.next = true;
            self.resp_psn.d.next = self.r_psn.q.val();
            self.resp_syn.d.next = self.syn_ack.val();
            if self.key_error.val() != self.zero3.val() {
                self.state.d.next = self.p_drain.val();
                self.qp_error.d.next = true;
                self.resp_syn.d.next = self.syn_access.val();
                self.n_naks_access.d.next = self.n_naks_access.q.val() + self.one32.val();
            }
            if (self.key_error.val() == self.zero3.val()) & self.misaligned.val() {
                self.state.d.next = self.p_drain.val();
                self.qp_error.d.next = true;
                self.resp_syn.d.next = self.syn_invalid.val();
                self.n_naks_invalid.d.next = self.n_naks_invalid.q.val() + self.one32.val();
            }
            if (self.key_error.val() == self.zero3.val()) & !self.misaligned.val() {
                self.state.d.next = self.p_ack.val();
                self.resp_kind.d.next = self.job_atomic.val();
                self.epsn.d.next = self.r_psn.q.val() + self.one24.val();
                self.nak_sent.d.next = false;
                self.msn.d.next = self.msn.q.val() + self.one24.val();
            }
        }
        if self.verdict.val() & self.is_read.val() {
            // A READ whose key allows it: its responses are queued like an acknowledge (after
            // every write before it is in memory); a new one moves the ePSN past its
            // responses and finishes a message.
            self.dirty.d.next = true;
            self.resp.d.next = true;
            self.resp_psn.d.next = self.r_psn.q.val();
            if self.key_error.val() == self.zero3.val() {
                self.state.d.next = self.p_ack.val();
                self.resp_kind.d.next = self.job_read.val();
                self.resp_syn.d.next = self.syn_ack.val();
                if !self.r_dup.q.val() {
                    self.epsn.d.next = self.r_psn.q.val() + self.read_pkts.val().get_bits::<24>(0);
                    self.nak_sent.d.next = false;
                    self.msn.d.next = self.msn.q.val() + self.one24.val();
                }
            } else {
                self.state.d.next = self.p_drain.val();
                self.resp_syn.d.next = self.syn_access.val();
                self.n_naks_access.d.next = self.n_naks_access.q.val() + self.one32.val();
                self.qp_error.d.next = true;
            }
        }
        // A new READ that passed its key check joins the QP's history.
        self.history.save_valid.next = self.verdict.val()
            & self.is_read.val()
            & (self.key_error.val() == self.zero3.val())
            & !self.r_dup.q.val()
            & !self.r_committed.q.val();
        // A duplicate inside a kept READ whose answers are the QP's last queued, that passed
        // its key check: its answer replaces them.
        self.history.bump_valid.next = self.verdict.val()
            & self.is_read.val()
            & (self.key_error.val() == self.zero3.val())
            & self.r_dup.q.val()
            & self.history.tag_valid.val()
            & !self.r_committed.q.val();
        self.history.save_psn.next = self.r_psn.q.val();
        self.history.save_packets.next = self.read_pkts.val().get_bits::<24>(0);
        // A commit of the packet's QP while it waited for a receive WQE or a key verdict (both
        // were the QP's as it was), or before its write command went out: the packet is dropped.
        if self.r_committed.q.val()
            & ((self.state.q.val() == self.p_rq_wait.val()) | (self.state.q.val() == self.p_rq_data.val()) | self.verdict.val())
        {
            self.state.d.next = self.p_drain.val();
        }
        if (self.state.q.val() == self.p_write.val()) & self.r_committed.q.val() & !self.cmd_done.q.val() {
            self.state.d.next = self.p_drain.val();
        }
        self.placed_now.next = ((self.cmd_done.q.val() | self.wr_inc.val()) & self.beat_last.val() & self.wd_ready.val()) | !self.has_payload.val();
        // (The QP's ring was emptied by a commit since: no pop for the old QP.)
        self.rt_pop_valid.next = (self.state.q.val() == self.p_write.val())
            & !(self.r_committed.q.val() & !self.cmd_done.q.val())
            & self.placed_now.val()
            & self.rr.q.val()
            & self.rr_last.q.val()
            & !self.r_committed.q.val();
        self.rr_touch.next = (self.state.q.val() == self.p_write.val())
            & !(self.r_committed.q.val() & !self.cmd_done.q.val())
            & self.placed_now.val()
            & self.rr.q.val()
            & !self.r_committed.q.val();
        self.rt_pop_qp.next = self.r_qp.q.val();
        self.rt_pop_head.next = self.rd_head.q.val() + self.one_ptr.val();
        if (self.state.q.val() == self.p_write.val()) & !(self.r_committed.q.val() & !self.cmd_done.q.val()) {
            if self.wr_inc.val() {
                self.cmd_done.d.next = true;
            }
            // The packet is placed once its last payload beat has gone to the write engine
            // (or at once without payload): the receive state moves on.
            if self.placed_now.val() & self.rr.q.val() {
                // A READ response: the next one of its READ; after the last, the READ is done
                // (its completion goes through the same write engine, after these writes).
                self.rd_n.d.next = self.rd_n.q.val() + self.one24.val();
                self.rd_nak.d.next = false;
                self.n_read_placed.d.next = self.n_read_placed.q.val() + self.one32.val();
                self.dirty.d.next = true;
                self.state.d.next = self.p_idle.val();
                if self.rr_last.q.val() {
                    self.rd_head.d.next = self.rd_head.q.val() + self.one_ptr.val();
                    self.rd_n.d.next = self.zero24.val();
                    self.cpl_k.d.next = self.k_read_done.val();
                    self.state.d.next = self.p_cpl.val();
                }
            }
            if self.placed_now.val() & !self.rr.q.val() {
                self.epsn.d.next = self.r_psn.q.val() + self.one24.val();
                self.nak_sent.d.next = false;
                self.in_msg.d.next = !self.last.val();
                self.w_va.d.next = self.w_va.q.val() + self.len64.word.val();
                self.w_left.d.next = self.w_left.q.val() - self.len.val();
                self.count.d.next = self.count.q.val() + self.len.val();
                self.n_placed.d.next = self.n_placed.q.val() + self.one32.val();
                self.resp.d.next = self.r_ack_req.q.val();
                self.resp_syn.d.next = self.syn_ack.val();
                self.resp_psn.d.next = self.r_psn.q.val();
                self.dirty.d.next = true;
                self.state.d.next = self.p_idle.val();
                if self.r_ack_req.q.val() {
                    self.state.d.next = self.p_ack.val();
                    // With room in the answer queue (and no receive completion to hand over
                    // first) the ACK goes in next cycle while the next record is taken. It is
                    // the QP's last answer queued: no READ's answers to replace.
                    // (`room` a cycle early holds as nothing else pushes meanwhile.)
                    if self.answers.room.val() & !self.ack_pending.q.val() & !(self.last.val() & (self.is_send.val() | self.imm.val())) {
                        self.state.d.next = self.p_idle.val();
                        self.ack_pending.d.next = true;
                        self.last_read.d.next = false;
                    }
                }
                if self.last.val() {
                    self.msn.d.next = self.msn.q.val() + self.one24.val();
                }
                // The message's last packet completes its receive WQE: a SEND's (consumed on
                // FIRST) or, for a WRITE with immediate, the next one.
                self.rc_q_status.d.next = self.st_ok.val();
                self.rc_q_len.d.next = self.count.q.val() + self.len.val();
                self.rc_q_imm.d.next = self.imm.val();
                self.rc_q_op.d.next = self.cq_recv.val();
                self.rc_q_index.d.next = self.rq_ci.q.val() - self.one16.val();
                if self.is_write.val() {
                    self.rc_q_op.d.next = self.cq_recv_imm.val();
                }
                if self.last.val() & (self.is_send.val() | self.imm.val()) {
                    self.rc_pend.d.next = true;
                    self.state.d.next = self.p_rc.val();
                }
            }
        }
        if (self.state.q.val() == self.p_drain.val()) & ((self.beat_last.val()) | !self.has_payload.val()) {
            self.dirty.d.next = true;
            self.state.d.next = self.after_packet.val();
        }
        if (self.state.q.val() == self.p_rc.val()) & self.r_committed.q.val() {
            self.state.d.next = self.p_idle.val();
        }
        if (self.state.q.val() == self.p_rc.val()) & !self.r_committed.q.val() & self.rc_ready.val() {
            self.n_receives.d.next = self.n_receives.q.val() + self.one32.val();
            self.state.d.next = self.p_idle.val();
            if self.resp.q.val() {
                self.state.d.next = self.p_ack.val();
                // (Queued next cycle, as a placed WRITE's: see `ack_pending`.)
                if self.answers.room.val() & !self.ack_pending.q.val() {
                    self.state.d.next = self.p_idle.val();
                    self.ack_pending.d.next = true;
                    self.last_read.d.next = false;
                }
            }
        }
        if (self.state.q.val() == self.p_ack.val()) & (self.ack_push.val() | self.r_committed.q.val()) {
            self.state.d.next = self.p_idle.val();
        }
        // (Every answer queued is the QP's last from now on: its state is written back. A
        // pending ACK's packet did that as it was placed.)
        if (self.state.q.val() == self.p_ack.val()) & self.ack_push.val() {
            self.last_read.d.next = (self.resp_kind.q.val() == self.job_read.val()) & (self.read_job.kept.val() == self.one1.val());
            self.last_slot.d.next = self.history.tag_slot.val();
            self.dirty.d.next = true;
        }
        if self.ack_push.val() & (self.resp_kind.q.val() == self.job_ack.val()) {
            self.n_acks.d.next = self.n_acks.q.val() + self.one32.val();
        }
        // (An answer for a QP committed since its record was taken was the old QP's: dropped.)
        if (self.state.q.val() == self.p_cpl.val()) & (self.cpl_ready.val() | self.r_committed.q.val()) {
            self.state.d.next = self.p_idle.val();
        }
        self.len64.len.next = self.r_len.q.val();

        self.cpl_valid.next = (self.state.q.val() == self.p_cpl.val()) & !self.r_committed.q.val();
        self.cpl_kind.next = self.cpl_k.q.val();
        self.cpl_qp.next = self.r_qp.q.val();
        self.cpl_syndrome.next = self.r_syn.q.val();
        self.cpl_msn.next = self.r_msn.q.val();
        self.cpl_psn.next = self.r_psn.q.val();

        self.rc_valid.next = (self.state.q.val() == self.p_rc.val()) & !self.r_committed.q.val();
        self.rc_qp.next = self.r_qp.q.val();
        self.rc_index.next = self.rc_q_index.q.val();
        self.rc_op.next = self.rc_q_op.q.val();
        self.rc_status.next = self.rc_q_status.q.val();
        self.rc_len.next = self.zero32.val();
        self.rc_imm.next = self.zero32.val();
        self.rc_flags.next = self.zero8.val();
        if self.rc_q_status.q.val() == self.st_ok.val() {
            self.rc_len.next = self.rc_q_len.q.val();
        }
        if self.rc_q_imm.q.val() & (self.rc_q_status.q.val() == self.st_ok.val()) {
            self.rc_imm.next = self.r_imm.q.val();
            self.rc_flags.next = self.flag_imm.val();
        }

        self.placed.next = self.n_placed.q.val();
        self.acks.next = self.n_acks.q.val();
        self.naks_seq.next = self.n_naks_seq.q.val();
        self.out_of_sequence.next = self.n_out_of_seq.q.val();
        self.naks_invalid.next = self.n_naks_invalid.q.val();
        self.naks_access.next = self.n_naks_access.q.val();
        self.duplicates.next = self.n_duplicates.q.val();
        self.bad_qp.next = self.n_bad_qp.q.val();
        self.set_aside.next = self.n_set_aside.q.val();
        self.naks_rnr.next = self.n_naks_rnr.q.val();
        self.naks_operational.next = self.n_naks_operational.q.val();
        self.receives.next = self.n_receives.q.val();
        self.rq_wait_cycles.next = self.n_rq_wait.q.val();
        self.bad_source.next = self.n_bad_source.q.val();
        self.read_placed.next = self.n_read_placed.q.val();
        self.read_dropped.next = self.n_read_dropped.q.val();
        self.implied_naks.next = self.n_implied.q.val();
        self.mr_epoch.next = self.epoch.q.val();
        self.mr_fence.next = self.fence.q.val();
        self.broke_valid.next = self.write_back.val() & self.qp_error.q.val();
        self.broke_qp.next = self.r_qp.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(fields: &[(&str, usize)], name: &str) -> usize {
        let i = fields.iter().position(|f| f.0 == name).unwrap();
        fields[..i].iter().map(|f| f.1).sum()
    }

    #[test]
    fn job_words_put_their_fields_where_update_reads_them() {
        // (`update` reads the response queue's job word at literal offsets.)
        let read = ReadJob::FIELDS;
        assert_eq!([at(read, "len"), at(read, "pmtu"), at(read, "mid"), at(read, "kept"), at(read, "slot"), at(read, "gen")], [64, 96, 100, 101, 102, 105]);
        assert_eq!(at(read, "qp"), 193, "a READ job's QP slot where an atomic's is");
        let atomic = AtomicJob::FIELDS;
        assert_eq!([at(atomic, "value"), at(atomic, "compare"), at(atomic, "cas"), at(atomic, "qp")], [64, 128, 192, 193]);
    }

    #[test]
    fn answer_and_job_words_fit_the_queue() {
        // `AckQueue` releases an answer by the write count in its top 32 bits.
        let width = |f: &[(&str, usize)]| f.iter().map(|f| f.1).sum::<usize>();
        assert_eq!((width(AckWord::FIELDS), at(AckWord::FIELDS, "wseq")), (ANSWER_BITS, ANSWER_BITS - 32));
        assert_eq!((width(ReadJob::FIELDS), width(AtomicJob::FIELDS) <= JOB_BITS), (JOB_BITS, true));
    }
}
