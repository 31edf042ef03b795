//! The RC requester: send queues in host memory in, request packets for the transmit engine
//! out. The reference model is `rnic_spec::qp::QpContext::request`.
//!
//! ```text
//!  qp.commit ──► QP context RAM, send-queue state RAM (PSN, consumer index), producer RAM
//!  doorbell.sq ─► producer RAM; QP not active yet → active bit set, QPN into the ready FIFO
//!  ready FIFO ─► FSM: load context ─► fetch up to 64 WQEs (one DMA read) ─► per WQE: local key check (MrTable)
//!                  ─► one packet per step: descriptor into the descriptor FIFO, payload read
//!                  ─► write back PSN and consumer index ─► QPN back into the ready FIFO
//!  DMA read data ─► the WQE (to the FSM) or payload (to the transmit engine)
//! ```
//!
//! Scheduling is round-robin by construction: a QP with work sits in the ready FIFO once (its
//! active bit says so), is served one batch per turn — the WQEs waiting, at most
//! [`WQE_BATCH`], not past the ring's end, fetched in one DMA read so the read latency is paid
//! once per batch — and goes back to the tail; a QP found with
//! nothing to do leaves the FIFO and its active bit clears, unless a doorbell for it arrived
//! while the FSM held it (then it goes round once more, so no doorbell is lost). Payload reads
//! run ahead of the transmit engine up to the DMA engine's command queue; descriptors wait in
//! their own FIFO, so the read latency overlaps the packets before.
//!
//! A WQE that is refused (unknown opcode, too long, local key / bounds / PD check failed, DMA
//! error reading it) sends nothing, is counted in `wqe_errors`, consumed and reported to the
//! completer with its error; the QP's send queue is then in error (IBTA: a local error moves
//! the QP to Error), so every later WQE is flushed: consumed, sent nothing, reported with
//! `Flushed`. A commit of the QP the FSM has in hand makes what it holds stale: the WQE in
//! flight stops at its next packet boundary (or before its first), and nothing more is sent,
//! reported to the completer or written back for it; the QP goes round and is loaded afresh.
//!
//! Go-back-N: the completer asks for a QP to be rewound (`rw_*`) after a sequence NAK, a
//! local ACK timeout or an RNR wait. The request waits per QP (a pending bit, the newest
//! wins) and is applied when the FSM next takes the QP, so it never races the FSM's own copy
//! of the QP's state. The send queue then goes back to the oldest outstanding WQE — its first
//! PSN comes from a table the requester writes as it starts each WQE (`psn_tab`, one entry per
//! send-queue slot, which is why a send queue has at most 2^`SQ_LOG_SIZE_MAX` entries) — and
//! re-reads the WQEs and their payload from host memory; after a sequence NAK the packets
//! before the NAK's PSN are skipped, so the resend starts mid-message at the right offset
//! (a WRITE's MIDDLE or LAST carries no RETH: the responder still holds the address). `hi`
//! marks the first WQE never sent: WQEs below it are resends (no `sent` event, no error
//! report; one its local check now refuses is skipped and left to the timer), and a resend
//! never crosses it. A rewind for the QP the FSM is sending stops the WQE at the next packet
//! boundary (the rest would arrive out of sequence and be dropped): the QP goes round and
//! takes the rewind. A rewind with `rw_stop` (the completer broke the queue) ends any resend,
//! puts the queue in error and reports a marker (`ERR_MARKER`) so the completer flushes the
//! WQEs sent before it.
//!
//! A resend must never read a send-queue slot software has reused: once a WQE's completion is
//! written, the driver may post a new WQE into its slot. So the completer publishes each
//! QP's completed count (`done_*`) before it writes a send CQE, and holds the CQE while this
//! FSM claims the QP (`claim`: from loading it until a resend's WQE fetch has returned); the
//! FSM reads the count after claiming and resends only WQEs not yet completed. Each side
//! writes its own flag before it reads the other's, so one of them always sees the other.

use crate::pack_word;
use crate::ram_fifo::RamFifo;
pub use crate::roce::qp_table::QP_STAGE_WORDS;
use crate::roce::qp_table::{ctx_at, QpTable, CTX_BITS};
use crate::roce::tx_header::LEN_BITS;
use crate::stream::c;
use crate::roce::read_table::{ReadEntry, RD_PTR};
use rnic_spec::desc::{send_flags, send_wqe, SendOp};
use rnic_spec::mr::access;
use rnic_spec::qp::{ACK_REQ_EVERY, MAX_MESSAGE, RD_SLOTS, SQ_LOG_SIZE_MAX, WQE_BATCH};
const _: () = assert!(ACK_REQ_EVERY == 1 << 6, "the AckReq check compares six PSN bits");
use rnic_spec::responder::{OP_CMP_SWAP, OP_FETCH_ADD, OP_READ_REQUEST};
use rnic_spec::regs::{qp_state, QPS, QP_SLOT_BITS};
use rust_hdl::prelude::*;

/// Descriptors waiting for the transmit engine.
const DESC_PTR: usize = 5;
const DESC_ADDR: usize = 4;
const READY_PTR: usize = QP_SLOT_BITS + 1;

pack_word! {
    /// A send queue's state: next WQE and PSN, in error, the first WQE never sent and its PSN
    /// (`hi`, `hi_psn`: past the WQEs a rewind resends), and where a broken queue's resends stop.
    /// `rd_tail`: the ring index of the next READ entry (`ReadTable`).
    lsb_first SqStateWord: 101 { ci: 16, psn: 24, broken: 1, hi: 16, hi_psn: 24, stop_at: 16, rd_tail: 4 }
}
pack_word! {
    /// A pending rewind: from WQE `index`, skipping packets before `psn` if `skip`; `stop`: break.
    lsb_first RewindWord: 42 { index: 16, psn: 24, skip: 1, stop: 1 }
}
/// Address of a WQE's first PSN in `psn_tab`: QP and send-queue slot.
const TAB_BITS: usize = QP_SLOT_BITS + SQ_LOG_SIZE_MAX as usize;
pack_word! { lsb_first TabAddr: 16 { slot: 8, qp: 8 } }
const _: () = assert!(TAB_BITS == 16 && SQ_LOG_SIZE_MAX == 8 && QP_SLOT_BITS == 8);
/// `err_status` of the report a stopped queue sends: no WQE, the completer flushes what is due.
pub const ERR_MARKER: u64 = 0xFF;
pack_word! { lsb_first WqeOffset: 64 { zero: 6, index: 16 } }
pack_word! { lsb_first BatchBytes: 16 { zero: 6, count: 7 } }
const _: () = assert!(WQE_BATCH == 64 && WQE_BATCH_BITS == 6);
pack_word! {
    /// One packet for the transmit engine (the source addresses are the port's).
    lsb_first TxDescWord: 622 {
        opcode: 8, se: 1, ack_req: 1, psn: 24, va: 64, rkey: 32, dma_len: 32, imm: 32,
        payload_len: 13, dest_qp: 24, mac: 48, ipv6: 1, vlan: 1, vlan_tci: 16, dscp: 6, ecn: 2,
        ttl: 8, flow_label: 20, udp_sport: 16, ip: 128, pkey: 16, atomic_value: 64, atomic_compare: 64,
        inline: 1,
    }
}
/// Width of [`TxDescWord`] (the macro takes a literal).
const DESC_BITS: usize = 622;

/// Bit offset of a descriptor field (the word is wider than 512 bits).
fn desc_at(name: &str) -> Constant<Bits<10>> {
    crate::pack::field_at(TxDescWord::FIELDS, name, 0)
}

/// Bit offset of a send WQE field in its (byte 0 aligned) DMA beat.
fn wqe_at(byte: usize) -> Constant<Bits<9>> {
    c::<9>(8 * byte as u64)
}

const S_POP: u64 = 0;
const S_LOAD: u64 = 1;
const S_CHECK: u64 = 2;
const S_WQE_CMD: u64 = 3;
const S_WQE_WAIT: u64 = 4;
const S_MR: u64 = 5;
const S_MR_WAIT: u64 = 6;
const S_PKT: u64 = 7;
const S_WRITEBACK: u64 = 8;
const S_REQUEUE: u64 = 9;
const S_NEXT: u64 = 10;
const S_REPORT: u64 = 11;
const S_RW: u64 = 12;
const S_RW_APPLY: u64 = 13;
/// The batch's last beat was written: its first WQE is read from the batch RAM a cycle later.
const S_WQ_READ: u64 = 14;
/// The batch RAM's address bits.
const WQE_BATCH_BITS: usize = 6;

