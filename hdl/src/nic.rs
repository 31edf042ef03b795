//! The NIC top, `rnic_nic`: the BAR0 register file, the receive pipeline, the RC requester,
//! responder and completer, and the transmit engine around one Ethernet port, with the card's
//! AXI4 master port for DMA.
//!
//! ```text
//!  BAR0 (AXI4-Lite) ─► Csr ─► port control and addresses, qp / mr / cq staging + commits,
//!                       │     doorbell.sq / .rq ─► Requester, Responder, Completer, MrTable ×2
//!                       ▲ status_sel / status_value: counters
//!  Requester (WQEs, payload) ┬─► read arbiter ─► DmaRead ⇄ AXI4 read channels (dma_ar*, dma_r*)
//!  Responder (receive WQEs) ─┘                            ⇄ host memory
//!  Responder (payload) ┬─► write arbiter ─► DmaWrite ⇄ AXI4 write channels (dma_aw*, dma_w*, dma_b*)
//!  Completer (CQEs)   ─┘
//!  Responder ACK/NAK ─┬─► TX arbiter ─► RoceTx ─► MAC tx (tx_*)
//!  Requester ─────────┤   (whole packets: a descriptor, then its payload beats)
//!  txd_* / txp_* ─────┘
//!  MAC rx (rx_*) ─► RoceRx ─► Responder (requests) ─► Completer (acknowledges, receive completions)
//!                         └─► not-RoCE frames (host_*); rxd_*: a monitor of what is taken
//! ```
//!
//! `txd_*` / `txp_*` is a second packet source beside the requester and the responder (the
//! simulator uses it to put arbitrary packets on the link).

use crate::csr::{Csr, N_STATUS};
use crate::dma::mr_table::MrTable;
use crate::dma::read::DmaRead;
use crate::dma::write::DmaWrite;
use crate::roce::completer::Completer;
use crate::roce::read_table::ReadTable;
use crate::roce::responder::Responder;
use crate::roce::response_tx::ResponseTx;
use crate::roce::requester::{Requester, QP_STAGE_WORDS};
use crate::roce::rx::{RoceRx, NUM_COUNTERS};
use crate::roce::tx::RoceTx;
use crate::roce::tx_header::LEN_BITS;
use crate::stream::c;
use rnic_spec::regs::{BAR0_ADDR_BITS, PORT_CONTROL_FCS, QP_SLOT_BITS};
use rust_hdl::prelude::*;

/// Status indexes (`regs::registers(Access::Status)` order): the receive counters (accepted,
/// one per drop reason, no_buffer), then frames sent, WQEs sent, WQEs refused, packets resent,
/// then the QPs in error (eight words), the responder's seventeen, the completer's ten.
const RX_STATUS: usize = NUM_COUNTERS + 1;
const QP_STATUS: usize = RX_STATUS + 4;
const RSP_STATUS: usize = QP_STATUS + 8;
const CPL_STATUS: usize = RSP_STATUS + 25;
const _: () = assert!(N_STATUS == CPL_STATUS + 10, "status registers: receive, transmit, responder, completer counters");

/// Positions in `regs::registers(Access::Control)` and `(Access::Command)` the top wires by
/// literal index (rust-hdl indexes arrays by literals only); a test checks them against the map.
pub const CONTROL_PORT: usize = 0;
pub const CONTROL_QP: usize = 8;
pub const CONTROL_MR: usize = CONTROL_QP + QP_STAGE_WORDS;
pub const COMMAND_QP: usize = 0;
pub const COMMAND_MR: usize = 1;
pub const COMMAND_SQ_DOORBELL: usize = 2;
pub const COMMAND_RQ_DOORBELL: usize = 3;
pub const COMMAND_CQ_DOORBELL: usize = 4;
pub const COMMAND_CQ: usize = 5;
pub const CONTROL_CQ: usize = CONTROL_MR + 6;
pub const CONTROL_PUSH: usize = CONTROL_CQ + 3;
pub const COMMAND_PUSH_SQ: usize = 6;

crate::pack_word! { lsb_first Mac48: 48 { lo: 32, hi: 16 } }
crate::pack_word! { lsb_first Ipv4Wide: 128 { addr: 32 } }
crate::pack_word! { msb_first Ipv6Word: 128 { w0: 32, w1: 32, w2: 32, w3: 32 } }
crate::pack_word! { lsb_first Addr64: 64 { lo: 32, hi: 32 } }
crate::pack_word! {
    /// The payload beat of an inline packet: its 16 inline bytes, byte 0 first.
    lsb_first InlineBeat: 512 { low: 64, high: 64 }
}
crate::pack_word! {
    /// A send WQE pushed through BAR0 (`push.wqe_0` ... `wqe_15`), byte 0 first.
    lsb_first PushWqe: 512 { w0: 32, w1: 32, w2: 32, w3: 32, w4: 32, w5: 32, w6: 32, w7: 32, w8: 32, w9: 32, w10: 32, w11: 32, w12: 32, w13: 32, w14: 32, w15: 32 }
}