crate::hdl_block! {
    pub struct Requester {
        pub clock: Signal<In, Clock>,
        /// The port's addresses (IPv4 in the low 32 bits).
        pub port_mac: Signal<In, Bits<48>>,
        pub port_ipv4: Signal<In, Bits<128>>,
        pub port_ipv6: Signal<In, Bits<128>>,
        /// `qp` block: staged context words and the commit command (its value is the QPN).
        pub qp_stage: [Signal<In, Bits<32>>; QP_STAGE_WORDS],
        pub qp_commit_valid: Signal<In, Bit>,
        pub qp_commit: Signal<In, Bits<32>>,
        /// `doorbell.sq`: `desc::doorbell(qpn, producer index)`.
        pub sq_doorbell_valid: Signal<In, Bit>,
        pub sq_doorbell: Signal<In, Bits<32>>,
        /// The doorbell pushed its WQE (`push.sq`): `push_wqe` is the entry before its index.
        pub push_valid: Signal<In, Bit>,
        pub push_wqe: Signal<In, Bits<512>>,
        /// Rewind requests from the completer (see the module doc).
        pub rw_valid: Signal<In, Bit>,
        pub rw_ready: Signal<Out, Bit>,
        pub rw_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub rw_index: Signal<In, Bits<16>>,
        pub rw_psn: Signal<In, Bits<24>>,
        pub rw_skip: Signal<In, Bits<1>>,
        pub rw_stop: Signal<In, Bits<1>>,
        /// The completion fence (see the module doc).
        pub done_valid: Signal<In, Bit>,
        pub done_qp: Signal<In, Bits<QP_SLOT_BITS>>,
        pub done_index: Signal<In, Bits<16>>,
        pub claim: Signal<Out, Bit>,
        pub claim_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        /// Local key check (an `MrTable` check port; the verdict comes a fixed time later).
        pub mr_valid: Signal<Out, Bit>,
        pub mr_key: Signal<Out, Bits<32>>,
        pub mr_pd: Signal<Out, Bits<16>>,
        pub mr_addr: Signal<Out, Bits<64>>,
        pub mr_len: Signal<Out, Bits<32>>,
        /// Access the check needs beyond local read: LOCAL_WRITE for an RDMA READ's buffer.
        pub mr_need: Signal<Out, Bits<4>>,
        pub mr_res_valid: Signal<In, Bit>,
        pub mr_res_error: Signal<In, Bits<3>>,
        /// The same table's same-cycle check (its region cache), asked in S_MR: a hit in the
        /// QP's PD (with LOCAL_WRITE for a READ's buffer) is the verdict at once, and no check
        /// is issued.
        pub mr_fast_key: Signal<Out, Bits<32>>,
        pub mr_fast_addr: Signal<Out, Bits<64>>,
        pub mr_fast_len: Signal<Out, Bits<32>>,
        pub mr_fast_hit: Signal<In, Bit>,
        pub mr_fast_pd: Signal<In, Bits<16>>,
        pub mr_fast_access: Signal<In, Bits<4>>,
        /// DMA read commands and their data (a `DmaRead`).
        pub rd_valid: Signal<Out, Bit>,
        pub rd_ready: Signal<In, Bit>,
        pub rd_addr: Signal<Out, Bits<64>>,
        pub rd_len: Signal<Out, Bits<16>>,
        pub rdd_valid: Signal<In, Bit>,
        pub rdd_ready: Signal<Out, Bit>,
        pub rdd_data: Signal<In, Bits<512>>,
        pub rdd_last: Signal<In, Bit>,
        pub rdd_error: Signal<In, Bit>,
        /// Packet descriptors and payload for the transmit engine (`RoceTx`).
        pub txd_valid: Signal<Out, Bit>,
        pub txd_ready: Signal<In, Bit>,
        pub txd_eth_dst: Signal<Out, Bits<48>>,
        pub txd_eth_src: Signal<Out, Bits<48>>,
        pub txd_vlan: Signal<Out, Bit>,
        pub txd_vlan_tci: Signal<Out, Bits<16>>,
        pub txd_ipv6: Signal<Out, Bit>,
        pub txd_ip_src: Signal<Out, Bits<128>>,
        pub txd_ip_dst: Signal<Out, Bits<128>>,
        pub txd_dscp: Signal<Out, Bits<6>>,
        pub txd_ecn: Signal<Out, Bits<2>>,
        pub txd_ttl: Signal<Out, Bits<8>>,
        pub txd_flow_label: Signal<Out, Bits<20>>,
        pub txd_udp_src_port: Signal<Out, Bits<16>>,
        pub txd_opcode: Signal<Out, Bits<8>>,
        pub txd_se: Signal<Out, Bit>,
        pub txd_pkey: Signal<Out, Bits<16>>,
        pub txd_dest_qp: Signal<Out, Bits<24>>,
        pub txd_ack_req: Signal<Out, Bit>,
        pub txd_psn: Signal<Out, Bits<24>>,
        pub txd_va: Signal<Out, Bits<64>>,
        pub txd_rkey: Signal<Out, Bits<32>>,
        pub txd_dma_len: Signal<Out, Bits<32>>,
        pub txd_imm: Signal<Out, Bits<32>>,
        pub txd_payload_len: Signal<Out, Bits<LEN_BITS>>,
        pub txd_atomic_value: Signal<Out, Bits<64>>,
        pub txd_atomic_compare: Signal<Out, Bits<64>>,
        /// The packet's payload is its inline bytes (`txd_atomic_value`, then
        /// `txd_atomic_compare`), not beats on `txp_*`: the TX arbiter makes the beat itself
        /// once it collects this packet's payload.
        pub txd_inline: Signal<Out, Bit>,
        pub txp_valid: Signal<Out, Bit>,
        pub txp_ready: Signal<In, Bit>,
        pub txp_data: Signal<Out, Bits<512>>,
        /// A new WQE's first packet was handed on (for the completer), on QP `sent_qp`; it
        /// asked for a completion (`send_flags::SIGNALED`).
        pub sent_valid: Signal<Out, Bit>,
        pub sent_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub sent_signaled: Signal<Out, Bit>,
        /// The PSN after the sent WQE's last packet (its first PSN plus its packet count, one
        /// for a message of length 0): the completer takes acknowledges for no PSN past it.
        pub sent_end_psn: Signal<Out, Bits<24>>,
        /// The sent WQE is an RDMA READ or an atomic: it completes only once its last
        /// response (READ response, ATOMIC Acknowledge) is placed.
        pub sent_read: Signal<Out, Bit>,
        /// New READs into the `ReadTable` (see there); the QP's head from it (read at `cur`).
        pub rd_ap_valid: Signal<Out, Bit>,
        pub rd_ap_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rd_ap_tail: Signal<Out, Bits<RD_PTR>>,
        pub rd_ap_entry: Signal<Out, Bits<177>>,
        pub rd_head_qp: Signal<Out, Bits<QP_SLOT_BITS>>,
        pub rd_head: Signal<In, Bits<RD_PTR>>,
        /// A WQE of QP `sent_qp` was refused or flushed (`err_status`: a `CqStatus`); the FSM
        /// waits for the completer to take it.
        pub err_valid: Signal<Out, Bit>,
        pub err_ready: Signal<In, Bit>,
        pub err_status: Signal<Out, Bits<8>>,
        /// WQEs sent, WQEs refused.
        pub wqes: Signal<Out, Bits<32>>,
        pub wqe_errors: Signal<Out, Bits<32>>,
        /// Packets sent again after a rewind.
        pub resent: Signal<Out, Bits<32>>,

        ctx_table: QpTable,
        st_ram: RAM<Bits<101>, QP_SLOT_BITS>,
        rw_ram: RAM<Bits<42>, QP_SLOT_BITS>,
        done_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        behind: Signal<Local, Bit>,
        psn_tab: RAM<Bits<24>, TAB_BITS>,
        rw_word: RewindWord,
        ahead: RewindWord,
        tab_addr: TabAddr,
        rw_pend: DFF<Bits<QPS_BITS>>,
        rw_r: DFF<Bits<42>>,
        hi: DFF<Bits<16>>,
        hi_psn: DFF<Bits<24>>,
        stop_at: DFF<Bits<16>>,
        skipping: DFF<Bit>,
        skip_psn: DFF<Bits<24>>,
        resent_count: DFF<Bits<32>>,
        rw_take: Signal<Local, Bit>,
        rw_active: Signal<Local, Bits<QPS_BITS>>,
        rw_push: Signal<Local, Bit>,
        rw_hit: Signal<Local, Bit>,
        pend_cur: Signal<Local, Bits<QPS_BITS>>,
        resend: Signal<Local, Bit>,
        top_psn: Signal<Local, Bits<24>>,
        resend_lim: Signal<Local, Bits<16>>,
        resend_end: Signal<Local, Bit>,
        idle_back: Signal<Local, Bit>,
        abort: Signal<Local, Bit>,
        remaining: Signal<Local, Bits<32>>,
        wqe_pkts: Signal<Local, Bits<32>>,
        check_bad: Signal<Local, Bit>,
        /// The WQE's key verdict is here: the table's (S_MR_WAIT), or the cache's (S_MR).
        verdict: Signal<Local, Bit>,
        key_refused: Signal<Local, Bit>,
        /// The region cache admits the WQE's local range (`mr_fast_*`).
        key_known: Signal<Local, Bit>,
        skip_now: Signal<Local, Bit>,
        /// A READ resent from the PSN a rewind names, inside it: asked for from there on.
        rd_resume: Signal<Local, Bit>,
        rd_skip: crate::pack::PsnCount64,
        rd_skip_bytes: Signal<Local, Bits<64>>,
        rw_in_range: Signal<Local, Bit>,
        pend_set: Signal<Local, Bits<QPS_BITS>>,
        pend_clr: Signal<Local, Bits<QPS_BITS>>,
        s_rw: Constant<Bits<4>> = c::<4>(S_RW),
        s_rw_apply: Constant<Bits<4>> = c::<4>(S_RW_APPLY),
        s_wq_read: Constant<Bits<4>> = c::<4>(S_WQ_READ),
        marker: Constant<Bits<8>> = c::<8>(ERR_MARKER),
        half16: Constant<Bits<16>> = c::<16>(0x8000),
        half24: Constant<Bits<24>> = c::<24>(0x80_0000),
        zero24: Constant<Bits<24>> = c::<24>(0),
        tab_span: Constant<Bits<16>> = c::<16>(1 << SQ_LOG_SIZE_MAX),
        /// The QP's send queue is in error: its WQEs are flushed.
        broken: DFF<Bit>,
        /// The QP in hand was committed since the FSM took it: what the FSM holds of it is
        /// stale — nothing more is sent, reported or written back for it this turn.
        stale: DFF<Bit>,
        st_protection: Constant<Bits<8>> = c::<8>(rnic_spec::desc::CqStatus::LocalProtection as u64),
        st_length: Constant<Bits<8>> = c::<8>(rnic_spec::desc::CqStatus::LocalLength as u64),
        st_operation: Constant<Bits<8>> = c::<8>(rnic_spec::desc::CqStatus::LocalQpOperation as u64),
        st_flushed: Constant<Bits<8>> = c::<8>(rnic_spec::desc::CqStatus::Flushed as u64),
        pi_ram: RAM<Bits<16>, QP_SLOT_BITS>,
        ready: RamFifo<READY_PTR, QP_SLOT_BITS, QP_SLOT_BITS, 1, 1>,
        descs: RamFifo<DESC_PTR, DESC_ADDR, DESC_BITS, 1, 1>,
        st_commit: SqStateWord,
        st_back: SqStateWord,
        wqe_off: WqeOffset,
        batch_bytes: BatchBytes,
        desc_word: TxDescWord,

        s_pop: Constant<Bits<4>> = c::<4>(S_POP),
        s_load: Constant<Bits<4>> = c::<4>(S_LOAD),
        s_check: Constant<Bits<4>> = c::<4>(S_CHECK),
        s_wqe_cmd: Constant<Bits<4>> = c::<4>(S_WQE_CMD),
        s_wqe_wait: Constant<Bits<4>> = c::<4>(S_WQE_WAIT),
        s_mr: Constant<Bits<4>> = c::<4>(S_MR),
        s_mr_wait: Constant<Bits<4>> = c::<4>(S_MR_WAIT),
        s_report: Constant<Bits<4>> = c::<4>(S_REPORT),
        rep_status: DFF<Bits<8>>,
        s_pkt: Constant<Bits<4>> = c::<4>(S_PKT),
        s_writeback: Constant<Bits<4>> = c::<4>(S_WRITEBACK),
        s_requeue: Constant<Bits<4>> = c::<4>(S_REQUEUE),
        s_next: Constant<Bits<4>> = c::<4>(S_NEXT),
        batch_max: Constant<Bits<16>> = c::<16>(WQE_BATCH as u64),
        rd_batch: Constant<Bits<16>> = c::<16>(16),
        one_n: Constant<Bits<7>> = c::<7>(1),
        zero_n: Constant<Bits<7>> = c::<7>(0),
        zero_wq: Constant<Bits<WQE_BATCH_BITS>> = c::<WQE_BATCH_BITS>(0),
        one_wq: Constant<Bits<WQE_BATCH_BITS>> = c::<WQE_BATCH_BITS>(1),
        rts: Constant<Bits<3>> = c::<3>(qp_state::RTS as u64),
        zero1: Constant<Bits<1>> = c::<1>(0),
        one1: Constant<Bits<1>> = c::<1>(1),
        zero3: Constant<Bits<3>> = c::<3>(0),
        zero6: Constant<Bits<6>> = c::<6>(0),
        zero8: Constant<Bits<8>> = c::<8>(0),
        zero16: Constant<Bits<16>> = c::<16>(0),
        zero32: Constant<Bits<32>> = c::<32>(0),
        one6: Constant<Bits<6>> = c::<6>(1),
        /// `qp::ACK_REQ_EVERY - 1`: a PSN with these low bits asks for an acknowledge.
        ack_every_psn: Constant<Bits<6>> = c::<6>(ACK_REQ_EVERY as u64 - 1),
        one16: Constant<Bits<16>> = c::<16>(1),
        one24: Constant<Bits<24>> = c::<24>(1),
        one32: Constant<Bits<32>> = c::<32>(1),
        one64: Constant<Bits<64>> = c::<64>(1),
        one256: Constant<Bits<QPS_BITS>> = Constant::new(bits::<QPS_BITS>(1)),
        zero256: Constant<Bits<QPS_BITS>> = Constant::new(Bits::default()),
        one_ready: Constant<Bits<READY_PTR>> = c::<READY_PTR>(1),
        one_desc: Constant<Bits<DESC_PTR>> = c::<DESC_PTR>(1),
        desc_capacity: Constant<Bits<DESC_PTR>> = c::<DESC_PTR>(1 << DESC_ADDR),
        max_message: Constant<Bits<32>> = c::<32>(MAX_MESSAGE as u64),
        write_base: Constant<Bits<8>> = c::<8>(0x06),
        four8: Constant<Bits<8>> = c::<8>(4),
        two8: Constant<Bits<8>> = c::<8>(2),
        one8: Constant<Bits<8>> = c::<8>(1),
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
        o_base: Constant<Bits<9>> = ctx_at("base_lo"),
        o_log_size: Constant<Bits<9>> = ctx_at("log_size"),
        o_pd: Constant<Bits<9>> = ctx_at("pd"),
        w_op_at: Constant<Bits<9>> = wqe_at(send_wqe::OP),
        w_flags_at: Constant<Bits<9>> = wqe_at(send_wqe::FLAGS),
        /// The bit of `send_flags::SIGNALED` in the flags byte.
        signaled_at: Constant<Bits<3>> = c::<3>(send_flags::SIGNALED.trailing_zeros() as u64),
        w_imm_at: Constant<Bits<9>> = wqe_at(send_wqe::IMM),
        w_laddr_at: Constant<Bits<9>> = wqe_at(send_wqe::LOCAL_ADDR),
        w_len_at: Constant<Bits<9>> = wqe_at(send_wqe::LENGTH),
        w_lkey_at: Constant<Bits<9>> = wqe_at(send_wqe::LKEY),
        w_raddr_at: Constant<Bits<9>> = wqe_at(send_wqe::REMOTE_ADDR),
        w_rkey_at: Constant<Bits<9>> = wqe_at(send_wqe::RKEY),
        w_swap_at: Constant<Bits<9>> = wqe_at(send_wqe::SWAP_ADD),
        w_compare_at: Constant<Bits<9>> = wqe_at(send_wqe::COMPARE),
        d_opcode: Constant<Bits<10>> = desc_at("opcode"),
        d_se: Constant<Bits<10>> = desc_at("se"),
        d_ack_req: Constant<Bits<10>> = desc_at("ack_req"),
        d_psn: Constant<Bits<10>> = desc_at("psn"),
        d_va: Constant<Bits<10>> = desc_at("va"),
        d_rkey: Constant<Bits<10>> = desc_at("rkey"),
        d_dma_len: Constant<Bits<10>> = desc_at("dma_len"),
        d_imm: Constant<Bits<10>> = desc_at("imm"),
        d_payload_len: Constant<Bits<10>> = desc_at("payload_len"),
        d_dest_qp: Constant<Bits<10>> = desc_at("dest_qp"),
        d_mac: Constant<Bits<10>> = desc_at("mac"),
        d_ipv6: Constant<Bits<10>> = desc_at("ipv6"),
        d_vlan: Constant<Bits<10>> = desc_at("vlan"),
        d_vlan_tci: Constant<Bits<10>> = desc_at("vlan_tci"),
        d_dscp: Constant<Bits<10>> = desc_at("dscp"),
        d_ecn: Constant<Bits<10>> = desc_at("ecn"),
        d_ttl: Constant<Bits<10>> = desc_at("ttl"),
        d_flow_label: Constant<Bits<10>> = desc_at("flow_label"),
        d_udp_sport: Constant<Bits<10>> = desc_at("udp_sport"),
        d_ip: Constant<Bits<10>> = desc_at("ip"),
        d_pkey: Constant<Bits<10>> = desc_at("pkey"),
        d_atomic_value: Constant<Bits<10>> = desc_at("atomic_value"),
        d_atomic_compare: Constant<Bits<10>> = desc_at("atomic_compare"),

        active: DFF<Bits<QPS_BITS>>,
        ready_tail: DFF<Bits<READY_PTR>>,
        desc_tail: DFF<Bits<DESC_PTR>>,
        state: DFF<Bits<4>>,
        cur: DFF<Bits<QP_SLOT_BITS>>,
        saw_db: DFF<Bit>,
        c_state: DFF<Bits<3>>,
        c_dest_qpn: DFF<Bits<24>>,
        c_mac: DFF<Bits<48>>,
        c_flags: DFF<Bits<2>>,
        c_vlan_tci: DFF<Bits<16>>,
        c_traffic: DFF<Bits<16>>,
        c_flow_label: DFF<Bits<20>>,
        c_udp_sport: DFF<Bits<16>>,
        c_ip: DFF<Bits<128>>,
        c_pkey: DFF<Bits<16>>,
        c_pmtu: DFF<Bits<4>>,
        c_base: DFF<Bits<64>>,
        c_mask: DFF<Bits<16>>,
        c_pd: DFF<Bits<16>>,
        ci: DFF<Bits<16>>,
        pi: DFF<Bits<16>>,
        psn: DFF<Bits<24>>,
        w_op: DFF<Bits<8>>,
        w_flags: DFF<Bits<8>>,
        w_imm: DFF<Bits<32>>,
        w_laddr: DFF<Bits<64>>,
        w_len: DFF<Bits<32>>,
        w_lkey: DFF<Bits<32>>,
        w_raddr: DFF<Bits<64>>,
        w_rkey: DFF<Bits<32>>,
        w_swap: DFF<Bits<64>>,
        w_compare: DFF<Bits<64>>,
        w_error: DFF<Bit>,
        /// The fetched batch: WQE beats in order (one per RAM word), the WQE in hand, how many
        /// are left, how many arrived, a read error.
        wq_ram: RAM<Bits<512>, WQE_BATCH_BITS>,
        wq_at: DFF<Bits<WQE_BATCH_BITS>>,
        batch: DFF<Bits<7>>,
        got: DFF<Bits<7>>,
        batch_err: DFF<Bit>,
        left: DFF<Bits<32>>,
        addr: DFF<Bits<64>>,
        first: DFF<Bit>,
        d_done: DFF<Bit>,
        c_done: DFF<Bit>,
        pl_out: DFF<Bits<6>>,
        /// The DMA read command register (so the engine's ready never feeds back into valid).
        r_valid: DFF<Bit>,
        r_addr: DFF<Bits<64>>,
        r_len: DFF<Bits<16>>,
        wqe_count: DFF<Bits<32>>,
        error_count: DFF<Bits<32>>,

        db_q: Signal<Local, Bits<QP_SLOT_BITS>>,
        db_ok: Signal<Local, Bit>,
        db_hit: Signal<Local, Bit>,
        db_active: Signal<Local, Bits<QPS_BITS>>,
        db_push: Signal<Local, Bit>,
        commit_ok: Signal<Local, Bit>,
        set_mask: Signal<Local, Bits<QPS_BITS>>,
        clr_mask: Signal<Local, Bits<QPS_BITS>>,
        fsm_clear: Signal<Local, Bit>,
        fsm_push: Signal<Local, Bit>,
        qp_word: Signal<Local, Bits<CTX_BITS>>,
        has_work: Signal<Local, Bit>,
        avail: Signal<Local, Bits<16>>,
        room: Signal<Local, Bits<16>>,
        take: Signal<Local, Bits<16>>,
        wqe_done: Signal<Local, Bit>,
        cmd_free: Signal<Local, Bit>,
        load_pl: Signal<Local, Bit>,
        bad: Signal<Local, Bit>,
        pmtu32: Signal<Local, Bits<32>>,
        /// The WQE is an RDMA READ or an atomic (`is_atomic`): one request packet, no payload,
        /// `wqe_pkts` PSNs, answered by responses the `ReadTable` entry places.
        is_read: Signal<Local, Bit>,
        is_atomic: Signal<Local, Bit>,
        /// An atomic whose local buffer is not 8 bytes.
        atomic_len_bad: Signal<Local, Bit>,
        /// READs the QP has outstanding, and may have (`max_rd_atomic`, 1 ... `RD_SLOTS`).
        rd_tail: DFF<Bits<RD_PTR>>,
        rd_head_r: DFF<Bits<RD_PTR>>,
        rd_limit: DFF<Bits<RD_PTR>>,
        rd_full: Signal<Local, Bit>,
        /// A new READ waits: its QP has `max_rd_atomic` outstanding (the QP goes round).
        rd_stall: Signal<Local, Bit>,
        rd_entry: ReadEntry,
        op_read: Constant<Bits<8>> = c::<8>(SendOp::Read as u64),
        op_read_request: Constant<Bits<8>> = c::<8>(OP_READ_REQUEST as u64),
        op_cas: Constant<Bits<8>> = c::<8>(SendOp::CmpSwap as u64),
        op_faa: Constant<Bits<8>> = c::<8>(SendOp::FetchAdd as u64),
        op_cmp_swap: Constant<Bits<8>> = c::<8>(OP_CMP_SWAP as u64),
        op_fetch_add: Constant<Bits<8>> = c::<8>(OP_FETCH_ADD as u64),
        /// The highest send opcode (`SendOp`).
        max_op: Constant<Bits<8>> = c::<8>(SendOp::FetchAdd as u64),
        eight32: Constant<Bits<32>> = c::<32>(8),
        need_local_write: Constant<Bits<4>> = c::<4>(access::LOCAL_WRITE as u64),
        zero4: Constant<Bits<4>> = c::<4>(0),
        one_ptr: Constant<Bits<RD_PTR>> = c::<RD_PTR>(1),
        rd_slots: Constant<Bits<RD_PTR>> = c::<RD_PTR>(RD_SLOTS as u64),
        zero_ptr: Constant<Bits<RD_PTR>> = c::<RD_PTR>(0),
        o_max_rd: Constant<Bits<9>> = ctx_at("max_rd"),
        pmtu64: Signal<Local, Bits<64>>,
        last: Signal<Local, Bit>,
        len: Signal<Local, Bits<32>>,
        is_write: Signal<Local, Bit>,
        has_imm: Signal<Local, Bit>,
        opcode: Signal<Local, Bits<8>>,
        need_cmd: Signal<Local, Bit>,
        desc_room: Signal<Local, Bit>,
        push: Signal<Local, Bit>,

        step: Signal<Local, Bit>,
        pl_inc: Signal<Local, Bit>,
        pl_dec: Signal<Local, Bit>,
        out: Signal<Local, Bits<DESC_BITS>>,
        /// The WQE carries its payload (`send_flags::INLINE`): no payload read, no key check.
        w_inline: Signal<Local, Bit>,
        inline_len_bad: Signal<Local, Bit>,
        inline_op_bad: Signal<Local, Bit>,
        d_inline: Constant<Bits<10>> = desc_at("inline"),
        /// The last pushed WQE (one for the card): its QP and send-queue index. Used instead of
        /// a WQE read when the FSM fetches exactly there for a first send; any fetch of that
        /// QP, or its commit, retires it.
        pushed: DFF<Bit>,
        push_qp: DFF<Bits<QP_SLOT_BITS>>,
        push_idx: DFF<Bits<16>>,
        push_word: DFF<Bits<512>>,
        push_hit: Signal<Local, Bit>,
        push_take: Signal<Local, Bit>,
        wqe_in: Signal<Local, Bit>,
        inline_flag: Constant<Bits<8>> = c::<8>(rnic_spec::desc::send_flags::INLINE as u64),
        inline_max: Constant<Bits<32>> = c::<32>(rnic_spec::desc::INLINE_MAX as u64),
    }
}