crate::hdl_block! {
    pub struct Nic {
        pub clock: Signal<In, Clock>,
        pub bar_awvalid: Signal<In, Bit>,
        pub bar_awready: Signal<Out, Bit>,
        pub bar_awaddr: Signal<In, Bits<BAR0_ADDR_BITS>>,
        pub bar_wvalid: Signal<In, Bit>,
        pub bar_wready: Signal<Out, Bit>,
        pub bar_wdata: Signal<In, Bits<32>>,
        pub bar_wstrb: Signal<In, Bits<4>>,
        pub bar_bvalid: Signal<Out, Bit>,
        pub bar_bready: Signal<In, Bit>,
        pub bar_bresp: Signal<Out, Bits<2>>,
        pub bar_arvalid: Signal<In, Bit>,
        pub bar_arready: Signal<Out, Bit>,
        pub bar_araddr: Signal<In, Bits<BAR0_ADDR_BITS>>,
        pub bar_rvalid: Signal<Out, Bit>,
        pub bar_rready: Signal<In, Bit>,
        pub bar_rdata: Signal<Out, Bits<32>>,
        pub bar_rresp: Signal<Out, Bits<2>>,
        /// DMA: the read half of the AXI4 master (INCR bursts of 64-byte beats, ID 0).
        pub dma_arvalid: Signal<Out, Bit>,
        pub dma_arready: Signal<In, Bit>,
        pub dma_araddr: Signal<Out, Bits<64>>,
        pub dma_arlen: Signal<Out, Bits<8>>,
        pub dma_rvalid: Signal<In, Bit>,
        pub dma_rready: Signal<Out, Bit>,
        pub dma_rdata: Signal<In, Bits<512>>,
        pub dma_rresp: Signal<In, Bits<2>>,
        /// DMA: the write half.
        pub dma_awvalid: Signal<Out, Bit>,
        pub dma_awready: Signal<In, Bit>,
        pub dma_awaddr: Signal<Out, Bits<64>>,
        pub dma_awlen: Signal<Out, Bits<8>>,
        pub dma_wvalid: Signal<Out, Bit>,
        pub dma_wready: Signal<In, Bit>,
        pub dma_wdata: Signal<Out, Bits<512>>,
        pub dma_wstrb: Signal<Out, Bits<64>>,
        pub dma_wlast: Signal<Out, Bit>,
        pub dma_bvalid: Signal<In, Bit>,
        pub dma_bready: Signal<Out, Bit>,
        pub dma_bresp: Signal<In, Bits<2>>,

        /// MAC receive stream (no ready: a MAC cannot wait).
        pub rx_valid: Signal<In, Bit>,
        pub rx_data: Signal<In, Bits<512>>,
        pub rx_keep: Signal<In, Bits<64>>,
        pub rx_last: Signal<In, Bit>,
        pub rx_user: Signal<In, Bit>,
        /// MAC transmit stream: whole frames.
        pub tx_valid: Signal<Out, Bit>,
        pub tx_ready: Signal<In, Bit>,
        pub tx_data: Signal<Out, Bits<512>>,
        pub tx_keep: Signal<Out, Bits<64>>,
        pub tx_last: Signal<Out, Bit>,

        /// A second packet source (see `RoceTx`): descriptors and payload.
        pub txd_valid: Signal<In, Bit>,
        pub txd_ready: Signal<Out, Bit>,
        pub txd_eth_dst: Signal<In, Bits<48>>,
        pub txd_eth_src: Signal<In, Bits<48>>,
        pub txd_vlan: Signal<In, Bit>,
        pub txd_vlan_tci: Signal<In, Bits<16>>,
        pub txd_ipv6: Signal<In, Bit>,
        pub txd_ip_src: Signal<In, Bits<128>>,
        pub txd_ip_dst: Signal<In, Bits<128>>,
        pub txd_dscp: Signal<In, Bits<6>>,
        pub txd_ecn: Signal<In, Bits<2>>,
        pub txd_ttl: Signal<In, Bits<8>>,
        pub txd_flow_label: Signal<In, Bits<20>>,
        pub txd_udp_src_port: Signal<In, Bits<16>>,
        pub txd_opcode: Signal<In, Bits<8>>,
        pub txd_se: Signal<In, Bit>,
        pub txd_pkey: Signal<In, Bits<16>>,
        pub txd_dest_qp: Signal<In, Bits<24>>,
        pub txd_ack_req: Signal<In, Bit>,
        pub txd_psn: Signal<In, Bits<24>>,
        pub txd_va: Signal<In, Bits<64>>,
        pub txd_rkey: Signal<In, Bits<32>>,
        pub txd_dma_len: Signal<In, Bits<32>>,
        pub txd_imm: Signal<In, Bits<32>>,
        pub txd_aeth_syndrome: Signal<In, Bits<8>>,
        pub txd_aeth_msn: Signal<In, Bits<24>>,
        pub txd_atomic_value: Signal<In, Bits<64>>,
        pub txd_atomic_compare: Signal<In, Bits<64>>,
        pub txd_payload_len: Signal<In, Bits<LEN_BITS>>,
        pub txp_valid: Signal<In, Bit>,
        pub txp_ready: Signal<Out, Bit>,
        pub txp_data: Signal<In, Bits<512>>,

        /// Monitor of the accepted frames the responder takes (see `RoceRx`): a record or a
        /// payload beat is shown in the cycle it is taken.
        pub rxd_rec_valid: Signal<Out, Bit>,
        pub rxd_rec_word0: Signal<Out, Bits<512>>,
        pub rxd_rec_word1: Signal<Out, Bits<512>>,
        pub rxd_pl_valid: Signal<Out, Bit>,
        pub rxd_pl_data: Signal<Out, Bits<512>>,
        pub rxd_pl_keep: Signal<Out, Bits<64>>,
        pub rxd_pl_last: Signal<Out, Bit>,
        /// Frames that are not RoCE v2.
        pub host_valid: Signal<Out, Bit>,
        pub host_data: Signal<Out, Bits<512>>,
        pub host_keep: Signal<Out, Bits<64>>,
        pub host_last: Signal<Out, Bit>,
        pub host_user: Signal<Out, Bit>,
        /// Sticky internal-assumption failure of the receive pipeline.
        pub fault: Signal<Out, Bit>,

        csr: Csr,
        rx: RoceRx,
        tx: RoceTx,
        req: Requester,
        rsp: Responder,
        /// The READs this card's send queues have outstanding (requester in, responder out).
        rdt: ReadTable,
        rtx: ResponseTx,
        mrs: MrTable,
        rsp_mrs: MrTable,
        rd: DmaRead,
        wr: DmaWrite,
        cpl: Completer,
        cq_base: Addr64,
        /// Write arbiter: whose command holds the write engine's data input, and which
        /// commands' `done` belong to the completer (in command order).
        w_busy: DFF<Bit>,
        w_cpl: DFF<Bit>,
        w_rtx: DFF<Bit>,
        wo_rtx: DFF<Bit>,
        w_sel_rtx: Signal<Local, Bit>,
        w_done_rtx: Signal<Local, Bit>,
        w_left: DFF<Bits<8>>,
        wo_valid: DFF<Bit>,
        wo_cpl: DFF<Bit>,
        wo_addr: DFF<Bits<64>>,
        wo_len: DFF<Bits<16>>,
        w_owner: crate::ram_fifo::RamFifo<8, 7, 1, 1, 1>,
        /// The responder's payload writes wait here for the write engine.
        rsp_wq: crate::dma::write_queue::WriteQueue,
        w_owner_tail: DFF<Bits<8>>,
        /// Read arbiter: the owner (1: responder) of each command whose data is still to come.
        r_owner: crate::ram_fifo::RamFifo<6, 5, 1, 1, 1>,
        r_owner_tail: DFF<Bits<6>>,
        r_owner_depth: Constant<Bits<6>> = c::<6>(32),
        one6: Constant<Bits<6>> = c::<6>(1),
        r_sel_rsp: Signal<Local, Bit>,
        r_sel_rtx: Signal<Local, Bit>,
        r_to_rtx: Signal<Local, Bit>,
        r_room: Signal<Local, Bit>,
        r_issue: Signal<Local, Bit>,
        r_to_rsp: Signal<Local, Bit>,
        w_sel_cpl: Signal<Local, Bit>,
        w_load: Signal<Local, Bit>,
        w_handed: Signal<Local, Bit>,
        w_may: Signal<Local, Bit>,
        w_owed: Signal<Local, Bits<8>>,
        w_beats: Signal<Local, Bits<16>>,
        w_fire: Signal<Local, Bit>,
        w_done_cpl: Signal<Local, Bit>,
        cpl_len: Constant<Bits<16>> = c::<16>(rnic_spec::desc::CQE_LEN as u64),
        beat_round16: Constant<Bits<16>> = c::<16>(63),
        one_owner: Constant<Bits<8>> = c::<8>(1),
        owner_depth: Constant<Bits<8>> = c::<8>(128),
        bit0: Constant<Bits<1>> = c::<1>(0),
        bit1: Constant<Bits<1>> = c::<1>(1),
        cpl_ids: [Constant<Bits<8>>; 10] = std::array::from_fn(|i| c::<8>((CPL_STATUS + i) as u64)),
        port_mac: Mac48,
        port_ipv4: Ipv4Wide,
        port_ipv6: Ipv6Word,
        push_wqe: PushWqe,
        mr_base: Addr64,
        tx_frames_id: Constant<Bits<8>> = c::<8>(RX_STATUS as u64),
        wqes_id: Constant<Bits<8>> = c::<8>(RX_STATUS as u64 + 1),
        wqe_errors_id: Constant<Bits<8>> = c::<8>(RX_STATUS as u64 + 2),
        resent_id: Constant<Bits<8>> = c::<8>(RX_STATUS as u64 + 3),
        qp_err_ids: [Constant<Bits<8>>; 8] = std::array::from_fn(|i| c::<8>((QP_STATUS + i) as u64)),
        /// Bit i: QP i was put in error by the card (`qp.errors_*`), until its next commit.
        qp_errors: DFF<Bits<256>>,
        err_set_rsp: Signal<Local, Bits<256>>,
        err_set_cpl: Signal<Local, Bits<256>>,
        err_clear: Signal<Local, Bits<256>>,
        one256: Constant<Bits<256>> = c::<256>(1),
        zero256: Constant<Bits<256>> = c::<256>(0),
        rsp_ids: [Constant<Bits<8>>; 25] = std::array::from_fn(|i| c::<8>((RSP_STATUS + i) as u64)),
        zero32: Constant<Bits<32>> = c::<32>(0),
        zero64: Constant<Bits<64>> = c::<64>(0),
        fcs_bit: Constant<Bits<32>> = c::<32>(PORT_CONTROL_FCS as u64),
        zero8: Constant<Bits<8>> = c::<8>(0),
        zero16: Constant<Bits<16>> = c::<16>(0),
        zero24: Constant<Bits<24>> = c::<24>(0),
        one8: Constant<Bits<8>> = c::<8>(1),
        beat_round: Constant<Bits<LEN_BITS>> = c::<LEN_BITS>(63),
        fcs_enable: Signal<Local, Bit>,

        /// TX arbiter: a packet's payload beats follow its descriptor from the same source.
        arb_busy: DFF<Bit>,
        arb_ext: DFF<Bit>,
        arb_rsp: DFF<Bit>,
        o_rsp: DFF<Bit>,
        arb_left: DFF<Bits<8>>,
        o_valid: DFF<Bit>,
        o_ext: DFF<Bit>,
        o_eth_dst: DFF<Bits<48>>,
        o_eth_src: DFF<Bits<48>>,
        o_vlan: DFF<Bit>,
        o_vlan_tci: DFF<Bits<16>>,
        o_ipv6: DFF<Bit>,
        o_ip_src: DFF<Bits<128>>,
        o_ip_dst: DFF<Bits<128>>,
        o_dscp: DFF<Bits<6>>,
        o_ecn: DFF<Bits<2>>,
        o_ttl: DFF<Bits<8>>,
        o_flow_label: DFF<Bits<20>>,
        o_udp_src_port: DFF<Bits<16>>,
        o_opcode: DFF<Bits<8>>,
        o_se: DFF<Bit>,
        o_pkey: DFF<Bits<16>>,
        o_dest_qp: DFF<Bits<24>>,
        o_ack_req: DFF<Bit>,
        o_psn: DFF<Bits<24>>,
        o_va: DFF<Bits<64>>,
        o_rkey: DFF<Bits<32>>,
        o_dma_len: DFF<Bits<32>>,
        o_imm: DFF<Bits<32>>,
        o_aeth_syndrome: DFF<Bits<8>>,
        o_aeth_msn: DFF<Bits<24>>,
        o_atomic_value: DFF<Bits<64>>,
        o_atomic_compare: DFF<Bits<64>>,
        o_payload_len: DFF<Bits<LEN_BITS>>,
        /// The requester's packet carries its payload inline (in the atomic operand fields).
        o_inline: DFF<Bit>,
        /// The packet whose payload the arbiter collects is inline: the arbiter makes its one
        /// beat from the bytes latched when the descriptor was handed over (the output
        /// register already holds the next descriptor by then).
        arb_inline: DFF<Bit>,
        arb_il_low: DFF<Bits<64>>,
        arb_il_high: DFF<Bits<64>>,
        il_beat: InlineBeat,
        sel_ext: Signal<Local, Bit>,
        sel_rsp: Signal<Local, Bit>,
        any_valid: Signal<Local, Bit>,
        load: Signal<Local, Bit>,
        handed: Signal<Local, Bit>,
        pl_fire: Signal<Local, Bit>,
        arb_beats: Signal<Local, Bits<LEN_BITS>>,
    }
}