/// Width of the active-QP bit vector.
pub const QPS_BITS: usize = QPS as usize;

impl Logic for Requester {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(
            self, clock, active, ready_tail, desc_tail, state, cur, saw_db, c_state, c_dest_qpn, c_mac, c_flags,
            c_vlan_tci, c_traffic, c_flow_label, c_udp_sport, c_ip, c_pkey, c_pmtu, c_base, c_mask, c_pd, ci, pi,
            psn, w_op, w_flags, w_imm, w_laddr, w_len, w_lkey, w_raddr, w_rkey, w_swap, w_compare, w_error, left, addr, first, d_done,
            c_done, pl_out, r_valid, r_addr, r_len, wqe_count, error_count, wq_at, batch, got, batch_err, broken, rep_status,
            rw_pend, rw_r, hi, hi_psn, stop_at, skipping, skip_psn, resent_count, stale, rd_tail, rd_head_r, rd_limit, pushed, push_qp, push_idx, push_word
        );
        self.wq_ram.read_clock.next = self.clock.val();
        self.wq_ram.write_clock.next = self.clock.val();
        self.ctx_table.clock.next = self.clock.val();
        self.st_ram.read_clock.next = self.clock.val();
        self.st_ram.write_clock.next = self.clock.val();
        self.pi_ram.read_clock.next = self.clock.val();
        self.pi_ram.write_clock.next = self.clock.val();
        self.rw_ram.read_clock.next = self.clock.val();
        self.done_ram.read_clock.next = self.clock.val();
        self.done_ram.write_clock.next = self.clock.val();
        self.rw_ram.write_clock.next = self.clock.val();
        self.psn_tab.read_clock.next = self.clock.val();
        self.psn_tab.write_clock.next = self.clock.val();
        self.ready.clock.next = self.clock.val();
        self.descs.clock.next = self.clock.val();