impl Logic for Nic {
    #[hdl_gen]
    fn update(&mut self) {
        dff_setup!(self, clock, r_owner_tail, w_busy, w_cpl, w_rtx, wo_rtx, w_left, wo_valid, wo_cpl, wo_addr, wo_len, w_owner_tail, arb_busy, arb_ext, arb_rsp, qp_errors, o_rsp, arb_left, o_valid, o_ext, o_eth_dst, o_eth_src, o_vlan, o_vlan_tci, o_ipv6, o_ip_src, o_ip_dst, o_dscp, o_ecn, o_ttl, o_flow_label, o_udp_src_port, o_opcode, o_se, o_pkey, o_dest_qp, o_ack_req, o_psn, o_va, o_rkey, o_dma_len, o_imm, o_aeth_syndrome, o_aeth_msn, o_atomic_value, o_atomic_compare, o_payload_len, o_inline, arb_inline, arb_il_low, arb_il_high);
        self.csr.clock.next = self.clock.val();
        self.csr.awvalid.next = self.bar_awvalid.val();
        self.bar_awready.next = self.csr.awready.val();
        self.csr.awaddr.next = self.bar_awaddr.val();
        self.csr.wvalid.next = self.bar_wvalid.val();
        self.bar_wready.next = self.csr.wready.val();
        self.csr.wdata.next = self.bar_wdata.val();
        self.csr.wstrb.next = self.bar_wstrb.val();
        self.bar_bvalid.next = self.csr.bvalid.val();
        self.csr.bready.next = self.bar_bready.val();
        self.bar_bresp.next = self.csr.bresp.val();
        self.csr.arvalid.next = self.bar_arvalid.val();
        self.bar_arready.next = self.csr.arready.val();
        self.csr.araddr.next = self.bar_araddr.val();
        self.bar_rvalid.next = self.csr.rvalid.val();
        self.csr.rready.next = self.bar_rready.val();
        self.bar_rdata.next = self.csr.rdata.val();
        self.bar_rresp.next = self.csr.rresp.val();
        // control[0] is port.control (a test checks; index expressions must be literals).
        self.fcs_enable.next = (self.csr.control[0].val() & self.fcs_bit.val()).any();

        // Status: receive counters by index, then the transmit side's.
        self.rx.counter_sel.next = self.csr.status_sel.val().get_bits::<5>(0);
        self.csr.status_value.next = self.rx.counter.val();
        if self.csr.status_sel.val() == self.tx_frames_id.val() {
            self.csr.status_value.next = self.tx.frames.val();
        }
        if self.csr.status_sel.val() == self.wqes_id.val() {
            self.csr.status_value.next = self.req.wqes.val();
        }
        if self.csr.status_sel.val() == self.wqe_errors_id.val() {
            self.csr.status_value.next = self.req.wqe_errors.val();
        }
        if self.csr.status_sel.val() == self.resent_id.val() {
            self.csr.status_value.next = self.req.resent.val();
        }
        if self.csr.status_sel.val() == self.qp_err_ids[0].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(0);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[1].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(32);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[2].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(64);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[3].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(96);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[4].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(128);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[5].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(160);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[6].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(192);
        }
        if self.csr.status_sel.val() == self.qp_err_ids[7].val() {
            self.csr.status_value.next = self.qp_errors.q.val().get_bits::<32>(224);
        }
        if self.csr.status_sel.val() == self.rsp_ids[0].val() {
            self.csr.status_value.next = self.rsp.placed.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[1].val() {
            self.csr.status_value.next = self.rsp.acks.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[2].val() {
            self.csr.status_value.next = self.rsp.naks_seq.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[3].val() {
            self.csr.status_value.next = self.rsp.naks_invalid.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[4].val() {
            self.csr.status_value.next = self.rsp.naks_access.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[5].val() {
            self.csr.status_value.next = self.rsp.duplicates.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[6].val() {
            self.csr.status_value.next = self.rsp.bad_qp.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[7].val() {
            self.csr.status_value.next = self.rsp.set_aside.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[8].val() {
            self.csr.status_value.next = self.rsp.naks_rnr.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[9].val() {
            self.csr.status_value.next = self.rsp.naks_operational.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[10].val() {
            self.csr.status_value.next = self.rsp.receives.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[11].val() {
            self.csr.status_value.next = self.rsp.rq_wait_cycles.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[12].val() {
            self.csr.status_value.next = self.rsp.bad_source.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[13].val() {
            self.csr.status_value.next = self.rsp.mr_epoch.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[14].val() {
            self.csr.status_value.next = self.rsp.mr_fence.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[15].val() {
            self.csr.status_value.next = self.rtx.responses.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[16].val() {
            self.csr.status_value.next = self.rtx.read_errors.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[17].val() {
            self.csr.status_value.next = self.rsp.read_placed.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[18].val() {
            self.csr.status_value.next = self.rsp.read_dropped.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[19].val() {
            self.csr.status_value.next = self.rsp.implied_naks.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[20].val() {
            self.csr.status_value.next = self.rtx.atomics.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[21].val() {
            self.csr.status_value.next = self.rtx.atomic_replays.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[22].val() {
            self.csr.status_value.next = self.rtx.atomic_unanswered.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[23].val() {
            self.csr.status_value.next = self.rtx.reads_replaced.val();
        }
        if self.csr.status_sel.val() == self.rsp_ids[24].val() {
            self.csr.status_value.next = self.rsp.out_of_sequence.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[0].val() {
            self.csr.status_value.next = self.cpl.acks.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[1].val() {
            self.csr.status_value.next = self.cpl.naks.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[2].val() {
            self.csr.status_value.next = self.cpl.cqes.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[3].val() {
            self.csr.status_value.next = self.cpl.unexpected.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[4].val() {
            self.csr.status_value.next = self.cpl.cq_overflows.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[5].val() {
            self.csr.status_value.next = self.cpl.naks_sequence.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[6].val() {
            self.csr.status_value.next = self.cpl.naks_rnr.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[7].val() {
            self.csr.status_value.next = self.cpl.timeouts.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[8].val() {
            self.csr.status_value.next = self.cpl.rewinds.val();
        }
        if self.csr.status_sel.val() == self.cpl_ids[9].val() {
            self.csr.status_value.next = self.cpl.retries_exceeded.val();
        }

        // The requester: port addresses, QP staging and commits, doorbells.
        self.port_mac.lo.next = self.csr.control[1].val();
        self.port_mac.hi.next = self.csr.control[2].val().get_bits::<16>(0);
        self.port_ipv4.addr.next = self.csr.control[3].val();
        self.port_ipv6.w0.next = self.csr.control[4].val();
        self.port_ipv6.w1.next = self.csr.control[5].val();
        self.port_ipv6.w2.next = self.csr.control[6].val();
        self.port_ipv6.w3.next = self.csr.control[7].val();
        self.req.clock.next = self.clock.val();
        self.req.port_mac.next = self.port_mac.word.val();
        self.req.port_ipv4.next = self.port_ipv4.word.val();
        self.req.port_ipv6.next = self.port_ipv6.word.val();
        for i in 0..QP_STAGE_WORDS {
            self.req.qp_stage[i].next = self.csr.control[i + 8].val();
        }
        self.req.qp_commit_valid.next = self.csr.command_valid[0].val();
        self.req.qp_commit.next = self.csr.command[0].val();
        // A pushed WQE's doorbell is a send-queue doorbell too (one BAR write at a time: the
        // two never pulse together).
        self.req.sq_doorbell_valid.next = self.csr.command_valid[2].val() | self.csr.command_valid[6].val();
        self.req.sq_doorbell.next = self.csr.command[2].val();
        if self.csr.command_valid[6].val() {
            self.req.sq_doorbell.next = self.csr.command[6].val();
        }
        self.req.push_valid.next = self.csr.command_valid[6].val();
        self.push_wqe.w0.next = self.csr.control[44].val();
        self.push_wqe.w1.next = self.csr.control[45].val();
        self.push_wqe.w2.next = self.csr.control[46].val();
        self.push_wqe.w3.next = self.csr.control[47].val();
        self.push_wqe.w4.next = self.csr.control[48].val();
        self.push_wqe.w5.next = self.csr.control[49].val();
        self.push_wqe.w6.next = self.csr.control[50].val();
        self.push_wqe.w7.next = self.csr.control[51].val();
        self.push_wqe.w8.next = self.csr.control[52].val();
        self.push_wqe.w9.next = self.csr.control[53].val();
        self.push_wqe.w10.next = self.csr.control[54].val();
        self.push_wqe.w11.next = self.csr.control[55].val();
        self.push_wqe.w12.next = self.csr.control[56].val();
        self.push_wqe.w13.next = self.csr.control[57].val();
        self.push_wqe.w14.next = self.csr.control[58].val();
        self.push_wqe.w15.next = self.csr.control[59].val();
        self.req.push_wqe.next = self.push_wqe.word.val();

        // Memory regions: staged, committed into the slot of the key's low bits.
        self.mr_base.lo.next = self.csr.control[36].val();
        self.mr_base.hi.next = self.csr.control[37].val();
        self.mrs.clock.next = self.clock.val();
        self.mrs.cfg_wr.next = self.csr.command_valid[1].val();
        self.mrs.cfg_slot.next = self.csr.control[35].val().get_bits::<8>(0);
        self.mrs.cfg_valid.next = self.csr.command[1].val().get_bit(0);
        self.mrs.cfg_key.next = self.csr.control[35].val();
        self.mrs.cfg_base.next = self.mr_base.word.val();
        self.mrs.cfg_length.next = self.csr.control[38].val();
        self.mrs.cfg_access.next = self.csr.control[39].val().get_bits::<4>(0);
        self.mrs.cfg_pd.next = self.csr.control[40].val().get_bits::<16>(0);
        self.rsp_mrs.clock.next = self.clock.val();
        self.rsp_mrs.cfg_wr.next = self.csr.command_valid[1].val();
        self.rsp_mrs.cfg_slot.next = self.csr.control[35].val().get_bits::<8>(0);
        self.rsp_mrs.cfg_valid.next = self.csr.command[1].val().get_bit(0);
        self.rsp_mrs.cfg_key.next = self.csr.control[35].val();
        self.rsp_mrs.cfg_base.next = self.mr_base.word.val();
        self.rsp_mrs.cfg_length.next = self.csr.control[38].val();
        self.rsp_mrs.cfg_access.next = self.csr.control[39].val().get_bits::<4>(0);
        self.rsp_mrs.cfg_pd.next = self.csr.control[40].val().get_bits::<16>(0);
        self.mrs.chk_valid.next = self.req.mr_valid.val();
        self.mrs.chk_key.next = self.req.mr_key.val();
        self.mrs.chk_pd.next = self.req.mr_pd.val();
        self.mrs.chk_addr.next = self.req.mr_addr.val();
        self.mrs.chk_len.next = self.req.mr_len.val();
        self.mrs.chk_need.next = self.req.mr_need.val();
        self.mrs.chk_tag.next = self.zero16.val();
        self.req.mr_res_valid.next = self.mrs.res_valid.val();
        self.req.mr_res_error.next = self.mrs.res_error.val();
        self.mrs.fast_key.next = self.req.mr_fast_key.val();
        self.mrs.fast_addr.next = self.req.mr_fast_addr.val();
        self.mrs.fast_len.next = self.req.mr_fast_len.val();
        self.req.mr_fast_hit.next = self.mrs.fast_hit.val();
        self.req.mr_fast_pd.next = self.mrs.fast_pd.val();
        self.req.mr_fast_access.next = self.mrs.fast_access.val();

        // The responder: accepted packets in, payload writes and ACK / NAK descriptors out.
        self.rsp.clock.next = self.clock.val();
        for i in 0..QP_STAGE_WORDS {
            self.rsp.qp_stage[i].next = self.csr.control[i + 8].val();
        }
        self.rsp.qp_commit_valid.next = self.csr.command_valid[0].val();
        self.rsp.qp_commit.next = self.csr.command[0].val();
        self.rsp.rq_doorbell_valid.next = self.csr.command_valid[3].val();
        self.rsp.rq_doorbell.next = self.csr.command[3].val();
        self.rsp.rec_valid.next = self.rx.out_rec_valid.val();
        self.rx.out_rec_ready.next = self.rsp.rec_ready.val();
        self.rsp.rec_word0.next = self.rx.out_rec_word0.val();
        self.rsp.rec_word1.next = self.rx.out_rec_word1.val();
        self.rsp.mr_commit.next = self.csr.command_valid[1].val();
        self.rsp.pl_valid.next = self.rx.out_pl_valid.val();
        self.rx.out_pl_ready.next = self.rsp.pl_ready.val();
        self.rsp.pl_data.next = self.rx.out_pl_data.val();
        self.rsp.pl_last.next = self.rx.out_pl_last.val();
        self.rsp_mrs.chk_valid.next = self.rsp.mr_valid.val();
        self.rsp_mrs.chk_key.next = self.rsp.mr_key.val();
        self.rsp_mrs.chk_pd.next = self.rsp.mr_pd.val();
        self.rsp_mrs.chk_addr.next = self.rsp.mr_addr.val();
        self.rsp_mrs.chk_len.next = self.rsp.mr_len.val();
        self.rsp_mrs.chk_need.next = self.rsp.mr_need.val();
        self.rsp_mrs.chk_tag.next = self.rsp.mr_tag.val();
        self.rsp.mr_res_valid.next = self.rsp_mrs.res_valid.val();
        self.rsp.mr_res_error.next = self.rsp_mrs.res_error.val();
        self.rsp.mr_res_tag.next = self.rsp_mrs.res_tag.val();
        self.rsp_mrs.fast_key.next = self.rsp.mr_fast_key.val();
        self.rsp_mrs.fast_addr.next = self.rsp.mr_fast_addr.val();
        self.rsp_mrs.fast_len.next = self.rsp.mr_fast_len.val();
        self.rsp.mr_fast_hit.next = self.rsp_mrs.fast_hit.val();
        self.rsp.mr_fast_pd.next = self.rsp_mrs.fast_pd.val();
        self.rsp.mr_fast_access.next = self.rsp_mrs.fast_access.val();
        // QPs the card put in error: set by the responder's and the completer's reports,
        // cleared by the QP's commit.
        self.err_set_rsp.next = self.zero256.val();
        if self.rsp.broke_valid.val() {
            self.err_set_rsp.next = self.one256.val() << self.rsp.broke_qp.val();
        }
        self.err_set_cpl.next = self.zero256.val();
        if self.cpl.broke_valid.val() {
            self.err_set_cpl.next = self.one256.val() << self.cpl.broke_qp.val();
        }
        self.err_clear.next = self.zero256.val();
        if self.csr.command_valid[0].val() & (self.csr.command[0].val().get_bits::<24>(8) == self.zero24.val()) {
            self.err_clear.next = self.one256.val() << self.csr.command[0].val().get_bits::<8>(0);
        }
        self.qp_errors.d.next = (self.qp_errors.q.val() | self.err_set_rsp.val() | self.err_set_cpl.val()) & !self.err_clear.val();
        // The responder's answers: acknowledges and READ responses from its queue's head.
        self.rtx.clock.next = self.clock.val();
        self.rtx.job_valid.next = self.rsp.ack_valid.val();
        self.rsp.ack_ready.next = self.rtx.job_done.val();
        self.rtx.job_kind.next = self.rsp.ack_kind.val();
        self.rtx.job_qp.next = self.rsp.ack_qp.val();
        self.rtx.job_cas.next = self.rsp.ack_cas.val();
        self.rtx.job_value.next = self.rsp.ack_value.val();
        self.rtx.job_compare.next = self.rsp.ack_compare.val();
        self.rtx.qp_commit_valid.next = self.csr.command_valid[0].val();
        self.rtx.qp_commit.next = self.csr.command[0].val().get_bits::<QP_SLOT_BITS>(0);
        self.rtx.job_syndrome.next = self.rsp.ack_syndrome.val();
        self.rtx.job_psn.next = self.rsp.ack_psn.val();
        self.rtx.job_msn.next = self.rsp.ack_msn.val();
        self.rtx.job_va.next = self.rsp.ack_va.val();
        self.rtx.job_len.next = self.rsp.ack_len.val();
        self.rtx.job_pmtu.next = self.rsp.ack_pmtu.val();
        self.rtx.job_mid.next = self.rsp.ack_mid.val();
        self.rtx.job_kept.next = self.rsp.ack_kept.val();
        self.rtx.job_slot.next = self.rsp.ack_slot.val();
        self.rtx.job_gen.next = self.rsp.ack_gen.val();
        self.rtx.check_gens.next = self.rsp.check_gens.val();
        self.rtx.q_head.next = self.rsp.ack_head.val();
        self.rtx.q_tail.next = self.rsp.ack_tail.val();
        self.rsp.ahead_at.next = self.rtx.ahead_at.val();
        self.rtx.ahead_va.next = self.rsp.ahead_va.val();
        self.rtx.ahead_len.next = self.rsp.ahead_len.val();
        self.rtx.ahead_pmtu.next = self.rsp.ahead_pmtu.val();
        self.rtx.ahead_kind.next = self.rsp.ahead_kind.val();
        self.rtx.ahead_released.next = self.rsp.ahead_released.val();
        // The completer: ACKs from the responder's path, sent events from the requester.
        self.cq_base.lo.next = self.csr.control[41].val();
        self.cq_base.hi.next = self.csr.control[42].val();
        self.cpl.clock.next = self.clock.val();
        self.cpl.qp_commit_valid.next = self.csr.command_valid[0].val();
        self.cpl.qp_commit.next = self.csr.command[0].val();
        self.cpl.qp_send_cq.next = self.csr.control[29].val();
        self.cpl.qp_recv_cq.next = self.csr.control[33].val();
        self.cpl.qp_retry.next = self.csr.control[34].val();
        self.cpl.qp_sq_psn.next = self.csr.control[23].val();
        self.cpl.cq_commit_valid.next = self.csr.command_valid[5].val();
        self.cpl.cq_commit.next = self.csr.command[5].val();
        self.cpl.cq_doorbell_valid.next = self.csr.command_valid[4].val();
        self.cpl.cq_doorbell.next = self.csr.command[4].val();
        self.cpl.cq_base.next = self.cq_base.word.val();
        self.cpl.cq_log_size.next = self.csr.control[43].val();
        self.cpl.sent_valid.next = self.req.sent_valid.val();
        self.cpl.sent_qp.next = self.req.sent_qp.val();
        self.cpl.sent_signaled.next = self.req.sent_signaled.val();
        self.cpl.sent_end_psn.next = self.req.sent_end_psn.val();
        self.cpl.sent_read.next = self.req.sent_read.val();
        // Outstanding READs: appended by the requester, placed and popped by the responder.
        self.rdt.clock.next = self.clock.val();
        self.rdt.qp_commit_valid.next = self.csr.command_valid[0].val();
        self.rdt.qp_commit.next = self.csr.command[0].val();
        self.rdt.ap_valid.next = self.req.rd_ap_valid.val();
        self.rdt.ap_qp.next = self.req.rd_ap_qp.val();
        self.rdt.ap_tail.next = self.req.rd_ap_tail.val();
        self.rdt.ap_entry.next = self.req.rd_ap_entry.val();
        self.rdt.req_qp.next = self.req.rd_head_qp.val();
        self.req.rd_head.next = self.rdt.req_head.val();
        self.rdt.pop_valid.next = self.rsp.rt_pop_valid.val();
        self.rdt.pop_qp.next = self.rsp.rt_pop_qp.val();
        self.rdt.pop_head.next = self.rsp.rt_pop_head.val();
        self.rdt.rsp_qp.next = self.rsp.rt_tail_qp.val();
        self.rsp.rt_tail.next = self.rdt.rsp_tail.val();
        self.rdt.rsp_slot_qp.next = self.rsp.rt_slot_qp.val();
        self.rdt.rsp_slot.next = self.rsp.rt_slot.val();
        self.rsp.rt_entry.next = self.rdt.rsp_entry.val();
        self.cpl.err_valid.next = self.req.err_valid.val();
        self.req.err_ready.next = self.cpl.err_ready.val();
        self.cpl.err_status.next = self.req.err_status.val();
        self.cpl.ack_valid.next = self.rsp.cpl_valid.val();
        self.rsp.cpl_ready.next = self.cpl.ack_ready.val();
        self.cpl.ack_qp.next = self.rsp.cpl_qp.val();
        self.cpl.ack_syndrome.next = self.rsp.cpl_syndrome.val();
        self.cpl.ack_msn.next = self.rsp.cpl_msn.val();
        self.cpl.ack_psn.next = self.rsp.cpl_psn.val();
        self.cpl.ack_kind.next = self.rsp.cpl_kind.val();
        self.cpl.touch_valid.next = self.rsp.rr_touch.val();
        self.cpl.touch_qp.next = self.rsp.rt_pop_qp.val();
        self.rsp.qp_broken.next = self.qp_errors.q.val();
        // Go-back-N: the completer rewinds the requester's send queues.
        self.req.rw_valid.next = self.cpl.rw_valid.val();
        self.cpl.rw_ready.next = self.req.rw_ready.val();
        self.req.rw_qp.next = self.cpl.rw_qp.val();
        self.req.rw_index.next = self.cpl.rw_index.val();
        self.req.rw_psn.next = self.cpl.rw_psn.val();
        self.req.rw_skip.next = self.cpl.rw_skip.val();
        self.req.rw_stop.next = self.cpl.rw_stop.val();
        self.req.done_valid.next = self.cpl.done_valid.val();
        self.req.done_qp.next = self.cpl.done_qp.val();
        self.req.done_index.next = self.cpl.done_index.val();
        self.cpl.claim.next = self.req.claim.val();
        self.cpl.claim_qp.next = self.req.claim_qp.val();
        self.cpl.rc_valid.next = self.rsp.rc_valid.val();
        self.rsp.rc_ready.next = self.cpl.rc_ready.val();
        self.cpl.rc_qp.next = self.rsp.rc_qp.val();
        self.cpl.rc_index.next = self.rsp.rc_index.val();
        self.cpl.rc_len.next = self.rsp.rc_len.val();
        self.cpl.rc_imm.next = self.rsp.rc_imm.val();
        self.cpl.rc_op.next = self.rsp.rc_op.val();
        self.cpl.rc_status.next = self.rsp.rc_status.val();
        self.cpl.rc_flags.next = self.rsp.rc_flags.val();

        // Write arbiter: the responder's payload writes (queued in `rsp_wq`, so the responder
        // goes on to its next packet), the completer's CQEs and the atomic unit's writes share
        // the write engine a command at a time (the command waits in a register; its data beats
        // follow from the same source); `done` pulses go back to their owner in order. The
        // others go only while the responder's queue is empty: a receive CQE then follows every
        // payload write queued before it (one AXI ID: the host sees them in order).
        self.wr.clock.next = self.clock.val();
        self.w_owner.clock.next = self.clock.val();
        self.rsp_wq.clock.next = self.clock.val();
        self.rsp_wq.cmd_valid.next = self.rsp.wr_valid.val();
        self.rsp.wr_ready.next = self.rsp_wq.cmd_ready.val();
        self.rsp_wq.cmd_addr.next = self.rsp.wr_addr.val();
        self.rsp_wq.cmd_len.next = self.rsp.wr_len.val();
        self.rsp_wq.in_valid.next = self.rsp.wd_valid.val();
        self.rsp.wd_ready.next = self.rsp_wq.in_ready.val();
        self.rsp_wq.in_data.next = self.rsp.wd_data.val();
        self.w_sel_cpl.next = self.rsp_wq.idle.val() & self.cpl.wr_valid.val();
        self.w_sel_rtx.next = self.rsp_wq.idle.val() & !self.cpl.wr_valid.val() & self.rtx.wr_valid.val();
        // The next command may go while the beats of those before it still flow when all are
        // the responder's (its queue gives their beats in order); another writer's command
        // waits until they have gone (its beats come from elsewhere).
        // (And while the owner FIFO, one entry per command awaiting its `done`, has room: the
        // engine can owe 130 `done`s, more than its 128 entries.)
        self.w_may.next = (!self.w_busy.q.val() | (!self.w_cpl.q.val() & !self.w_rtx.q.val() & !self.wo_cpl.q.val() & !self.wo_rtx.q.val()))
            & ((self.w_owner_tail.q.val() - self.w_owner.head.val()) != self.owner_depth.val());
        self.w_handed.next = self.wo_valid.q.val() & self.w_may.val() & self.wr.cmd_ready.val();
        self.w_load.next = !self.wo_valid.q.val() | self.w_handed.val();
        self.rsp_wq.out_cmd_ready.next = self.w_load.val() & !self.w_sel_cpl.val() & !self.w_sel_rtx.val();
        self.cpl.wr_ready.next = self.w_load.val() & self.w_sel_cpl.val();
        self.rtx.wr_ready.next = self.w_load.val() & self.w_sel_rtx.val();
        if self.w_handed.val() {
            self.wo_valid.d.next = false;
        }
        if self.w_load.val() & (self.rsp_wq.out_cmd_valid.val() | self.w_sel_cpl.val() | self.w_sel_rtx.val()) {
            self.wo_valid.d.next = true;
            self.wo_cpl.d.next = self.w_sel_cpl.val();
            self.wo_rtx.d.next = self.w_sel_rtx.val();
            self.wo_addr.d.next = self.rsp_wq.out_cmd_addr.val();
            self.wo_len.d.next = self.rsp_wq.out_cmd_len.val();
            if self.w_sel_cpl.val() {
                self.wo_addr.d.next = self.cpl.wr_addr.val();
                self.wo_len.d.next = self.cpl_len.val();
            }
            if self.w_sel_rtx.val() {
                self.wo_addr.d.next = self.rtx.wr_addr.val();
                self.wo_len.d.next = self.rtx.wr_len.val();
            }
        }
        // (Spelled out, not `w_may`: a Local shared with `w_handed`, which reads the engine's
        // ready, would tie this valid to it; see DESIGN.md on UNOPTFLAT.)
        self.wr.cmd_valid.next = self.wo_valid.q.val()
            & (!self.w_busy.q.val() | (!self.w_cpl.q.val() & !self.w_rtx.q.val() & !self.wo_cpl.q.val() & !self.wo_rtx.q.val()))
            & ((self.w_owner_tail.q.val() - self.w_owner.head.val()) != self.owner_depth.val());
        self.wr.cmd_addr.next = self.wo_addr.q.val();
        self.wr.cmd_len.next = self.wo_len.q.val();
        self.w_beats.next = (self.wo_len.q.val() + self.beat_round16.val()) >> 6;
        self.w_owner.wr_en.next = self.w_handed.val();
        self.w_owner.wr_addr.next = self.w_owner_tail.q.val().get_bits::<7>(0);
        self.w_owner.wr_a.next = self.bit0.val();
        if self.wo_cpl.q.val() {
            self.w_owner.wr_a.next = self.bit1.val();
        }
        self.w_owner.wr_b.next = self.bit0.val();
        if self.wo_rtx.q.val() {
            self.w_owner.wr_b.next = self.bit1.val();
        }
        self.w_owner.wr_c.next = self.bit0.val();
        self.w_owner.tail.next = self.w_owner_tail.q.val();
        if self.w_handed.val() {
            self.w_owner_tail.d.next = self.w_owner_tail.q.val() + self.one_owner.val();
        }
        self.wr.in_valid.next = self.w_busy.q.val() & self.rsp_wq.out_valid.val();
        self.wr.in_data.next = self.rsp_wq.out_data.val();
        if self.w_cpl.q.val() {
            self.wr.in_valid.next = self.w_busy.q.val() & self.cpl.wd_valid.val();
            self.wr.in_data.next = self.cpl.wd_data.val();
        }
        if self.w_rtx.q.val() {
            self.wr.in_valid.next = self.w_busy.q.val() & self.rtx.wd_valid.val();
            self.wr.in_data.next = self.rtx.wd_data.val();
        }
        self.rsp_wq.out_ready.next = self.w_busy.q.val() & !self.w_cpl.q.val() & !self.w_rtx.q.val() & self.wr.in_ready.val();
        self.cpl.wd_ready.next = self.w_busy.q.val() & self.w_cpl.q.val() & self.wr.in_ready.val();
        self.rtx.wd_ready.next = self.w_busy.q.val() & self.w_rtx.q.val() & self.wr.in_ready.val();
        self.w_fire.next = self.w_busy.q.val() & self.wr.in_ready.val() & self.rsp_wq.out_valid.val();
        if self.w_cpl.q.val() {
            self.w_fire.next = self.w_busy.q.val() & self.wr.in_ready.val() & self.cpl.wd_valid.val();
        }
        if self.w_rtx.q.val() {
            self.w_fire.next = self.w_busy.q.val() & self.wr.in_ready.val() & self.rtx.wd_valid.val();
        }
        // Beats owed for the commands handed: less the one taken now, plus a new command's.
        self.w_owed.next = self.w_left.q.val();
        if self.w_fire.val() {
            self.w_owed.next = self.w_left.q.val() - self.one8.val();
        }
        if !self.w_busy.q.val() {
            self.w_owed.next = self.zero8.val();
        }
        self.w_left.d.next = self.w_owed.val();
        if self.w_fire.val() & (self.w_left.q.val() == self.one8.val()) {
            self.w_busy.d.next = false;
        }
        if self.w_handed.val() {
            self.w_cpl.d.next = self.wo_cpl.q.val();
            self.w_rtx.d.next = self.wo_rtx.q.val();
            self.w_left.d.next = self.w_owed.val() + self.w_beats.val().get_bits::<8>(0);
            self.w_busy.d.next = (self.w_owed.val() + self.w_beats.val().get_bits::<8>(0)) != self.zero8.val();
        }
        self.w_done_cpl.next = self.w_owner.out_valid.val() & self.w_owner.out_a.val().any();
        self.w_owner.out_ready.next = self.wr.done.val();
        self.w_done_rtx.next = self.w_owner.out_valid.val() & self.w_owner.out_b.val().any();
        self.rsp.wr_done.next = self.wr.done.val() & !self.w_done_cpl.val() & !self.w_done_rtx.val();
        self.rtx.wr_done.next = self.wr.done.val() & self.w_done_rtx.val();
        self.dma_awvalid.next = self.wr.awvalid.val();
        self.wr.awready.next = self.dma_awready.val();
        self.dma_awaddr.next = self.wr.awaddr.val();
        self.dma_awlen.next = self.wr.awlen.val();
        self.dma_wvalid.next = self.wr.wvalid.val();
        self.wr.wready.next = self.dma_wready.val();
        self.dma_wdata.next = self.wr.wdata.val();
        self.dma_wstrb.next = self.wr.wstrb.val();
        self.dma_wlast.next = self.wr.wlast.val();
        self.wr.bvalid.next = self.dma_bvalid.val();
        self.dma_bready.next = self.wr.bready.val();
        self.wr.bresp.next = self.dma_bresp.val();

        // Read arbiter: the requester's and the responder's reads share the read engine a
        // command at a time (the responder first: its reads hold up the receive path); the
        // data comes back in command order, to the owner at the head of the owner queue.
        self.rd.clock.next = self.clock.val();
        self.r_owner.clock.next = self.clock.val();
        self.r_sel_rsp.next = self.rsp.rd_valid.val();
        self.r_sel_rtx.next = !self.rsp.rd_valid.val() & self.rtx.rd_valid.val();
        self.r_room.next = (self.r_owner_tail.q.val() - self.r_owner.head.val()) != self.r_owner_depth.val();
        // (The room condition is spelled out in each use: a local shared between a valid and
        // the matching ready makes Verilator see a loop, see the requester.)
        self.rd.cmd_valid.next = (self.rsp.rd_valid.val() | self.rtx.rd_valid.val() | self.req.rd_valid.val())
            & ((self.r_owner_tail.q.val() - self.r_owner.head.val()) != self.r_owner_depth.val());
        self.rsp.rd_ready.next = self.rd.cmd_ready.val() & ((self.r_owner_tail.q.val() - self.r_owner.head.val()) != self.r_owner_depth.val());
        self.rtx.rd_ready.next = self.rd.cmd_ready.val()
            & ((self.r_owner_tail.q.val() - self.r_owner.head.val()) != self.r_owner_depth.val())
            & !self.rsp.rd_valid.val();
        self.req.rd_ready.next = self.rd.cmd_ready.val()
            & ((self.r_owner_tail.q.val() - self.r_owner.head.val()) != self.r_owner_depth.val())
            & !self.rsp.rd_valid.val()
            & !self.rtx.rd_valid.val();
        self.rd.cmd_addr.next = self.req.rd_addr.val();
        self.rd.cmd_len.next = self.req.rd_len.val();
        if self.r_sel_rtx.val() {
            self.rd.cmd_addr.next = self.rtx.rd_addr.val();
            self.rd.cmd_len.next = self.rtx.rd_len.val();
        }
        if self.r_sel_rsp.val() {
            self.rd.cmd_addr.next = self.rsp.rd_addr.val();
            self.rd.cmd_len.next = self.rsp.rd_len.val();
        }
        self.r_issue.next = self.rd.cmd_ready.val()
            & self.r_room.val()
            & (self.rsp.rd_valid.val() | self.rtx.rd_valid.val() | self.req.rd_valid.val());
        // Owner of each command: a = the responder's WQE prefetch, b = READ responses, else the
        // requester.
        self.r_owner.wr_en.next = self.r_issue.val();
        self.r_owner.wr_addr.next = self.r_owner_tail.q.val().get_bits::<5>(0);
        self.r_owner.wr_a.next = self.bit0.val();
        if self.r_sel_rsp.val() {
            self.r_owner.wr_a.next = self.bit1.val();
        }
        self.r_owner.wr_b.next = self.bit0.val();
        if self.r_sel_rtx.val() {
            self.r_owner.wr_b.next = self.bit1.val();
        }
        self.r_owner.wr_c.next = self.bit0.val();
        self.r_owner.tail.next = self.r_owner_tail.q.val();
        if self.r_issue.val() {
            self.r_owner_tail.d.next = self.r_owner_tail.q.val() + self.one6.val();
        }
        self.r_to_rsp.next = self.r_owner.out_valid.val() & self.r_owner.out_a.val().any();
        self.r_to_rtx.next = self.r_owner.out_valid.val() & self.r_owner.out_b.val().any();
        self.dma_arvalid.next = self.rd.arvalid.val();
        self.rd.arready.next = self.dma_arready.val();
        self.dma_araddr.next = self.rd.araddr.val();
        self.dma_arlen.next = self.rd.arlen.val();
        self.rd.rvalid.next = self.dma_rvalid.val();
        self.dma_rready.next = self.rd.rready.val();
        self.rd.rdata.next = self.dma_rdata.val();
        self.rd.rresp.next = self.dma_rresp.val();
        self.req.rdd_valid.next =
            self.rd.out_valid.val() & self.r_owner.out_valid.val() & !self.r_owner.out_a.val().any() & !self.r_owner.out_b.val().any();
        self.rtx.rdd_valid.next = self.rd.out_valid.val() & self.r_owner.out_valid.val() & self.r_owner.out_b.val().any();
        self.rsp.rdd_valid.next = self.rd.out_valid.val() & self.r_owner.out_valid.val() & self.r_owner.out_a.val().any();
        self.rd.out_ready.next = self.r_owner.out_valid.val() & self.req.rdd_ready.val();
        if self.r_to_rsp.val() {
            self.rd.out_ready.next = self.r_owner.out_valid.val() & self.rsp.rdd_ready.val();
        }
        if self.r_to_rtx.val() {
            self.rd.out_ready.next = self.r_owner.out_valid.val() & self.rtx.rdd_ready.val();
        }
        self.rtx.rdd_data.next = self.rd.out_data.val();
        self.rtx.rdd_error.next = self.rd.out_error.val();
        self.r_owner.out_ready.next = self.rd.out_valid.val() & self.rd.out_last.val() & self.rd.out_ready.val();
        self.req.rdd_data.next = self.rd.out_data.val();
        self.req.rdd_last.next = self.rd.out_last.val();
        self.req.rdd_error.next = self.rd.out_error.val();
        self.rsp.rdd_data.next = self.rd.out_data.val();
        self.rsp.rdd_error.next = self.rd.out_error.val();

        self.rx.clock.next = self.clock.val();
        self.rx.fcs_enable.next = self.fcs_enable.val();
        self.rx.in_valid.next = self.rx_valid.val();
        self.rx.in_data.next = self.rx_data.val();
        self.rx.in_keep.next = self.rx_keep.val();
        self.rx.in_last.next = self.rx_last.val();
        self.rx.in_user.next = self.rx_user.val();
        self.rxd_rec_valid.next = self.rx.out_rec_valid.val() & self.rsp.rec_ready.val();
        self.rxd_rec_word0.next = self.rx.out_rec_word0.val();
        self.rxd_rec_word1.next = self.rx.out_rec_word1.val();
        self.rxd_pl_valid.next = self.rx.out_pl_valid.val() & self.rsp.pl_ready.val();
        self.rxd_pl_data.next = self.rx.out_pl_data.val();
        self.rxd_pl_keep.next = self.rx.out_pl_keep.val();
        self.rxd_pl_last.next = self.rx.out_pl_last.val();
        self.host_valid.next = self.rx.host_valid.val();
        self.host_data.next = self.rx.host_data.val();
        self.host_keep.next = self.rx.host_keep.val();
        self.host_last.next = self.rx.host_last.val();
        self.host_user.next = self.rx.host_user.val();
        self.fault.next = self.rx.fault.val();

        // TX arbiter: responses first, then the requester, then the second source; a source keeps the engine's payload input from its
        // descriptor until that packet's last payload beat. The chosen descriptor waits in an
        // output register, so no combinational path runs from the engine's ready back to its
        // valid through a source.
        self.tx.clock.next = self.clock.val();
        self.tx.fcs_enable.next = self.fcs_enable.val();
        self.sel_rsp.next = self.rtx.d_valid.val();
        self.sel_ext.next = !self.rtx.d_valid.val() & !self.req.txd_valid.val() & self.txd_valid.val();
        self.any_valid.next = self.rtx.d_valid.val() | self.req.txd_valid.val() | self.txd_valid.val();
        self.handed.next = self.o_valid.q.val() & !self.arb_busy.q.val() & self.tx.hdr_ready.val();
        self.load.next = !self.o_valid.q.val() | self.handed.val();
        self.rtx.d_ready.next = self.load.val() & self.sel_rsp.val();
        self.req.txd_ready.next = self.load.val() & !self.sel_rsp.val() & !self.sel_ext.val();
        self.txd_ready.next = self.load.val() & self.sel_ext.val();
        if self.handed.val() {
            self.o_valid.d.next = false;
        }
        if self.load.val() & self.any_valid.val() {
            self.o_valid.d.next = true;
            self.o_ext.d.next = self.sel_ext.val();
            self.o_rsp.d.next = self.sel_rsp.val();
            self.o_eth_dst.d.next = self.req.txd_eth_dst.val();
            self.o_eth_src.d.next = self.req.txd_eth_src.val();
            self.o_vlan.d.next = self.req.txd_vlan.val();
            self.o_vlan_tci.d.next = self.req.txd_vlan_tci.val();
            self.o_ipv6.d.next = self.req.txd_ipv6.val();
            self.o_ip_src.d.next = self.req.txd_ip_src.val();
            self.o_ip_dst.d.next = self.req.txd_ip_dst.val();
            self.o_dscp.d.next = self.req.txd_dscp.val();
            self.o_ecn.d.next = self.req.txd_ecn.val();
            self.o_ttl.d.next = self.req.txd_ttl.val();
            self.o_flow_label.d.next = self.req.txd_flow_label.val();
            self.o_udp_src_port.d.next = self.req.txd_udp_src_port.val();
            self.o_opcode.d.next = self.req.txd_opcode.val();
            self.o_se.d.next = self.req.txd_se.val();
            self.o_pkey.d.next = self.req.txd_pkey.val();
            self.o_dest_qp.d.next = self.req.txd_dest_qp.val();
            self.o_ack_req.d.next = self.req.txd_ack_req.val();
            self.o_psn.d.next = self.req.txd_psn.val();
            self.o_va.d.next = self.req.txd_va.val();
            self.o_rkey.d.next = self.req.txd_rkey.val();
            self.o_dma_len.d.next = self.req.txd_dma_len.val();
            self.o_imm.d.next = self.req.txd_imm.val();
            self.o_aeth_syndrome.d.next = self.zero8.val();
            self.o_aeth_msn.d.next = self.zero24.val();
            self.o_atomic_value.d.next = self.req.txd_atomic_value.val();
            self.o_atomic_compare.d.next = self.req.txd_atomic_compare.val();
            self.o_payload_len.d.next = self.req.txd_payload_len.val();
            self.o_inline.d.next = self.req.txd_inline.val() & !self.sel_rsp.val() & !self.sel_ext.val();
            if self.sel_ext.val() {
                self.o_eth_dst.d.next = self.txd_eth_dst.val();
                self.o_eth_src.d.next = self.txd_eth_src.val();
                self.o_vlan.d.next = self.txd_vlan.val();
                self.o_vlan_tci.d.next = self.txd_vlan_tci.val();
                self.o_ipv6.d.next = self.txd_ipv6.val();
                self.o_ip_src.d.next = self.txd_ip_src.val();
                self.o_ip_dst.d.next = self.txd_ip_dst.val();
                self.o_dscp.d.next = self.txd_dscp.val();
                self.o_ecn.d.next = self.txd_ecn.val();
                self.o_ttl.d.next = self.txd_ttl.val();
                self.o_flow_label.d.next = self.txd_flow_label.val();
                self.o_udp_src_port.d.next = self.txd_udp_src_port.val();
                self.o_opcode.d.next = self.txd_opcode.val();
                self.o_se.d.next = self.txd_se.val();
                self.o_pkey.d.next = self.txd_pkey.val();
                self.o_dest_qp.d.next = self.txd_dest_qp.val();
                self.o_ack_req.d.next = self.txd_ack_req.val();
                self.o_psn.d.next = self.txd_psn.val();
                self.o_va.d.next = self.txd_va.val();
                self.o_rkey.d.next = self.txd_rkey.val();
                self.o_dma_len.d.next = self.txd_dma_len.val();
                self.o_imm.d.next = self.txd_imm.val();
                self.o_aeth_syndrome.d.next = self.txd_aeth_syndrome.val();
                self.o_aeth_msn.d.next = self.txd_aeth_msn.val();
                self.o_atomic_value.d.next = self.txd_atomic_value.val();
                self.o_atomic_compare.d.next = self.txd_atomic_compare.val();
                self.o_payload_len.d.next = self.txd_payload_len.val();
            }
            if self.sel_rsp.val() {
                self.o_eth_dst.d.next = self.rsp.ack_eth_dst.val();
                self.o_eth_src.d.next = self.port_mac.word.val();
                self.o_vlan.d.next = self.rsp.ack_vlan.val();
                self.o_vlan_tci.d.next = self.rsp.ack_vlan_tci.val();
                self.o_ipv6.d.next = self.rsp.ack_ipv6.val();
                self.o_ip_src.d.next = self.port_ipv4.word.val();
                if self.rsp.ack_ipv6.val() {
                    self.o_ip_src.d.next = self.port_ipv6.word.val();
                }
                self.o_ip_dst.d.next = self.rsp.ack_ip_dst.val();
                self.o_dscp.d.next = self.rsp.ack_dscp.val();
                self.o_ecn.d.next = self.rsp.ack_ecn.val();
                self.o_ttl.d.next = self.rsp.ack_ttl.val();
                self.o_flow_label.d.next = self.rsp.ack_flow_label.val();
                self.o_udp_src_port.d.next = self.rsp.ack_udp_src_port.val();
                self.o_opcode.d.next = self.rtx.d_opcode.val();
                self.o_se.d.next = false;
                self.o_pkey.d.next = self.rsp.ack_pkey.val();
                self.o_dest_qp.d.next = self.rsp.ack_dest_qp.val();
                self.o_ack_req.d.next = false;
                self.o_psn.d.next = self.rtx.d_psn.val();
                self.o_va.d.next = self.zero64.val();
                self.o_rkey.d.next = self.zero32.val();
                self.o_dma_len.d.next = self.zero32.val();
                self.o_imm.d.next = self.zero32.val();
                self.o_aeth_syndrome.d.next = self.rtx.d_syndrome.val();
                self.o_aeth_msn.d.next = self.rtx.d_msn.val();
                self.o_atomic_value.d.next = self.rtx.d_atomic.val();
                self.o_atomic_compare.d.next = self.zero64.val();
                self.o_payload_len.d.next = self.rtx.d_payload_len.val();
            }
        }
        self.tx.hdr_valid.next = self.o_valid.q.val() & !self.arb_busy.q.val();
        self.tx.hdr_eth_dst.next = self.o_eth_dst.q.val();
        self.tx.hdr_eth_src.next = self.o_eth_src.q.val();
        self.tx.hdr_vlan.next = self.o_vlan.q.val();
        self.tx.hdr_vlan_tci.next = self.o_vlan_tci.q.val();
        self.tx.hdr_ipv6.next = self.o_ipv6.q.val();
        self.tx.hdr_ip_src.next = self.o_ip_src.q.val();
        self.tx.hdr_ip_dst.next = self.o_ip_dst.q.val();
        self.tx.hdr_dscp.next = self.o_dscp.q.val();
        self.tx.hdr_ecn.next = self.o_ecn.q.val();
        self.tx.hdr_ttl.next = self.o_ttl.q.val();
        self.tx.hdr_flow_label.next = self.o_flow_label.q.val();
        self.tx.hdr_udp_src_port.next = self.o_udp_src_port.q.val();
        self.tx.hdr_opcode.next = self.o_opcode.q.val();
        self.tx.hdr_se.next = self.o_se.q.val();
        self.tx.hdr_pkey.next = self.o_pkey.q.val();
        self.tx.hdr_dest_qp.next = self.o_dest_qp.q.val();
        self.tx.hdr_ack_req.next = self.o_ack_req.q.val();
        self.tx.hdr_psn.next = self.o_psn.q.val();
        self.tx.hdr_va.next = self.o_va.q.val();
        self.tx.hdr_rkey.next = self.o_rkey.q.val();
        self.tx.hdr_dma_len.next = self.o_dma_len.q.val();
        self.tx.hdr_imm.next = self.o_imm.q.val();
        self.tx.hdr_aeth_syndrome.next = self.o_aeth_syndrome.q.val();
        self.tx.hdr_aeth_msn.next = self.o_aeth_msn.q.val();
        self.tx.hdr_atomic_value.next = self.o_atomic_value.q.val();
        self.tx.hdr_atomic_compare.next = self.o_atomic_compare.q.val();
        self.tx.hdr_payload_len.next = self.o_payload_len.q.val();
        // A descriptor handed over with payload makes the arbiter wait for that many beats.
        self.arb_beats.next = (self.o_payload_len.q.val() + self.beat_round.val()) >> 6;
        if self.handed.val() & (self.arb_beats.val().get_bits::<8>(0) != self.zero8.val()) {
            self.arb_busy.d.next = true;
            self.arb_ext.d.next = self.o_ext.q.val();
            self.arb_rsp.d.next = self.o_rsp.q.val();
            self.arb_left.d.next = self.arb_beats.val().get_bits::<8>(0);
            self.arb_inline.d.next = self.o_inline.q.val();
            self.arb_il_low.d.next = self.o_atomic_value.q.val();
            self.arb_il_high.d.next = self.o_atomic_compare.q.val();
        }
        self.il_beat.low.next = self.arb_il_low.q.val();
        self.il_beat.high.next = self.arb_il_high.q.val();
        self.tx.pl_valid.next = self.arb_busy.q.val() & self.req.txp_valid.val();
        self.tx.pl_data.next = self.req.txp_data.val();
        if self.arb_inline.q.val() {
            self.tx.pl_valid.next = self.arb_busy.q.val();
            self.tx.pl_data.next = self.il_beat.word.val();
        }
        if self.arb_ext.q.val() {
            self.tx.pl_valid.next = self.arb_busy.q.val() & self.txp_valid.val();
            self.tx.pl_data.next = self.txp_data.val();
        }
        if self.arb_rsp.q.val() {
            self.tx.pl_valid.next = self.arb_busy.q.val() & self.rtx.pl_valid.val();
            self.tx.pl_data.next = self.rtx.pl_data.val();
        }
        self.rtx.pl_ready.next = self.arb_busy.q.val() & self.arb_rsp.q.val() & self.tx.pl_ready.val();
        self.req.txp_ready.next =
            self.arb_busy.q.val() & !self.arb_ext.q.val() & !self.arb_rsp.q.val() & !self.arb_inline.q.val() & self.tx.pl_ready.val();
        self.txp_ready.next = self.arb_busy.q.val() & self.arb_ext.q.val() & self.tx.pl_ready.val();
        self.pl_fire.next = self.arb_busy.q.val() & self.tx.pl_ready.val() & self.req.txp_valid.val();
        if self.arb_inline.q.val() {
            self.pl_fire.next = self.arb_busy.q.val() & self.tx.pl_ready.val();
        }
        if self.arb_ext.q.val() {
            self.pl_fire.next = self.arb_busy.q.val() & self.tx.pl_ready.val() & self.txp_valid.val();
        }
        if self.arb_rsp.q.val() {
            self.pl_fire.next = self.arb_busy.q.val() & self.tx.pl_ready.val() & self.rtx.pl_valid.val();
        }
        if self.pl_fire.val() {
            self.arb_left.d.next = self.arb_left.q.val() - self.one8.val();
            if self.arb_left.q.val() == self.one8.val() {
                self.arb_busy.d.next = false;
            }
        }
        self.tx_valid.next = self.tx.out_valid.val();
        self.tx.out_ready.next = self.tx_ready.val();
        self.tx_data.next = self.tx.out_data.val();
        self.tx_keep.next = self.tx.out_keep.val();
        self.tx_last.next = self.tx.out_last.val();
    }
}

#[cfg(test)]
mod tests {
    use rnic_spec::regs::{addr, registers, Access};

    use super::*;

    #[test]
    fn literal_register_positions_match_the_map() {
        let control = registers(Access::Control);
        let at = |i: usize| Some(control[i].0);
        assert_eq!(at(CONTROL_PORT), addr("port", "control"));
        for (i, name) in ["mac_lo", "mac_hi", "ipv4", "ipv6_0", "ipv6_1", "ipv6_2", "ipv6_3"].iter().enumerate() {
            assert_eq!(at(CONTROL_PORT + 1 + i), addr("port", name), "port.{name}");
        }
        assert_eq!(at(CONTROL_QP), addr("qp", "state"));
        assert_eq!(at(CONTROL_QP + 20), addr("qp", "rq_psn"));
        assert_eq!(at(CONTROL_QP + 21), addr("qp", "send_cq"));
        assert_eq!(at(CONTROL_QP + 25), addr("qp", "recv_cq"));
        assert_eq!(at(CONTROL_QP + 26), addr("qp", "retry"));
        assert_eq!(CONTROL_QP + QP_STAGE_WORDS, CONTROL_MR);
        for (i, name) in ["base_lo", "base_hi", "log_size"].iter().enumerate() {
            assert_eq!(at(CONTROL_CQ + i), addr("cq", name), "cq.{name}");
        }
        assert_eq!(CONTROL_CQ, 41, "the literal indices in update()");
        assert_eq!(CONTROL_MR, 35, "the literal indices in update()");
        for (i, name) in ["key", "base_lo", "base_hi", "length", "access", "pd"].iter().enumerate() {
            assert_eq!(at(CONTROL_MR + i), addr("mr", name), "mr.{name}");
        }
        let command = registers(Access::Command);
        assert_eq!(Some(command[COMMAND_QP].0), addr("qp", "commit"));
        assert_eq!(Some(command[COMMAND_MR].0), addr("mr", "commit"));
        assert_eq!(Some(command[COMMAND_SQ_DOORBELL].0), addr("doorbell", "sq"));
        assert_eq!(Some(command[COMMAND_RQ_DOORBELL].0), addr("doorbell", "rq"));
        assert_eq!(Some(command[COMMAND_CQ_DOORBELL].0), addr("doorbell", "cq"));
        assert_eq!(Some(command[COMMAND_CQ].0), addr("cq", "commit"));
        assert_eq!(Some(command[COMMAND_PUSH_SQ].0), addr("push", "sq"));
        assert_eq!((CONTROL_PUSH, COMMAND_PUSH_SQ), (44, 6), "the literal indices in update()");
        for i in 0..16 {
            assert_eq!(at(CONTROL_PUSH + i), addr("push", &format!("wqe_{i}")), "push.wqe_{i}");
        }
        assert_eq!(control.len(), CONTROL_PUSH + 16);
        assert_eq!(registers(Access::Status)[RX_STATUS + 1].0, addr("tx_counters", "wqes").unwrap());
        assert_eq!(registers(Access::Status)[RX_STATUS + 3].0, addr("tx_counters", "resent").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 12].0, addr("responder", "bad_source").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 14].0, addr("responder", "mr_fence").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 16].0, addr("responder", "read_errors").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 19].0, addr("responder", "implied_naks").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 22].0, addr("responder", "atomic_unanswered").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 23].0, addr("responder", "reads_replaced").unwrap());
        assert_eq!(registers(Access::Status)[RSP_STATUS + 24].0, addr("responder", "out_of_sequence").unwrap());
        assert_eq!(registers(Access::Status)[QP_STATUS].0, addr("qp", "errors_0").unwrap());
        assert_eq!(registers(Access::Status)[QP_STATUS + 7].0, addr("qp", "errors_7").unwrap());
        assert_eq!(registers(Access::Status)[CPL_STATUS + 5].0, addr("completer", "naks_sequence").unwrap());
        assert_eq!(registers(Access::Status)[CPL_STATUS + 9].0, addr("completer", "retries_exceeded").unwrap());
    }
}