        // Resending: WQEs below `hi` (the first PSN never sent is `top_psn`).
        self.resend.next = self.ci.q.val() != self.hi.q.val();
        self.top_psn.next = self.psn.q.val();
        if self.resend.val() {
            self.top_psn.next = self.hi_psn.q.val();
        }

        // Commits: the staged context into the context RAM, the send queue reset.
        for i in 0..QP_STAGE_WORDS {
            self.ctx_table.qp_stage[i].next = self.qp_stage[i].val();
        }
        self.ctx_table.qp_commit_valid.next = self.qp_commit_valid.val();
        self.ctx_table.qp_commit.next = self.qp_commit.val();
        self.commit_ok.next = self.ctx_table.commit_ok.val();
        self.st_commit.ci.next = self.zero16.val();
        self.st_commit.psn.next = self.qp_stage[15].val().get_bits::<24>(0);
        self.st_back.ci.next = self.ci.q.val();
        self.st_back.psn.next = self.psn.q.val();
        self.st_commit.broken.next = self.zero1.val();
        self.st_back.broken.next = self.zero1.val();
        if self.broken.q.val() {
            self.st_back.broken.next = self.one1.val();
        }
        self.st_commit.hi.next = self.zero16.val();
        self.st_commit.hi_psn.next = self.qp_stage[15].val().get_bits::<24>(0);
        self.st_commit.stop_at.next = self.zero16.val();
        self.st_back.hi.next = self.hi.q.val();
        // (From registers, not `top_psn`: Verilator would see a loop through the word.)
        self.st_back.hi_psn.next = self.psn.q.val();
        if self.ci.q.val() != self.hi.q.val() {
            self.st_back.hi_psn.next = self.hi_psn.q.val();
        }
        self.st_back.stop_at.next = self.stop_at.q.val();
        self.st_commit.rd_tail.next = self.zero_ptr.val();
        self.st_back.rd_tail.next = self.rd_tail.q.val();
        self.st_ram.write_address.next = self.cur.q.val();
        self.st_ram.write_data.next = self.st_back.word.val();
        if self.commit_ok.val() {
            self.st_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.st_ram.write_data.next = self.st_commit.word.val();
        }

        // Doorbells: the new producer index; a QP not yet active joins the ready FIFO.
        self.db_q.next = self.sq_doorbell.val().get_bits::<QP_SLOT_BITS>(16);
        self.db_ok.next = self.sq_doorbell_valid.val() & (self.sq_doorbell.val().get_bits::<8>(24) == self.zero8.val());
        self.db_hit.next = self.db_ok.val() & (self.db_q.val() == self.cur.q.val());
        self.db_active.next = self.active.q.val() >> self.db_q.val();
        self.db_push.next = self.db_ok.val() & !self.db_active.val().get_bit(0);
        // Rewinds wait while a doorbell uses the ready FIFO, and in the states before an
        // S_CHECK (whose read of the pending rewind must not meet a write). A QP not active
        // joins the FIFO.
        self.rw_ready.next = !self.db_ok.val()
            & (self.state.q.val() != self.s_load.val())
            & (self.state.q.val() != self.s_check.val())
            & (self.state.q.val() != self.s_rw.val())
            & (self.state.q.val() != self.s_rw_apply.val());
        self.rw_take.next = self.rw_valid.val()
            & !self.db_ok.val()
            & (self.state.q.val() != self.s_load.val())
            & (self.state.q.val() != self.s_check.val())
            & (self.state.q.val() != self.s_rw.val())
            & (self.state.q.val() != self.s_rw_apply.val());
        self.rw_active.next = self.active.q.val() >> self.rw_qp.val();
        self.rw_push.next = self.rw_take.val() & !self.rw_active.val().get_bit(0);
        self.rw_hit.next = self.rw_take.val() & (self.rw_qp.val() == self.cur.q.val());
        self.rw_word.index.next = self.rw_index.val();
        self.rw_word.psn.next = self.rw_psn.val();
        self.rw_word.skip.next = self.rw_skip.val();
        self.rw_word.stop.next = self.rw_stop.val();
        self.rw_ram.write_enable.next = self.rw_take.val();
        self.rw_ram.write_address.next = self.rw_qp.val();
        self.rw_ram.write_data.next = self.rw_word.word.val();
        self.rw_ram.read_address.next = self.cur.q.val();
        // Completed counts from the completer (a commit starts the QP's at 0).
        self.done_ram.write_enable.next = self.commit_ok.val() | self.done_valid.val();
        self.done_ram.write_address.next = self.done_qp.val();
        self.done_ram.write_data.next = self.done_index.val();
        if self.commit_ok.val() {
            self.done_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.done_ram.write_data.next = self.zero16.val();
        }
        self.done_ram.read_address.next = self.cur.q.val();
        self.ahead.index.next = self.done_ram.read_data.val();
        self.ahead.psn.next = self.zero24.val();
        self.ahead.skip.next = self.zero1.val();
        self.ahead.stop.next = self.zero1.val();
        // The claim: from S_LOAD (before the count is read) until a resend's WQEs are in.
        self.claim_qp.next = self.cur.q.val();
        self.claim.next = (self.state.q.val() == self.s_load.val())
            | (self.state.q.val() == self.s_check.val())
            | (self.state.q.val() == self.s_rw.val())
            | (self.state.q.val() == self.s_rw_apply.val())
            | (((self.state.q.val() == self.s_wqe_cmd.val()) | (self.state.q.val() == self.s_wqe_wait.val()))
                & (self.ci.q.val() != self.hi.q.val()));
        self.pi_ram.write_enable.next = self.commit_ok.val() | self.db_ok.val();
        self.pi_ram.write_address.next = self.db_q.val();
        self.pi_ram.write_data.next = self.sq_doorbell.val().get_bits::<16>(0);
        if self.commit_ok.val() {
            self.pi_ram.write_address.next = self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0);
            self.pi_ram.write_data.next = self.zero16.val();
        }

        // The ready FIFO: doorbells first, the FSM's requeue waits a cycle for them.
        self.fsm_push.next = (self.state.q.val() == self.s_requeue.val()) & !self.db_push.val() & !self.rw_push.val();
        self.ready.wr_en.next = self.db_push.val() | self.rw_push.val() | self.fsm_push.val();
        self.ready.wr_addr.next = self.ready_tail.q.val().get_bits::<QP_SLOT_BITS>(0);
        self.ready.wr_a.next = self.cur.q.val();
        if self.rw_push.val() {
            self.ready.wr_a.next = self.rw_qp.val();
        }
        if self.db_push.val() {
            self.ready.wr_a.next = self.db_q.val();
        }
        self.ready.wr_b.next = self.zero1.val();
        self.ready.wr_c.next = self.zero1.val();
        self.ready.tail.next = self.ready_tail.q.val();
        if self.db_push.val() | self.rw_push.val() | self.fsm_push.val() {
            self.ready_tail.d.next = self.ready_tail.q.val() + self.one_ready.val();
        }
        self.ready.out_ready.next = self.state.q.val() == self.s_pop.val();

        // Context RAM reads: the QP at the FIFO's head while popping, the held QP after.
        self.ctx_table.read_address.next = self.cur.q.val();
        self.st_ram.read_address.next = self.cur.q.val();
        self.pi_ram.read_address.next = self.cur.q.val();
        self.rd_head_qp.next = self.cur.q.val();
        if self.state.q.val() == self.s_pop.val() {
            self.ctx_table.read_address.next = self.ready.out_a.val();
            self.st_ram.read_address.next = self.ready.out_a.val();
            self.pi_ram.read_address.next = self.ready.out_a.val();
            self.rd_head_qp.next = self.ready.out_a.val();
        }
        self.qp_word.next = self.ctx_table.read_data.val();

        // DMA read data: the WQE when the FSM waits for it and no payload is ahead of it (the
        // condition is spelled out in each use: a shared local would join the engine's ready
        // and valid in one combinational block for Verilator).
        self.txp_valid.next =
            self.rdd_valid.val() & !((self.state.q.val() == self.s_wqe_wait.val()) & (self.pl_out.q.val() == self.zero6.val()));
        self.txp_data.next = self.rdd_data.val();
        self.rdd_ready.next =
            ((self.state.q.val() == self.s_wqe_wait.val()) & (self.pl_out.q.val() == self.zero6.val())) | self.txp_ready.val();

        // The packet the FSM is on (meaningful in S_PKT).
        self.pmtu32.next = self.one32.val() << self.c_pmtu.q.val();
        // Packets of the WQE being checked (a resent one the check now refuses keeps them).
        self.wqe_pkts.next = (self.w_len.q.val() + self.pmtu32.val() - self.one32.val()) >> self.c_pmtu.q.val();
        if self.w_len.q.val() == self.zero32.val() {
            self.wqe_pkts.next = self.one32.val();
        }
        self.pmtu64.next = self.one64.val() << self.c_pmtu.q.val();
        self.is_atomic.next = (self.w_op.q.val() == self.op_cas.val()) | (self.w_op.q.val() == self.op_faa.val());
        self.is_read.next = (self.w_op.q.val() == self.op_read.val()) | self.is_atomic.val();
        self.w_inline.next = (self.w_flags.q.val() & self.inline_flag.val()) != self.zero8.val();
        self.inline_len_bad.next = self.w_inline.val() & (self.w_len.q.val() > self.inline_max.val());
        self.inline_op_bad.next = self.w_inline.val() & self.is_read.val();
        self.atomic_len_bad.next = self.is_atomic.val() & (self.w_len.q.val() != self.eight32.val());
        self.last.next = (self.left.q.val() <= self.pmtu32.val()) | self.is_read.val();
        self.len.next = self.pmtu32.val();
        if self.last.val() {
            self.len.next = self.left.q.val();
        }
        if self.is_read.val() {
            self.len.next = self.zero32.val();
        }
        // (Opcode bits 1 and 0 say WRITE and immediate for SEND / WRITE only.)
        self.is_write.next = self.w_op.q.val().get_bit(1) & !self.is_read.val();
        self.has_imm.next = self.w_op.q.val().get_bit(0) & !self.is_read.val();
        self.opcode.next = self.zero8.val();
        if !self.first.q.val() & !self.last.val() {
            self.opcode.next = self.one8.val();
        }
        if !self.first.q.val() & self.last.val() {
            self.opcode.next = self.two8.val();
            if self.has_imm.val() {
                self.opcode.next = self.two8.val() + self.one8.val();
            }
        }
        if self.first.q.val() & self.last.val() {
            self.opcode.next = self.four8.val();
            if self.has_imm.val() {
                self.opcode.next = self.four8.val() + self.one8.val();
            }
        }
        if self.is_write.val() {
            self.opcode.next = self.opcode.val() + self.write_base.val();
        }
        if self.is_read.val() {
            self.opcode.next = self.op_read_request.val();
        }
        if self.is_atomic.val() {
            self.opcode.next = self.op_fetch_add.val();
            if self.w_op.q.val() == self.op_cas.val() {
                self.opcode.next = self.op_cmp_swap.val();
            }
        }
        self.need_cmd.next = (self.len.val() != self.zero32.val()) & !self.w_inline.val();
        self.desc_room.next = (self.desc_tail.q.val() - self.descs.head.val()) < self.desc_capacity.val();

        self.desc_word.opcode.next = self.opcode.val();
        self.desc_word.se.next = self.zero1.val();
        if self.last.val() & self.w_flags.q.val().get_bit(1) & (!self.is_write.val() | self.has_imm.val()) & !self.is_read.val() {
            self.desc_word.se.next = self.one1.val();
        }
        self.desc_word.ack_req.next = self.zero1.val();
        if self.last.val() | (self.psn.q.val().get_bits::<6>(0) == self.ack_every_psn.val()) {
            self.desc_word.ack_req.next = self.one1.val();
        }
        self.desc_word.psn.next = self.psn.q.val();
        self.desc_word.va.next = self.w_raddr.q.val();
        // A READ resent after responses were placed asks only for the rest: from the rewind's
        // PSN on, its address and length moved on by the responses before it (IBTA Vol 1
        // §9.7.5.1.2: the responder answers it with MIDDLE / LAST, as rxe does).
        self.rd_skip.n.next = self.skip_psn.q.val() - self.psn.q.val();
        self.rd_skip_bytes.next = self.rd_skip.word.val() << self.c_pmtu.q.val();
        self.rd_resume.next = self.skipping.q.val()
            & self.is_read.val()
            & !self.is_atomic.val()
            & (self.skip_psn.q.val() != self.psn.q.val())
            & (self.rd_skip.word.val().get_bits::<32>(0) < self.wqe_pkts.val());
        self.desc_word.rkey.next = self.w_rkey.q.val();
        self.desc_word.dma_len.next = self.w_len.q.val();
        if self.rd_resume.val() {
            self.desc_word.psn.next = self.skip_psn.q.val();
            self.desc_word.va.next = self.w_raddr.q.val() + self.rd_skip_bytes.val();
            self.desc_word.dma_len.next = self.w_len.q.val() - self.rd_skip_bytes.val().get_bits::<32>(0);
        }
        self.desc_word.imm.next = self.w_imm.q.val();
        self.desc_word.payload_len.next = self.len.val().get_bits::<LEN_BITS>(0);
        self.desc_word.dest_qp.next = self.c_dest_qpn.q.val();
        self.desc_word.mac.next = self.c_mac.q.val();
        self.desc_word.ipv6.next = self.c_flags.q.val().get_bits::<1>(0);
        self.desc_word.vlan.next = self.c_flags.q.val().get_bits::<1>(1);
        self.desc_word.vlan_tci.next = self.c_vlan_tci.q.val();
        self.desc_word.dscp.next = self.c_traffic.q.val().get_bits::<6>(0);
        self.desc_word.ecn.next = self.c_traffic.q.val().get_bits::<2>(6);
        self.desc_word.ttl.next = self.c_traffic.q.val().get_bits::<8>(8);
        self.desc_word.flow_label.next = self.c_flow_label.q.val();
        self.desc_word.udp_sport.next = self.c_udp_sport.q.val();
        self.desc_word.ip.next = self.c_ip.q.val();
        self.desc_word.pkey.next = self.c_pkey.q.val();
        self.desc_word.atomic_value.next = self.w_swap.q.val();
        self.desc_word.atomic_compare.next = self.w_compare.q.val();
        self.desc_word.inline.next = self.zero1.val();
        if self.w_inline.val() {
            self.desc_word.inline.next = self.one1.val();
        }

        // (Packets before the PSN are skipped; a READ is sent whole, its responses placed once.)
        self.skip_now.next = self.skipping.q.val()
            & !self.is_read.val()
            & ((self.skip_psn.q.val() - self.psn.q.val()) < self.half24.val())
            & (self.psn.q.val() != self.skip_psn.q.val());
        // A rewind for the QP being sent stops its WQE at the next packet boundary (after the
        // first packet): the rest would only arrive out of sequence.
        self.pend_cur.next = self.rw_pend.q.val() >> self.cur.q.val();
        // A commit of the QP stops it at the next boundary too, its first packet included.
        self.abort.next = (self.state.q.val() == self.s_pkt.val())
            & !self.d_done.q.val()
            & !self.c_done.q.val()
            & ((!self.first.q.val() & self.pend_cur.val().get_bit(0)) | self.stale.q.val());
        self.push.next = (self.state.q.val() == self.s_pkt.val())
            & !self.d_done.q.val()
            & self.desc_room.val()
            & !self.skip_now.val()
            & !self.abort.val();
        self.descs.wr_en.next = self.push.val();
        self.descs.wr_addr.next = self.desc_tail.q.val().get_bits::<DESC_ADDR>(0);
        self.descs.wr_a.next = self.desc_word.word.val();
        self.descs.wr_b.next = self.zero1.val();
        self.descs.wr_c.next = self.zero1.val();
        self.descs.tail.next = self.desc_tail.q.val();
        if self.push.val() {
            self.desc_tail.d.next = self.desc_tail.q.val() + self.one_desc.val();
        }

        // DMA read commands through the command register: the WQE, or the packet's payload.
        self.batch_bytes.zero.next = self.zero6.val();
        self.batch_bytes.count.next = self.batch.q.val();
        self.wqe_off.zero.next = self.zero6.val();
        self.wqe_off.index.next = self.ci.q.val() & self.c_mask.q.val();
        self.rd_valid.next = self.r_valid.q.val();
        self.rd_addr.next = self.r_addr.q.val();
        self.rd_len.next = self.r_len.q.val();
        self.cmd_free.next = !self.r_valid.q.val() | self.rd_ready.val();
        if self.rd_ready.val() {
            self.r_valid.d.next = false;
        }
        self.push_hit.next = self.pushed.q.val()
            & (self.push_qp.q.val() == self.cur.q.val())
            & (self.push_idx.q.val() == self.ci.q.val())
            & !self.resend.val();
        self.push_take.next = (self.state.q.val() == self.s_wqe_cmd.val()) & self.push_hit.val();
        if (self.state.q.val() == self.s_wqe_cmd.val()) & self.cmd_free.val() & !self.push_hit.val() {
            self.r_valid.d.next = true;
            self.r_addr.d.next = self.c_base.q.val() + self.wqe_off.word.val();
            self.r_len.d.next = self.batch_bytes.word.val();
        }
        self.load_pl.next = (self.state.q.val() == self.s_pkt.val())
            & self.need_cmd.val()
            & !self.c_done.q.val()
            & self.cmd_free.val()
            & !self.skip_now.val()
            & !self.abort.val();
        if self.load_pl.val() {
            self.r_valid.d.next = true;
            self.r_addr.d.next = self.addr.q.val();
            self.r_len.d.next = self.len.val().get_bits::<16>(0);
        }
        self.pl_inc.next = self.load_pl.val();
        self.pl_dec.next = self.rdd_valid.val()
            & self.rdd_last.val()
            & self.txp_ready.val()
            & !((self.state.q.val() == self.s_wqe_wait.val()) & (self.pl_out.q.val() == self.zero6.val()));
        if self.pl_inc.val() & !self.pl_dec.val() {
            self.pl_out.d.next = self.pl_out.q.val() + self.one6.val();
        }
        if !self.pl_inc.val() & self.pl_dec.val() {
            self.pl_out.d.next = self.pl_out.q.val() - self.one6.val();
        }

        // Local key check.
        self.mr_key.next = self.w_lkey.q.val();
        self.mr_pd.next = self.c_pd.q.val();
        self.mr_addr.next = self.w_laddr.q.val();
        self.mr_len.next = self.w_len.q.val();
        self.mr_need.next = self.zero4.val();
        if self.is_read.val() {
            self.mr_need.next = self.need_local_write.val();
        }
        self.mr_fast_key.next = self.w_lkey.q.val();
        self.mr_fast_addr.next = self.w_laddr.q.val();
        self.mr_fast_len.next = self.w_len.q.val();
        self.key_known.next = self.mr_fast_hit.val()
            & (self.mr_fast_pd.val() == self.c_pd.q.val())
            & (!self.is_read.val() | ((self.mr_fast_access.val() & self.need_local_write.val()) == self.need_local_write.val()));
        self.mr_valid.next = (self.state.q.val() == self.s_mr.val()) & !self.key_known.val();
        self.verdict.next = ((self.state.q.val() == self.s_mr_wait.val()) & self.mr_res_valid.val())
            | ((self.state.q.val() == self.s_mr.val()) & self.key_known.val());
        self.key_refused.next = (self.mr_res_error.val() != self.zero3.val()) & (self.state.q.val() != self.s_mr.val());

        self.rd_full.next = (self.rd_tail.q.val() - self.rd_head_r.q.val()) >= self.rd_limit.q.val();
        // The FSM.
        self.wqe_done.next = false;
        self.sent_valid.next = false;
        self.sent_qp.next = self.cur.q.val();
        self.sent_signaled.next = self.w_flags.q.val().get_bit(self.signaled_at.val().index());
        self.sent_read.next = self.is_read.val();
        self.err_valid.next = (self.state.q.val() == self.s_report.val()) & !self.stale.q.val();
        self.err_status.next = self.rep_status.q.val();
        self.saw_db.d.next = self.saw_db.q.val() | self.db_hit.val() | self.rw_hit.val();
        self.has_work.next = (self.c_state.q.val() == self.rts.val()) & (self.ci.q.val() != self.pi.q.val());
        // A batch: what is waiting, at most WQE_BATCH, not past the ring's end (one read).
        self.avail.next = self.pi.q.val() - self.ci.q.val();
        self.room.next = self.c_mask.q.val() - (self.ci.q.val() & self.c_mask.q.val()) + self.one16.val();
        self.take.next = self.batch_max.val();
        if self.avail.val() < self.take.val() {
            self.take.next = self.avail.val();
        }
        if self.room.val() < self.take.val() {
            self.take.next = self.room.val();
        }
        // With READs outstanding the turn may end early at a READ that finds `max_rd_atomic`
        // outstanding (unsent, read again next turn): a short batch then (64 WQEs read for
        // one READ cost 64-byte READs on one QP 15 %).
        if (self.rd_tail.q.val() != self.rd_head_r.q.val()) & (self.rd_batch.val() < self.take.val()) {
            self.take.next = self.rd_batch.val();
        }
        // A resend batch ends where resending ends: at `hi`, or where a broken queue stops.
        self.resend_lim.next = self.hi.q.val() - self.ci.q.val();
        if self.broken.q.val() {
            self.resend_lim.next = self.stop_at.q.val() - self.ci.q.val();
        }
        if self.resend.val() & (self.resend_lim.val() < self.take.val()) {
            self.take.next = self.resend_lim.val();
        }
        self.resend_end.next = self.resend.val() & self.broken.q.val() & (self.ci.q.val() == self.stop_at.q.val());
        // WQEs completed since the rewind are not resent (their slots may hold new WQEs).
        self.behind.next = self.resend.val()
            & (self.done_ram.read_data.val() != self.ci.q.val())
            & ((self.done_ram.read_data.val() - self.ci.q.val()) <= (self.hi.q.val() - self.ci.q.val()));
        self.check_bad.next = (self.key_refused.val() & !self.w_inline.val())
            | self.inline_len_bad.val()
            | self.inline_op_bad.val()
            | self.w_error.q.val()
            | (self.w_op.q.val() > self.max_op.val())
            | (self.w_len.q.val() > self.max_message.val())
            | self.atomic_len_bad.val();
        self.bad.next = self.check_bad.val() | self.broken.q.val();
        self.step.next = !self.abort.val()
            & (self.skip_now.val()
                | ((self.d_done.q.val() | self.push.val()) & (self.c_done.q.val() | !self.need_cmd.val() | self.load_pl.val())));
        if (self.state.q.val() == self.s_pop.val()) & self.ready.out_valid.val() {
            self.cur.d.next = self.ready.out_a.val();
            self.stale.d.next = false;
            self.saw_db.d.next = (self.db_ok.val() & (self.db_q.val() == self.ready.out_a.val()))
                | (self.rw_take.val() & (self.rw_qp.val() == self.ready.out_a.val()));
            self.skipping.d.next = false;
            self.state.d.next = self.s_load.val();
        }
        if self.state.q.val() == self.s_load.val() {
            self.c_state.d.next = self.qp_word.val().get_bits::<3>(self.o_state.val().index());
            self.c_dest_qpn.d.next = self.qp_word.val().get_bits::<24>(self.o_dest_qpn.val().index());
            self.c_mac.d.next = self.qp_word.val().get_bits::<48>(self.o_mac.val().index());
            self.c_flags.d.next = self.qp_word.val().get_bits::<2>(self.o_flags.val().index());
            self.c_vlan_tci.d.next = self.qp_word.val().get_bits::<16>(self.o_vlan_tci.val().index());
            self.c_traffic.d.next = self.qp_word.val().get_bits::<16>(self.o_traffic.val().index());
            self.c_flow_label.d.next = self.qp_word.val().get_bits::<20>(self.o_flow_label.val().index());
            self.c_udp_sport.d.next = self.qp_word.val().get_bits::<16>(self.o_udp_sport.val().index());
            self.c_ip.d.next = self.qp_word.val().get_bits::<128>(self.o_ip.val().index());
            self.c_pkey.d.next = self.qp_word.val().get_bits::<16>(self.o_pkey.val().index());
            self.c_pmtu.d.next = self.qp_word.val().get_bits::<4>(self.o_pmtu.val().index());
            self.c_base.d.next = self.qp_word.val().get_bits::<64>(self.o_base.val().index());
            self.c_mask.d.next =
                (self.one16.val() << self.qp_word.val().get_bits::<4>(self.o_log_size.val().index())) - self.one16.val();
            self.c_pd.d.next = self.qp_word.val().get_bits::<16>(self.o_pd.val().index());
            self.ci.d.next = self.st_ram.read_data.val().get_bits::<16>(0);
            self.psn.d.next = self.st_ram.read_data.val().get_bits::<24>(16);
            self.broken.d.next = self.st_ram.read_data.val().get_bit(40);
            self.hi.d.next = self.st_ram.read_data.val().get_bits::<16>(41);
            self.hi_psn.d.next = self.st_ram.read_data.val().get_bits::<24>(57);
            self.stop_at.d.next = self.st_ram.read_data.val().get_bits::<16>(81);
            self.rd_tail.d.next = self.st_ram.read_data.val().get_bits::<RD_PTR>(97);
            self.rd_head_r.d.next = self.rd_head.val();
            self.rd_limit.d.next = self.qp_word.val().get_bits::<RD_PTR>(self.o_max_rd.val().index());
            if self.qp_word.val().get_bits::<RD_PTR>(self.o_max_rd.val().index()) == self.zero_ptr.val() {
                self.rd_limit.d.next = self.one_ptr.val();
            }
            if self.qp_word.val().get_bits::<RD_PTR>(self.o_max_rd.val().index()) > self.rd_slots.val() {
                self.rd_limit.d.next = self.rd_slots.val();
            }
            self.pi.d.next = self.pi_ram.read_data.val();
            self.state.d.next = self.s_check.val();
        }
        self.fsm_clear.next = false;
        self.pend_clr.next = self.zero256.val();
        // A QP committed since it was taken goes round again and is loaded afresh (a rewind
        // pending for it waits for that turn).
        if (self.state.q.val() == self.s_check.val()) & self.stale.q.val() {
            self.state.d.next = self.s_requeue.val();
        }
        if (self.state.q.val() == self.s_check.val()) & !self.stale.q.val() & self.pend_cur.val().get_bit(0) {
            // A rewind is pending: take it (its words were read in S_LOAD or since).
            self.pend_clr.next = self.one256.val() << self.cur.q.val();
            self.rw_r.d.next = self.rw_ram.read_data.val();
            self.state.d.next = self.s_rw.val();
        }
        if (self.state.q.val() == self.s_check.val()) & !self.stale.q.val() & !self.pend_cur.val().get_bit(0) & self.behind.val() {
            // Skip what has completed: to the first WQE left (its first PSN from the table),
            // or past the resend altogether.
            self.rw_r.d.next = self.ahead.word.val();
            self.state.d.next = self.s_rw.val();
            if (self.done_ram.read_data.val() == self.hi.q.val())
                | (self.broken.q.val() & ((self.done_ram.read_data.val() - self.stop_at.q.val()) < self.half16.val()))
            {
                self.ci.d.next = self.hi.q.val();
                self.psn.d.next = self.hi_psn.q.val();
                self.state.d.next = self.s_check.val();
            }
        }
        if (self.state.q.val() == self.s_check.val())
            & !self.stale.q.val()
            & !self.pend_cur.val().get_bit(0)
            & !self.behind.val()
            & self.resend_end.val()
        {
            // A broken queue's resend ends where its errors began.
            self.ci.d.next = self.hi.q.val();
            self.psn.d.next = self.hi_psn.q.val();
        }
        // (No work: the state is written back, as a rewind or a stop may have changed it; a
        // commit in the same cycle has the RAM's write port, so the check waits a cycle.)
        self.idle_back.next = (self.state.q.val() == self.s_check.val())
            & !self.pend_cur.val().get_bit(0)
            & !self.behind.val()
            & !self.resend_end.val()
            & !self.has_work.val()
            & !self.commit_ok.val()
            & !self.stale.q.val();
        self.st_ram.write_enable.next =
            self.commit_ok.val() | ((self.state.q.val() == self.s_writeback.val()) & !self.stale.q.val()) | self.idle_back.val();
        if (self.state.q.val() == self.s_check.val())
            & !self.stale.q.val()
            & !self.pend_cur.val().get_bit(0)
            & !self.behind.val()
            & !self.resend_end.val()
            & (self.has_work.val() | !self.commit_ok.val())
        {
            self.state.d.next = self.s_pop.val();
            if !self.has_work.val() & !self.saw_db.q.val() & !self.db_hit.val() & !self.rw_hit.val() {
                self.fsm_clear.next = true;
            }
            if !self.has_work.val() & (self.saw_db.q.val() | self.db_hit.val() | self.rw_hit.val()) {
                self.state.d.next = self.s_requeue.val();
            }
            if self.has_work.val() {
                self.batch.d.next = self.take.val().get_bits::<7>(0);
                self.got.d.next = self.zero_n.val();
                self.wq_at.d.next = self.zero_wq.val();
                self.state.d.next = self.s_wqe_cmd.val();
            }
        }
        // The rewind: read the first PSN of the WQE it names, then go back there.
        self.tab_addr.qp.next = self.cur.q.val();
        self.tab_addr.slot.next = self.rw_r.q.val().get_bits::<8>(0);
        if self.state.q.val() != self.s_rw.val() {
            self.tab_addr.slot.next = self.ci.q.val().get_bits::<8>(0);
        }
        self.psn_tab.read_address.next = self.tab_addr.word.val();
        self.psn_tab.write_address.next = self.tab_addr.word.val();
        self.psn_tab.write_data.next = self.psn.q.val();
        if self.state.q.val() == self.s_rw.val() {
            self.state.d.next = self.s_rw_apply.val();
        }
        // The PSN to skip to must lie in what the resend covers: from the WQE's first PSN up
        // to (not including) the first PSN never sent.
        self.rw_in_range.next = ((self.rw_r.q.val().get_bits::<24>(16) - self.psn_tab.read_data.val()) < self.half24.val())
            & ((self.top_psn.val() - self.rw_r.q.val().get_bits::<24>(16)) < self.half24.val())
            & (self.top_psn.val() != self.rw_r.q.val().get_bits::<24>(16));
        if self.state.q.val() == self.s_rw_apply.val() {
            self.state.d.next = self.s_check.val();
            if self.rw_r.q.val().get_bit(41) {
                // Stop: no more resending, the queue in error, a marker to the completer.
                self.ci.d.next = self.hi.q.val();
                self.psn.d.next = self.top_psn.val();
                self.hi_psn.d.next = self.top_psn.val();
                self.broken.d.next = true;
                if !self.broken.q.val() {
                    self.stop_at.d.next = self.hi.q.val();
                }
                self.rep_status.d.next = self.marker.val();
                self.state.d.next = self.s_report.val();
            }
            // Go back to a WQE sent before (not past `hi`, within the table, before a broken
            // queue's stop).
            if !self.rw_r.q.val().get_bit(41)
                & ((self.hi.q.val() - self.rw_r.q.val().get_bits::<16>(0) - self.one16.val()) < self.tab_span.val())
                & !(self.broken.q.val() & ((self.rw_r.q.val().get_bits::<16>(0) - self.stop_at.q.val()) < self.half16.val()))
            {
                self.hi_psn.d.next = self.top_psn.val();
                self.ci.d.next = self.rw_r.q.val().get_bits::<16>(0);
                self.psn.d.next = self.psn_tab.read_data.val();
                self.skip_psn.d.next = self.rw_r.q.val().get_bits::<24>(16);
                self.skipping.d.next = self.rw_r.q.val().get_bit(40) & self.rw_in_range.val();
            }
        }
        if (self.state.q.val() == self.s_wqe_cmd.val()) & self.cmd_free.val() & !self.push_hit.val() {
            self.state.d.next = self.s_wqe_wait.val();
        }
        self.wqe_in.next = (self.state.q.val() == self.s_wqe_wait.val()) & (self.pl_out.q.val() == self.zero6.val()) & self.rdd_valid.val();
        self.wq_ram.write_enable.next = self.wqe_in.val() | self.push_take.val();
        self.wq_ram.write_address.next = self.got.q.val().get_bits::<WQE_BATCH_BITS>(0);
        self.wq_ram.write_data.next = self.rdd_data.val();
        if self.push_take.val() {
            // The pushed WQE is the batch (`got` is 0 here): no read, straight to its check.
            self.wq_ram.write_data.next = self.push_word.q.val();
            self.got.d.next = self.one_n.val();
            self.batch.d.next = self.one_n.val();
            self.batch_err.d.next = false;
            self.state.d.next = self.s_wq_read.val();
        }
        // Any fetch of the pushed WQE's QP retires it (used now, or read from the ring with
        // the batch); so does a commit of that QP. A new push replaces it.
        if (self.state.q.val() == self.s_wqe_cmd.val()) & (self.push_qp.q.val() == self.cur.q.val()) {
            self.pushed.d.next = false;
        }
        if self.commit_ok.val() & (self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0) == self.push_qp.q.val()) {
            self.pushed.d.next = false;
        }
        if self.push_valid.val() & self.db_ok.val() {
            self.pushed.d.next = true;
            self.push_qp.d.next = self.db_q.val();
            self.push_idx.d.next = self.sq_doorbell.val().get_bits::<16>(0) - self.one16.val();
            self.push_word.d.next = self.push_wqe.val();
        }
        if self.wqe_in.val() {
            self.got.d.next = self.got.q.val() + self.one_n.val();
            if self.rdd_last.val() {
                self.batch_err.d.next = self.rdd_error.val();
                self.state.d.next = self.s_wq_read.val();
            }
        }
        // (A batch of one wrote the word s_next reads in the cycle its read was addressed.)
        if self.state.q.val() == self.s_wq_read.val() {
            self.state.d.next = self.s_next.val();
        }
        if self.commit_ok.val()
            & (self.state.q.val() != self.s_pop.val())
            & (self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0) == self.cur.q.val())
        {
            self.stale.d.next = true;
        }
        if self.state.q.val() == self.s_next.val() {
            self.w_op.d.next = self.wq_ram.read_data.val().get_bits::<8>(self.w_op_at.val().index());
            self.w_flags.d.next = self.wq_ram.read_data.val().get_bits::<8>(self.w_flags_at.val().index());
            self.w_imm.d.next = self.wq_ram.read_data.val().get_bits::<32>(self.w_imm_at.val().index());
            self.w_laddr.d.next = self.wq_ram.read_data.val().get_bits::<64>(self.w_laddr_at.val().index());
            self.w_len.d.next = self.wq_ram.read_data.val().get_bits::<32>(self.w_len_at.val().index());
            self.w_lkey.d.next = self.wq_ram.read_data.val().get_bits::<32>(self.w_lkey_at.val().index());
            self.w_raddr.d.next = self.wq_ram.read_data.val().get_bits::<64>(self.w_raddr_at.val().index());
            self.w_rkey.d.next = self.wq_ram.read_data.val().get_bits::<32>(self.w_rkey_at.val().index());
            self.w_swap.d.next = self.wq_ram.read_data.val().get_bits::<64>(self.w_swap_at.val().index());
            self.w_compare.d.next = self.wq_ram.read_data.val().get_bits::<64>(self.w_compare_at.val().index());
            self.w_error.d.next = self.batch_err.q.val();
            self.state.d.next = self.s_mr.val();
            if self.stale.q.val() {
                // WQEs read before the commit: dropped.
                self.state.d.next = self.s_writeback.val();
            }
        }
        if self.state.q.val() == self.s_mr.val() {
            self.state.d.next = self.s_mr_wait.val();
        }
        self.psn_tab.write_enable.next = false;
        if self.verdict.val() & self.resend.val() & self.check_bad.val() {
            // A resent WQE its check now refuses (its region is gone): not sent, left to the
            // timer; its PSNs stay its own, so the WQEs behind it keep theirs.
            self.psn.d.next = self.psn.q.val() + self.wqe_pkts.val().get_bits::<24>(0);
            self.wqe_done.next = true;
        }
        if self.verdict.val() & !self.resend.val() {
            if self.bad.val() {
                // Reported in order with the sent WQEs; the first error breaks the queue.
                self.error_count.d.next = self.error_count.q.val() + self.one32.val();
                self.broken.d.next = true;
                // Resends of the WQEs sent before stop here (this one was never sent).
                if !self.broken.q.val() {
                    self.stop_at.d.next = self.ci.q.val();
                }
                self.state.d.next = self.s_report.val();
                self.rep_status.d.next = self.st_protection.val();
                if (self.w_len.q.val() > self.max_message.val()) | self.atomic_len_bad.val() | self.inline_len_bad.val() {
                    self.rep_status.d.next = self.st_length.val();
                }
                if self.w_error.q.val() | (self.w_op.q.val() > self.max_op.val()) | self.inline_op_bad.val() {
                    self.rep_status.d.next = self.st_operation.val();
                }
                if self.broken.q.val() {
                    self.rep_status.d.next = self.st_flushed.val();
                }
            } else {
                // A WQE sent for the first time: its first PSN, for a rewind.
                self.psn_tab.write_enable.next = !self.stale.q.val() & !(self.is_read.val() & self.rd_full.val());
            }
        }
        if self.verdict.val()
            & ((!self.resend.val() & !self.bad.val()) | (self.resend.val() & !self.check_bad.val()))
        {
            self.left.d.next = self.w_len.q.val();
            self.addr.d.next = self.w_laddr.q.val();
            self.first.d.next = true;
            self.d_done.d.next = false;
            self.c_done.d.next = false;
            self.state.d.next = self.s_pkt.val();
        }
        // A new READ: into the QP's READ ring, unless `max_rd_atomic` are outstanding — then
        // it waits (not consumed; the QP goes round and looks again).
        self.rd_stall.next = self.verdict.val()
            & !self.resend.val()
            & !self.bad.val()
            & self.is_read.val()
            & self.rd_full.val();
        if self.rd_stall.val() {
            self.state.d.next = self.s_writeback.val();
        }
        self.rd_entry.laddr.next = self.w_laddr.q.val();
        self.rd_entry.len.next = self.w_len.q.val();
        self.rd_entry.lkey.next = self.w_lkey.q.val();
        self.rd_entry.psn.next = self.psn.q.val();
        self.rd_entry.end_psn.next = self.psn.q.val() + self.wqe_pkts.val().get_bits::<24>(0);
        self.rd_entry.atomic.next = self.zero1.val();
        if self.is_atomic.val() {
            self.rd_entry.atomic.next = self.one1.val();
        }
        self.rd_ap_entry.next = self.rd_entry.word.val();
        self.rd_ap_qp.next = self.cur.q.val();
        self.rd_ap_tail.next = self.rd_tail.q.val();
        self.rd_ap_valid.next = self.verdict.val()
            & !self.resend.val()
            & !self.bad.val()
            & self.is_read.val()
            & !self.rd_full.val()
            & !self.stale.q.val();
        if self.rd_ap_valid.val() {
            self.rd_tail.d.next = self.rd_tail.q.val() + self.one_ptr.val();
        }
        if self.push.val() & self.resend.val() {
            self.resent_count.d.next = self.resent_count.q.val() + self.one32.val();
        }
        // Stopped mid-WQE: a new one counts as sent (its first packet is out), ending where
        // its last packet would have; the QP goes round and takes its rewind.
        self.remaining.next = (self.left.q.val() + self.pmtu32.val() - self.one32.val()) >> self.c_pmtu.q.val();
        self.sent_end_psn.next = self.psn.q.val() + self.remaining.val().get_bits::<24>(0);
        if self.remaining.val() == self.zero32.val() {
            self.sent_end_psn.next = self.psn.q.val() + self.one24.val();
        }
        if self.abort.val() {
            if !self.resend.val() {
                self.hi.d.next = self.ci.q.val() + self.one16.val();
                self.hi_psn.d.next = self.psn.q.val() + self.remaining.val().get_bits::<24>(0);
            }
            self.state.d.next = self.s_writeback.val();
        }
        // (Once the first packet at or past the skip PSN is handed over: a READ to resume that
        // waits for descriptor room must still resume when it goes.)
        if self.push.val() & self.skipping.q.val() & (!self.is_read.val() | self.rd_resume.val()) {
            self.skipping.d.next = false;
        }
        if self.state.q.val() == self.s_pkt.val() {
            if self.step.val() {
                self.psn.d.next = self.psn.q.val() + self.one24.val();
                if self.is_read.val() {
                    self.psn.d.next = self.psn.q.val() + self.wqe_pkts.val().get_bits::<24>(0);
                }
                self.first.d.next = false;
                self.d_done.d.next = false;
                self.c_done.d.next = false;
                self.left.d.next = self.left.q.val() - self.pmtu32.val();
                self.addr.d.next = self.addr.q.val() + self.pmtu64.val();
                // A new WQE is outstanding from its first packet on (so a NAK or a timeout
                // during a long message already goes back to it).
                if self.first.q.val() & !self.resend.val() & !self.stale.q.val() {
                    self.sent_valid.next = true;
                    self.wqe_count.d.next = self.wqe_count.q.val() + self.one32.val();
                }
                if self.last.val() {
                    self.wqe_done.next = true;
                }
            } else {
                self.d_done.d.next = self.d_done.q.val() | self.push.val();
                self.c_done.d.next = self.c_done.q.val() | self.load_pl.val();
            }
        }
        if (self.state.q.val() == self.s_report.val()) & self.stale.q.val() {
            self.state.d.next = self.s_writeback.val();
        }
        if (self.state.q.val() == self.s_report.val()) & self.err_ready.val() & !self.stale.q.val() {
            if self.rep_status.q.val() == self.marker.val() {
                // (Through the write-back and the ready FIFO, not straight to S_CHECK: a rewind
                // taken meanwhile must not meet S_CHECK's read of the pending one.)
                self.state.d.next = self.s_writeback.val();
            } else {
                self.wqe_done.next = true;
            }
        }
        // A WQE is done: the next of the batch, or the QP's turn ends.
        if self.wqe_done.val() {
            self.ci.d.next = self.ci.q.val() + self.one16.val();
            if !self.resend.val() {
                self.hi.d.next = self.hi.q.val() + self.one16.val();
            }
            self.batch.d.next = self.batch.q.val() - self.one_n.val();
            self.wq_at.d.next = self.wq_at.q.val() + self.one_wq.val();
            self.state.d.next = self.s_writeback.val();
            if self.batch.q.val() != self.one_n.val() {
                self.state.d.next = self.s_next.val();
            }
        }
        if (self.state.q.val() == self.s_writeback.val()) & !self.commit_ok.val() {
            self.state.d.next = self.s_requeue.val();
        }
        if self.fsm_push.val() {
            self.state.d.next = self.s_pop.val();
        }
        // The batch RAM reads the WQE the FSM holds next (its word is there in s_next).
        self.wq_ram.read_address.next = self.wq_at.d.val();

        // Active bits: set by doorbells, cleared by the FSM (after it has decided).
        self.set_mask.next = self.zero256.val();
        if self.db_push.val() {
            self.set_mask.next = self.one256.val() << self.db_q.val();
        }
        self.clr_mask.next = self.zero256.val();
        if self.fsm_clear.val() {
            self.clr_mask.next = self.one256.val() << self.cur.q.val();
        }
        if self.rw_push.val() {
            self.set_mask.next = self.one256.val() << self.rw_qp.val();
        }
        self.active.d.next = (self.active.q.val() | self.set_mask.val()) & !self.clr_mask.val();
        // Pending rewinds: set by a request (the newest wins), taken by the FSM, dropped by a commit.
        self.pend_set.next = self.zero256.val();
        if self.rw_take.val() {
            self.pend_set.next = self.one256.val() << self.rw_qp.val();
        }
        if self.commit_ok.val() {
            self.pend_clr.next = self.pend_clr.val() | (self.one256.val() << self.qp_commit.val().get_bits::<QP_SLOT_BITS>(0));
        }
        self.rw_pend.d.next = (self.rw_pend.q.val() & !self.pend_clr.val()) | self.pend_set.val();

        // Descriptors out.
        self.out.next = self.descs.out_a.val();
        self.txd_valid.next = self.descs.out_valid.val();
        self.descs.out_ready.next = self.txd_ready.val();
        self.txd_opcode.next = self.out.val().get_bits::<8>(self.d_opcode.val().index());
        self.txd_inline.next = self.out.val().get_bit(self.d_inline.val().index());
        self.txd_se.next = self.out.val().get_bit(self.d_se.val().index());
        self.txd_ack_req.next = self.out.val().get_bit(self.d_ack_req.val().index());
        self.txd_psn.next = self.out.val().get_bits::<24>(self.d_psn.val().index());
        self.txd_va.next = self.out.val().get_bits::<64>(self.d_va.val().index());
        self.txd_rkey.next = self.out.val().get_bits::<32>(self.d_rkey.val().index());
        self.txd_dma_len.next = self.out.val().get_bits::<32>(self.d_dma_len.val().index());
        self.txd_imm.next = self.out.val().get_bits::<32>(self.d_imm.val().index());
        self.txd_payload_len.next = self.out.val().get_bits::<LEN_BITS>(self.d_payload_len.val().index());
        self.txd_dest_qp.next = self.out.val().get_bits::<24>(self.d_dest_qp.val().index());
        self.txd_eth_dst.next = self.out.val().get_bits::<48>(self.d_mac.val().index());
        self.txd_eth_src.next = self.port_mac.val();
        self.txd_ipv6.next = self.out.val().get_bit(self.d_ipv6.val().index());
        self.txd_vlan.next = self.out.val().get_bit(self.d_vlan.val().index());
        self.txd_vlan_tci.next = self.out.val().get_bits::<16>(self.d_vlan_tci.val().index());
        self.txd_dscp.next = self.out.val().get_bits::<6>(self.d_dscp.val().index());
        self.txd_ecn.next = self.out.val().get_bits::<2>(self.d_ecn.val().index());
        self.txd_ttl.next = self.out.val().get_bits::<8>(self.d_ttl.val().index());
        self.txd_flow_label.next = self.out.val().get_bits::<20>(self.d_flow_label.val().index());
        self.txd_udp_src_port.next = self.out.val().get_bits::<16>(self.d_udp_sport.val().index());
        self.txd_ip_dst.next = self.out.val().get_bits::<128>(self.d_ip.val().index());
        self.txd_ip_src.next = self.port_ipv4.val();
        if self.txd_ipv6.val() {
            self.txd_ip_src.next = self.port_ipv6.val();
        }
        self.txd_pkey.next = self.out.val().get_bits::<16>(self.d_pkey.val().index());
        self.txd_atomic_value.next = self.out.val().get_bits::<64>(self.d_atomic_value.val().index());
        self.txd_atomic_compare.next = self.out.val().get_bits::<64>(self.d_atomic_compare.val().index());

        self.wqes.next = self.wqe_count.q.val();
        self.wqe_errors.next = self.error_count.q.val();
        self.resent.next = self.resent_count.q.val();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rnic_spec::regs::{registers, Access};

    #[test]
    fn stage_words_are_the_qp_blocks_control_registers_in_order() {
        let qp = rnic_spec::regs::block("qp").unwrap();
        let staged: Vec<&str> = qp.regs.iter().filter(|r| r.access == Access::Control).map(|r| r.name).collect();
        assert_eq!(staged.len(), QP_STAGE_WORDS);
        let ctx = rnic_spec::qp::QpContext::default();
        let names: Vec<&str> = ctx.registers().iter().map(|r| r.0).collect();
        assert_eq!(names, staged);
        assert!(registers(Access::Control).len() >= QP_STAGE_WORDS);
    }
}
